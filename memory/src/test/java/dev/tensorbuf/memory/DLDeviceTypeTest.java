package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DLDeviceTypeTest {

    @Test
    void exampleFromJavadoc() {
        assertEquals(DLDeviceType.CUDA_HOST, DLDeviceType.ofCode(3));
        assertEquals("kDLCUDAHost", DLDeviceType.CUDA_HOST.cName());
        assertEquals(2, DLDeviceType.CUDA.code());
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
