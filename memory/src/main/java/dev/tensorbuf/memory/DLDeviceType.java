package dev.tensorbuf.memory;

/**
 * DLPack's {@code DLDeviceType}: the kind of device a DLPack tensor's data pointer belongs to,
 * with the numeric codes of {@code dlpack.h} (identical in DLPack 1.1 and 1.3; 5 and 6 are unused).
 *
 * {@snippet :
 * DLDeviceType.ofCode(3);          // CUDA_HOST
 * DLDeviceType.CUDA_HOST.cName();  // "kDLCUDAHost"
 * DLDeviceType.CUDA.code();        // 2
 * DLDeviceType.CUDA_HOST.isHost(); // true: pinned host memory
 * DLDeviceType.CUDA.isDeviceOnly(); // true
 * DLDeviceType.CUDA_MANAGED.isHost() || DLDeviceType.CUDA_MANAGED.isDeviceOnly(); // false: either
 * }
 */
public enum DLDeviceType {
    /** {@code kDLCPU = 1}: ordinary host memory. */
    CPU(1, "kDLCPU", Reach.HOST),
    /** {@code kDLCUDA = 2}: CUDA device memory (formerly {@code kDLGPU}). */
    CUDA(2, "kDLCUDA", Reach.DEVICE),
    /** {@code kDLCUDAHost = 3}: pinned host memory from {@code cudaMallocHost} (formerly {@code kDLCPUPinned}). */
    CUDA_HOST(3, "kDLCUDAHost", Reach.HOST),
    /** {@code kDLOpenCL = 4}. */
    OPENCL(4, "kDLOpenCL", Reach.DEVICE),
    /** {@code kDLVulkan = 7}. */
    VULKAN(7, "kDLVulkan", Reach.DEVICE),
    /** {@code kDLMetal = 8}. */
    METAL(8, "kDLMetal", Reach.DEVICE),
    /** {@code kDLVPI = 9}. */
    VPI(9, "kDLVPI", Reach.DEVICE),
    /** {@code kDLROCM = 10}: ROCm/HIP device memory. */
    ROCM(10, "kDLROCM", Reach.DEVICE),
    /** {@code kDLROCMHost = 11}: pinned host memory from {@code hipMallocHost}. */
    ROCM_HOST(11, "kDLROCMHost", Reach.HOST),
    /** {@code kDLExtDev = 12}: reserved for experimental devices. */
    EXT_DEV(12, "kDLExtDev", Reach.EITHER),
    /** {@code kDLCUDAManaged = 13}: CUDA managed (unified) memory, usable from host and device. */
    CUDA_MANAGED(13, "kDLCUDAManaged", Reach.EITHER),
    /** {@code kDLOneAPI = 14}: Unified Shared Memory of oneAPI devices. */
    ONE_API(14, "kDLOneAPI", Reach.EITHER),
    /** {@code kDLWebGPU = 15}. */
    WEB_GPU(15, "kDLWebGPU", Reach.DEVICE),
    /** {@code kDLHexagon = 16}: Qualcomm Hexagon DSP. */
    HEXAGON(16, "kDLHexagon", Reach.DEVICE),
    /** {@code kDLMAIA = 17}: Microsoft MAIA devices. */
    MAIA(17, "kDLMAIA", Reach.DEVICE),
    /** {@code kDLTrn = 18}: AWS Trainium (added in DLPack 1.2). */
    TRN(18, "kDLTrn", Reach.DEVICE);

    /** Whose memory a type's data pointer addresses, as far as the host can tell from the type alone. */
    private enum Reach {
        /** The host's: Java may read it through a segment. */
        HOST,
        /** A device's only: dereferencing it on the host crashes, or reads other memory. */
        DEVICE,
        /** Either, depending on how it was allocated (managed or unified memory, experimental devices). */
        EITHER
    }

    private final int code;
    private final String cName;
    private final Reach reach;

    DLDeviceType(int code, String cName, Reach reach) {
        this.code = code;
        this.cName = cName;
        this.reach = reach;
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
     * {@return whether this type's memory is host memory, which Java may read: {@code kDLCPU}, and
     * the pinned {@code kDLCUDAHost} and {@code kDLROCMHost}} A consumer reads such a tensor on the
     * host, so it must never describe device memory.
     */
    public boolean isHost() {
        return reach == Reach.HOST;
    }

    /**
     * {@return whether this type's memory is a device's only, which the host must not dereference}
     * True for every type but the host ones and the three whose memory may be on either side:
     * {@code kDLCUDAManaged} (unified memory), {@code kDLOneAPI} (its shared memory is
     * host-accessible, its device memory is not) and {@code kDLExtDev} (experimental, unknown). A
     * consumer hands such a pointer to its device, so it must never describe host memory.
     */
    public boolean isDeviceOnly() {
        return reach == Reach.DEVICE;
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
