package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.internal.Sizes;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.internal.BoxFamilies;
import dev.tensorbuf.ops.copy.internal.BoxRuns;
import dev.tensorbuf.ops.copy.internal.BoxTable;
import dev.tensorbuf.ops.copy.internal.CopyExecutor;
import dev.tensorbuf.ops.copy.internal.EngineScratch;
import dev.tensorbuf.ops.copy.internal.EngineThreads;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.copy.internal.PointwiseSyntax;
import dev.tensorbuf.ops.copy.internal.PackedPieces;
import dev.tensorbuf.ops.copy.internal.PiecePairs;
import dev.tensorbuf.ops.copy.internal.Reach;
import dev.tensorbuf.ops.copy.internal.RefusedValue;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.copy.internal.SubByteStaging;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.internal.DomainBoxes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Copies and converts between any two layouts: plans once ({@link CopyPlan}), then runs the
 * plan's kernels, on several threads for steps above
 * 4 MiB by default. The Vector API kernels run when the module {@code jdk.incubator.vector} is
 * resolved (on the class path {@code --add-modules jdk.incubator.vector}; on the module path
 * {@code dev.tensorbuf.ops} requires it), else the scalar ones. Its settings are one
 * {@link Config}; {@link #explain} shows what a copy will do without doing it. An engine's helper threads are daemon
 * threads named {@code tensorbuf-copy-E-I}: E numbers the engines in the order they were made
 * (0 is {@link #defaults()}), I the helper. They start at the engine's first parallel copy and end
 * after 30 s without work. A helper that cannot start (a thread limit) leaves its share to the
 * threads that did, and is tried again a second later.
 * {@snippet :
 * TensorView a = TensorView.of(bufferA, "f32[32,64,112,112]{3,2,1,0}");   // NCHW
 * TensorView b = TensorView.of(bufferB, "f32[32,64,112,112]{1,3,2,0}");   // NHWC
 * CopyEngine.of(2).copy(a, b);
 * // b now holds a in NHWC order: 16x16 register-shuffle transposes on two threads
 * }
 */
public final class CopyEngine {
    /** The most threads an engine may have; {@link #of(int)} refuses more. */
    public static final int MAX_PARALLELISM = CopyExecutor.MAX_PARALLELISM;

    /**
     * The settings of the system properties, read once: where {@link #defaults()}, {@link #of(int)}
     * and its kin start from; null when a property is malformed, which {@link #SYSTEM_REFUSED} says.
     */
    private static final Config SYSTEM;
    private static final IllegalArgumentException SYSTEM_REFUSED;
    private static final CopyEngine DEFAULT;

    static {
        EngineThreads.install(engine -> engine.executor);
        Config system = null;
        IllegalArgumentException refused = null;
        try {
            system = Config.fromSystemProperties();
        } catch (IllegalArgumentException e) {
            // Told on every use, not as a class that failed to initialize (NoClassDefFoundError after the first).
            refused = e;
        }
        SYSTEM = system;
        SYSTEM_REFUSED = refused;
        DEFAULT = system == null ? null : new CopyEngine(system);
    }

    /** {@return the system properties' settings} @throws IllegalArgumentException naming a malformed property */
    private static Config system() {
        if (SYSTEM == null) {
            throw new IllegalArgumentException(SYSTEM_REFUSED.getMessage(), SYSTEM_REFUSED);
        }
        return SYSTEM;
    }

    private final CopyExecutor executor;
    private final Config config;

    private CopyEngine(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        this.executor = new CopyExecutor(config, this);
    }

    /**
     * An engine's settings: one immutable value, validated when made. {@link #of()} holds the
     * built-in defaults; {@link #fromSystemProperties()} is the one place the {@code tensorbuf.copy.*}
     * system properties are read (the command line's {@code -D} flags and {@code TENSORBUF_JAVA_OPTS}
     * reach the engine through it). Change one setting with its wither.
     * {@snippet :
     * CopyEngine engine = CopyEngine.of(CopyEngine.Config.of().withParallelism(4).withParallelThresholdBytes(1 << 20));
     * engine.threadsFor(2 << 20);   // 4
     * CopyEngine.Config.of().withParallelism(0);   // IllegalArgumentException: parallelism must be >= 1, got 0
     * }
     *
     * @param parallelism threads a large copy runs on, 1 to {@link #MAX_PARALLELISM}
     *     (property {@code tensorbuf.copy.parallelism}; default: the cores)
     * @param vectorKernels whether the Vector API kernels run where the module is present
     *     ({@code tensorbuf.copy.vector}; default true)
     * @param parallelThresholdBytes batches of steps moving fewer bytes (read plus written) run on
     *     the calling thread ({@code tensorbuf.copy.parallelThresholdBytes}; default 4 MiB)
     * @param scalarFirstBytes bytes each kernel moves in this JVM in scalar code before its vector
     *     version runs, 0 for vector at once ({@code tensorbuf.copy.scalarFirstBytes}; default 0;
     *     the launcher sets 256 MiB for {@code convert} and {@code run})
     * @param stageDestination whether transposes that write in strided passes write through the
     *     pooled 6 MiB scratch buffers ({@link #releaseScratch()}; {@code tensorbuf.copy.stageDestination}; default true)
     * @param transposeBandBytes bytes of one band of a blocked 16x16 transpose, 0 unbanded
     *     ({@code tensorbuf.copy.transposeBandBytes}; default 256 KiB)
     * @param replicateBytes smallest destination block a fill replicates by bulk copies, 0 never
     *     ({@code tensorbuf.copy.replicateBytes}; default 64 KiB)
     * @param spinMicros how long a helper thread polls for the next batch before parking
     *     ({@code tensorbuf.copy.spinMicros}; default 500)
     * @param warmup whether a Vector API kernel runs its scalar version on the caller's thread until
     *     a background thread has warmed its vector version on the copy's own loops, so a fresh
     *     JVM's first copy does not wait for the JIT ({@code tensorbuf.copy.warmup}; default true)
     * @param streamedFills whether a broadcast of long runs fills one block of at least 2.5 MiB and
     *     makes the others by the JDK's streamed copies of it, where those write faster than vector
     *     stores ({@code tensorbuf.copy.streamedFills}: true, false, or auto; default auto, which
     *     is true on an Intel CPU: there streamed copies wrote twice as fast, on an AMD EPYC no faster)
     */
    public record Config(int parallelism, boolean vectorKernels, long parallelThresholdBytes, long scalarFirstBytes,
                         boolean stageDestination, long transposeBandBytes, long replicateBytes, long spinMicros,
                         boolean warmup, boolean streamedFills) {

        /** The prefix of every property {@link #fromSystemProperties()} reads. */
        public static final String PROPERTY_PREFIX = "tensorbuf.copy.";

        /** @throws IllegalArgumentException naming the setting, for a value out of its range */
        public Config {
            if (parallelism < 1) {
                throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
            }
            if (parallelism > MAX_PARALLELISM) {
                throw new IllegalArgumentException("parallelism " + parallelism + " is above the most an engine may have, "
                        + MAX_PARALLELISM + " (one thread each; more than any machine's cores only slows a copy)");
            }
            if (parallelThresholdBytes < 0) {
                throw new IllegalArgumentException("parallel threshold must be >= 0 bytes, got " + parallelThresholdBytes);
            }
            if (scalarFirstBytes < 0) {
                throw new IllegalArgumentException("scalarFirstBytes must be >= 0, got " + scalarFirstBytes);
            }
            if (transposeBandBytes < 0) {
                throw new IllegalArgumentException("transposeBandBytes must be >= 0 (0: unbanded), got " + transposeBandBytes);
            }
            if (replicateBytes < 0) {
                throw new IllegalArgumentException("replicateBytes must be >= 0 (0: never), got " + replicateBytes);
            }
            if (spinMicros < 0 || spinMicros > Long.MAX_VALUE / 1_000) {
                throw new IllegalArgumentException("spinMicros must be in [0, " + Long.MAX_VALUE / 1_000 + "], got "
                        + spinMicros);
            }
        }

        /** {@return the built-in defaults: all cores (at most {@link #MAX_PARALLELISM}), no system property read} */
        public static Config of() {
            return new Config(Math.min(MAX_PARALLELISM, Runtime.getRuntime().availableProcessors()), true,
                    CopyExecutor.PARALLEL_THRESHOLD_BYTES, 0, true, CopyExecutor.TRANSPOSE_BAND_BYTES,
                    CopyExecutor.REPLICATE_BYTES, 500, true, CopyExecutor.STREAMED_FILLS);
        }

        /**
         * {@return {@link #of()} with each {@code tensorbuf.copy.*} system property that is set in
         * its place} The one place the engine's system properties are read.
         *
         * @throws IllegalArgumentException naming the property, for a value that is not a number
         *     or a boolean, or is out of range
         */
        public static Config fromSystemProperties() {
            return fromProperties(System.getProperties());
        }

        /** {@return {@link #of()} with each {@code tensorbuf.copy.*} entry of {@code properties} in its place} */
        public static Config fromProperties(java.util.Properties properties) {
            Config d = of();
            try {
                return new Config(
                        (int) number(properties, "parallelism", d.parallelism()),
                        bool(properties, "vector", d.vectorKernels()),
                        number(properties, "parallelThresholdBytes", d.parallelThresholdBytes()),
                        number(properties, "scalarFirstBytes", d.scalarFirstBytes()),
                        bool(properties, "stageDestination", d.stageDestination()),
                        number(properties, "transposeBandBytes", d.transposeBandBytes()),
                        number(properties, "replicateBytes", d.replicateBytes()),
                        number(properties, "spinMicros", d.spinMicros()),
                        bool(properties, "warmup", d.warmup()),
                        bool(properties, "streamedFills", d.streamedFills(), true));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("system properties " + PROPERTY_PREFIX + "*: " + e.getMessage(), e);
            }
        }

        private static long number(java.util.Properties p, String key, long otherwise) {
            String v = p.getProperty(PROPERTY_PREFIX + key);
            if (v == null) {
                return otherwise;
            }
            try {
                long n = Long.parseLong(v.strip());
                if (key.equals("parallelism") && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
                    throw new IllegalArgumentException(PROPERTY_PREFIX + key + "=" + v + " is not a thread count");
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(PROPERTY_PREFIX + key + "=" + v + " is not an integer");
            }
        }

        private static boolean bool(java.util.Properties p, String key, boolean otherwise) {
            return bool(p, key, otherwise, false);
        }

        /** {@return the boolean property {@code key}, {@code otherwise} where unset or, if {@code auto} is taken, auto} */
        private static boolean bool(java.util.Properties p, String key, boolean otherwise, boolean auto) {
            String v = p.getProperty(PROPERTY_PREFIX + key);
            if (v == null) {
                return otherwise;
            }
            String value = v.strip().toLowerCase(java.util.Locale.ROOT);
            if (auto && value.equals("auto")) {
                return otherwise;
            }
            return switch (value) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException(PROPERTY_PREFIX + key + "=" + v + " is not true"
                        + (auto ? ", false or auto" : " or false"));
            };
        }

        /** {@return this config with {@code n} threads} @throws IllegalArgumentException as the constructor */
        public Config withParallelism(int n) {
            return new Config(n, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with the Vector API kernels on or off} */
        public Config withVectorKernels(boolean on) {
            return new Config(parallelism, on, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with another parallel threshold} @throws IllegalArgumentException if negative */
        public Config withParallelThresholdBytes(long bytes) {
            return new Config(parallelism, vectorKernels, bytes, scalarFirstBytes, stageDestination, transposeBandBytes,
                    replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with another scalar-first threshold} @throws IllegalArgumentException if negative */
        public Config withScalarFirstBytes(long bytes) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, bytes, stageDestination,
                    transposeBandBytes, replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with staging through scratch on or off} */
        public Config withStageDestination(boolean on) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, on, transposeBandBytes,
                    replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with another transpose band} @throws IllegalArgumentException if negative */
        public Config withTransposeBandBytes(long bytes) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination, bytes,
                    replicateBytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with another fill replication block} @throws IllegalArgumentException if negative */
        public Config withReplicateBytes(long bytes) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, bytes, spinMicros, warmup, streamedFills);
        }

        /** {@return this config with another helper spin} @throws IllegalArgumentException if out of range */
        public Config withSpinMicros(long micros) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, replicateBytes, micros, warmup, streamedFills);
        }

        /** {@return this config with the background warm-up of vector kernels on or off} */
        public Config withWarmup(boolean on) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, replicateBytes, spinMicros, on, streamedFills);
        }

        /** {@return this config with broadcasts of long runs replicated by streamed copies or not} */
        public Config withStreamedFills(boolean on) {
            return new Config(parallelism, vectorKernels, parallelThresholdBytes, scalarFirstBytes, stageDestination,
                    transposeBandBytes, replicateBytes, spinMicros, warmup, on);
        }
    }

    /**
     * {@return the shared engine: {@link Config#fromSystemProperties()} as the class loaded}
     *
     * @throws IllegalArgumentException naming a {@code tensorbuf.copy.*} property that is malformed
     */
    public static CopyEngine defaults() {
        system();
        return DEFAULT;
    }

    /** {@return an engine with every setting of {@code config}} */
    public static CopyEngine of(Config config) {
        return new CopyEngine(config);
    }

    /** {@return this engine's settings} */
    public Config config() {
        return config;
    }

    /**
     * {@return an engine running large copies on {@code parallelism} threads, its other settings
     * those of the system properties ({@link Config#fromSystemProperties()})}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM}
     */
    public static CopyEngine of(int parallelism) {
        return new CopyEngine(system().withParallelism(parallelism));
    }

    /**
     * {@return an engine as {@link #of(int)}, using the Vector API kernels only if
     * {@code vectorKernels}, the module is present and {@code tensorbuf.copy.vector} is not false}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM}
     */
    public static CopyEngine of(int parallelism, boolean vectorKernels) {
        return new CopyEngine(system().withParallelism(parallelism).withVectorKernels(vectorKernels && SYSTEM.vectorKernels()));
    }

    /**
     * {@return an engine as {@link #of(int, boolean)} that splits steps of at least
     * {@code parallelThresholdBytes} bytes (read plus written) across its threads}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM},
     *     or the threshold is negative
     */
    public static CopyEngine of(int parallelism, boolean vectorKernels, long parallelThresholdBytes) {
        return new CopyEngine(system().withParallelism(parallelism).withVectorKernels(vectorKernels && SYSTEM.vectorKernels())
                .withParallelThresholdBytes(parallelThresholdBytes));
    }

    /**
     * Frees the scratch memory the copy engines of this process keep for reuse, outside any
     * {@link Allocator}: large transposes that write their destination in strided passes
     * (NCHW -> NHWC) use one 6 MiB buffer per copying thread, at most one per core. Buffers that running
     * copies are writing through stay theirs and are kept when those copies end. A later copy
     * allocates again as it needs. {@return the bytes freed}
     */
    public static long releaseScratch() {
        return CopyExecutor.releaseScratch();
    }

    /** {@return the threads a large copy uses} */
    public int parallelism() {
        return config.parallelism();
    }

    /**
     * {@return the threads a copy moving {@code bytes} (read plus written) runs on:
     * {@link #parallelism()} from the engine's parallel threshold (4 MiB by default), else 1, the caller}
     */
    public int threadsFor(long bytes) {
        return executor.threadsFor(bytes);
    }

    /**
     * {@return whether the Vector API kernels run} From the first copy, unless
     * {@link Config#scalarFirstBytes()} N ({@code -Dtensorbuf.copy.scalarFirstBytes=N}) holds each kernel to its scalar version until it
     * has moved N bytes: before C2 has compiled it a Vector API kernel is slower than scalar code,
     * which a process that copies once notices (bench/RESULTS.md, "First copies"; the launcher
     * sets 256 MiB for {@code convert} and {@code run}). And until a kernel's vector version is
     * compiled, its steps run scalar while a daemon thread, {@code tensorbuf-copy-warmup}, runs
     * the vector version on a copy of the first step's loops until it is as fast
     * ({@code -Dtensorbuf.copy.warmup=false}: vector from the first copy).
     */
    public boolean vectorKernels() {
        return executor.vector();
    }

    /**
     * Runs a plan. A conversion that meets a value the destination type cannot hold (an integer
     * out of range, NaN to an integer) throws part way, leaving the destination partly written:
     * each element holds either its copied value or what it held before. The same holds when a
     * segment's arena or pool closes during the copy. Either way every thread of the copy has
     * stopped before the exception reaches the caller, so nothing is written afterwards.
     * {@snippet :
     * // f32[2,3] {0, 1, 2, 3, 4, 300} into u8[2,3]
     * engine.copy(src, dst);
     * // IllegalArgumentException: value 300.0 at index [1, 2] of f32[2,3] out of range [0, 255] for u8
     * }
     *
     * @throws IllegalArgumentException for a value the destination type cannot hold, naming the
     *     first such element in logical (row-major) order, whichever a parallel copy met first;
     *     the refusal the copy met is its cause
     * @throws IllegalStateException if a segment's arena is closed, naming the side
     * @throws WrongThreadException if a segment belongs to a confined arena of another thread,
     *     naming the side
     */
    public void execute(CopyPlan plan) {
        try {
            executor.execute(plan);
        } catch (IllegalStateException e) {
            throw CopyFailures.namingAClosedSegment(e, plan);
        } catch (WrongThreadException e) {
            throw CopyFailures.namingAConfinedSegment(e, plan);
        } catch (RefusedValue e) {
            throw CopyFailures.namingTheRefusedElement(e, plan);
        }
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code layout}, converted to
     * {@code dtype}} The buffer is closed if the copy fails.
     *
     * @throws IllegalArgumentException if the layout's sizes are not the source's dims or it has
     *     a negative offset reach
     */
    AccessCopies.Materialized materialize(Access src, DType dtype, StridedLayout layout, Allocator allocator) {
        if (!layout.sizes().equals(src.dims())) {
            throw new IllegalArgumentException("layout sizes " + layout.sizes() + " differ from source dims " + src.dims());
        }
        if (layout.minOffset() < 0) {
            throw new IllegalArgumentException("layout " + layout + " reaches element offset " + layout.minOffset()
                    + " below 0");
        }
        long bytes = layout.elementCount() == 0 ? 0
                : Sizes.multiply(layout.maxOffset() + 1, dtype.byteWidth(), () -> "bytes of " + layout);
        MemoryBuffer buffer = allocator.allocate(Math.max(1, bytes));
        return closedIfItFails(buffer, () -> {
            Access dst = Access.strided(buffer.segment(), dtype, layout);
            execute(CopyPlan.of(src, dst, null));
            return new AccessCopies.Materialized(buffer, dst);
        });
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code shape}'s XLA layout
     * (tiles and padding; padding written as zero), converted to the shape's type} The buffer is
     * closed if the copy fails.
     *
     * @throws IllegalArgumentException if the shape's dims are not the source's
     */
    AccessCopies.Materialized materialize(Access src, ArrayShape shape, Allocator allocator) {
        if (!shape.dims().equals(src.dims())) {
            throw new IllegalArgumentException("shape " + shape + " differs from source dims " + src.dims());
        }
        MemoryBuffer buffer = allocator.allocate(bufferBytes(shape));
        return closedIfItFails(buffer, () -> {
            zeroWhatTheCopySkips(buffer, shape, null); // a tiled access writes every slot
            Access dst = Access.tiled(buffer.segment(), shape);
            execute(CopyPlan.of(src, dst, null));
            return new AccessCopies.Materialized(buffer, dst);
        });
    }

    /**
     * Copies every element of {@code src} into {@code dst} (same dims; types may differ): one
     * planned copy when both views live in one buffer each; views over several pieces (pads and
     * concatenations, and any op over them: transposes, reverses, strided slices, broadcasts,
     * reshapes) have both sides' logical indices cut into boxes of one piece each by the pieces'
     * domains, and the boxes are copied between the two pieces (a pad's fill read as a
     * broadcast): boxes strided on both sides with the same counts and strides share one loop nest
     * and kernel, run at each box's offsets; others are planned one by one. A destination index on a pad's fill is refused before anything is written.
     * Packed sub-byte storage ({@code s4} under {@code E(4)}, 2- and 1-bit types) is staged
     * through a byte-a-slot temporary read or written through the same map by the planned
     * kernels, then packed back. Element by element only where staging declines a packed view (one
     * reaching far more slots than it has elements: a few elements of a large buffer). A
     * destination whose map is a whole tiled XLA layout ({@link dev.tensorbuf.views.MapForm.Tiled#layout()}, recovered
     * from the map: a view made from a tiled shape by {@link TensorView#of}, a transpose of one, a
     * slice of all of it, or the same map made any other way) has every byte of its layout
     * written, up to the end {@link TensorView#of} laid the buffer out to
     * ({@link dev.tensorbuf.views.ViewMap.Single#layoutBytes()}; a longer buffer's rest is left
     * alone): the elements, and the padding as zero, whether the map is tiles, strides with gaps
     * ({@code bf16[3,5]{1,0:T(1,128)}}, {@code s8[3,2,5]{0,2,1:T(2,4)}}) or a smaller layout's
     * ({@code bf16[3,9]{1,0:T(8,128)(2,1)}}), tail padding {@code L(n)} included (packed sub-byte
     * strided layouts aside: their gaps are left as they are). Other views of tiled
     * memory (a reverse, a slice of part of it, a reshape) write their elements and nothing else.
     * Views that share
     * bytes ({@code copy(Ops.reverse(v, 0), v)}) copy through a temporary, as NumPy does; views of
     * one buffer that address different bytes (two halves of an image) copy directly.
     *
     * {@snippet :
     * TensorView nchw = TensorView.of(in, "f32[1,3,4,4]{3,2,1,0}");
     * TensorView nhwc = TensorView.of(out, "f32[1,4,4,3]{3,2,1,0}");
     * CopyEngine.defaults().copy(Ops.transpose(nchw, 0, 2, 3, 1), nhwc); // one INTERLEAVE kernel: 3 planes into NHWC
     * }
     *
     * <p>The copy holds every buffer of both views ({@link MemoryBuffer#hold()}) while it runs, so a
     * buffer another thread closes meanwhile keeps its memory until the copy ends, and is given
     * back then, on this thread: a foreign deleter runs here. What such a deleter throws belongs
     * to that close, not to this copy: it is added as suppressed to the copy's own exception when
     * the copy failed, and logged ({@link System.Logger}, WARNING) when it completed. Every hold
     * ends either way.
     *
     * @throws IllegalArgumentException if the dims differ, the destination is read-only, or a
     *     value cannot be converted: the first such element in logical order is named, e.g.
     *     {@code value 300.0 at index [1, 2] of f32[2,3]{1,0} strides [3, 1] out of range [0, 255] for u8}
     * @throws UnsupportedOperationException if either view is in memory Java cannot touch
     * @throws IllegalStateException if a buffer of either view is closed, or its allocator closes
     *     during the copy, naming the side
     * @throws WrongThreadException if either view is in a confined arena of another thread,
     *     naming the view, the side and the thread
     */
    public void copy(TensorView src, TensorView dst) {
        copyViews(src, dst, null);
    }

    /**
     * Copies every element of {@code src} into {@code dst} as {@link #copy(TensorView, TensorView)}
     * does, applying a per-channel scale and bias: image staging between views.
     * {@snippet :
     * TensorView pixels = TensorView.of(in, "u8[1,224,224,3]{3,2,1,0}");   // NHWC, as decoded
     * TensorView input = TensorView.of(out, "f32[1,3,224,224]{3,2,1,0}");  // NCHW, what the model takes
     * engine.copy(Ops.transpose(pixels, 0, 3, 1, 2), input, new ChannelAffine(1,
     *         List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f), List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)));
     * }
     *
     * @throws IllegalArgumentException as {@link #copy(TensorView, TensorView)}, or as
     *     {@link AccessCopies#plan(Access, Access, ChannelAffine)} for the scale and bias
     */
    public void copy(TensorView src, TensorView dst, ChannelAffine affine) {
        copyViews(src, dst, Objects.requireNonNull(affine, "affine"));
    }

    private void copyViews(TensorView src, TensorView dst, ChannelAffine affine) {
        if (!src.dims().equals(dst.dims())) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + dst + ": dims " + src.dims()
                    + " differ from " + dst.dims());
        }
        // The kernels keep raw segments: held, a buffer closed meanwhile (a pool's, say) keeps its
        // memory until the copy ends, instead of going to a next owner the copy would write over.
        List<MemoryBuffer> held = new ArrayList<>(2);
        List<MemoryBuffer.Hold> holds = new ArrayList<>(2);
        Throwable failure = null;
        try {
            for (TensorView side : List.of(src, dst)) {
                for (MemoryBuffer b : side.buffers()) {
                    try {
                        holds.add(b.hold());
                    } catch (IllegalStateException closed) {
                        throw new IllegalStateException("the " + (side == src ? "source " : "destination ") + side
                                + " cannot be copied: " + closed.getMessage(), closed);
                    }
                    held.add(b);
                }
            }
            try {
                // The called destination owns its tiles' padding; parts cut from it do not.
                ScopedValue.where(ViewAdapter.CALLED_DESTINATION, dst).run(() -> copyHeld(src, dst, affine));
            } catch (IllegalStateException e) {
                throw CopyFailures.namingAClosedSide(e, src, dst);
            } catch (WrongThreadException e) {
                throw CopyFailures.namingAConfinedSide(e, src, dst);
            } catch (IllegalArgumentException e) {
                throw CopyFailures.namingTheRefusedElement(e, src, dst);
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            CopyFailures.endHolds(held, holds, failure);
        }
    }

    /** How a copy of two views goes: decided by {@link #route}, run by {@link #copyHeld}, shown by {@link #explainHeld}. */
    private sealed interface Route {
    }

    /** Both sides are one access each: one plan. */
    private record Planned(CopyPlan plan) implements Route {
    }

    /** The source is copied whole into a temporary first. */
    private record ThroughTemporary(String reason) implements Route {
    }

    /**
     * Either side is made of pieces: the pairs of one-piece views their domains meet in, each
     * with its own route (planned, staged or element by element, never pieces again), run in order.
     * {@code forms}: the forms of loops the boxes strided on both sides share; {@code inFamilies}
     * and {@code families}: the boxes against a side of one piece in tiles run by families, and those families.
     */
    private record Pieces(List<PiecePairs.Pair> pairs, List<Route> routes, DomainBoxes.Regrouping regrouped, int forms,
                          int inFamilies, int families) implements Route {
    }

    /**
     * A box of a copy over pieces, strided on both sides: its form's loop nest ({@link BoxRuns})
     * at its offsets, run on the calling thread without a plan of its own.
     */
    private record Looped(PiecePairs.Pair pair, Step.Run run) implements Route {
    }

    /**
     * A box of a copy over pieces against a side of one piece in tiles: its family's runs at its
     * offsets ({@link BoxFamilies}), run on the calling thread without a plan of its own.
     */
    private record InFamily(BoxFamilies.Member member) implements Route {
    }

    /** A packed sub-byte side staged through byte-a-slot temporaries. */
    private record Staged(SubByteStaging.Staging staging) implements Route {
    }

    /** Every index through both maps. */
    private record Elements(String reason) implements Route {
    }

    /**
     * Either side is made of pieces whose domains cut into more boxes than a cut holds at once
     * ({@link DomainBoxes#CEILING}): the rows of the first dimension are cut a band at a time into
     * a {@link BoxTable} kept between copies ({@link PiecePairs#table}), the destination's
     * refusals found over it before anything is written, and its boxes copied as a copy over
     * pieces does (boxes of one form sharing one loop nest). A cut whose table would pass
     * {@link BoxTable#MAX_BYTES} is cut and copied a band at a time each copy, nothing kept.
     */
    private record Banded(String reason) implements Route {
    }

    /**
     * A side (or both) over several pieces of packed sub-byte storage: the slots its pieces reach
     * in their buffers, whole bytes, are unpacked into byte-a-slot temporaries
     * ({@link PackedPieces}), the copy runs over the same maps there as over any pieces, and of a
     * destination's temporaries (marked, not unpacked) only the slots the copy wrote are packed back.
     */
    private record Unpacked(boolean source, boolean destination) implements Route {
    }

    /**
     * Copies (or, with {@code explained} given, explains into it) {@code src} into {@code dst}
     * through byte-a-slot copies of the packed pieces' buffers ({@link Unpacked}).
     *
     * @param unbounded receives, when given: the runs staged whole because a piece's reach is not
     *     bounded, and the sides whose reaches are their maps' intervals rather than exact
     * @return the runs staged, for an explanation
     */
    private List<CopyPlan.Explanation.Staged> unpacked(TensorView src, TensorView dst, Unpacked u,
                                                       List<CopyPlan.Explanation> explained, int[] unbounded) {
        boolean run = explained == null;
        try (Allocator temporary = Allocators.shared()) {
            PackedPieces a = u.source() ? PackedPieces.unpack(src, temporary, run) : null;
            PackedPieces b = u.destination() ? PackedPieces.forWriting(dst, temporary, run) : null;
            TensorView from = a != null ? a.view() : src;
            TensorView to = b != null ? b.view() : dst;
            if (run) {
                copy(from, to);
                if (b != null) {
                    TensorView again = a == null ? b.again(src, temporary) : null;
                    if (again != null) {
                        copy(from, again);
                    }
                    b.packBack();
                }
            } else {
                explained.add(explainHeld(from, to, null));
            }
            List<CopyPlan.Explanation.Staged> staged = new ArrayList<>();
            for (PackedPieces side : new PackedPieces[] {a, b}) {
                if (side != null && unbounded != null && !side.exact()) {
                    unbounded[1]++;
                }
                if (side != null) {
                    for (PackedPieces.Run r : side.runs()) {
                        if (unbounded != null && !r.bounded()) {
                            unbounded[0]++;
                        }
                        staged.add(new CopyPlan.Explanation.Staged(side == a ? "source" : "destination", side.bits(),
                                r.firstSlot(), r.slots(), side == b && r.packedBack() ? 0 : r.slots(),
                                side == b && r.packedBack()));
                    }
                }
            }
            return staged;
        }
    }

    /**
     * Copies {@code src} into {@code dst} over the boxes of its cut past the ceiling ({@link Banded}),
     * or, with {@code explained} given, explains each box into it (and each box's place into
     * {@code pieces}) instead of copying. The cut is a {@link BoxTable} kept between copies
     * ({@link PiecePairs#table}); one that would pass {@link BoxTable#MAX_BYTES} is cut and run a band
     * at a time instead, each band's table dropped before the next. Either way every refusal of the
     * destination is found before anything is written.
     *
     * @return what the explanation says of the cut: its forms of loops, its boxes, and how it was kept
     */
    private BandedCut banded(TensorView src, TensorView dst, List<CopyPlan.Explanation> explained,
                             List<CopyPlan.Explanation.Piece> pieces) {
        BoxRuns forms = new BoxRuns(executor.thresholdBytes());
        BoxTable kept = PiecePairs.keptTable(src, dst);
        BoxTable table = kept != null ? kept : PiecePairs.table(src, dst);
        if (table != null) {
            BoxTable.Pass pass = table.pass(src, dst, forms);
            if (explained == null) {
                ViewAdapter.zeroTileSlots(dst);
            }
            long[] inFamilies = boxes(table, pass, src, dst, explained, pieces);
            return new BandedCut(forms.forms(), table.size(), table.bytes(), kept != null ? 1 : 0, inFamilies[0],
                    inFamilies[1]);
        }
        PiecePairs.refuseUnwritable(src, dst);
        if (explained == null) {
            ViewAdapter.zeroTileSlots(dst);
        }
        long[] boxes = new long[3];
        PiecePairs.forEachBand(src, dst, band -> {
            long[] inFamilies = boxes(band, band.pass(src, dst, forms), src, dst, explained, pieces);
            boxes[0] += band.size();
            boxes[1] += inFamilies[0];
            boxes[2] += inFamilies[1];
        });
        return new BandedCut(forms.forms(), boxes[0], 0, -1, boxes[1], boxes[2]);
    }

    /**
     * What a banded copy's explanation says of its cut.
     *
     * @param forms forms of loops the boxes strided on both sides shared
     * @param boxes the boxes
     * @param bytes the bytes of its kept table, 0 when none is kept
     * @param kept 1: the table was kept from an earlier copy or explanation, 0: cut now and kept, -1: not kept
     * @param inFamilies the boxes against a side of one piece in tiles run by their families (counted when explained)
     * @param families those families (a band's found again in each band)
     */
    private record BandedCut(int forms, long boxes, long bytes, int kept, long inFamilies, long families) {
    }

    /**
     * Runs (or, with {@code explained} given, explains) every box of {@code table} in order.
     *
     * @return when explained, the boxes run by their families and those families; else zeros
     */
    private long[] boxes(BoxTable table, BoxTable.Pass pass, TensorView src, TensorView dst,
                         List<CopyPlan.Explanation> explained, List<CopyPlan.Explanation.Piece> pieces) {
        // Boxes against a tiled side of one piece: a plan per family of boxes, not per box.
        BoxFamilies families = BoxFamilies.of(pass, src, dst, executor.thresholdBytes());
        long inFamilies = 0;
        for (int i = 0, n = table.size(); i < n; i++) {
            BoxRuns.Resolved loops = pass.loops(i);
            if (explained == null) {
                if (loops != null) {
                    pass.run(i, executor);
                } else if (families == null || !families.run(i, executor)) {
                    PiecePairs.Pair p = pass.pair(i);
                    Route r = onePiece(p.src(), p.dst(), ViewAdapter.access(p.src()), ViewAdapter.destination(p.dst()));
                    if (families != null) {
                        families.learn(i, r instanceof Planned(CopyPlan plan) ? plan : null);
                    }
                    run(r, p.src(), p.dst(), null);
                }
                continue;
            }
            DomainBoxes.Box box = table.box(i);
            if (loops != null) {
                PiecePairs.Strides from = pass.sourceStrides(i);
                PiecePairs.Strides to = pass.destinationStrides(i);
                Step.Run moved = new Step.Run(loops.run().kernel(),
                        loops.run().srcOffset() + from.offset() - loops.srcOffset(),
                        loops.run().dstOffset() + to.offset() - loops.dstOffset(), loops.run().loops(), -1);
                explained.add(explainLooped(box.count(), from, to, moved, src.dtype(), dst.dtype()));
            } else {
                PiecePairs.Pair p = pass.pair(i);
                BoxFamilies.Member member = families == null ? null : families.member(i);
                if (member != null) {
                    explained.add(explainInFamily(p, member));
                    inFamilies++;
                } else {
                    Route r = onePiece(p.src(), p.dst(), ViewAdapter.access(p.src()), ViewAdapter.destination(p.dst()));
                    if (families != null) {
                        families.learn(i, r instanceof Planned(CopyPlan plan) ? plan : null);
                    }
                    explained.add(explainRoute(r, p.src(), p.dst(), null));
                }
            }
            pieces.add(new CopyPlan.Explanation.Piece(boxed(box.start()), boxed(box.step()), boxed(box.count()),
                    table.sourcePiece(i), table.destinationPiece(i), pass.sourceFill(i)));
        }
        return new long[] {inFamilies, families == null || explained == null ? 0 : families.families()};
    }

    /**
     * {@return how {@code src} goes into {@code dst}} Reads and writes no element; planning a
     * single-access copy checks it as {@link AccessCopies#plan(Access, Access, ChannelAffine)} does. A
     * view of one piece with an access of its own (the common case) is planned at once: no
     * domain is cut and no map is built.
     */
    private Route route(TensorView src, TensorView dst, ChannelAffine affine) {
        for (TensorView side : List.of(src, dst)) {
            if (!side.isHostAccessible()) {
                throw new UnsupportedOperationException("the copy engine moves host memory only, and the "
                        + (side == src ? "source " : "destination ") + side + " is in memory Java cannot touch ("
                        + describeSpaces(side) + "): move it with the device's own copy (CudaRuntime.download and"
                        + " upload for CUDA)");
            }
        }
        var from = ViewAdapter.access(src);
        var to = ViewAdapter.destination(dst);
        boolean planned = from.isPresent() && to.isPresent();
        boolean shared = planned ? Reach.overlap(from.get(), to.get()) : ViewAdapter.shareBuffers(src, dst);
        if (src.elementCount() > 0 && (shared || (affine != null && !planned))) {
            // As NumPy's copyto: the source is read whole before any of it is overwritten. The
            // scale and bias run in planned copies only, so a source or destination over several
            // pieces (or packed sub-byte) goes through dense temporaries too.
            return new ThroughTemporary(shared ? "the source and the destination share memory"
                    : "a scale and bias run in planned copies only, and a side is over several pieces or packed");
        }
        if (planned) {
            return new Planned(CopyPlan.of(from.get(), to.get(), affine));
        }
        if (src.elementCount() > 0 && (packedPiece(src) && !(dst.map() instanceof ViewMap.Single)
                || packedPiece(dst) && !(src.map() instanceof ViewMap.Single))) {
            // Staged box by box, a packed side's boxes (a column of a transposed s4 view) reach far
            // more slots than they hold and would go element by element: the packed side is
            // staged whole instead, the pieces copied box by box to or from a dense temporary.
            return new ThroughTemporary("one side is packed sub-byte storage of one piece and the other over several"
                    + " pieces: the pieces are copied box by box through a dense temporary, the packed side staged whole");
        }
        if (src.elementCount() > 0 && (PackedPieces.applies(src)
                || PackedPieces.applies(dst) && PackedPieces.writable(dst))) {
            return new Unpacked(PackedPieces.applies(src), PackedPieces.applies(dst));
        }
        // A side with an access is one piece; only a side without one has its map asked (a packed
        // strided view builds it here, as staging would).
        if (src.elementCount() > 0 && (from.isEmpty() && !(src.map() instanceof ViewMap.Single)
                || to.isEmpty() && !(dst.map() instanceof ViewMap.Single))) {
            List<PiecePairs.Pair> pairs;
            PiecePairs.Cut cut;
            try {
                cut = PiecePairs.cut(src, dst);
                pairs = cut.pairs();
            } catch (ArithmeticException overflow) {
                return new Elements("the pieces' domains cannot be cut into boxes: an index computation overflows a long");
            } catch (DomainBoxes.TooManyBoxes many) {
                return new Banded(many.getMessage());
            }
            // Boxes strided on both sides share their form's loops (a staircase's thousands of row
            // segments are a few hundred forms), boxes against a side of one piece in tiles their
            // family's runs (as a banded copy's do); the others are planned one by one. A regrouped
            // cut's boxes index other dims than the views': no families.
            BoxRuns forms = new BoxRuns(executor.thresholdBytes());
            BoxFamilies families = cut.regrouping() == null
                    ? BoxFamilies.of(BoxFamilies.pairs(pairs), src, dst, executor.thresholdBytes()) : null;
            List<Route> routes = new ArrayList<>(pairs.size());
            int inFamilies = 0;
            for (int i = 0; i < pairs.size(); i++) {
                PiecePairs.Pair p = pairs.get(i);
                Step.Run run = p.sourceStrides() != null && p.destinationStrides() != null
                        ? forms.run(p.box().count(), p.sourceStrides(), src.dtype(), p.destinationStrides(), dst.dtype())
                        : null;
                BoxFamilies.Member member = run == null && families != null ? families.member(i) : null;
                if (run != null) {
                    routes.add(new Looped(p, run));
                } else if (member != null) {
                    routes.add(new InFamily(member));
                    inFamilies++;
                } else {
                    Route r = onePiece(p.src(), p.dst(), ViewAdapter.access(p.src()), ViewAdapter.destination(p.dst()));
                    if (families != null) {
                        families.learn(i, r instanceof Planned(CopyPlan plan) ? plan : null);
                    }
                    routes.add(r);
                }
            }
            return new Pieces(pairs, routes, cut.regrouping(), forms.forms(), inFamilies,
                    families == null ? 0 : families.families());
        }
        return onePiece(src, dst, from, to);
    }

    /** {@return whether {@code view} is one piece of packed sub-byte storage} */
    private static boolean packedPiece(TensorView view) {
        return view.access().storageBits() < 8 && view.map() instanceof ViewMap.Single;
    }

    /** {@return the route of two one-piece views: planned, staged when a side is packed, else element by element} */
    private static Route onePiece(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to) {
        if (from.isPresent() && to.isPresent()) {
            return new Planned(CopyPlan.of(from.get(), to.get(), null));
        }
        Optional<SubByteStaging.Staging> staging = SubByteStaging.plan(src, dst, from, to);
        if (staging.isPresent()) {
            return new Staged(staging.get());
        }
        return new Elements(elementReason(src, dst, from, to));
    }

    /** {@return why a copy of one-piece views goes element by element, in words} */
    private static String elementReason(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to) {
        if (src.elementCount() == 0) {
            return "nothing to copy";
        }
        if (src.dtype().kind() == DType.Kind.COMPLEX && dst.dtype().kind() != DType.Kind.COMPLEX) {
            return "complex into real: the element path names the imaginary part lost";
        }
        // Every strided, tiled or general map of whole bytes is planned, and every packed one
        // staged; what staging declines it names.
        return SubByteStaging.declined(src, dst, from, to).map(why -> "packed sub-byte storage that staging declines: "
                + why).orElse("packed sub-byte storage that staging declines");
    }

    private void copyHeld(TensorView src, TensorView dst, ChannelAffine affine) {
        ViewAdapter.Turned turned = affine == null ? ViewAdapter.unreversed(src, dst) : null;
        if (turned != null) {
            // A reverse of a tiled layout: copied into the layout, both sides reversed, so its padding is written.
            ScopedValue.where(ViewAdapter.CALLED_DESTINATION, turned.dst()).run(() -> copyHeld(turned.src(), turned.dst(), null));
            return;
        }
        Route route = route(src, dst, affine);
        if (route instanceof Pieces(List<PiecePairs.Pair> pairs, List<Route> routes, var regrouped, var forms,
                var inFamilies, var families)) {
            // The padding of a tiled destination's slots, which no pair writes.
            ViewAdapter.zeroTileSlots(dst);
            for (int i = 0; i < pairs.size(); i++) {
                if (routes.get(i) instanceof Looped(PiecePairs.Pair p, Step.Run loops)) {
                    executor.runLoops(loops, p.sourceStrides().buffer().segment(), src.dtype(),
                            p.destinationStrides().buffer().segment(), dst.dtype());
                } else if (routes.get(i) instanceof InFamily(BoxFamilies.Member member)) {
                    member.run(executor);
                } else {
                    run(routes.get(i), pairs.get(i).src(), pairs.get(i).dst(), null);
                }
            }
        } else if (route instanceof Banded) {
            banded(src, dst, null, null);
        } else if (route instanceof Unpacked u) {
            unpacked(src, dst, u, null, null);
        } else {
            run(route, src, dst, affine);
        }
    }

    private void run(Route route, TensorView src, TensorView dst, ChannelAffine affine) {
        switch (route) {
            // Not execute(): its failures name the Access sides, and copyViews names the views.
            case Planned(CopyPlan plan) -> executor.execute(plan);
            case ThroughTemporary t -> throughTemporary(src, dst, affine, null);
            case Pieces p -> throw new IllegalStateException("a pair of pieces is one piece each: " + src + " -> " + dst);
            case Looped l -> throw new IllegalStateException("a looped box runs from its pair: " + src + " -> " + dst);
            case InFamily f -> f.member().run(executor);
            case Banded b -> throw new IllegalStateException("a banded copy runs its bands: " + src + " -> " + dst);
            case Unpacked u -> throw new IllegalStateException("an unpacked copy runs over its temporaries: " + src + " -> "
                    + dst);
            case Staged(SubByteStaging.Staging staging) -> staging.run(executor);
            case Elements e -> ViewAdapter.copyElements(src, dst);
        }
    }

    /**
     * Copies {@code src} into a dense temporary, then that into {@code dst} (scaled, when
     * {@code affine} is given, through a second temporary unless {@code dst} is one access).
     * With {@code explained} given, the copies are explained into it instead of run: the
     * temporaries are allocated all the same, as the copies' routes are decided on them.
     */
    private void throughTemporary(TensorView src, TensorView dst, ChannelAffine affine, List<CopyPlan.Explanation> explained) {
        boolean run = explained == null;
        try (Allocator temporary = Allocators.shared()) {
            long[] dims = Extents.toArray(src.dims());
            TensorView dense = TensorView.strided(temporary.allocate(denseBytes(src, src.dtype())), src.dtype(),
                    StridedLayout.packed(dims));
            if (run) {
                copy(src, dense);
            } else {
                explained.add(explainHeld(src, dense, null));
            }
            Optional<Access> to = ViewAdapter.destination(dst);
            if (affine == null) {
                if (run) {
                    copy(dense, dst);
                } else {
                    explained.add(explainHeld(dense, dst, null));
                }
            } else if (to.isPresent()) {
                Access in = ViewAdapter.access(dense).orElseThrow();
                if (run) {
                    execute(CopyPlan.of(in, to.get(), affine));
                } else {
                    explained.add(explainPlanned(CopyPlan.of(in, to.get(), affine), dense.toString(), dst.toString()));
                }
            } else {
                TensorView scaled = TensorView.strided(temporary.allocate(denseBytes(src, dst.dtype())), dst.dtype(),
                        StridedLayout.packed(dims));
                CopyPlan plan = CopyPlan.of(ViewAdapter.access(dense).orElseThrow(), ViewAdapter.access(scaled).orElseThrow(),
                        affine);
                if (run) {
                    execute(plan);
                    copy(scaled, dst);
                } else {
                    explained.add(explainPlanned(plan, dense.toString(), scaled.toString()));
                    explained.add(explainHeld(scaled, dst, null));
                }
            }
        }
    }

    /** {@return the bytes of a dense temporary of {@code src}'s dims in {@code dtype}, at least 1} */
    private static long denseBytes(TensorView src, DType dtype) {
        return Math.max(1, Sizes.multiply(src.elementCount(), dtype.byteWidth(), () -> "bytes of a temporary " + dtype
                + src.dims()));
    }

    /**
     * {@return what {@link #copy(TensorView, TensorView)} of {@code src} into {@code dst} does, without
     * doing it: its route, each planned copy's steps and threads, temporaries, staging and bytes}
     * Nothing is read or written. A copy between views that share memory is explained as it runs,
     * through a temporary, which is allocated (not written) while its copies are planned.
     * {@snippet :
     * TensorView joined = Ops.concatenate(0, List.of(a, b));   // two f32[2,3] views
     * CopyPlan.Explanation e = engine.explain(joined, TensorView.of(out, "f32[4,3]{1,0}"));
     * e.route();          // PIECES
     * e.parts().size();   // 2: each part a PLANNED BULK copy into its rows
     * }
     *
     * @throws IllegalArgumentException as {@link #copy(TensorView, TensorView)} does before it writes
     * @throws UnsupportedOperationException if either view is in memory Java cannot touch
     */
    public CopyPlan.Explanation explain(TensorView src, TensorView dst) {
        return explain(src, dst, null);
    }

    /**
     * {@return what {@link #copy(TensorView, TensorView, ChannelAffine)} does, as
     * {@link #explain(TensorView, TensorView)}; {@code affine} may be null}
     */
    public CopyPlan.Explanation explain(TensorView src, TensorView dst, ChannelAffine affine) {
        if (!src.dims().equals(dst.dims())) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + dst + ": dims " + src.dims()
                    + " differ from " + dst.dims());
        }
        return ScopedValue.where(ViewAdapter.CALLED_DESTINATION, dst).call(() -> explainHeld(src, dst, affine));
    }

    /**
     * An elementwise expression a copy applies to each element on its way from its operands into
     * the destination: {@link #copy(List, TensorView, Epilogue)} evaluates it in one pass, cut into
     * blocks that stay in cache (each operand read through its own view, the result written through
     * the destination's), with XLA's rules for rounding, NaN and integer wraparound. Written as
     * {@code tensorbuf plan --epilogue} reads it and an explanation's epilogue prints it: ops as
     * {@code name(arg, ...)} (HLO's convert, add, subtract, multiply, divide, remainder, maximum,
     * minimum, clamp, negate, abs, sign, sqrt, floor, ceil, round-nearest-even, round-nearest-afz,
     * is-finite, compare, select, and, or, not, xor, shift-left, shift-right-logical,
     * shift-right-arithmetic, popcnt, count-leading-zeros, reduce-precision (its bits after its
     * operand: {@code reduce-precision(%0, e5m10)}), and the rewrites' fma, reciprocal,
     * reciprocal_flushed, select_flushed, remainder_flushed), a convert as
     * {@code convert<f32>(x)}, a compare's direction and type after its operands
     * ({@code compare(%0, %1, LT FLOAT)}), operand {@code k} as {@code %k}; a number
     * ({@code 0.5}, {@code -0}, {@code inf}, {@code -nan}) or {@code true}/{@code false} is a
     * constant of its sibling operands' type, read as XLA reads an HLO constant. Immutable; equal
     * when the expression and the operands' types are.
     * {@snippet :
     * CopyEngine.Epilogue normalise = CopyEngine.Epilogue.parse("multiply(subtract(convert<f32>(%0), %1), %2)",
     *         DType.U8, DType.F32, DType.F32);
     * normalise.type();   // F32
     * // u8 NHWC pixels into f32 NCHW, minus each channel's mean, times its 1/std: one pass
     * TensorView pixels = Ops.transpose(TensorView.of(in, "u8[1,4,4,3]{3,2,1,0}"), 0, 3, 1, 2);
     * long[] nchw = {1, 3, 4, 4};
     * TensorView mean = Ops.broadcast(TensorView.of(means, "f32[3]{0}"), nchw, 1);
     * TensorView scale = Ops.broadcast(TensorView.of(scales, "f32[3]{0}"), nchw, 1);
     * CopyEngine.defaults().copy(List.of(pixels, mean, scale), TensorView.of(out, "f32[1,3,4,4]{3,2,1,0}"), normalise);
     * CopyEngine.Epilogue.parse("add(%0, 70000)", DType.F16);   // TextFormatException: value 70000 is out of range for f16 ...
     * }
     */
    public static final class Epilogue {
        private final List<DType> operandTypes;
        private final PointwiseSyntax.Parsed parsed;
        private final String text;

        private Epilogue(List<DType> operandTypes, PointwiseSyntax.Parsed parsed) {
            this.operandTypes = operandTypes;
            this.parsed = parsed;
            this.text = written(parsed, operandTypes.size());
        }

        /**
         * {@return {@code text} read as an expression over operands of {@code operandTypes}}
         *
         * @throws dev.tensorbuf.views.text.TextFormatException naming the problem and its position:
         *     a syntax error, an unknown op or type, an operand past the given ones, a wrong operand
         *     count, operands of different types, a constant the type cannot hold or whose type
         *     nothing beside it tells
         * @throws IllegalArgumentException if an operand type is not one an expression computes in
         *     (pred, integers, f16, bf16, f32, f64)
         */
        public static Epilogue parse(String text, DType... operandTypes) {
            List<DType> types = List.of(operandTypes);
            for (DType t : types) {
                if (!Pointwise.TYPES.contains(t)) {
                    throw new IllegalArgumentException(t + " is not a type an epilogue computes in: expected one of "
                            + Pointwise.TYPES.stream().map(DType::xlaName).sorted().toList());
                }
            }
            return new Epilogue(types, PointwiseSyntax.parse(Objects.requireNonNull(text, "text"), types));
        }

        /** {@return the types of the operands, {@code %0} first} */
        public List<DType> operandTypes() {
            return operandTypes;
        }

        /** {@return the type of the value: the destination's} */
        public DType type() {
            return parsed.expr().type();
        }

        /** {@return the expression with its constants written in, as {@link #parse} reads it back} */
        @Override
        public String toString() {
            return text;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Epilogue e && text.equals(e.text) && operandTypes.equals(e.operandTypes);
        }

        @Override
        public int hashCode() {
            return text.hashCode() * 31 + operandTypes.hashCode();
        }

        /** The expression as the printer writes it, leaf {@code k} past the given operands as constant {@code k - given}'s literal. */
        private static String written(PointwiseSyntax.Parsed parsed, int given) {
            return Pointwise.print(parsed.expr(), k -> k < given ? "%" + k : literal(parsed.constants().get(k - given)));
        }

        private static String literal(PointwiseSyntax.Constant c) {
            if (c.type() == DType.PRED) {
                return c.value().longValue() != 0 ? "true" : "false";
            }
            if (!Pointwise.isFloat(c.type())) {
                return Long.toString(c.value().longValue());
            }
            double d = c.value().doubleValue();
            if (Double.isNaN(d)) {
                return Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
            }
            if (Double.isInfinite(d)) {
                return d < 0 ? "-inf" : "inf";
            }
            // The shortest digits that read back to the double, which holds the type's value exactly.
            String digits = c.type() == DType.F32 ? Float.toString((float) d) : Double.toString(d);
            return d == 0 ? (1 / d < 0 ? "-0" : "0") : digits.replace("E", "e");
        }
    }

    /**
     * Writes {@link Epilogue}'s value over {@code operands} into {@code dst}, element by element,
     * in one pass: each element of every operand read once, each of the destination written once;
     * the operands any views of {@code dst}'s dims (transposes, broadcasts of per-channel
     * constants, slices), {@code %k} the {@code k}th. Scratch memory (a few blocks of 16 Ki
     * elements a thread) is the engine's own.
     * {@snippet :
     * engine.copy(List.of(pixels, mean, scale), nchw, CopyEngine.Epilogue.parse("multiply(subtract(convert<f32>(%0), %1), %2)",
     *         DType.U8, DType.F32, DType.F32));
     * }
     *
     * @throws IllegalArgumentException if the operands are not as many as the epilogue's, an
     *     operand's type is not the epilogue's or its dims not {@code dst}'s, the epilogue computes
     *     another type than {@code dst}'s, {@code dst} is not one buffer of whole bytes, or a
     *     converted value cannot be held (as {@link #execute})
     */
    public void copy(List<TensorView> operands, TensorView dst, Epilogue epilogue) {
        execute(planEpilogue(operands, dst, epilogue));
    }

    /**
     * {@return what {@link #copy(List, TensorView, Epilogue)} does: the expression and its kernel
     * as the explanation's epilogue, the first block's copies as its parts}
     *
     * @throws IllegalArgumentException as {@link #copy(List, TensorView, Epilogue)} does before it writes
     */
    public CopyPlan.Explanation explain(List<TensorView> operands, TensorView dst, Epilogue epilogue) {
        return explain(planEpilogue(operands, dst, epilogue));
    }

    private static CopyPlan planEpilogue(List<TensorView> operands, TensorView dst, Epilogue epilogue) {
        List<DType> types = epilogue.operandTypes();
        if (operands.size() != types.size()) {
            throw new IllegalArgumentException("the epilogue " + epilogue + " reads " + types.size() + " operand"
                    + (types.size() == 1 ? "" : "s") + ", got " + operands.size());
        }
        for (int k = 0; k < operands.size(); k++) {
            TensorView o = operands.get(k);
            if (o.dtype() != types.get(k)) {
                throw new IllegalArgumentException("operand %" + k + " " + o + " is " + o.dtype() + ", but the epilogue "
                        + epilogue + " reads it as " + types.get(k));
            }
            if (!o.dims().equals(dst.dims())) {
                throw new IllegalArgumentException("operand %" + k + " " + o + " has dims " + o.dims()
                        + ", the destination " + dst.dims() + ": broadcast it (Ops.broadcast)");
            }
        }
        if (epilogue.type() != dst.dtype()) {
            throw new IllegalArgumentException("the epilogue " + epilogue + " computes " + epilogue.type()
                    + " but the destination " + dst + " holds " + dst.dtype() + ": end it with convert<"
                    + dst.dtype() + ">(...)");
        }
        List<TensorView> leaves = new ArrayList<>(operands);
        for (PointwiseSyntax.Constant c : epilogue.parsed.constants()) {
            leaves.add(c.view(dst.dims(), EngineScratch.ALLOCATOR));
        }
        return PointwiseCopy.plan(epilogue.parsed.expr(), leaves, dst, EngineScratch.ALLOCATOR);
    }

    /** {@return what {@link #execute(CopyPlan)} does with {@code plan}: its steps, threads and bytes} */
    public CopyPlan.Explanation explain(CopyPlan plan) {
        return explainPlanned(plan, describe(AccessCopies.src(plan)), describe(AccessCopies.dst(plan)));
    }

    private static String describe(Access a) {
        return a.dtype() + a.dims().toString().replace(" ", "") + switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> " strides " + l.strides() + " offset " + l.offset();
            case Access.Tiled(ArrayShape s) -> " as " + s;
            case Access.Mapped(var m) -> " through " + m;
        };
    }

    private CopyPlan.Explanation explainPlanned(CopyPlan plan, String source, String destination) {
        if (AccessCopies.steps(plan).size() == 1 && AccessCopies.steps(plan).getFirst() instanceof Step.Epilogue p) {
            return p.pass().explain(plan, executor.threadsFor(plan));
        }
        return new CopyPlan.Explanation(CopyPlan.Explanation.Route.PLANNED, source, destination, AccessCopies.src(plan).elementCount(),
                AccessCopies.src(plan).elementCount() == 0 ? 0 : plan.bytesMoved(), executor.threadsFor(plan), Optional.of(plan), List.of(),
                List.of(), 0, List.of(), List.of(), "", AccessCopies.epilogue(plan));
    }

    private CopyPlan.Explanation explainHeld(TensorView src, TensorView dst, ChannelAffine affine) {
        ViewAdapter.Turned turned = affine == null ? ViewAdapter.unreversed(src, dst) : null;
        if (turned != null) {
            return ScopedValue.where(ViewAdapter.CALLED_DESTINATION, turned.dst())
                    .call(() -> explainHeld(turned.src(), turned.dst(), null));
        }
        Route route = route(src, dst, affine);
        if (route instanceof Pieces(List<PiecePairs.Pair> pairs, List<Route> routes, DomainBoxes.Regrouping regrouped,
                int forms, int inFamilies, int families)) {
            List<CopyPlan.Explanation> parts = new ArrayList<>(pairs.size());
            List<CopyPlan.Explanation.Piece> pieces = new ArrayList<>(pairs.size());
            for (int i = 0; i < pairs.size(); i++) {
                PiecePairs.Pair p = pairs.get(i);
                parts.add(switch (routes.get(i)) {
                    case Looped(var pair, Step.Run loops) -> explainLooped(pair, loops, src.dtype(), dst.dtype());
                    case InFamily(BoxFamilies.Member member) -> explainInFamily(p, member);
                    case Route r -> explainRoute(r, p.src(), p.dst(), null);
                });
                pieces.add(new CopyPlan.Explanation.Piece(boxed(p.box().start()), boxed(p.box().step()),
                        boxed(p.box().count()), p.sourcePiece(), p.destinationPiece(), p.sourceFill()));
            }
            long zeroed = ViewAdapter.tileSlotBytes(dst);
            int fromPieces = src.map().pieces().size();
            int toPieces = dst.map().pieces().size();
            String reason = (fromPieces > 1 ? "the source is over " + fromPieces + " pieces" : "")
                    + (fromPieces > 1 && toPieces > 1 ? ", " : "")
                    + (toPieces > 1 ? "the destination is over " + toPieces + " pieces" : "")
                    + ": their domains cut into " + pairs.size() + (pairs.size() == 1 ? " box" : " boxes")
                    + " of one piece each side"
                    + (regrouped == null ? "" : ", in its elements regrouped as " + regrouped
                    + ", where the pieces are fewer boxes than in its dims")
                    + (forms == 0 ? "" : "; the boxes strided on both sides are " + forms
                    + (forms == 1 ? " form" : " forms") + " of loops, each form's loop nest and kernel chosen once and run"
                    + " at each box's offsets")
                    + familiesReason(inFamilies, families);
            return composite(CopyPlan.Explanation.Route.PIECES, src.toString(), dst.toString(), src.elementCount(), parts,
                    List.of(), List.of(), zeroed, zeroed, reason, pieces);
        }
        return explainRoute(route, src, dst, affine);
    }

    private static List<Long> boxed(long[] values) {
        List<Long> out = new ArrayList<>(values.length);
        for (long v : values) {
            out.add(v);
        }
        return out;
    }

    /** {@return the explanation of a route other than pieces} */
    private CopyPlan.Explanation explainRoute(Route route, TensorView src, TensorView dst, ChannelAffine affine) {
        String from = src.toString();
        String to = dst.toString();
        long n = src.elementCount();
        return switch (route) {
            case Planned(CopyPlan plan) -> explainPlanned(plan, from, to);
            case ThroughTemporary(String reason) -> {
                List<CopyPlan.Explanation> parts = new ArrayList<>();
                throughTemporary(src, dst, affine, parts);
                List<CopyPlan.Explanation.Temporary> temporaries = new ArrayList<>();
                temporaries.add(new CopyPlan.Explanation.Temporary("the source, read whole before the destination is"
                        + " written", src.dtype(), src.dims(), denseBytes(src, src.dtype())));
                if (parts.size() == 3) {
                    temporaries.add(new CopyPlan.Explanation.Temporary("the source scaled, in the destination's type",
                            dst.dtype(), src.dims(), denseBytes(src, dst.dtype())));
                }
                yield composite(CopyPlan.Explanation.Route.THROUGH_TEMPORARY, from, to, n, parts, temporaries, List.of(),
                        0, 0, reason, List.of());
            }
            case Pieces p -> throw new IllegalStateException("a pair of pieces is one piece each: " + from + " -> " + to);
            case Unpacked u -> {
                List<CopyPlan.Explanation> parts = new ArrayList<>();
                int[] unbounded = new int[2];
                List<CopyPlan.Explanation.Staged> staged = unpacked(src, dst, u, parts, unbounded);
                List<CopyPlan.Explanation.Temporary> temporaries = new ArrayList<>();
                long bytes = 0;
                long[] slots = new long[2];
                int[] runs = new int[2];
                for (CopyPlan.Explanation.Staged s : staged) {
                    int side = s.side().equals("source") ? 0 : 1;
                    slots[side] += s.slots();
                    runs[side]++;
                    // Unpacking reads the packed bytes and writes a byte a slot; packing back the reverse.
                    bytes += (s.slots() + s.slots() * s.bits() / 8) * (s.packedBack() ? 2 : 1);
                }
                for (int side = 0; side < 2; side++) {
                    if (runs[side] > 0) {
                        temporaries.add(new CopyPlan.Explanation.Temporary("the slots the " + (side == 0 ? "source" : "destination")
                                + "'s pieces reach, " + runs[side] + (runs[side] == 1 ? " run" : " runs")
                                + " of whole bytes, a byte each", side == 0 ? src.dtype() : dst.dtype(), List.of(slots[side]),
                                Math.max(1, slots[side])));
                    }
                }
                long whole = unbounded[0];
                yield composite(CopyPlan.Explanation.Route.STAGED, from, to, n, parts, temporaries, staged, 0, bytes,
                        "packed sub-byte storage over several pieces: the slots the pieces reach in each buffer ("
                        + (unbounded[1] == 0 ? "every index looked up"
                        : unbounded[1] == (u.source() ? 1 : 0) + (u.destination() ? 1 : 0)
                        ? "their maps' intervals over their bounds"
                        : "every index looked up on one side, the maps' intervals over their bounds on the other")
                        + "), rounded out to whole bytes, "
                        + (u.source() ? "unpacked into a byte a slot" : "a byte a slot")
                        + ", the same maps copied over the copies box by box"
                        + (u.destination() ? ", of the destination's copies only the slots the copy writes packed back"
                        + " into those bytes" : "")
                        + (whole == 0 ? "" : "; " + whole + (whole == 1 ? " buffer" : " buffers")
                        + " staged whole: a piece's reach is not bounded"), List.of());
            }
            case Banded(String reason) -> {
                List<CopyPlan.Explanation> parts = new ArrayList<>();
                List<CopyPlan.Explanation.Piece> pieces = new ArrayList<>();
                BandedCut cut = banded(src, dst, parts, pieces);
                int forms = cut.forms();
                long zeroed = ViewAdapter.tileSlotBytes(dst);
                yield composite(CopyPlan.Explanation.Route.PIECES, from, to, n, parts, List.of(), List.of(), zeroed, zeroed,
                        reason + ": cut a band of rows at a time"
                        + (cut.kept() < 0 ? ", each band's boxes copied and dropped before the next is cut (a table of"
                        + " them all would pass " + BoxTable.maxBytes() + " bytes)"
                        : " into a table of its boxes kept between copies (" + cut.bytes() + " bytes, "
                        + (cut.kept() > 0 ? "kept from an earlier copy" : "cut now") + ")")
                        + "; their domains cut into " + pieces.size() + " boxes of one piece each side"
                        + (forms == 0 ? "" : "; the boxes strided on both sides are " + forms
                        + (forms == 1 ? " form" : " forms") + " of loops, each form's loop nest and kernel chosen once and"
                        + " run at each box's offsets")
                        + familiesReason(cut.inFamilies(), cut.families()), pieces);
            }
            case Looped(PiecePairs.Pair p, Step.Run loops) -> explainLooped(p, loops, src.dtype(), dst.dtype());
            case InFamily f -> throw new IllegalStateException("a box run by its family is explained from its pair: " + from
                    + " -> " + to);
            case Staged(SubByteStaging.Staging staging) -> {
                CopyPlan inner = staging.innerPlan(PLACEHOLDER);
                List<CopyPlan.Explanation.Temporary> temporaries = new ArrayList<>();
                List<CopyPlan.Explanation.Staged> staged = new ArrayList<>();
                long bytes = 0;
                for (SubByteStaging.StagedSide s : staging.sides()) {
                    boolean source = s.side().equals("source");
                    staged.add(new CopyPlan.Explanation.Staged(s.side(), s.bits(), s.firstSlot(), s.slots(), s.unpacked(),
                            s.packedBack(), s.gather()));
                    temporaries.add(s.gather().isEmpty()
                            ? new CopyPlan.Explanation.Temporary("the " + s.side() + "'s slots, a byte each",
                                    source ? src.dtype() : dst.dtype(), List.of(s.slots()), Math.max(1, s.slots()))
                            : new CopyPlan.Explanation.Temporary("the " + s.side() + "'s elements, a byte each in row-major"
                                    + " order, " + (source ? "gathered from" : "scattered back into") + " their slots"
                                    + " through its " + s.gather(), source ? src.dtype() : dst.dtype(),
                                    source ? src.dims() : dst.dims(), Math.max(1, s.slots())));
                    // Unpacking reads the packed bytes and writes a byte a slot; packing back the reverse.
                    bytes += s.unpacked() + s.unpacked() * s.bits() / 8;
                    if (s.packedBack()) {
                        bytes += s.slots() + s.slots() * s.bits() / 8;
                    }
                }
                CopyPlan.Explanation planned = explainPlanned(inner, source(staging, from, inner), target(staging, to, inner));
                yield composite(CopyPlan.Explanation.Route.STAGED, from, to, n, List.of(planned), temporaries, staged,
                        staging.zeroedBytes(), bytes + staging.zeroedBytes(),
                        staging.sides().stream().anyMatch(s -> !s.gather().isEmpty())
                                ? "packed sub-byte storage: the planned kernels address a byte a slot; a side reaching far"
                                + " more slots than it has elements has its own slots staged, not the span it reaches"
                                : "packed sub-byte storage: the planned kernels address a byte a slot", List.of());
            }
            case Elements(String reason) -> {
                long zeroed = n == 0 ? 0 : ViewAdapter.tileSlotBytes(dst);
                long bytes = n == 0 ? 0 : Sizes.add(Sizes.multiply(n, src.dtype().byteWidth() + dst.dtype().byteWidth(),
                        "bytes moved"), zeroed, "bytes moved");
                yield new CopyPlan.Explanation(CopyPlan.Explanation.Route.ELEMENTS, from, to, n, bytes, 1, Optional.empty(),
                        List.of(), List.of(), zeroed, List.of(), List.of(), reason);
            }
        };
    }

    /** {@return what a copy over pieces' explanation says of its boxes run by families, if any} */
    private static String familiesReason(long inFamilies, long families) {
        return inFamilies == 0 ? "" : "; " + inFamilies + (inFamilies == 1 ? " box" : " boxes")
                + " against the side of one piece in tiles run by " + families + (families == 1 ? " family" : " families")
                + " (boxes of one shape crossing its tiles alike), each family's loops chosen once and run at each box's"
                + " offsets";
    }

    /** {@return a box run by its family ({@link InFamily}): its one-piece views, the family's runs at its offsets} */
    private CopyPlan.Explanation explainInFamily(PiecePairs.Pair p, BoxFamilies.Member member) {
        Optional<Access> from = ViewAdapter.access(p.src());
        Optional<Access> to = ViewAdapter.destination(p.dst());
        if (from.isEmpty() || to.isEmpty()) {
            throw new IllegalStateException("a box run by its family is one access each side: " + p.src() + " -> " + p.dst());
        }
        return explainPlanned(AccessCopies.unchecked(from.get(), to.get(), Optional.empty(), member.steps()),
                p.src().toString(), p.dst().toString());
    }

    /**
     * {@return the explanation of a box run by its form's loops} Its sides are told by their
     * strides, as {@link #explain(CopyPlan)} tells them: the box's views are not built (a cut past
     * the ceiling explains some hundred thousand boxes, and building and printing their views was
     * most of the time it took).
     */
    private CopyPlan.Explanation explainLooped(PiecePairs.Pair p, Step.Run loops, DType srcType, DType dstType) {
        return explainLooped(p.box().count(), p.sourceStrides(), p.destinationStrides(), loops, srcType, dstType);
    }

    private CopyPlan.Explanation explainLooped(long[] counts, PiecePairs.Strides source, PiecePairs.Strides destination,
                                              Step.Run loops, DType srcType, DType dstType) {
        Access from = BoxRuns.access(source, srcType, counts);
        Access to = BoxRuns.access(destination, dstType, counts);
        return explainPlanned(AccessCopies.unchecked(from, to, Optional.empty(), List.of(loops)), describe(from),
                describe(to));
    }

    /** Stands for a staged temporary in an explanation: its plan is made over it, nothing touches it. */
    private static final java.lang.foreign.MemorySegment PLACEHOLDER = java.lang.foreign.MemorySegment.ofArray(new byte[0]);

    private static String source(SubByteStaging.Staging staging, String view, CopyPlan inner) {
        return staging.sides().getFirst().side().equals("source") ? "the source's slots " + describe(AccessCopies.src(inner)) : view;
    }

    private static String target(SubByteStaging.Staging staging, String view, CopyPlan inner) {
        return staging.sides().getLast().side().equals("destination") ? "the destination's slots " + describe(AccessCopies.dst(inner))
                : view;
    }

    /** {@return an explanation of a copy made of {@code parts}: their bytes added, the most threads of any} */
    private static CopyPlan.Explanation composite(CopyPlan.Explanation.Route route, String from, String to, long n,
                                                  List<CopyPlan.Explanation> parts,
                                                  List<CopyPlan.Explanation.Temporary> temporaries,
                                                  List<CopyPlan.Explanation.Staged> staged, long zeroed, long ownBytes,
                                                  String reason, List<CopyPlan.Explanation.Piece> pieces) {
        long bytes = ownBytes;
        int threads = 1;
        for (CopyPlan.Explanation p : parts) {
            bytes = Sizes.add(bytes, p.bytes(), "bytes moved");
            threads = Math.max(threads, p.threads());
        }
        return new CopyPlan.Explanation(route, from, to, n, bytes, threads, Optional.empty(), temporaries, staged, zeroed, pieces,
                parts, reason);
    }

    private static String describeSpaces(TensorView view) {
        return view.buffers().stream().map(b -> b.memorySpace().describe()).distinct()
                .collect(Collectors.joining(", "));
    }

    /**
     * {@return a new view holding a copy of {@code src} laid out by {@code shape}'s XLA layout
     * (tiles and padding, padding zeroed) and converted to its type}; close its buffer to free it
     *
     * @throws IllegalArgumentException if the shape's dims are not the source's
     */
    public TensorView materialize(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!shape.dims().equals(src.dims())) {
            throw new IllegalArgumentException("shape " + shape + " differs from source dims " + src.dims());
        }
        MemoryBuffer buffer = allocator.allocate(bufferBytes(shape));
        return closedIfItFails(buffer, () -> {
            TensorView dst = TensorView.of(buffer, shape);
            zeroWhatTheCopySkips(buffer, shape, dst);
            copy(src, dst);
            return dst;
        });
    }

    /**
     * Zeroes a new buffer for {@code shape} where a copy into it leaves bytes as they were: packed
     * sub-byte elements' last byte (the whole buffer), the tail past the slots ({@code L(n)}, or
     * XLA's {@code ArraySize} above them: that tail alone), a tiled shape whose view the copy does
     * not write as its layout (the whole buffer). Otherwise the copy writes every slot, tile and row
     * padding as zero ({@code T(1,128)} included), and a fill first would write every byte twice. An allocator's memory may hold a previous owner's bytes (a pool's does), so both
     * materialize overloads call this: the bytes they give are the same.
     *
     * @param dst the view the copy writes, or null for a tiled access (which writes every slot)
     */
    private static void zeroWhatTheCopySkips(MemoryBuffer buffer, ArrayShape shape, TensorView dst) {
        if (ElementAccess.of(shape).storageBits() < 8
                || dst != null && !shape.requireLayout().tiles().isEmpty() && ViewAdapter.tiledLayout(dst).isEmpty()) {
            buffer.segment().fill((byte) 0);
            return;
        }
        // The copy writes every slot, padding as zero: only the tail past the slots is left.
        long slots = shape.physicalByteSize();
        if (slots < bufferBytes(shape)) {
            buffer.segment().asSlice(slots).fill((byte) 0);
        }
    }

    /**
     * Every slot the tiles address, or XLA's {@code ArraySize} when larger (tail padding): a later
     * tile that pads inside an earlier one addresses more than {@code ArraySize} counts.
     */
    private static long bufferBytes(ArrayShape shape) {
        return Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize()));
    }

    /**
     * {@return a new view holding a copy of {@code src} in {@code layout}, converted to
     * {@code dtype}}; close its buffer to free it
     *
     * @throws IllegalArgumentException if the layout's sizes are not the source's dims
     */
    public TensorView materialize(TensorView src, DType dtype, StridedLayout layout, Allocator allocator) {
        if (!layout.sizes().equals(src.dims())) {
            throw new IllegalArgumentException("layout sizes " + layout.sizes() + " differ from source dims " + src.dims());
        }
        if (layout.minOffset() < 0) {
            throw new IllegalArgumentException("layout " + layout + " reaches element offset " + layout.minOffset()
                    + " below 0");
        }
        // One element per byte or more, as TensorView.strided reads it (sub-byte types unpacked).
        long bytes = layout.elementCount() == 0 ? 1
                : Sizes.multiply(layout.maxOffset() + 1, dtype.byteWidth(), () -> "bytes of " + layout);
        MemoryBuffer buffer = allocator.allocate(bytes);
        return closedIfItFails(buffer, () -> {
            TensorView dst = TensorView.strided(buffer, dtype, layout);
            copy(src, dst);
            return dst;
        });
    }

    /**
     * {@return what {@code copy} made of a new buffer} The buffer is closed if it fails: every
     * materialize goes through here, as the caller never gets the buffer to close.
     */
    private static <T> T closedIfItFails(MemoryBuffer buffer, Supplier<T> copy) {
        try {
            return copy.get();
        } catch (RuntimeException | Error e) {
            try {
                buffer.close();
            } catch (RuntimeException | Error notClosed) {
                e.addSuppressed(notClosed);
            }
            throw e;
        }
    }
}
