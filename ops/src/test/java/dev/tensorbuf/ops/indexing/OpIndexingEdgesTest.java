package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloModule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The edges of the op families' maps that the XLA vectors do not reach: the forms each family
 * leaves as {@code unknown indexing} (as XLA does) and the verifier rules that refuse an
 * instruction before any map is built. Each expectation is XLA's behaviour for the same module.
 */
class OpIndexingEdgesTest {

    private static HloModule module(String entry) {
        return HloModule.parse("HloModule m\nENTRY e {\n" + entry + "\n}");
    }

    /**
     * XLA indexes only the simplified gather ({@code GatherSimplifier::IsSimplifiedGather}: indices
     * {@code [batch, k]}, {@code index_vector_dim=1}, nothing collapsed or batched, offset
     * dimensions {@code 1..rank}); each row is a valid gather outside that form, so both directions
     * are unknown for every operand.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            indices of rank 1 | s32[4] | f32[4,6] | offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
            index_vector_dim 0 | s32[1,4] | f32[4,2,3] | offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=0, slice_sizes={2,3}
            a collapsed dimension | s32[4,1] | f32[4,6] | offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
            a batching dimension | s32[5,1] | f32[5,3] | offset_dims={1}, collapsed_slice_dims={}, operand_batching_dims={0}, start_indices_batching_dims={0}, start_index_map={1}, index_vector_dim=1, slice_sizes={1,3}
            offset dimensions first | s32[4,1] | f32[2,3,4] | offset_dims={0,1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}
            offset dimensions around the batch | s32[4,1] | f32[2,4,3] | offset_dims={0,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}
            """)
    void gatherOutsideTheSimplifiedFormIsUnknownBothWays(String what, String indices, String out, String attributes) {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = " + indices + " parameter(1)\n ROOT g = " + out
                + " gather(operand, indices), " + attributes);
        assertEquals("operand id = 0 unknown indexing\noperand id = 1 unknown indexing\n",
                HloIndexing.outputToInput(m, m.entry().root()).toString(), what);
        for (int operand = 0; operand < 2; operand++) {
            assertEquals("operand id = 0 unknown indexing\n",
                    HloIndexing.inputToOutput(m, m.entry().root(), operand, false).toString(), what);
        }
    }

    /**
     * XLA's verifier ({@code ValidateGatherDimensionNumbers}) wants one distinct operand dimension
     * in {@code start_index_map} per index column; such a gather is refused, not given a map.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            the operand's rank | {0,2} | start_index_map [0, 2] must be distinct dimensions of its rank-2 operand
            a negative dimension | {-1,0} | start_index_map [-1, 0] must be distinct dimensions of its rank-2 operand
            a repeated dimension | {1,1} | start_index_map [1, 1] must be distinct dimensions of its rank-2 operand
            fewer than the index columns | {0} | start_index_map [0] must name one operand dimension for each of the 2 index column(s)
            more than the index columns | {0,1,1} | start_index_map [0, 1, 1] must name one operand dimension for each of the 2 index column(s)
            """)
    void gatherStartIndexMapMustNameOneOperandDimensionPerIndexColumn(String what, String map, String message) {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = s32[4,2] parameter(1)\n ROOT g = f32[4,2,3]"
                + " gather(operand, indices), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map=" + map
                + ", index_vector_dim=1, slice_sizes={2,3}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()), what);
        assertTrue(e.getMessage().startsWith("gather g: " + message), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HloIndexing.inputToOutput(m, m.entry().root(), 1, false), what);
    }

    /** Without an index vector dimension each index row is one start index: start_index_map has one entry. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            one entry | {0} |
            two entries | {0,1} | start_index_map [0, 1] must name one operand dimension for each of the 1 index column(s)
            """)
    void gatherWithTheIndexVectorDimensionPastTheIndicesTakesOneStartIndex(String what, String map, String message) {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = s32[4] parameter(1)\n ROOT g = f32[4,6]"
                + " gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map=" + map
                + ", index_vector_dim=1, slice_sizes={1,6}");
        if (message == null) {
            assertEquals("operand id = 0 unknown indexing\noperand id = 1 unknown indexing\n",
                    HloIndexing.outputToInput(m, m.entry().root()).toString());
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HloIndexing.outputToInput(m, m.entry().root()), what);
            assertTrue(e.getMessage().startsWith("gather g: " + message), e.getMessage());
        }
    }

    /**
     * XLA's verifier rules for dot's dimension numbers ({@code ValidateDotDimensionNumbers},
     * {@code InferDotOpShape}), each row breaking one: batch and contracting lists pair up, name
     * distinct dimensions inside each side, pair equal sizes, and give the declared result.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unpaired batch dims | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | lhs_batch_dims [0] / rhs_batch_dims [] and lhs_contracting_dims [2] / rhs_contracting_dims [1] must pair up
            unpaired contracting dims | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1,2} | must pair up
            an lhs dim at its rank | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={3}, rhs_contracting_dims={1} | lhs dimension 3 out of bounds [0, 3)
            a negative lhs dim | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={-1}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | lhs dimension -1 out of bounds [0, 3)
            an rhs dim at its rank | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={3}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | rhs dimension 3 out of bounds [0, 3)
            a negative rhs dim | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={-1} | rhs dimension -1 out of bounds [0, 3)
            an lhs dim both batch and contracting | f32[2,3,4] | f32[2,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={0}, rhs_contracting_dims={1} | lhs batch dims [0] and contracting dims [0] repeat a dimension
            an rhs dim twice | f32[2,3,4] | f32[4,4,5] | f32[3,5] | lhs_contracting_dims={1,2}, rhs_contracting_dims={1,1} | rhs batch dims [] and contracting dims [1, 1] repeat a dimension
            batch sizes | f32[2,3,4] | f32[3,4,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | batch dims lhs 0 (2) and rhs 0 (3) differ in size
            contracting sizes | f32[2,3,4] | f32[2,5,5] | f32[2,3,5] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | contracting dims lhs 2 (4) and rhs 1 (5) differ in size
            free dims swapped | f32[2,3,4] | f32[2,4,5] | f32[2,5,3] | lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1} | result dims are [2, 5, 3], but batch, lhs free and rhs free dims give [2, 3, 5]
            """)
    void dotDimensionNumbersMustFitItsShapes(String what, String lhs, String rhs, String out, String dims, String message) {
        HloModule m = module(" a = " + lhs + " parameter(0)\n b = " + rhs + " parameter(1)\n ROOT d = " + out + " dot(a, b), "
                + dims);
        for (int operand = -1; operand < 2; operand++) {
            int k = operand;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
                if (k < 0) {
                    HloIndexing.outputToInput(m, m.entry().root());
                } else {
                    HloIndexing.inputToOutput(m, m.entry().root(), k, false);
                }
            }, what);
            assertTrue(e.getMessage().startsWith("dot d of " + lhs), e.getMessage());
            assertTrue(e.getMessage().contains(message), e.getMessage());
        }
    }

    /**
     * XLA's convolution rules ({@code InferConvolveShape}), each row breaking one of them on
     * XLA's own example {@code ConvolutionOp_NoPadding} ({@code f32[1,12,10,4]} by
     * {@code f32[4,3,5,8]}, {@code b01f_i01o->b01f}); both directions refuse the instruction.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            input rank | f32[1,12,10] | f32[4,3,5,8] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | | the input f32[1,12,10]{2,1,0} has rank 3 but dim_labels give it 4 dimensions
            kernel rank | f32[1,12,10,4] | f32[4,3,5] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | | the kernel f32[4,3,5]{2,1,0} has rank 3 but dim_labels give it 4 dimensions
            output rank | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,6] | size=3x5 | b01f_i01o->b01f | | the output f32[1,10,6]{2,1,0} has rank 3 but dim_labels give it 4 dimensions
            one window dimension | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,6,8] | size=3 | b01f_i01o->b01f | | dim_labels and window must agree on the spatial dimensions (input 2, kernel 2, output 2, window 1)
            no feature groups | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | , feature_group_count=0 | feature_group_count 0 and batch_group_count 1 must be at least 1
            no batch groups | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | , batch_group_count=0 | feature_group_count 1 and batch_group_count 0 must be at least 1
            feature groups not dividing the input | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,6,9] | size=3x5 | b01f_i01o->b01f | , feature_group_count=3 | feature_group_count 3 must divide the input features 4 and the output features 9
            feature groups not dividing the output | f32[1,12,10,4] | f32[1,3,5,6] | f32[1,10,6,6] | size=3x5 | b01f_i01o->b01f | , feature_group_count=4 | feature_group_count 4 must divide the input features 4 and the output features 6
            batch groups not dividing the batch | f32[3,12,10,4] | f32[4,3,5,8] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | , batch_group_count=2 | batch_group_count 2 must divide the input batch 3
            kernel input features | f32[1,12,10,4] | f32[2,3,5,8] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | | input features 4 over feature_group_count 1 must be the kernel's input features 2 (kernel f32[2,3,5,8]{3,2,1,0})
            kernel output features by feature groups | f32[1,12,10,4] | f32[2,3,5,7] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | , feature_group_count=2 | the kernel's output features 7 must divide by feature_group_count 2 and batch_group_count 1
            kernel output features by batch groups | f32[2,12,10,4] | f32[4,3,5,7] | f32[1,10,6,8] | size=3x5 | b01f_i01o->b01f | , batch_group_count=2 | the kernel's output features 7 must divide by feature_group_count 1 and batch_group_count 2
            window against kernel | f32[1,12,10,4] | f32[4,3,5,8] | f32[1,10,7,8] | size=3x4 | b01f_i01o->b01f | | window dimension 1 has size 4 but kernel f32[4,3,5,8]{3,2,1,0} spatial dimension 2 has size 5
            """)
    void convolutionAttributesMustFitItsShapes(String what, String lhs, String rhs, String out, String window, String labels,
                                               String extra, String message) {
        HloModule m = module(" p0 = " + lhs + " parameter(0)\n p1 = " + rhs + " parameter(1)\n ROOT conv = " + out
                + " convolution(p0, p1), window={" + window + "}, dim_labels=" + labels + (extra == null ? "" : extra));
        for (int operand = -1; operand < 2; operand++) {
            int k = operand;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
                if (k < 0) {
                    HloIndexing.outputToInput(m, m.entry().root());
                } else {
                    HloIndexing.inputToOutput(m, m.entry().root(), k, false);
                }
            }, what);
            assertTrue(e.getMessage().startsWith("convolution conv"), e.getMessage());
            assertTrue(e.getMessage().contains(message), e.getMessage());
        }
    }

    @Test
    void convolutionWithoutDimLabelsIsRefusedNamingTheAttribute() {
        HloModule m = module(" p0 = f32[1,12,10,4] parameter(0)\n p1 = f32[4,3,5,8] parameter(1)\n"
                + " ROOT conv = f32[1,10,6,8] convolution(p0, p1), window={size=3x5}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()));
        assertEquals("convolution conv has no dim_labels attribute", e.getMessage());
    }

    /**
     * XLA's {@code ConvolutionOp_NoPadding}, both directions, as exact text: with one feature
     * group and one batch group no group variable or group term is left in the maps. The
     * input-to-output maps are ours (XLA has none): an input element reaches every output
     * feature (s0) and each window position covering it.
     */
    @Test
    void convolutionWithOneGroupHasNoGroupTerms() {
        HloModule m = module(" p0 = f32[2,12,10,4] parameter(0)\n p1 = f32[4,3,5,8] parameter(1)\n"
                + " ROOT conv = f32[2,10,6,8] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f");
        var back = HloIndexing.outputToInput(m, m.entry().root());
        String domain = "domain: d0 in [0, 1], d1 in [0, 9], d2 in [0, 5], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]";
        assertEquals("operand id = 0 (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, s2), " + domain
                + "\noperand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3), " + domain + "\n", back.toString());
        assertEquals("operand id = 0 (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 - s1, d2 - s2, s0), domain: d0 in [0, 1],"
                + " d1 in [0, 11], d2 in [0, 9], d3 in [0, 3], s0 in [0, 7], s1 in [0, 2], s2 in [0, 4], d1 - s1 in [0, 9],"
                + " d2 - s2 in [0, 5]\n", HloIndexing.inputToOutput(m, m.entry().root(), 0, false).toString());
    }

    /**
     * reduce-window's rules: N inputs, N inits, N outputs, one window dimension per dimension,
     * and a window that XLA's {@code InferWindowOutputShape} accepts.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a window of rank 1 over rank 2 | s32[3,4] | s32[3,4] | size=1 | window has 1 dimension(s), operand s32[3,4]{1,0} and output s32[3,4]{1,0} must have as many
            an output of rank 1 | s32[3,4] | s32[12] | size=1x1 | window has 2 dimension(s), operand s32[3,4]{1,0} and output s32[12]{0} must have as many
            padding below nothing | s32[2,4] | s32[0,4] | size=1x1 pad=-2_-1x0_0 | window dimension 0 pads 2 element(s) to -1
            a dilation past 64 bits | s32[3,4] | s32[1,4] | size=3x1 rhs_dilate=9223372036854775807x1 | window dimension 0 over 3 element(s) overflows 64 bits
            """)
    void reduceWindowMustFitItsOperand(String what, String in, String out, String window, String message) {
        HloModule m = reduceWindow(in, out, window);
        for (int operand = -1; operand < 2; operand++) {
            int k = operand;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
                if (k < 0) {
                    HloIndexing.outputToInput(m, m.entry().root());
                } else {
                    HloIndexing.inputToOutput(m, m.entry().root(), k, false);
                }
            }, what);
            assertEquals("reduce-window r: " + message, e.getMessage(), what);
        }
    }

    /** Output sizes XLA infers for windows that find no position: an empty input, a window wider than it. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            an empty input | s32[0,4] | s32[0,4] | size=1x1 | s32[1,4]
            a window wider than the input | s32[2,4] | s32[0,4] | size=3x1 | s32[1,4]
            a window as wide as the input | s32[3,4] | s32[1,4] | size=3x1 | s32[0,4]
            """)
    void reduceWindowWithoutPositionsHasAnEmptyOutput(String what, String in, String out, String window, String wrong) {
        HloModule m = reduceWindow(in, out, window);
        assertEquals(2, HloIndexing.outputToInput(m, m.entry().root()).indexing().size(), what);
        HloModule bad = reduceWindow(in, wrong, window);
        assertThrows(IllegalArgumentException.class, () -> HloIndexing.outputToInput(bad, bad.entry().root()), what);
    }

    @Test
    void reduceWindowNeedsAnInitPerInputAndAnOutputPerInput() {
        HloModule m = HloModule.parse("HloModule m\nadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                + " ROOT s = s32[] add(a, b)\n}\nENTRY e {\n p0 = s32[3,4] parameter(0)\n c = s32[] constant(0)\n"
                + " ROOT r = s32[3,4] reduce-window(p0, c, c), window={size=1x1}, to_apply=add\n}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()));
        assertEquals("reduce-window r: has 3 operands and 1 output(s); it takes N inputs, then N init values, for N outputs",
                e.getMessage());
    }

    @Test
    void reduceWindowInitMustBeAScalar() {
        HloModule m = HloModule.parse("HloModule m\nadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                + " ROOT s = s32[] add(a, b)\n}\nENTRY e {\n p0 = s32[3,4] parameter(0)\n v = s32[1] parameter(1)\n"
                + " ROOT r = s32[3,4] reduce-window(p0, v), window={size=1x1}, to_apply=add\n}");
        refusedBothWays(m, "reduce-window r: init value 0 s32[1]{0} must be a scalar", "a vector init");
    }

    private static HloModule reduceWindow(String in, String out, String window) {
        return HloModule.parse("HloModule m\nadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                + " ROOT s = s32[] add(a, b)\n}\nENTRY e {\n p0 = " + in + " parameter(0)\n c = s32[] constant(0)\n"
                + " ROOT r = " + out + " reduce-window(p0, c), window={" + window + "}, to_apply=add\n}");
    }

    /**
     * XLA's gather rules ({@code ValidateGatherDimensionNumbers}, {@code InferGatherShape}) on
     * {@code f32[5,6]} gathered by {@code s32[4,1]}, each row breaking one.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            slice_sizes too short | f32[4,2] | offset_dims={1}, start_index_map={0}, index_vector_dim=1, slice_sizes={2} | slice_sizes [2] must have one size per dimension of f32[5,6]{1,0}
            a negative slice size | f32[4,2,3] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=1, slice_sizes={-1,3} | slice_sizes [-1, 3] must lie within its operand f32[5,6]{1,0}
            a slice past the operand | f32[4,6,3] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=1, slice_sizes={6,3} | slice_sizes [6, 3] must lie within its operand f32[5,6]{1,0}
            a collapsed dimension of size 2 | f32[4,6] | offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,6} | collapsed_slice_dims [0] must be dimensions of slice size at most 1 that are not operand_batching_dims [] (slice_sizes [2, 6])
            a collapsed batching dimension | f32[4,6] | offset_dims={1}, collapsed_slice_dims={0}, operand_batching_dims={0}, start_indices_batching_dims={0}, start_index_map={1}, index_vector_dim=1, slice_sizes={1,6} | collapsed_slice_dims [0] must be dimensions of slice size at most 1 that are not operand_batching_dims [0]
            collapsed dimensions out of order | f32[4] | offset_dims={}, collapsed_slice_dims={1,0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1} | collapsed_slice_dims [1, 0] must be in increasing order, as XLA requires
            a collapsed dimension past the operand | f32[4,6] | offset_dims={1}, collapsed_slice_dims={2}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6} | collapsed_slice_dims [2] must be distinct dimensions of its rank-2 operand
            a batching dimension past the operand | f32[4,6] | offset_dims={1}, operand_batching_dims={2}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6} | operand_batching_dims [2] must be distinct dimensions of its rank-2 operand
            index_vector_dim past the indices | f32[4,2,3] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=3, slice_sizes={2,3} | index_vector_dim 3 must lie in [0, 2] for indices s32[4,1]{1,0}
            a negative index_vector_dim | f32[4,2,3] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=-1, slice_sizes={2,3} | index_vector_dim -1 must lie in [0, 2] for indices s32[4,1]{1,0}
            an output of rank 2 | f32[4,2] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | output f32[4,2]{1,0} must have rank 3: 1 batch dimension(s) from indices s32[4,1]{1,0} and 2 offset dimension(s) from slice_sizes [2, 3]
            one offset dimension for two | f32[4,2,3] | offset_dims={1}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | offset_dims [1] must name 2 output dimension(s), one per operand dimension neither collapsed nor batching
            offset dimensions decreasing | f32[4,2,3] | offset_dims={2,1}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | offset_dims [2, 1] must be increasing dimensions of its rank-3 output
            an offset dimension twice | f32[4,2,3] | offset_dims={1,1}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | offset_dims [1, 1] must be increasing dimensions of its rank-3 output
            an offset dimension past the output | f32[4,2,3] | offset_dims={1,3}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | offset_dims [1, 3] must be increasing dimensions of its rank-3 output
            a negative offset dimension | f32[4,2,3] | offset_dims={-1,1}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3} | offset_dims [-1, 1] must be increasing dimensions of its rank-3 output
            """)
    void gatherAttributesMustFitItsShapes(String what, String out, String attributes, String message) {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = s32[4,1] parameter(1)\n ROOT g = " + out
                + " gather(operand, indices), " + withCollapsedDims(attributes));
        refusedBothWays(m, "gather g: " + message, what);
    }

    @Test
    void gatherIndicesAreIntegers() {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = pred[4,1] parameter(1)\n ROOT g = f32[4,6]"
                + " gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,"
                + " slice_sizes={1,6}");
        refusedBothWays(m, "gather g: its indices pred[4,1]{1,0} must be integers", "pred indices");
    }

    /** Valid gathers at the edges of those rules: a slice as large as the operand, a collapsed dimension of size 1. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a slice as large as the operand | f32[4,5,6] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=1, slice_sizes={5,6} | (d0, d1, d2){rt0} -> (d1 + rt0, d2), domain: d0 in [0, 3], d1 in [0, 4], d2 in [0, 5], rt0 in [0, 0]
            an empty slice | f32[4,0,6] | offset_dims={1,2}, start_index_map={0}, index_vector_dim=1, slice_sizes={0,6} | KNOWN EMPTY
            index_vector_dim at the indices' rank | f32[4,1,6] | offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,6} | unknown indexing
            """)
    void gatherAtTheEdgesOfItsRules(String what, String out, String attributes, String map) {
        HloModule m = module(" operand = f32[5,6] parameter(0)\n indices = s32[4,1] parameter(1)\n ROOT g = " + out
                + " gather(operand, indices), " + withCollapsedDims(attributes));
        assertTrue(HloIndexing.outputToInput(m, m.entry().root()).operand(0).iterator().next().toString().contains(map),
                () -> what + ": " + HloIndexing.outputToInput(m, m.entry().root()));
    }

    /** {@return gather attributes with an empty collapsed_slice_dims where they name none: XLA's parser needs it} */
    private static String withCollapsedDims(String attributes) {
        return attributes.contains("collapsed_slice_dims") ? attributes : attributes + ", collapsed_slice_dims={}";
    }

    /** XLA's verifier rules for reduce: inputs then as many scalar inits, one output per input, inputs alike. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            an init missing | ROOT r = f32[4] reduce(p0, p1, c), dimensions={1}, to_apply=add | reduce r: has 3 operands; it takes its inputs, then as many init values
            one output for two inputs | ROOT r = f32[4] reduce(p0, p1, c, c), dimensions={1}, to_apply=add | reduce r: reduces 2 input(s) but has 1 output(s)
            inputs of two shapes | ROOT r = (f32[4], f32[4]) reduce(p0, q, c, c), dimensions={1}, to_apply=add | reduce r: input 1 f32[4,9]{1,0} does not have the dimensions of input 0 f32[4,8]{1,0}
            an init that is not a scalar | ROOT r = f32[4] reduce(p0, v), dimensions={1}, to_apply=add | reduce r: init value 0 f32[1]{0} must be a scalar
            a second output of another shape | ROOT r = (f32[4], f32[8]) reduce(p0, p1, c, c), dimensions={1}, to_apply=add | reduce r: output f32[8]{0} does not match its input f32[4,8]{1,0} without dimensions [1]: expected [4]
            a reduced dimension past the input | ROOT r = f32[4,8] reduce(p0, c), dimensions={2}, to_apply=add | reduce r: dimensions [2] must be distinct dimensions of its rank-2 operand
            """)
    void reduceOperandsMustFitItsOutputs(String what, String root, String message) {
        HloModule m = HloModule.parse("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                + " ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p0 = f32[4,8] parameter(0)\n p1 = f32[4,8] parameter(1)\n"
                + " q = f32[4,9] parameter(2)\n v = f32[1] parameter(3)\n c = f32[] constant(0)\n " + root + "\n}");
        refusedBothWays(m, message, what);
    }

    private static void refusedBothWays(HloModule m, String message, String what) {
        IllegalArgumentException back = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()), what);
        assertTrue(back.getMessage().startsWith(message), back.getMessage());
        IllegalArgumentException forward = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.inputToOutput(m, m.entry().root(), 0, false), what);
        assertEquals(back.getMessage(), forward.getMessage(), what);
    }

    /**
     * A dot whose two sides number their batch dimension differently (lhs 0, rhs 1): each side's
     * free dimensions are found from its own lists. Checked by hand: out (b, m, n) reads lhs
     * (b, m, k) and rhs (k, b, n).
     */
    @Test
    void dotWithBatchDimensionsNumberedDifferentlyOnEachSide() {
        HloModule m = module(" a = f32[2,3,4] parameter(0)\n b = f32[4,2,5] parameter(1)\n ROOT d = f32[2,3,5] dot(a, b),"
                + " lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}");
        String domain = "domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 4], s0 in [0, 3]";
        assertEquals("operand id = 0 (d0, d1, d2)[s0] -> (d0, d1, s0), " + domain + "\noperand id = 1 (d0, d1, d2)[s0]"
                + " -> (s0, d0, d2), " + domain + "\n", HloIndexing.outputToInput(m, m.entry().root()).toString());
        assertEquals("operand id = 0 (d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 3],"
                + " s0 in [0, 4]\n", HloIndexing.inputToOutput(m, m.entry().root(), 0, false).toString());
        assertEquals("operand id = 0 (d0, d1, d2)[s0] -> (d1, s0, d2), domain: d0 in [0, 3], d1 in [0, 1], d2 in [0, 4],"
                + " s0 in [0, 2]\n", HloIndexing.inputToOutput(m, m.entry().root(), 1, false).toString());
    }

    /** XLA's {@code ScaledDotOp}: a scale element covers 5 contracting elements; a block of 1 adds no variable. */
    @Test
    void scaledDotScaleMapsAsExactText() {
        HloModule m = scaledDot("f32[2,10]", "f32[10,3]", "f32[2,2]", "a_scale, b_scale");
        assertEquals("(d0, d1)[s0] -> (d0, s0 / 5), domain: d0 in [0, 1], d1 in [0, 2], s0 in [0, 9]",
                HloIndexing.outputToInput(m, m.entry().root()).operand(2).iterator().next().toString());
        assertEquals("operand id = 0 (d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 1], d1 in [0, 1], s0 in [0, 2]\n",
                HloIndexing.inputToOutput(m, m.entry().root(), 2, false).toString());
        assertEquals("operand id = 0 (d0, d1)[s0] -> (s0, d1), domain: d0 in [0, 1], d1 in [0, 2], s0 in [0, 1]\n",
                HloIndexing.inputToOutput(m, m.entry().root(), 3, false).toString());
    }

    /** A scale dimension of 0 divides only an operand dimension of 0 (both sides empty). */
    @Test
    void scaledDotScaleDimensionOfZero() {
        HloModule bad = scaledDot("f32[2,10]", "f32[10,3]", "f32[2,0]", "a_scale, b_scale");
        refusedBothWays(bad, "scaled-dot dot: lhs scale f32[2,0]{1,0} dimension 1 (0) must divide lhs f32[2,10]{1,0}"
                + " dimension 1 (10)", "0 against 10");
        HloModule empty = scaledDot("f32[2,0]", "f32[0,3]", "f32[2,0]", "a_scale, b_scale");
        assertEquals("operand id = 0 KNOWN EMPTY\n", HloIndexing.inputToOutput(empty, empty.entry().root(), 2, false).toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            three operands | a_scale | scaled-dot dot has 3 operands; expected 4 (lhs, rhs, lhs_scale, rhs_scale)
            five operands | a_scale, b_scale, b_scale | scaled-dot dot has 5 operands; expected 4 (lhs, rhs, lhs_scale, rhs_scale)
            """)
    void scaledDotTakesFourOperands(String what, String scales, String message) {
        refusedBothWays(scaledDot("f32[2,10]", "f32[10,3]", "f32[2,2]", scales), message, what);
    }

    private static HloModule scaledDot(String a, String b, String aScale, String scales) {
        String bScale = b.equals("f32[0,3]") ? "f32[0,3]" : "f32[2,3]";
        return module(" a = " + a + " parameter(0)\n b = " + b + " parameter(1)\n a_scale = " + aScale + " parameter(2)\n"
                + " b_scale = " + bScale + " parameter(3)\n ROOT dot = f32[2,3] scaled-dot(a, b, " + scales
                + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    }

    /**
     * Feature and batch groups, checked by hand: with 2 feature groups output feature f reads the
     * input features of group {@code f / 4} (2 each); with 2 batch groups output batch b reads
     * input batches {@code b} and {@code b + 2}.
     */
    @Test
    void convolutionGroupsAsExactText() {
        HloModule features = module(" p0 = f32[2,12,10,4] parameter(0)\n p1 = f32[2,3,5,8] parameter(1)\n"
                + " ROOT conv = f32[2,10,6,8] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f,"
                + " feature_group_count=2");
        assertEquals("(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, (d3 / 4) * 2 + s2), domain: d0 in [0, 1],"
                + " d1 in [0, 9], d2 in [0, 5], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 1]",
                HloIndexing.outputToInput(features, features.entry().root()).operand(0).iterator().next().toString());
        assertEquals("(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 - s1, d2 - s2, (d3 / 2) * 4 + s0), domain: d0 in [0, 1],"
                + " d1 in [0, 11], d2 in [0, 9], d3 in [0, 3], s0 in [0, 3], s1 in [0, 2], s2 in [0, 4], d1 - s1 in [0, 9],"
                + " d2 - s2 in [0, 5]",
                HloIndexing.inputToOutput(features, features.entry().root(), 0, false).operand(0).iterator().next().toString());
        HloModule batches = module(" p0 = f32[4,12,10,4] parameter(0)\n p1 = f32[4,3,5,8] parameter(1)\n"
                + " ROOT conv = f32[2,10,6,8] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f,"
                + " batch_group_count=2");
        assertEquals("(d0, d1, d2, d3)[s0, s1, s2, s3] -> (s3 * 2 + d0, d1 + s0, d2 + s1, s2), domain: d0 in [0, 1],"
                + " d1 in [0, 9], d2 in [0, 5], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3], s3 in [0, 1]",
                HloIndexing.outputToInput(batches, batches.entry().root()).operand(0).iterator().next().toString());
        assertEquals("(d0, d1, d2, d3)[s0, s1, s2] -> (d0 mod 2, d1 - s1, d2 - s2, s0), domain: d0 in [0, 3],"
                + " d1 in [0, 11], d2 in [0, 9], d3 in [0, 3], s0 in [0, 7], s1 in [0, 2], s2 in [0, 4], d1 - s1 in [0, 9],"
                + " d2 - s2 in [0, 5]",
                HloIndexing.inputToOutput(batches, batches.entry().root(), 0, false).operand(0).iterator().next().toString());
    }

    /**
     * Valid instructions at the edges of XLA's verifier rules, each analysed (checked by hand): a
     * dynamic-slice as large as its operand (offsets clamp to 0) or of size 0, a scalar
     * dynamic-update-slice (no start indices), an update as large as its operand, element 0 of a
     * tuple, a broadcast into output dimension 0.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a dynamic-slice of the whole operand | p = s32[4,3] parameter(0)\\n i = s32[] parameter(1)\\n j = s32[] parameter(2)\\n ROOT r = s32[4,3] dynamic-slice(p, i, j), dynamic_slice_sizes={4,3} | (d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in [0, 3], d1 in [0, 2], rt0 in [0, 0], rt1 in [0, 0]
            an empty dynamic-slice | p = s32[4,3] parameter(0)\\n i = s32[] parameter(1)\\n j = s32[] parameter(2)\\n ROOT r = s32[4,0] dynamic-slice(p, i, j), dynamic_slice_sizes={4,0} | KNOWN EMPTY
            a scalar dynamic-update-slice | p = f32[] parameter(0)\\n u = f32[] parameter(1)\\n ROOT r = f32[] dynamic-update-slice(p, u) | () -> ()
            an update as large as its operand | p = f32[4,3] parameter(0)\\n u = f32[4,3] parameter(1)\\n i = s32[] parameter(2)\\n j = s32[] parameter(3)\\n ROOT r = f32[4,3] dynamic-update-slice(p, u, i, j) | (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 2]
            element 0 of a tuple | p = f32[4,3] parameter(0)\\n q = f32[2] parameter(1)\\n t = (f32[4,3], f32[2]) tuple(p, q)\\n ROOT r = f32[4,3] get-tuple-element(t), index=0 | (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 2]
            a broadcast into dimension 0 | p = f32[4] parameter(0)\\n ROOT r = f32[4,3] broadcast(p), dimensions={0} | (d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 2]
            """)
    void validAtTheEdgesOfTheVerifierRules(String what, String entry, String map) {
        HloModule m = module(" " + entry.replace("\\n", "\n"));
        assertEquals(map, HloIndexing.outputToInput(m, m.entry().root()).operand(0).iterator().next().map().toString(), what);
    }

    /** XLA's verifier rules for the view-like ops, each row breaking one at its boundary. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a broadcast into the output's rank | p = f32[4] parameter(0)\\n ROOT r = f32[3,4] broadcast(p), dimensions={2} | broadcast r: dimensions [2] must be distinct dimensions of its rank-2 output
            a broadcast into dimension -1 | p = f32[4] parameter(0)\\n ROOT r = f32[3,4] broadcast(p), dimensions={-1} | broadcast r: dimensions [-1] must be distinct dimensions of its rank-2 output
            a transpose past the rank | p = f32[4,3] parameter(0)\\n ROOT r = f32[3,4] transpose(p), dimensions={0,2} | transpose r: dimensions [0, 2] are not a permutation of [0, 2)
            a reverse changing the dimensions | p = f32[4] parameter(0)\\n ROOT r = f32[3] reverse(p), dimensions={0} | reverse r: output f32[3]{0} must have the dimensions of its operand f32[4]{0}
            a dynamic-slice past its operand | p = s32[4,3] parameter(0)\\n i = s32[] parameter(1)\\n j = s32[] parameter(2)\\n ROOT r = s32[5,3] dynamic-slice(p, i, j), dynamic_slice_sizes={5,3} | dynamic-slice r: dynamic_slice_sizes [5, 3] must lie within its operand s32[4,3]{1,0}
            a negative dynamic-slice size | p = s32[4,3] parameter(0)\\n i = s32[] parameter(1)\\n j = s32[] parameter(2)\\n ROOT r = s32[4,3] dynamic-slice(p, i, j), dynamic_slice_sizes={-1,3} | dynamic-slice r: dynamic_slice_sizes [-1, 3] must lie within its operand s32[4,3]{1,0}
            a dynamic-update-slice changing the dimensions | p = f32[4,3] parameter(0)\\n u = f32[2,3] parameter(1)\\n i = s32[] parameter(2)\\n j = s32[] parameter(3)\\n ROOT r = f32[4,4] dynamic-update-slice(p, u, i, j) | dynamic-update-slice r: output f32[4,4]{1,0} must have the dimensions of its operand f32[4,3]{1,0}
            a dynamic-update-slice without an update | p = f32[] parameter(0)\\n ROOT r = f32[] dynamic-update-slice(p) | dynamic-update-slice r: needs an operand, an update and start indices
            a dynamic-update-slice short of a start index | p = f32[4,3] parameter(0)\\n u = f32[2,3] parameter(1)\\n i = s32[] parameter(2)\\n ROOT r = f32[4,3] dynamic-update-slice(p, u, i) | dynamic-update-slice r: has 1 start index operand(s) for its rank-2 operand f32[4,3]{1,0}
            a dynamic-update-slice with a vector start index | p = f32[4,3] parameter(0)\\n u = f32[2,3] parameter(1)\\n i = s32[] parameter(2)\\n v = s32[1] parameter(3)\\n ROOT r = f32[4,3] dynamic-update-slice(p, u, i, v) | dynamic-update-slice r: start operand 3 (v) is s32[1]{0}, not an integer scalar
            an update larger than its operand | p = f32[4,3] parameter(0)\\n u = f32[2,4] parameter(1)\\n i = s32[] parameter(2)\\n j = s32[] parameter(3)\\n ROOT r = f32[4,3] dynamic-update-slice(p, u, i, j) | dynamic-update-slice r: update f32[2,4]{1,0} must fit inside its operand f32[4,3]{1,0}
            element 2 of a pair | p = f32[4,3] parameter(0)\\n q = f32[2] parameter(1)\\n t = (f32[4,3], f32[2]) tuple(p, q)\\n ROOT r = f32[2] get-tuple-element(t), index=2 | get-tuple-element r: index 2 is outside its operand's 2 element(s)
            element -1 of a pair | p = f32[4,3] parameter(0)\\n q = f32[2] parameter(1)\\n t = (f32[4,3], f32[2]) tuple(p, q)\\n ROOT r = f32[2] get-tuple-element(t), index=-1 | get-tuple-element r: index -1 is outside its operand's 2 element(s)
            """)
    void viewOpsRefusedAtTheBoundaryOfTheVerifierRules(String what, String entry, String message) {
        HloModule m = module(" " + entry.replace("\\n", "\n"));
        refusedBothWays(m, message, what);
    }

    /** A scalar operand of an element-wise op is read for every element, and reaches every one. */
    @Test
    void elementwiseScalarOperandBothWays() {
        HloModule m = module(" p0 = f32[4,3] parameter(0)\n c = f32[] constant(1)\n ROOT r = f32[4,3] add(p0, c)");
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 2]\noperand id = 1 (d0, d1) -> (),"
                + " domain: d0 in [0, 3], d1 in [0, 2]\n", HloIndexing.outputToInput(m, m.entry().root()).toString());
        assertEquals("operand id = 0 ()[s0, s1] -> (s0, s1), domain: s0 in [0, 3], s1 in [0, 2]\n",
                HloIndexing.inputToOutput(m, m.entry().root(), 1, false).toString());
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 2]\n",
                HloIndexing.inputToOutput(m, m.entry().root(), 0, false).toString());
        HloModule scalars = module(" p0 = f32[] parameter(0)\n c = f32[] constant(1)\n ROOT r = f32[] add(p0, c)");
        assertEquals("operand id = 0 () -> ()\noperand id = 1 () -> ()\n",
                HloIndexing.outputToInput(scalars, scalars.entry().root()).toString());
        assertEquals("operand id = 0 () -> ()\n", HloIndexing.inputToOutput(scalars, scalars.entry().root(), 1, false).toString());
    }
}
