package dev.tensorbuf.views;

import java.util.Arrays;

/**
 * The text of {@link TensorView#toString()}. Error messages in every module print views, so the
 * text comes from what the view already has where it can (an XLA shape's text, the strides),
 * and a map that cannot be simplified prints as it was made rather than failing the message.
 */
final class ViewText {
    private ViewText() {
    }

    /** {@return the text of {@code view}, as {@link TensorView#toString()} describes it} */
    static String of(TensorView view) {
        ArrayShape shape = view.shape();
        String text = shape.toString();
        long[] printed = view.stridesArray();
        long offset = view.base();
        if (printed == null) {
            if (shape.layout().isPresent() && view.bufferOrNull() != null) {
                // A tiled XLA shape: its text says it all, and printing it builds no map.
                return text;
            }
            ViewMap map = view.map();
            if (!(map instanceof ViewMap.Single single)) {
                return text + (map instanceof ViewMap.Padded ? " padded" : " concatenated from " + map.pieces().size() + " pieces");
            }
            // The rule fromMap applies, so a view prints the same whether ops or a map made it.
            long[] constant = new long[1];
            printed = ViewFactory.affineStrides(single.map(), view.rank(), constant);
            offset = constant[0];
        }
        if (printed != null) {
            return text + " strides " + Arrays.toString(printed) + (offset == 0 ? "" : " offset " + offset);
        }
        try {
            return text + " map " + view.derived().simplified();
        } catch (ArithmeticException | IllegalArgumentException overflow) {
            // Error messages print views; one whose map cannot be simplified prints it as made.
            return text + " map " + ((ViewMap.Single) view.map()).map();
        }
    }
}
