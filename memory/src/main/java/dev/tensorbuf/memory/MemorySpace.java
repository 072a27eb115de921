package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.AsciiDigits;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a buffer's bytes live: XLA's memory space id {@code S(n)}, what kind of memory that is,
 * which device it belongs to, whether Java code may touch the bytes, and how DLPack names it.
 *
 * <p>XLA ids: {@code S(0)} is the device's default memory (HBM) and is what a layout without any
 * {@code S(n)} means; {@code S(1)} is on-device fast memory (VMEM on TPU); {@code S(5)} is host
 * memory. Any other non-negative id is accepted as kind {@link Kind#OTHER}. The kind follows from
 * the id: the constructor refuses, say, {@code S(5)} of kind {@link Kind#DEVICE}, which would print
 * as host memory in XLA text.
 *
 * <p><b>Host buffers and {@code S(0)}.</b> A plain host allocation (an arena or a pool) is
 * {@link #HOST}, which XLA spells {@code S(5)}, never {@code S(0)}: in XLA text the absence of
 * {@code S(n)} means device memory, so a host buffer printed as an XLA layout always carries
 * {@code S(5)}. Reading an XLA shape without {@code S(n)} into a host buffer therefore describes a
 * copy of device data on the host; the buffer's own space, not the layout's, says where the bytes
 * are. Layout printers omit {@code S(0)} (see {@link #isXlaDefault()}); {@link #toXlaText()}
 * always spells the id.
 *
 * <p>An XLA id alone does not say everything: {@link #PINNED_HOST} is also {@code S(5)}, so
 * {@code parse(PINNED_HOST.toXlaText())} gives {@link #HOST} (same id, default kind for the id).
 *
 * {@snippet :
 * MemorySpace fast = MemorySpace.parse("S(1)");
 * fast.kind();              // Kind.DEVICE_FAST
 * fast.hostAccessible();    // false
 * fast.toXlaText();         // "S(1)"
 * MemorySpace.HOST.toXlaText();               // "S(5)"
 * MemorySpace.PINNED_HOST.dlpackDevice();     // Optional[CUDA_HOST], code 3
 * MemorySpace.parse("S(7)").kind();           // Kind.OTHER
 * }
 *
 * @param xlaId XLA's memory space id, {@code >= 0}
 * @param kind what kind of memory this is
 * @param deviceOrdinal which device of its kind, {@code >= 0}: always 0 for {@link Kind#HOST};
 *     pinned host memory may name the device it is pinned for, as DLPack's {@code device_id} of
 *     {@code kDLCUDAHost} memory may
 * @param hostAccessible whether Java code may read and write the bytes through a
 *     {@link java.lang.foreign.MemorySegment}; always true for {@link Kind#HOST} and
 *     {@link Kind#PINNED_HOST}, always false for {@link Kind#DEVICE} and {@link Kind#DEVICE_FAST}
 * @param dlpackDevice DLPack's device type for this memory, empty where DLPack has none
 *     (on-device fast memory cannot be exported through DLPack); a host type
 *     ({@link DLDeviceType#isHost()}) only where {@code hostAccessible}, a device-only type only
 *     where not: {@code kDLCPU} for {@link Kind#HOST}, {@code kDLCUDAHost} or {@code kDLROCMHost}
 *     for {@link Kind#PINNED_HOST}
 */
public record MemorySpace(
        long xlaId, Kind kind, int deviceOrdinal, boolean hostAccessible, Optional<DLDeviceType> dlpackDevice) {

    /** XLA's id of the device default memory, {@code S(0)}. */
    public static final long XLA_DEFAULT_ID = 0;
    /** XLA's id of the generic on-device fast memory, {@code S(1)}. */
    public static final long XLA_FAST_ID = 1;
    /** XLA's id of host memory, {@code S(5)}. */
    public static final long XLA_HOST_ID = 5;

    /** Ordinary host memory: {@code S(5)}, kDLCPU. Every arena and pool allocates here. */
    public static final MemorySpace HOST =
            new MemorySpace(XLA_HOST_ID, Kind.HOST, 0, true, Optional.of(DLDeviceType.CPU));
    /** Page-locked host memory a device can DMA from: {@code S(5)}, kDLCUDAHost. */
    public static final MemorySpace PINNED_HOST =
            new MemorySpace(XLA_HOST_ID, Kind.PINNED_HOST, 0, true, Optional.of(DLDeviceType.CUDA_HOST));
    /** Device default memory (HBM) of device 0: {@code S(0)}, kDLCUDA. */
    public static final MemorySpace DEVICE =
            new MemorySpace(XLA_DEFAULT_ID, Kind.DEVICE, 0, false, Optional.of(DLDeviceType.CUDA));
    /** On-device fast memory (VMEM on TPU) of device 0: {@code S(1)}, no DLPack device type. */
    public static final MemorySpace DEVICE_FAST =
            new MemorySpace(XLA_FAST_ID, Kind.DEVICE_FAST, 0, false, Optional.empty());

    /** The kinds of memory a buffer can live in. */
    public enum Kind {
        /** Ordinary pageable host memory. */
        HOST("host memory"),
        /** Page-locked host memory, registered with a device for DMA. */
        PINNED_HOST("pinned host memory"),
        /** A device's default memory, HBM on accelerators. */
        DEVICE("device memory (HBM)"),
        /** A device's small fast memory, VMEM on TPU. */
        DEVICE_FAST("on-device fast memory (VMEM)"),
        /** Any other XLA memory space id. */
        OTHER("memory of kind OTHER");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        /** {@return a short description, e.g. {@code "device memory (HBM)"}} */
        public String description() {
            return description;
        }
    }

    /**
     * Checks the invariants, so that no space says one thing to Java and another to DLPack.
     *
     * @throws IllegalArgumentException naming the field and its value, e.g. {@code "DEVICE memory
     *     with hostAccessible=false cannot have dlpackDevice kDLCPU: ..."}, if
     *     <ul>
     *     <li>{@code xlaId} or {@code deviceOrdinal} is negative;
     *     <li>{@code hostAccessible} contradicts the kind;
     *     <li>{@code xlaId} contradicts the kind: {@link Kind#DEVICE} is {@code S(0)},
     *         {@link Kind#DEVICE_FAST} {@code S(1)}, {@link Kind#HOST} and {@link Kind#PINNED_HOST}
     *         {@code S(5)}, {@link Kind#OTHER} any other id;
     *     <li>{@link Kind#HOST} memory has a {@code deviceOrdinal} other than 0;
     *     <li>{@code dlpackDevice} is host memory ({@link DLDeviceType#isHost()}) but
     *         {@code hostAccessible} is false, or a device's only ({@link DLDeviceType#isDeviceOnly()})
     *         but {@code hostAccessible} is true: a consumer would read device memory on the host,
     *         or hand host memory to a device;
     *     <li>{@code dlpackDevice} contradicts the kind: {@link Kind#HOST} is {@code kDLCPU},
     *         {@link Kind#PINNED_HOST} {@code kDLCUDAHost} or {@code kDLROCMHost}, and
     *         {@link Kind#DEVICE_FAST} has none.
     *     </ul>
     */
    public MemorySpace {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(dlpackDevice, "dlpackDevice");
        if (xlaId < 0) {
            throw new IllegalArgumentException("memory space id " + xlaId + " must be >= 0");
        }
        if (deviceOrdinal < 0) {
            throw new IllegalArgumentException("device ordinal " + deviceOrdinal + " must be >= 0");
        }
        boolean required = switch (kind) {
            case HOST, PINNED_HOST -> true;
            case DEVICE, DEVICE_FAST -> false;
            case OTHER -> hostAccessible;
        };
        if (hostAccessible != required) {
            throw new IllegalArgumentException(
                    kind + " memory must have hostAccessible=" + required + ", got " + hostAccessible);
        }
        checkXlaId(xlaId, kind);
        if (kind == Kind.HOST && deviceOrdinal != 0) {
            throw new IllegalArgumentException("HOST memory must have deviceOrdinal 0, got " + deviceOrdinal);
        }
        checkDlpackDevice(kind, hostAccessible, dlpackDevice.orElse(null));
    }

    /** The kind follows from the id, as the class comment says: a space contradicting it would print as another kind. */
    private static void checkXlaId(long xlaId, Kind kind) {
        Kind ofId = xlaId == XLA_DEFAULT_ID ? Kind.DEVICE : xlaId == XLA_FAST_ID ? Kind.DEVICE_FAST
                : xlaId == XLA_HOST_ID ? Kind.HOST : Kind.OTHER;
        if (kind == ofId || (kind == Kind.PINNED_HOST && ofId == Kind.HOST)) {
            return;
        }
        String expected = switch (kind) {
            case DEVICE -> "xlaId 0";
            case DEVICE_FAST -> "xlaId 1";
            case HOST, PINNED_HOST -> "xlaId 5";
            case OTHER -> "an xlaId other than 0, 1 and 5";
        };
        throw new IllegalArgumentException(kind + " memory must have " + expected + ", got " + xlaId + " (S(" + xlaId
                + ") is " + (ofId == Kind.HOST ? "HOST or PINNED_HOST" : ofId) + " memory)");
    }

    /**
     * A DLPack consumer trusts the device type over everything else: {@code kDLCPU} memory it reads
     * on the host, {@code kDLCUDA} memory it hands to the GPU. A type on the wrong side of the bus
     * crashes whoever takes it.
     */
    private static void checkDlpackDevice(Kind kind, boolean hostAccessible, DLDeviceType type) {
        if (type != null && type.isHost() && !hostAccessible) {
            throw new IllegalArgumentException(kind + " memory with hostAccessible=false cannot have dlpackDevice "
                    + type.cName() + ": " + type.cName() + " is host memory, which a DLPack consumer reads on the host");
        }
        if (type != null && type.isDeviceOnly() && hostAccessible) {
            throw new IllegalArgumentException(kind + " memory with hostAccessible=true cannot have dlpackDevice "
                    + type.cName() + ": " + type.cName() + " is a device's memory, which a DLPack consumer hands to"
                    + " the device");
        }
        String expected = switch (kind) {
            case HOST -> type == DLDeviceType.CPU ? null : "dlpackDevice kDLCPU";
            case PINNED_HOST -> type == DLDeviceType.CUDA_HOST || type == DLDeviceType.ROCM_HOST
                    ? null : "dlpackDevice kDLCUDAHost or kDLROCMHost";
            case DEVICE_FAST -> type == null ? null : "no dlpackDevice (DLPack cannot describe on-device fast memory)";
            case DEVICE, OTHER -> null;
        };
        if (expected != null) {
            throw new IllegalArgumentException(kind + " memory must have " + expected + ", got "
                    + (type == null ? "none" : type.cName()));
        }
    }

    /**
     * {@return the default space for an XLA id: 0 is {@link #DEVICE}, 1 {@link #DEVICE_FAST},
     * 5 {@link #HOST}, anything else kind {@link Kind#OTHER} (not host-accessible, no DLPack type)}
     *
     * @param xlaId the {@code n} of {@code S(n)}
     * @throws IllegalArgumentException if {@code xlaId < 0}
     */
    public static MemorySpace ofXlaId(long xlaId) {
        if (xlaId == XLA_DEFAULT_ID) {
            return DEVICE;
        } else if (xlaId == XLA_FAST_ID) {
            return DEVICE_FAST;
        } else if (xlaId == XLA_HOST_ID) {
            return HOST;
        }
        return new MemorySpace(xlaId, Kind.OTHER, 0, false, Optional.empty());
    }

    /**
     * {@return device memory (HBM, {@code S(0)}) of the given DLPack device type and ordinal}
     *
     * @param type the device's DLPack type, e.g. {@link DLDeviceType#ROCM}
     * @param ordinal which device of that type
     * @throws IllegalArgumentException if {@code ordinal < 0}, or {@code type} is host memory
     *     ({@code kDLCPU}, {@code kDLCUDAHost}, {@code kDLROCMHost}), which Java may touch
     */
    public static MemorySpace device(DLDeviceType type, int ordinal) {
        Objects.requireNonNull(type, "type");
        if (type.isHost()) {
            throw new IllegalArgumentException(type.cName() + " is host memory, not device memory: use MemorySpace."
                    + (type == DLDeviceType.CPU ? "HOST" : "PINNED_HOST"));
        }
        return new MemorySpace(XLA_DEFAULT_ID, Kind.DEVICE, ordinal, false, Optional.of(type));
    }

    /**
     * {@return this space on another device of the same kind}
     *
     * @param ordinal which device
     * @throws IllegalArgumentException if {@code ordinal < 0}, or this is {@link Kind#HOST} memory
     *     and {@code ordinal} is not 0
     */
    public MemorySpace withDeviceOrdinal(int ordinal) {
        return new MemorySpace(xlaId, kind, ordinal, hostAccessible, dlpackDevice);
    }

    /**
     * Reads XLA's memory space text, exactly {@code S(} decimal digits {@code )}: no spaces, no
     * sign, no leading zeros. The result is {@link #ofXlaId(long)} of the id.
     *
     * @param text e.g. {@code "S(1)"}
     * @return the default space for that id
     * @throws IllegalArgumentException naming the problem, its 0-based position and the text,
     *     e.g. {@code "expected ')' at position 3 of 'S(1'"}
     */
    public static MemorySpace parse(String text) {
        Objects.requireNonNull(text, "text");
        if (!text.startsWith("S(")) {
            throw parseError("expected 'S('", text, 0);
        }
        int start = 2;
        int pos = start;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos < text.length() && AsciiDigits.isOtherDigit(text.codePointAt(pos))) {
            throw parseError(AsciiDigits.notAsciiDigit(text, pos), text, pos);
        }
        if (pos == start) {
            throw parseError("expected a digit", text, start);
        }
        if (text.charAt(start) == '0' && pos - start > 1) {
            throw parseError("leading zero in memory space id", text, start);
        }
        String digits = text.substring(start, pos);
        long id;
        try {
            id = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw parseError("memory space id " + digits + " does not fit in 64 bits", text, start);
        }
        if (pos == text.length() || text.charAt(pos) != ')') {
            throw parseError("expected ')'", text, pos);
        }
        if (pos + 1 != text.length()) {
            throw parseError("unexpected text after the memory space", text, pos + 1);
        }
        return ofXlaId(id);
    }

    private static IllegalArgumentException parseError(String problem, String text, int position) {
        return new IllegalArgumentException(problem + " at position " + position + " of '" + text + "'");
    }

    /** {@return XLA's text for this space, e.g. {@code "S(1)"}; {@code "S(0)"} for the default too} */
    public String toXlaText() {
        return "S(" + xlaId + ")";
    }

    /** {@return whether this is XLA's default space {@code S(0)}, which layout text leaves out} */
    public boolean isXlaDefault() {
        return xlaId == XLA_DEFAULT_ID;
    }

    /**
     * {@return the id and kind for messages, e.g. {@code "S(0) device memory (HBM)"}} Device
     * memory of a DLPack type that may be on either side ({@code kDLCUDAManaged}, {@code kDLOneAPI},
     * {@code kDLExtDev}) is named by its type instead, as it need not be HBM:
     * {@code "S(0) kDLCUDAManaged memory (host or device: Java treats it as device memory)"}.
     */
    public String describe() {
        if (namedByDlpackType()) {
            return toXlaText() + " " + dlpackDevice.orElseThrow().cName()
                    + " memory (host or device: Java treats it as device memory)";
        }
        return toXlaText() + " " + kind.description();
    }

    /** Whether {@link #describe()} names the DLPack type: device memory whose type does not say it is the device's. */
    private boolean namedByDlpackType() {
        return kind == Kind.DEVICE && dlpackDevice.isPresent() && !dlpackDevice.get().isDeviceOnly();
    }

    /** {@return e.g. {@code "S(0) device memory (HBM), device 0, kDLCUDA"}} */
    @Override
    public String toString() {
        return describe() + ", device " + deviceOrdinal
                + (namedByDlpackType() ? "" : dlpackDevice.map(t -> ", " + t.cName()).orElse(", no DLPack device type"))
                + (kind == Kind.OTHER && hostAccessible ? ", host-accessible" : "");
    }

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
}
