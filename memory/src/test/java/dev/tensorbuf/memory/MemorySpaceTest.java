package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.MemorySpace.Kind;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;

class MemorySpaceTest {

    @Test
    void exampleFromJavadoc() {
        MemorySpace fast = MemorySpace.parse("S(1)");
        assertEquals(Kind.DEVICE_FAST, fast.kind());
        assertFalse(fast.hostAccessible());
        assertEquals("S(1)", fast.toXlaText());
        assertEquals("S(5)", MemorySpace.HOST.toXlaText());
        assertEquals(Optional.of(DLDeviceType.CUDA_HOST), MemorySpace.PINNED_HOST.dlpackDevice());
        assertEquals(3, MemorySpace.PINNED_HOST.dlpackDevice().orElseThrow().code());
        assertEquals(Kind.OTHER, MemorySpace.parse("S(7)").kind());
    }

    @Test
    void namedSpacesHaveXlaIdsKindsAndDlpackTypes() {
        assertEquals(new MemorySpace(5, Kind.HOST, 0, true, Optional.of(DLDeviceType.CPU)), MemorySpace.HOST);
        assertEquals(new MemorySpace(5, Kind.PINNED_HOST, 0, true, Optional.of(DLDeviceType.CUDA_HOST)),
                MemorySpace.PINNED_HOST);
        assertEquals(new MemorySpace(0, Kind.DEVICE, 0, false, Optional.of(DLDeviceType.CUDA)), MemorySpace.DEVICE);
        assertEquals(new MemorySpace(1, Kind.DEVICE_FAST, 0, false, Optional.empty()), MemorySpace.DEVICE_FAST);
        assertTrue(MemorySpace.DEVICE.isXlaDefault());
        assertFalse(MemorySpace.HOST.isXlaDefault());
    }

    @Test
    void parseGivesTheDefaultSpaceOfEachId() {
        assertSame(MemorySpace.DEVICE, MemorySpace.parse("S(0)"));
        assertSame(MemorySpace.DEVICE_FAST, MemorySpace.parse("S(1)"));
        assertSame(MemorySpace.HOST, MemorySpace.parse("S(5)"));
        MemorySpace other = MemorySpace.parse("S(3)");
        assertEquals(new MemorySpace(3, Kind.OTHER, 0, false, Optional.empty()), other);
        assertEquals(Long.MAX_VALUE, MemorySpace.parse("S(9223372036854775807)").xlaId());
    }

    @ParameterizedTest
    @CsvSource({"0", "1", "2", "5", "17", "123456789"})
    void printThenParseKeepsTheId(long id) {
        MemorySpace space = MemorySpace.ofXlaId(id);
        assertEquals("S(" + id + ")", space.toXlaText());
        assertEquals(space, MemorySpace.parse(space.toXlaText()));
    }

    @Test
    void pinnedHostReadsBackAsHostBecauseXlaHasOneHostId() {
        assertSame(MemorySpace.HOST, MemorySpace.parse(MemorySpace.PINNED_HOST.toXlaText()));
    }

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "\"\"                       | expected 'S(' at position 0 of ''",
        "S                          | expected 'S(' at position 0 of 'S'",
        "s(1)                       | expected 'S(' at position 0 of 's(1)'",
        "\" S(1)\"                  | expected 'S(' at position 0 of ' S(1)'",
        "S(                         | expected a digit at position 2 of 'S('",
        "S()                        | expected a digit at position 2 of 'S()'",
        "S(-1)                      | expected a digit at position 2 of 'S(-1)'",
        "S(+1)                      | expected a digit at position 2 of 'S(+1)'",
        "\"S( 1)\"                  | expected a digit at position 2 of 'S( 1)'",
        "S(1                        | expected ')' at position 3 of 'S(1'",
        "\"S(1 )\"                  | expected ')' at position 3 of 'S(1 )'",
        "S(1x)                      | expected ')' at position 3 of 'S(1x)'",
        "S(1))                      | unexpected text after the memory space at position 4 of 'S(1))'",
        "S(1)S(2)                   | unexpected text after the memory space at position 4 of 'S(1)S(2)'",
        "S(３)                      | '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 2 of 'S(３)'",
        "S(٣)                       | '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit at position 2 of 'S(٣)'",
        "S(1३)                      | '३' (U+0969 DEVANAGARI DIGIT THREE) is not an ASCII digit at position 3 of 'S(1३)'",
        "S(³)                       | '³' (U+00B3 SUPERSCRIPT THREE) is not an ASCII digit at position 2 of 'S(³)'",
        "S(01)                      | leading zero in memory space id at position 2 of 'S(01)'",
        "S(9223372036854775808)     | memory space id 9223372036854775808 does not fit in 64 bits at position 2",
    })
    void parseRejectsMalformedTextNamingPosition(String text, String message) {
        Expect.throwsWith(IllegalArgumentException.class, message, () -> MemorySpace.parse(text));
    }

    @Test
    void constructorRejectsContradictions() {
        Expect.throwsWith(IllegalArgumentException.class, "memory space id -1 must be >= 0",
                () -> MemorySpace.ofXlaId(-1));
        Expect.throwsWith(IllegalArgumentException.class, "device ordinal -2 must be >= 0",
                () -> MemorySpace.DEVICE.withDeviceOrdinal(-2));
        Expect.throwsWith(IllegalArgumentException.class, "DEVICE memory must have hostAccessible=false, got true",
                () -> new MemorySpace(0, Kind.DEVICE, 0, true, Optional.empty()));
        Expect.throwsWith(IllegalArgumentException.class, "HOST memory must have hostAccessible=true, got false",
                () -> new MemorySpace(5, Kind.HOST, 0, false, Optional.empty()));
    }

    /**
     * Each of these once constructed, and some crashed: device memory labelled kDLCPU exported
     * through DLPack as host memory, which our own importer then read on the host (SIGSEGV).
     */
    @ParameterizedTest(name = "S({0}) {1} ordinal {2} host {3} {4}")
    @CsvSource(delimiter = '|', value = {
        "0 | DEVICE      | 0 | false | CPU          | DEVICE memory with hostAccessible=false cannot have dlpackDevice kDLCPU: kDLCPU is host memory, which a DLPack consumer reads on the host",
        "0 | DEVICE      | 0 | false | ROCM_HOST    | DEVICE memory with hostAccessible=false cannot have dlpackDevice kDLROCMHost: kDLROCMHost is host memory",
        "9 | OTHER       | 0 | false | CPU          | OTHER memory with hostAccessible=false cannot have dlpackDevice kDLCPU",
        "9 | OTHER       | 0 | false | CUDA_HOST    | OTHER memory with hostAccessible=false cannot have dlpackDevice kDLCUDAHost",
        "5 | HOST        | 0 | true  | CUDA         | HOST memory with hostAccessible=true cannot have dlpackDevice kDLCUDA: kDLCUDA is a device's memory, which a DLPack consumer hands to the device",
        "9 | OTHER       | 0 | true  | CUDA         | OTHER memory with hostAccessible=true cannot have dlpackDevice kDLCUDA",
        "9 | OTHER       | 0 | true  | METAL        | OTHER memory with hostAccessible=true cannot have dlpackDevice kDLMetal",
        "5 | PINNED_HOST | 0 | true  | ROCM         | PINNED_HOST memory with hostAccessible=true cannot have dlpackDevice kDLROCM",
        "5 | HOST        | 0 | true  | CUDA_HOST    | HOST memory must have dlpackDevice kDLCPU, got kDLCUDAHost",
        "5 | HOST        | 0 | true  |              | HOST memory must have dlpackDevice kDLCPU, got none",
        "5 | PINNED_HOST | 0 | true  | CPU          | PINNED_HOST memory must have dlpackDevice kDLCUDAHost or kDLROCMHost, got kDLCPU",
        "1 | DEVICE_FAST | 0 | false | CUDA         | DEVICE_FAST memory must have no dlpackDevice (DLPack cannot describe on-device fast memory), got kDLCUDA",
        "0 | HOST        | 0 | true  | CPU          | HOST memory must have xlaId 5, got 0 (S(0) is DEVICE memory)",
        "5 | DEVICE      | 0 | false | CUDA         | DEVICE memory must have xlaId 0, got 5 (S(5) is HOST or PINNED_HOST memory)",
        "0 | DEVICE_FAST | 0 | false |              | DEVICE_FAST memory must have xlaId 1, got 0 (S(0) is DEVICE memory)",
        "7 | PINNED_HOST | 0 | true  | CUDA_HOST    | PINNED_HOST memory must have xlaId 5, got 7 (S(7) is OTHER memory)",
        "1 | OTHER       | 0 | false |              | OTHER memory must have an xlaId other than 0, 1 and 5, got 1 (S(1) is DEVICE_FAST memory)",
        "5 | HOST        | 3 | true  | CPU          | HOST memory must have deviceOrdinal 0, got 3",
    })
    void constructorRefusesSpacesThatContradictThemselves(long xlaId, Kind kind, int ordinal, boolean hostAccessible,
            DLDeviceType dlpack, String message) {
        Expect.throwsWith(IllegalArgumentException.class, message,
                () -> new MemorySpace(xlaId, kind, ordinal, hostAccessible, Optional.ofNullable(dlpack)));
    }

    @Test
    void hostMemoryHasNoDeviceOrdinalButPinnedMemoryMayNameItsDevice() {
        Expect.throwsWith(IllegalArgumentException.class, "HOST memory must have deviceOrdinal 0, got 3",
                () -> MemorySpace.HOST.withDeviceOrdinal(3));
        assertEquals(MemorySpace.HOST, MemorySpace.HOST.withDeviceOrdinal(0));
        // DLPack's importer keeps the device_id of kDLCUDAHost and kDLROCMHost memory.
        assertEquals(2, MemorySpace.PINNED_HOST.withDeviceOrdinal(2).deviceOrdinal());
        assertEquals(1, new MemorySpace(5, Kind.PINNED_HOST, 1, true, Optional.of(DLDeviceType.ROCM_HOST))
                .deviceOrdinal());
    }

    /** The factories and the parser build only spaces the constructor accepts. */
    @Test
    void everyFactoryAndParsedIdStillMakesASpace() {
        for (long id : new long[] {0, 1, 2, 3, 4, 5, 6, 7, 1000, Long.MAX_VALUE}) {
            assertEquals(id, MemorySpace.parse("S(" + id + ")").xlaId());
        }
        for (DLDeviceType type : DLDeviceType.values()) {
            if (!type.isHost()) {
                assertEquals(Optional.of(type), MemorySpace.device(type, 3).dlpackDevice());
            }
        }
        assertEquals(4, MemorySpace.DEVICE.withDeviceOrdinal(4).deviceOrdinal());
        assertEquals(4, MemorySpace.DEVICE_FAST.withDeviceOrdinal(4).deviceOrdinal());
        assertEquals(Kind.OTHER, new MemorySpace(7, Kind.OTHER, 0, false, Optional.of(DLDeviceType.CUDA)).kind());
        assertEquals(Kind.OTHER, new MemorySpace(7, Kind.OTHER, 0, true, Optional.of(DLDeviceType.ONE_API)).kind());
        assertEquals(Kind.DEVICE, new MemorySpace(0, Kind.DEVICE, 0, false, Optional.empty()).kind());
    }

    @Test
    void otherKindMayBeHostAccessibleLikeCudaManagedMemory() {
        var managed = new MemorySpace(2, Kind.OTHER, 1, true, Optional.of(DLDeviceType.CUDA_MANAGED));
        assertTrue(managed.hostAccessible());
        assertEquals("S(2) memory of kind OTHER, device 1, kDLCUDAManaged, host-accessible", managed.toString());
    }

    @Test
    void deviceMemoryOfATypeOnEitherSideIsNamedByItsType() {
        assertEquals("S(0) kDLCUDAManaged memory (host or device: Java treats it as device memory), device 2",
                MemorySpace.device(DLDeviceType.CUDA_MANAGED, 2).toString());
        assertEquals("S(0) kDLOneAPI memory (host or device: Java treats it as device memory)",
                MemorySpace.device(DLDeviceType.ONE_API, 0).describe());
        assertEquals("S(0) device memory (HBM)", MemorySpace.device(DLDeviceType.CUDA, 0).describe());
        assertEquals("S(0) device memory (HBM)", new MemorySpace(0, Kind.DEVICE, 0, false, Optional.empty()).describe());
    }

    @Test
    void devicesOfOtherOrdinalsAndTypes() {
        MemorySpace rocm1 = MemorySpace.device(DLDeviceType.ROCM, 1);
        assertEquals(0, rocm1.xlaId());
        assertEquals(1, rocm1.deviceOrdinal());
        assertEquals("S(0) device memory (HBM), device 1, kDLROCM", rocm1.toString());
        assertEquals(3, MemorySpace.DEVICE_FAST.withDeviceOrdinal(3).deviceOrdinal());
        assertEquals("S(1) on-device fast memory (VMEM), device 0, no DLPack device type",
                MemorySpace.DEVICE_FAST.toString());
        // Host types as device memory would hide memory Java may touch behind "not host-accessible".
        IllegalArgumentException cpu = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> MemorySpace.device(DLDeviceType.CPU, 0));
        assertEquals("kDLCPU is host memory, not device memory: use MemorySpace.HOST", cpu.getMessage());
        IllegalArgumentException pinned = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> MemorySpace.device(DLDeviceType.CUDA_HOST, 0));
        assertEquals("kDLCUDAHost is host memory, not device memory: use MemorySpace.PINNED_HOST", pinned.getMessage());
        NullPointerException none = org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class,
                () -> MemorySpace.device(null, 0));
        assertEquals("type", none.getMessage());
    }
}
