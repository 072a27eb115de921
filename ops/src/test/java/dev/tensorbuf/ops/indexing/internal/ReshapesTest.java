package dev.tensorbuf.ops.indexing.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.views.ArrayShape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The layout helpers the physical maps are built from, on a layout that is neither row- nor column-major. */
class ReshapesTest {

    @Test
    void physicalOrderFollowsTheLayout() {
        // {0,2,1}: dim 0 is the most minor, then dim 2, then dim 1; major-to-minor that is 1, 2, 0.
        ArrayShape shape = ArrayShape.parse("f32[2,3,4]{0,2,1}");
        assertEquals(List.of(0, 2, 1), Reshapes.minorToMajor(shape));
        assertEquals(List.of(3L, 4L, 2L), Reshapes.physicalDims(shape));
        assertEquals(List.of(1, 0), Reshapes.minorToMajor(ArrayShape.parse("f32[5,7]{1,0}")));
        assertEquals(List.of(5L, 7L), Reshapes.physicalDims(ArrayShape.parse("f32[5,7]{1,0}")));
    }
}
