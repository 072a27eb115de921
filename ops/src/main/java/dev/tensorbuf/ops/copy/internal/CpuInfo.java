package dev.tensorbuf.ops.copy.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What Java does not say about the CPU, read once from Linux's {@code /proc/cpuinfo}; elsewhere
 * unknown. The vendor decides how a kernel writes (how the memory system takes its stores); the
 * feature flags decide which code XLA's CPU backend makes, which {@code run} mirrors.
 */
public final class CpuInfo {
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final String VENDOR = read(CPUINFO, "vendor_id");
    private static final Set<String> FLAGS = Set.copyOf(java.util.Arrays.asList(read(CPUINFO, "flags").split("\\s+")));

    private CpuInfo() {
    }

    /** {@return whether the CPU's vendor is Intel ({@code GenuineIntel}); false where it cannot be read} */
    static boolean isIntel() {
        return "GenuineIntel".equals(VENDOR);
    }

    /**
     * {@return whether the CPU computes f16 arithmetic natively ({@code avx512_fp16}); false where it
     * cannot be read} Where it does, XLA's code (LLVM for the host) contracts an f16 multiply and
     * add into one fused multiply-add; elsewhere each f16 op is widened to f32 and rounded back on
     * its own (jax 0.10: 255.875 * -19.6875 - 17.75 is -5056 on an Intel Xeon with the flag, -5052
     * on an AMD EPYC without it).
     */
    public static boolean hasHalfArithmetic() {
        return FLAGS.contains("avx512_fp16");
    }

    /** {@return the first {@code key} value of a cpuinfo file, or empty where there is none} */
    static String read(Path cpuinfo, String key) {
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith(key) && l.substring(key.length()).strip().startsWith(":")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("");
        } catch (IOException | RuntimeException unreadable) {
            return "";   // not Linux, or no such file: the portable choice
        }
    }
}
