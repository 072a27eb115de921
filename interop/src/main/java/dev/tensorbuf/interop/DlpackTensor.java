package dev.tensorbuf.interop;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.TensorView;
import java.util.Objects;

/**
 * A tensor imported from DLPack: a view over the producer's memory, and the root buffer whose
 * first {@link #close()} calls the producer's deleter, exactly once, from any thread.
 * {@snippet :
 * try (DlpackTensor t = Dlpack.importVersioned(managed)) {   // managed: a DLManagedTensorVersioned*
 *     t.view().dims();                   // [2, 3]
 *     TensorElements.of(t.view()).getFloat(1, 2);           // 5.0
 *     t.isReadOnly();                    // false
 * }                                      // the producer's deleter ran here, once
 * }
 *
 * @param view the tensor; read-only when the producer set {@code READ_ONLY}
 * @param root the buffer over the producer's memory, from the lowest to the highest byte an element
 *     reaches; closing it releases the tensor; read-only, like the view, when the producer set
 *     {@code READ_ONLY}
 * @param versioned whether it came as {@code DLManagedTensorVersioned} (else legacy {@code DLManagedTensor})
 * @param minorVersion the producer's DLPack minor version; 0 for the legacy struct
 * @param flags the producer's flag bits ({@link DlpackStructs#FLAG_READ_ONLY}, ...); 0 for the legacy struct
 */
public record DlpackTensor(TensorView view, MemoryBuffer root, boolean versioned, int minorVersion, long flags)
        implements AutoCloseable {

    /** @throws NullPointerException for a null view or root */
    public DlpackTensor {
        Objects.requireNonNull(view, "view");
        Objects.requireNonNull(root, "root");
    }

    /** {@return whether the producer forbids writes ({@code READ_ONLY})} */
    public boolean isReadOnly() {
        return (flags & DlpackStructs.FLAG_READ_ONLY) != 0;
    }

    /** Releases the tensor: the producer's deleter runs on the first close only. */
    @Override
    public void close() {
        root.close();
    }
}
