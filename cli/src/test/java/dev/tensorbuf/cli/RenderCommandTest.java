package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.cli.render.SvgDoc;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.XlaShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RenderCommandTest {
    @TempDir
    Path dir;

    private static SvgDoc render(String... args) {
        CliHarness r = CliHarness.run(args);
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        return SvgDoc.parse(r.out());
    }

    @Test
    void exampleFromHelp() throws Exception {
        Path out = dir.resolve("fig1.svg");
        CliHarness r = CliHarness.run("render", "f32[3,5]{1,0:T(2,2)}", "--out", out.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"svg\":\"" + out + "\",\"cells\":15,\"padding_slots\":9,\"summarised\":false}\n", r.out());
        assertEquals(17L, SvgDoc.parse(Files.readString(out)).offsets().get("2,3"));
    }

    @Test
    void jsonWithoutOutWritesNoPicture() {
        CliHarness r = CliHarness.run("render", "bf16[4,8]{1,0:T(2,4)(2,1)}", "--json");
        assertEquals("{\"svg\":null,\"cells\":32,\"padding_slots\":0,\"summarised\":false}\n", r.out());
    }

    @Test
    void broadcastCellsShareSlotsAndTheStripStarsTheBroadcastDim() {
        SvgDoc doc = render("render", "--dtype", "f32", "--sizes", "3,4", "--strides", "0,1");
        StridedLayout layout = StridedLayout.of(new long[] {3, 4}, new long[] {0, 1});
        for (Map.Entry<String, Long> cell : doc.offsets().entrySet()) {
            long[] index = Invocation.parseLongs(cell.getKey(), "index");
            assertEquals(layout.offsetOf(index), cell.getValue(), cell.getKey());
        }
        assertEquals(12, doc.offsets().size());
        assertEquals(Map.of(0L, "*,0", 1L, "*,1", 2L, "*,2", 3L, "*,3"), doc.slotLabels());
        assertTrue(doc.elements("text", "offset").stream().allMatch(e -> e.getAttribute("data-sharing").equals("3")));
        assertEquals(12, doc.elements("path", "shared").size());
    }

    @Test
    void paddedStridesLeaveUnusedSlotsBetweenRows() {
        CliHarness json = CliHarness.run("render", "--dtype", "f32", "--sizes", "3,4", "--strides", "6,1", "--json");
        assertEquals("{\"svg\":null,\"cells\":12,\"padding_slots\":4,\"summarised\":false}\n", json.out());
        SvgDoc doc = render("render", "--dtype", "f32", "--sizes", "3,4", "--strides", "6,1");
        StridedLayout layout = StridedLayout.of(new long[] {3, 4}, new long[] {6, 1});
        for (Map.Entry<String, Long> cell : doc.offsets().entrySet()) {
            assertEquals(layout.offsetOf(Invocation.parseLongs(cell.getKey(), "index")), cell.getValue(), cell.getKey());
        }
        assertEquals(List.of(4L, 5L, 10L, 11L), doc.paddingSlots());
        assertEquals("1,2", doc.slotIndices().get(8L));
    }

    @Test
    void offsetPlacesAFlippedLayoutAndTheSlotsBeforeItAreUnused() {
        SvgDoc doc = render("render", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,-1", "--offset", "4");
        assertEquals(Map.of("0,0", 4L, "0,1", 3L, "0,2", 2L, "1,0", 7L, "1,1", 6L, "1,2", 5L), doc.offsets());
        assertEquals(List.of(0L, 1L), doc.paddingSlots());
        assertEquals("0,2", doc.slotIndices().get(2L));
        CliHarness json = CliHarness.run("render", "f32[2,3]", "--strides", "3,-1", "--offset", "4", "--json");
        assertEquals("{\"svg\":null,\"cells\":6,\"padding_slots\":2,\"summarised\":false}\n", json.out());
        CliHarness none = CliHarness.run("render", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,-1");
        assertEquals(2, none.code());
        assertEquals("tensorbuf render: negative strides [3, -1] reach element offset -2 for sizes [2, 3] from offset 0:"
                + " pass --offset 2 or more\n", none.err());
    }

    @Test
    void longUnusedRunsCollapseIntoOneGapBox() {
        SvgDoc doc = render("render", "--dtype", "s8", "--sizes", "2,2", "--strides", "1000,1");
        assertEquals(List.of(0L, 1L, 1000L, 1001L), List.copyOf(doc.slotIndices().keySet()));
        assertEquals(List.of("... 998 unused"), doc.texts("gap-label"));
    }

    @Test
    void shapeTextGivesDtypeAndSizesOfAStridedPicture() {
        SvgDoc doc = render("render", "f32[2,3]", "--strides", "1,2");
        assertEquals(Map.of("0,0", 0L, "0,1", 2L, "0,2", 4L, "1,0", 1L, "1,1", 3L, "1,2", 5L), doc.offsets());
    }

    @Test
    void rankThreeDrawsOnePanelPerLeadingIndex() {
        SvgDoc doc = render("render", "f32[2,3,4]{2,1,0:T(2,2)}");
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[2,3,4]{2,1,0:T(2,2)}");
        assertEquals(List.of("[0,:,:]", "[1,:,:]"),
                doc.elements("g", "panel").stream().map(e -> e.getAttribute("data-slice")).toList());
        assertEquals(24, doc.offsets().size());
        doc.offsets().forEach((index, offset) ->
                assertEquals(shape.linearIndex(Invocation.parseLongs(index, "index")), offset, index));
    }

    @Test
    void rankFourSliceDrawsTheChosenPlane() {
        SvgDoc doc = render("render", "f32[2,3,4,5]{3,2,1,0:T(2,2)}", "--slice", "1,:,:,3");
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[2,3,4,5]{3,2,1,0:T(2,2)}");
        assertEquals(12, doc.offsets().size());
        for (long i = 0; i < 3; i++) {
            for (long j = 0; j < 4; j++) {
                assertEquals(shape.linearIndex(1, i, j, 3), doc.offsets().get("1," + i + "," + j + ",3"));
            }
        }
        assertEquals(List.of("x[1,:,:,3]   rows: dim 1, columns: dim 2"), doc.texts("panel-caption"));
    }

    @Test
    void rankSixNeedsASliceAndDrawsOneRow() {
        SvgDoc doc = render("render", "f32[2,1,1,1,1,3]", "--slice", "1,0,0,0,0,:");
        assertEquals(Map.of("1,0,0,0,0,0", 3L, "1,0,0,0,0,1", 4L, "1,0,0,0,0,2", 5L), doc.offsets());
    }

    @Test
    void largeGridShowsSixteenRowsAndColumnsAndSaysSo() {
        CliHarness json = CliHarness.run("render", "f32[100,130]{1,0:T(8,128)}", "--json");
        assertEquals("{\"svg\":null,\"cells\":256,\"padding_slots\":13624,\"summarised\":true}\n", json.out());
        SvgDoc doc = render("render", "f32[100,130]{1,0:T(8,128)}");
        ArrayShape shape = (ArrayShape) XlaShape.parse("f32[100,130]{1,0:T(8,128)}");
        assertEquals(256, doc.offsets().size());
        assertEquals(shape.linearIndex(15, 15), doc.offsets().get("15,15"));
        assertEquals(List.of("... 240 more", "... 88 more rows", "... 26368 more slots"), doc.texts("more"));
        assertEquals(List.of("Summarised: showing rows 0-15 of 104 (... 88 more) and columns 0-15 of 256 (... 240 more)"
                        + " (grid sizes count padding cells).",
                "Summarised: the memory strip stops at slot 255; 26368 more slots of 26624 are not drawn."),
                doc.texts("caption"));
    }

    @Test
    void sixtyFourBySixtyFourIsDrawnWhole() {
        CliHarness json = CliHarness.run("render", "f32[64,64]", "--json");
        assertEquals("{\"svg\":null,\"cells\":4096,\"padding_slots\":0,\"summarised\":false}\n", json.out());
    }

    @Test
    void manySlicesAreCappedAndCounted() {
        CliHarness json = CliHarness.run("render", "f32[40,3,3]", "--json");
        assertEquals("{\"svg\":null,\"cells\":144,\"padding_slots\":0,\"summarised\":true}\n", json.out());
        SvgDoc doc = render("render", "f32[40,3,3]");
        assertEquals(List.of("... 24 more slices", "... 104 more slots"), doc.texts("more"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "f32[2,3,4,5,6]|-|cannot draw f32[2,3,4,5,6]{4,3,2,1,0} whole: rank 5 needs --slice with one or two ':' (e.g. --slice 0,0,0,:,:)",
            "f32[]|-|cannot draw f32[]: rank 0; render draws rank 1 and up",
            "f32[2,3]|0,:,:|slice '0,:,:' has 3 entries but the array has rank 2 (sizes [2, 3])",
            "f32[2,3]|2,:|slice index 2 out of bounds [0, 2) for dim 0 of sizes [2, 3]",
            "f32[2,3]|a,:|slice 'a,:': entry 0 'a' is neither an index nor ':'",
            "f32[2,3,4]|:,:,:|slice [:,:,:] must draw one or two dims (':'), got 3",
            "f32[0,3]|-|nothing to draw: f32[0,3]{1,0} has no elements",
            "(f32[2], s8[])|-|render needs an array shape, got (f32[2]{0}, s8[])",
    })
    void badInputExitsTwoWithOneLine(String shape, String slice, String message) {
        CliHarness r = slice.equals("-") ? CliHarness.run("render", shape) : CliHarness.run("render", shape, "--slice", slice);
        assertEquals(2, r.code(), r.out());
        assertEquals("tensorbuf render: " + message + "\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void stridedUsageErrorsExitTwo() {
        CliHarness both = CliHarness.run("render", "f32[2,3]{0,1}", "--strides", "1,2");
        assertEquals(2, both.code());
        assertTrue(both.err().startsWith("tensorbuf render: SHAPE 'f32[2,3]{0,1}' has a layout, but --strides"), both.err());
        CliHarness offset = CliHarness.run("render", "f32[3,5]{1,0:T(2,2)}", "--offset", "3");
        assertEquals(2, offset.code());
        assertEquals("tensorbuf render: SHAPE 'f32[3,5]{1,0:T(2,2)}' has a layout, but --offset makes this a strided"
                + " picture, whose layout --strides or --format give; drop the {...} part\n", offset.err());
        CliHarness noSizes = CliHarness.run("render", "--dtype", "f32", "--strides", "1");
        assertEquals(2, noSizes.code());
        assertTrue(noSizes.err().startsWith("tensorbuf render: a strided picture needs --dtype and --sizes"), noSizes.err());
        CliHarness rank = CliHarness.run("render", "--dtype", "f32", "--sizes", "2,3", "--strides", "1");
        assertEquals(2, rank.code());
        assertEquals("tensorbuf render: rank mismatch: 2 sizes [2, 3] but 1 strides [1]\n", rank.err());
    }

    @Test
    void writesTheFileGivenByOut() throws Exception {
        Path out = dir.resolve("p.svg");
        CliHarness r = CliHarness.run("render", "f32[2,2]", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
        assertTrue(Files.readString(out).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    }

    @Test
    void dtypeTakesTheSameNamesAsStrides() {
        CliHarness xla = CliHarness.run("render", "--dtype", "F32", "--sizes", "2,3", "--json");
        assertEquals(0, xla.code(), xla.err());
        assertEquals(xla.out(), CliHarness.run("render", "--dtype", "FLOAT32", "--sizes", "2,3", "--json").out());
    }

    @Test
    void outNamedForAnotherImageFormatIsRefused() {
        // Was: SVG text written into fig.png, exit 0.
        Path png = dir.resolve("fig.png");
        CliHarness r = CliHarness.run("render", "f32[2,2]", "--out", png.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf render: --out " + png + ": render writes SVG only, so the name must end in .svg, not .png"
                + " (convert the SVG to another format with a tool such as rsvg-convert)\n", r.err());
        assertFalse(Files.exists(png));
        assertEquals(0, CliHarness.run("render", "f32[2,2]", "--out", dir.resolve("FIG.SVG").toString()).code());
    }

    @Test
    void outThatIsAFolderIsRefused() {
        CliHarness folder = CliHarness.run("render", "f32[2,2]", "--out", dir.toString());
        assertEquals(2, folder.code());
        assertEquals("tensorbuf render: --out: " + dir + " is a directory, expected a file name\n", folder.err());
    }
}
