package dev.tensorbuf.interop;

import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR;
import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
import static dev.tensorbuf.interop.internal.DlpackStructs.DL_TENSOR;
import static dev.tensorbuf.interop.internal.DlpackStructs.offset;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The FFM struct layouts against the reference's table and against gcc's own layout. */
class DlpackStructsTest {

    @Test
    void layoutsMatchTheReferenceTable() {
        assertEquals(48, DL_TENSOR.byteSize());
        assertEquals(64, DL_MANAGED_TENSOR.byteSize());
        assertEquals(80, DL_MANAGED_TENSOR_VERSIONED.byteSize());
        assertEquals(8, DL_TENSOR.byteAlignment());
        assertEquals(20, offset(DL_TENSOR, "dtype"));
        assertEquals(22, offset(DL_TENSOR, "dtype", "lanes"));
        assertEquals(32, offset(DL_MANAGED_TENSOR_VERSIONED, "dl_tensor"));
        assertEquals(64, offset(DL_MANAGED_TENSOR_VERSIONED, "dl_tensor", "strides"));
        assertEquals(72, offset(DL_MANAGED_TENSOR_VERSIONED, "dl_tensor", "byte_offset"));
    }

    @Test
    void layoutsMatchWhatGccLaysOut() {
        long[] c = NativePeer.get().layout();
        long[] java = {
            DL_TENSOR.byteSize(), DL_MANAGED_TENSOR.byteSize(), DL_MANAGED_TENSOR_VERSIONED.byteSize(),
            offset(DL_TENSOR, "device"), offset(DL_TENSOR, "ndim"), offset(DL_TENSOR, "dtype"),
            offset(DL_TENSOR, "shape"), offset(DL_TENSOR, "strides"), offset(DL_TENSOR, "byte_offset"),
            offset(DL_MANAGED_TENSOR, "manager_ctx"), offset(DL_MANAGED_TENSOR, "deleter"),
            offset(DL_MANAGED_TENSOR_VERSIONED, "manager_ctx"), offset(DL_MANAGED_TENSOR_VERSIONED, "deleter"),
            offset(DL_MANAGED_TENSOR_VERSIONED, "flags"), offset(DL_MANAGED_TENSOR_VERSIONED, "dl_tensor"),
        };
        assertArrayEquals(c, java);
    }
}
