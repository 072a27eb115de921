package dev.tensorbuf.interop.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.interop.internal.DlpackStructs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * Fuzzes DLPack import with producer structs whose fields are fuzzed in native memory: version,
 * flags, device, ndim, dtype, every shape and stride entry, byte_offset, and whether data and
 * strides are NULL. Every pointer the importer may follow stays valid (the shape and stride arrays
 * hold the largest rank the importer accepts, the deleter is NULL), so what is tested is the
 * importer's reading of the values: it either imports (and the import closes cleanly) or refuses
 * with a documented exception, and never reads memory the struct does not point to. No element
 * is read through the data pointer, as a consumer that only imports would not.
 * Seeds and findings: {@code src/test/resources/dev/tensorbuf/interop/fuzz/DlpackImportFuzzTestInputs/}.
 */
class DlpackImportFuzzTest {
    /** Room for the shape and strides of any rank the importer accepts (it refuses more than 64). */
    private static final int MAX_RANK = 64;
    private static final long DATA_BYTES = 4096;

    @FuzzTest
    void importReadsOnlyWhatTheStructPointsTo(FuzzedDataProvider in) {
        boolean versioned = in.consumeBoolean();
        StructLayout layout = versioned ? DlpackStructs.DL_MANAGED_TENSOR_VERSIONED : DlpackStructs.DL_MANAGED_TENSOR;
        String[] t = {"dl_tensor"};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment managed = arena.allocate(layout);
            MemorySegment shape = arena.allocate(ValueLayout.JAVA_LONG, MAX_RANK);
            MemorySegment strides = arena.allocate(ValueLayout.JAVA_LONG, MAX_RANK);
            MemorySegment data = arena.allocate(DATA_BYTES, 256);
            if (versioned) {
                managed.set(ValueLayout.JAVA_INT, DlpackStructs.offset(layout, "version", "major"),
                        in.consumeBoolean() ? 1 : in.consumeInt());
                managed.set(ValueLayout.JAVA_INT, DlpackStructs.offset(layout, "version", "minor"), in.consumeInt(0, 5));
                managed.set(ValueLayout.JAVA_LONG, DlpackStructs.offset(layout, "flags"), in.consumeLong());
            }
            managed.set(ValueLayout.ADDRESS, DlpackStructs.offset(layout, "deleter"), MemorySegment.NULL);
            managed.set(ValueLayout.ADDRESS, off(layout, t, "data"), in.consumeBoolean() ? data : MemorySegment.NULL);
            managed.set(ValueLayout.JAVA_INT, off(layout, t, "device", "device_type"),
                    in.consumeBoolean() ? 1 : in.consumeInt(-2, 20));
            managed.set(ValueLayout.JAVA_INT, off(layout, t, "device", "device_id"), in.consumeInt(-1, 3));
            int ndim = in.consumeBoolean() ? in.consumeInt(0, 6) : in.consumeInt();
            managed.set(ValueLayout.JAVA_INT, off(layout, t, "ndim"), ndim);
            managed.set(ValueLayout.JAVA_BYTE, off(layout, t, "dtype", "code"), in.consumeByte());
            managed.set(ValueLayout.JAVA_BYTE, off(layout, t, "dtype", "bits"), in.consumeByte());
            managed.set(ValueLayout.JAVA_SHORT, off(layout, t, "dtype", "lanes"), in.consumeBoolean() ? 1 : in.consumeShort());
            managed.set(ValueLayout.ADDRESS, off(layout, t, "shape"), in.consumeBoolean() || ndim == 0 ? shape : MemorySegment.NULL);
            managed.set(ValueLayout.ADDRESS, off(layout, t, "strides"), in.consumeBoolean() ? strides : MemorySegment.NULL);
            managed.set(ValueLayout.JAVA_LONG, off(layout, t, "byte_offset"),
                    in.consumeBoolean() ? in.consumeLong(0, DATA_BYTES) : in.consumeLong());
            for (int i = 0; i < MAX_RANK; i++) {
                shape.setAtIndex(ValueLayout.JAVA_LONG, i, in.consumeBoolean() ? in.consumeLong(0, 8) : in.consumeLong());
                strides.setAtIndex(ValueLayout.JAVA_LONG, i, in.consumeBoolean() ? in.consumeLong(-8, 64) : in.consumeLong());
            }
            String input = "DLPack struct (versioned " + versioned + ", ndim " + ndim + ")";
            expectOnlyDocumentedExceptions(input, () -> {
                try (Dlpack.Tensor tensor = versioned ? Dlpack.importVersioned(managed) : Dlpack.importLegacy(managed)) {
                    if (tensor.view().rank() != Math.max(0, ndim)) {
                        throw new AssertionError("imported rank " + tensor.view().rank() + " from ndim " + ndim);
                    }
                }
            });
        }
    }

    private static long off(StructLayout layout, String[] tensor, String... field) {
        String[] path = new String[tensor.length + field.length];
        System.arraycopy(tensor, 0, path, 0, tensor.length);
        System.arraycopy(field, 0, path, tensor.length, field.length);
        return DlpackStructs.offset(layout, path);
    }
}
