package dev.tensorbuf.interop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The outside-in review exported device memory labelled {@code kDLCPU}; our importer read it on the
 * host and the JVM died (SIGSEGV). The label must never disagree with where the memory is:
 * {@code MemorySpace} refuses such a space when it is made, and a record has no other way in, so
 * the exporter trusts {@code dlpackDevice()}.
 */
class DlpackExporterDeviceTypeTest {

    @Test
    void deviceMemoryLabelledKdlcpuCannotBeMadeSoCannotBeExported() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new MemorySpace(0, MemorySpace.Kind.DEVICE, 0, false, Optional.of(DLDeviceType.CPU)));
        assertTrue(e.getMessage().contains("cannot have dlpackDevice kDLCPU"), e.getMessage());
    }

    @Test
    void ordinarySpacesStillRoundTrip() {
        MemoryBuffer gpu = MemoryBuffer.foreign(0x7f00_0000_1000L, 64, MemorySpace.device(DLDeviceType.ROCM, 1), "fake", () -> { });
        MemorySegment m = Dlpack.exportVersioned(TensorView.of(gpu, "f32[4,4]{1,0}"));
        try (Dlpack.Tensor back = Dlpack.importVersioned(m)) {
            assertEquals(MemorySpace.device(DLDeviceType.ROCM, 1), back.view().buffer().memorySpace());
        }
        try (Allocator host = Allocators.shared()) {
            TensorView v = TensorView.of(host.allocate(64), "f32[4,4]{1,0}");
            TensorElements.of(v).setFloat(2.5f, 1, 2);
            try (Dlpack.Tensor back = Dlpack.importVersioned(Dlpack.exportVersioned(v))) {
                assertEquals(MemorySpace.HOST, back.view().buffer().memorySpace());
                assertEquals(2.5f, TensorElements.of(back.view()).getFloat(1, 2));
            }
        }
    }
}
