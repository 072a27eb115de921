package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;

class DLDeviceTypeTest {

    @Test
    void exampleFromJavadoc() {
        assertEquals(DLDeviceType.CUDA_HOST, DLDeviceType.ofCode(3));
        assertEquals("kDLCUDAHost", DLDeviceType.CUDA_HOST.cName());
        assertEquals(2, DLDeviceType.CUDA.code());
        assertTrue(DLDeviceType.CUDA_HOST.isHost());
        assertTrue(DLDeviceType.CUDA.isDeviceOnly());
        assertFalse(DLDeviceType.CUDA_MANAGED.isHost() || DLDeviceType.CUDA_MANAGED.isDeviceOnly());
    }

    /** Which side of the bus each type's pointer is on decides which memory spaces may carry it. */
    @ParameterizedTest(name = "{0}: host {1}, device only {2}")
    @CsvSource({
        "CPU, true, false", "CUDA_HOST, true, false", "ROCM_HOST, true, false",
        "CUDA, false, true", "OPENCL, false, true", "VULKAN, false, true", "METAL, false, true",
        "VPI, false, true", "ROCM, false, true", "WEB_GPU, false, true", "HEXAGON, false, true",
        "MAIA, false, true", "TRN, false, true",
        "CUDA_MANAGED, false, false", "ONE_API, false, false", "EXT_DEV, false, false",
    })
    void eachTypeSaysWhetherItsMemoryIsTheHostsOrADevicesOnly(DLDeviceType type, boolean host, boolean deviceOnly) {
        assertEquals(host, type.isHost());
        assertEquals(deviceOnly, type.isDeviceOnly());
    }

    @ParameterizedTest(name = "{1} = {0}")
    @CsvSource({
        "1, kDLCPU", "2, kDLCUDA", "3, kDLCUDAHost", "4, kDLOpenCL", "7, kDLVulkan", "8, kDLMetal",
        "9, kDLVPI", "10, kDLROCM", "11, kDLROCMHost", "12, kDLExtDev", "13, kDLCUDAManaged",
        "14, kDLOneAPI", "15, kDLWebGPU", "16, kDLHexagon", "17, kDLMAIA", "18, kDLTrn",
    })
    void codesMatchDlpackHeader(int code, String cName) {
        DLDeviceType type = DLDeviceType.ofCode(code);
        assertEquals(cName, type.cName());
        assertEquals(code, type.code());
    }

    @ParameterizedTest
    @CsvSource({"0", "5", "6", "19", "-1"})
    void unknownCodesAreRejectedByValue(int code) {
        Expect.throwsWith(IllegalArgumentException.class, "unknown DLPack device type " + code,
                () -> DLDeviceType.ofCode(code));
    }
}
