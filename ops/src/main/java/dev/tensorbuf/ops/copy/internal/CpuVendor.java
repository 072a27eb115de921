package dev.tensorbuf.ops.copy.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The CPU's vendor, where a kernel's choice depends on how the memory system takes its stores: read
 * once from Linux's {@code /proc/cpuinfo} ({@code vendor_id}); elsewhere unknown. Java names no
 * vendor of its own.
 */
final class CpuVendor {
    private static final String VENDOR = read(Path.of("/proc/cpuinfo"));

    private CpuVendor() {
    }

    /** {@return whether the CPU's vendor is Intel ({@code GenuineIntel}); false where it cannot be read} */
    static boolean isIntel() {
        return "GenuineIntel".equals(VENDOR);
    }

    /** {@return the first {@code vendor_id} value of a cpuinfo file, or empty where there is none} */
    static String read(Path cpuinfo) {
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("vendor_id")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("");
        } catch (IOException | RuntimeException unreadable) {
            return "";   // not Linux, or no such file: the portable choice
        }
    }
}
