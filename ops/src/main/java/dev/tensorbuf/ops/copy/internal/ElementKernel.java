package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#ELEMENT}: same type, any strides, one element at a time;
 * one method per element width, so each width has its own call site.
 */
final class ElementKernel {
    private ElementKernel() {
    }

    static void run(Task t) {
        switch (t.dstWidth()) {
            case 1 -> run1(t);
            case 2 -> run2(t);
            case 4 -> run4(t);
            case 8 -> run8(t);
            default -> runBytes(t);
        }
    }

    private static void run1(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            long s = o.src;
            long d = o.dst;
            for (long i = 0; i < n; i++) {
                dst.set(Layouts.I8, d, src.get(Layouts.I8, s));
                s += ss;
                d += ds;
            }
        } while (o.next());
    }

    private static void run2(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            long s = o.src;
            long d = o.dst;
            for (long i = 0; i < n; i++) {
                dst.set(Layouts.I16, d, src.get(Layouts.I16, s));
                s += ss;
                d += ds;
            }
        } while (o.next());
    }

    static void run4(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            long s = o.src;
            long d = o.dst;
            for (long i = 0; i < n; i++) {
                dst.set(Layouts.I32, d, src.get(Layouts.I32, s));
                s += ss;
                d += ds;
            }
        } while (o.next());
    }

    private static void run8(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            long s = o.src;
            long d = o.dst;
            for (long i = 0; i < n; i++) {
                dst.set(Layouts.I64, d, src.get(Layouts.I64, s));
                s += ss;
                d += ds;
            }
        } while (o.next());
    }

    private static void runBytes(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        int w = t.dstWidth();
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        do {
            for (long i = 0; i < n; i++) {
                MemorySegment.copy(src, o.src + i * ss, dst, o.dst + i * ds, w);
            }
        } while (o.next());
    }
}
