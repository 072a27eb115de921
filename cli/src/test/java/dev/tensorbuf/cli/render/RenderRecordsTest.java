package dev.tensorbuf.cli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** A review found these records holding arrays: equal only to themselves, printed as [J@..., shared with the caller. */
class RenderRecordsTest {
    @Test
    void cellsCopyTheirArraysAndCompareByValue() {
        long[] index = {2, 3};
        long[] tiles = {4, 1};
        LayoutPicture.Cell c = new LayoutPicture.Cell(index, 17, false, 1, 4, tiles);
        index[0] = 9;
        tiles[0] = 9;
        c.tileIds()[1] = 9;
        assertEquals(new LayoutPicture.Cell(new long[] {2, 3}, 17, false, 1, 4, new long[] {4, 1}), c);
        assertEquals(new LayoutPicture.Cell(new long[] {2, 3}, 17, false, 1, 4, new long[] {4, 1}).hashCode(), c.hashCode());
        assertNotEquals(new LayoutPicture.Cell(new long[] {2, 3}, 17, false, 1, 4, new long[] {4, 2}), c);
        assertEquals("Cell[index=[2, 3], offset=17, padding=false, sharing=1, colourKey=4, tileIds=[4, 1]]", c.toString());
    }

    @Test
    void slotsCopyTheirTileIdsAndCompareByValue() {
        long[] tiles = {4};
        StripItem.Slot s = new StripItem.Slot(17, "2,3", "2,3", 1, 4, tiles);
        tiles[0] = 9;
        assertEquals(new StripItem.Slot(17, "2,3", "2,3", 1, 4, new long[] {4}), s);
        assertEquals(4, s.tileId(0));
        assertEquals("Slot[slot=17, index=2,3, label=2,3, count=1, colourKey=4, tileIds=[4]]", s.toString());
    }
}
