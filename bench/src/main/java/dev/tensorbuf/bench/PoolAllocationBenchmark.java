package dev.tensorbuf.bench;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Allocate, touch one byte, free: a {@link PooledAllocator} against a fresh
 * {@link Arena#ofConfined()} per buffer, for 64 B, 4 KiB and 1 MiB. Both ask for 64-byte
 * alignment. The arena also zeroes each new buffer and returns it to {@code free}; the pool hands
 * back a cached block as it is, which is the point of pooling.
 *
 * {@snippet lang=shell :
 * java --enable-native-access=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
 *     --sun-misc-unsafe-memory-access=allow \
 *     -jar bench/target/benchmarks.jar PoolAllocation -f 1 -wi 3 -i 5 -w 1 -r 1
 * # pool  size=4096     ~24 ns/op   arena ~66 ns/op
 * # pool  size=1048576  ~24 ns/op   arena ~11300 ns/op (malloc, zeroing and free of 1 MiB)   (bench/RESULTS.md, "Memory")
 * }
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// Forked JVMs do not inherit the jar manifest's flags; the last one silences JMH's own Unsafe warning.
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-opens",
        "java.base/jdk.internal.misc=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class PoolAllocationBenchmark {

    /** Bytes per buffer: 64 B, 4 KiB, 1 MiB. */
    @Param({"64", "4096", "1048576"})
    public long size;

    private PooledAllocator pool;

    /** Creates the pool and warms its size class with one block. */
    @Setup(Level.Trial)
    public void openPool() {
        pool = PooledAllocator.builder().name("bench").build();
        pool.allocate(size).close();
    }

    /** Frees the pool's memory. */
    @TearDown(Level.Trial)
    public void closePool() {
        pool.close();
    }

    /** {@return the buffer's address} Allocates from the pool, touches one byte, closes. */
    @Benchmark
    public long pool() {
        try (MemoryBuffer buffer = pool.allocate(size)) {
            MemorySegment segment = buffer.segment();
            segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            return segment.address();
        }
    }

    /** {@return the segment's address} Opens a confined arena, allocates, touches one byte, closes. */
    @Benchmark
    public long arena() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(size, 64);
            segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            return segment.address();
        }
    }
}
