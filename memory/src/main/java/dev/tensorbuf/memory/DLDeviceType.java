package dev.tensorbuf.memory;

/**
 * DLPack's {@code DLDeviceType}: the kind of device a DLPack tensor's data pointer belongs to,
 * with the numeric codes of {@code dlpack.h} (identical in DLPack 1.1 and 1.3; 5 and 6 are unused).
 *
 * {@snippet :
 * DLDeviceType.ofCode(3);          // CUDA_HOST
 * DLDeviceType.CUDA_HOST.cName();  // "kDLCUDAHost"
 * DLDeviceType.CUDA.code();        // 2
 * }
 */
public enum DLDeviceType {
    /** {@code kDLCPU = 1}: ordinary host memory. */
    CPU(1, "kDLCPU"),
    /** {@code kDLCUDA = 2}: CUDA device memory (formerly {@code kDLGPU}). */
    CUDA(2, "kDLCUDA"),
    /** {@code kDLCUDAHost = 3}: pinned host memory from {@code cudaMallocHost} (formerly {@code kDLCPUPinned}). */
    CUDA_HOST(3, "kDLCUDAHost"),
    /** {@code kDLOpenCL = 4}. */
    OPENCL(4, "kDLOpenCL"),
    /** {@code kDLVulkan = 7}. */
    VULKAN(7, "kDLVulkan"),
    /** {@code kDLMetal = 8}. */
    METAL(8, "kDLMetal"),
    /** {@code kDLVPI = 9}. */
    VPI(9, "kDLVPI"),
    /** {@code kDLROCM = 10}: ROCm/HIP device memory. */
    ROCM(10, "kDLROCM"),
    /** {@code kDLROCMHost = 11}: pinned host memory from {@code hipMallocHost}. */
    ROCM_HOST(11, "kDLROCMHost"),
    /** {@code kDLExtDev = 12}: reserved for experimental devices. */
    EXT_DEV(12, "kDLExtDev"),
    /** {@code kDLCUDAManaged = 13}: CUDA managed (unified) memory, usable from host and device. */
    CUDA_MANAGED(13, "kDLCUDAManaged"),
    /** {@code kDLOneAPI = 14}: Unified Shared Memory of oneAPI devices. */
    ONE_API(14, "kDLOneAPI"),
    /** {@code kDLWebGPU = 15}. */
    WEB_GPU(15, "kDLWebGPU"),
    /** {@code kDLHexagon = 16}: Qualcomm Hexagon DSP. */
    HEXAGON(16, "kDLHexagon"),
    /** {@code kDLMAIA = 17}: Microsoft MAIA devices. */
    MAIA(17, "kDLMAIA"),
    /** {@code kDLTrn = 18}: AWS Trainium (added in DLPack 1.2). */
    TRN(18, "kDLTrn");

    private final int code;
    private final String cName;

    DLDeviceType(int code, String cName) {
        this.code = code;
        this.cName = cName;
    }

    /** {@return the numeric value of this device type in {@code dlpack.h}} */
    public int code() {
        return code;
    }

    /** {@return the enumerator's name in {@code dlpack.h}, e.g. {@code "kDLCUDAHost"}} */
    public String cName() {
        return cName;
    }

    /**
     * {@return the device type with this {@code dlpack.h} code}
     *
     * @param code the numeric value, e.g. 2 for {@code kDLCUDA}
     * @throws IllegalArgumentException if no device type has that code
     */
    public static DLDeviceType ofCode(int code) {
        for (DLDeviceType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        throw new IllegalArgumentException(
                "unknown DLPack device type " + code + " (known codes: 1-4, 7-18)");
    }
}
