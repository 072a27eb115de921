package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.ops.hlo.HloModule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * All-gather and scan beyond XLA's one example of each ({@code IndexingAnalysisTest.AllGatherOp},
 * {@code ScanOp}, in the conformance vectors): XLA's verifier rule for all-gather's shapes, and
 * scans whose carries are not all scalars, which XLA maps by the output's rank alone.
 */
class CollectivesIndexingTest {

    private static HloModule allGather(String operand, String output, int dim) {
        return HloModule.parse("HloModule m, replica_count=4\nENTRY e {\n p0 = " + operand + " parameter(0)\n ROOT ag = "
                + output + " all-gather(p0), replica_groups={{0,1},{2,3}}, dimensions={" + dim + "}\n}");
    }

    /** XLA's AllGatherOp gathering the other dimension, over three replicas: d mod 128 of replica d / 128. */
    @Test
    void allGatherAlongTheMajorDimensionReadsReplicaDOver128() {
        HloModule m = allGather("f32[128,128]", "f32[384,128]", 0);
        assertEquals("operand id = 0 (d0, d1) -> (d0 mod 128, d1), domain: d0 in [0, 383], d1 in [0, 127]\n"
                + "replica id:\n(d0, d1) -> (d0 / 128), domain: d0 in [0, 383], d1 in [0, 127]\n",
                RootMaps.outputToInput(m));
        // XLA's ComputeInputToOutputIndexing has no all-gather case.
        assertEquals("operand id = 0 unknown indexing\n",
                RootMaps.inputToOutput(m, 0, false));
    }

    /**
     * XLA's verifier ({@code CheckCommonAllGatherInvariants}, then {@code CheckShape} against
     * {@code InferAllGatherShape}) takes the shard count as {@code ceil(output / operand)} along
     * the gathered dimension and wants the operand times that count there, the operand's sizes
     * elsewhere. Without the check, {@code f32[64,256]} from {@code f32[128,128]} gave a map and
     * {@code f32[128,200]} a replica id that counts 128 elements to a replica of 128.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not a whole number of shards | f32[128,128] | f32[128,200] | 1 | Expected instruction to have shape equal to f32[128,256], actual shape is f32[128,200] (operand f32[128,128] gathered along dimension 1)
            one shard short | f32[128,128] | f32[128,129] | 1 | Expected instruction to have shape equal to f32[128,256], actual shape is f32[128,129] (operand f32[128,128] gathered along dimension 1)
            another dimension differs | f32[128,128] | f32[64,256] | 1 | Expected instruction to have shape equal to f32[128,256], actual shape is f32[64,256] (operand f32[128,128] gathered along dimension 1)
            fewer dimensions than the operand | f32[2,3,4] | f32[4,3] | 0 | Expected instruction to have shape equal to f32[4,3,4], actual shape is f32[4,3] (operand f32[2,3,4] gathered along dimension 0)
            an empty operand gathered to elements | f32[0,4] | f32[3,4] | 0 | Expected instruction to have shape equal to f32[0,4], actual shape is f32[3,4] (operand f32[0,4] gathered along dimension 0)
            a dimension past the operand's rank | f32[128] | f32[128,2] | 1 | dimensions={1} must name a dimension of its rank-1 operand f32[128]
            """)
    void allGatherRefusesAnOutputThatIsNotItsOperandInShards(String what, String operand, String output, int dim,
                                                              String message) {
        for (String refusal : RootMaps.refusals(allGather(operand, output, dim), 0, what)) {
            assertEquals("all-gather ag: " + message, refusal, what);
        }
    }

    /** Shard counts XLA's verifier accepts: whole shards, and an empty dimension whatever the count. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            one shard | f32[2,4] | f32[2,4] | 0 | operand id = 0 (d0, d1) -> (d0 mod 2, d1), domain: d0 in [0, 1], d1 in [0, 3]
            two shards of the minor dimension | f32[2,4] | f32[2,8] | 1 | operand id = 0 (d0, d1) -> (d0, d1 mod 4), domain: d0 in [0, 1], d1 in [0, 7]
            an empty operand | f32[0,4] | f32[0,4] | 0 | operand id = 0 KNOWN EMPTY
            an empty output | f32[2,4] | f32[0,4] | 0 | operand id = 0 KNOWN EMPTY
            """)
    void allGatherAcceptsWholeShards(String what, String operand, String output, int dim, String firstLine) {
        HloModule m = allGather(operand, output, dim);
        String text = RootMaps.outputToInput(m);
        assertEquals(firstLine, text.substring(0, text.indexOf('\n')), what);
    }

    /**
     * {@code scan(x, c)} with a scalar input step and a carry of three elements, as XLA's
     * {@code ComputeOutputToInputScanOpIndexing} maps it: XLA tells outputs apart by rank, not by
     * which ones are carries, so the carry output, an array, is read as a scanned output is: x by
     * the identity over the carry's three indices, the carry as a scalar. (Before, ours read the
     * carry output from its own carry elementwise and x as a whole.)
     */
    @Test
    void aCarryOfThreeElementsIsReadAsAScannedOutputAsXlaDoes() {
        HloModule m = HloModule.parse("""
                HloModule m
                scan_computation {
                  a = f32[] parameter(0)
                  b = f32[3] parameter(1)
                  ROOT t = (f32[], f32[3]) tuple(a, b)
                }
                ENTRY e {
                  x = f32[10] parameter(0)
                  c = f32[3] parameter(1)
                  ROOT scan = (f32[10], f32[3]) scan(x, c), dimensions={0}, num_carries=1, to_apply=scan_computation
                }""");
        assertEquals("operand id = 0 (d0) -> (d0), domain: d0 in [0, 9]\n"
                + "operand id = 1 (d0) -> (), domain: d0 in [0, 9]\n",
                RootMaps.outputToInput(m, 0, false));
        assertEquals("operand id = 0 (d0) -> (d0), domain: d0 in [0, 2]\n"
                + "operand id = 1 (d0) -> (), domain: d0 in [0, 2]\n",
                RootMaps.outputToInput(m, 1, false));
    }

    /**
     * A carry of rank 2 beside a scanned input of rank 2 and a scanned output of rank 1: XLA's
     * identity is over the output's indices whatever the input's rank, so x's map has as many
     * results as the output has dimensions (one for the scanned output, two for the carry), and
     * the carry is a scalar for both.
     */
    @Test
    void theIdentityIsOverTheOutputsIndicesWhateverTheInputsRank() {
        HloModule m = HloModule.parse("""
                HloModule m
                scan_computation {
                  a = f32[4] parameter(0)
                  b = f32[2,3] parameter(1)
                  r = f32[] constant(0)
                  ROOT t = (f32[], f32[2,3]) tuple(r, b)
                }
                ENTRY e {
                  x = f32[10,4] parameter(0)
                  c = f32[2,3] parameter(1)
                  ROOT scan = (f32[10], f32[2,3]) scan(x, c), dimensions={0}, num_carries=1, to_apply=scan_computation
                }""");
        assertEquals("operand id = 0 (d0) -> (d0), domain: d0 in [0, 9]\n"
                + "operand id = 1 (d0) -> (), domain: d0 in [0, 9]\n",
                RootMaps.outputToInput(m, 0, false));
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]\n"
                + "operand id = 1 (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 2]\n",
                RootMaps.outputToInput(m, 1, false));
    }

    /**
     * XLA's ScanOp with two scanned inputs and two scalar carries: each scanned output reads
     * both inputs elementwise and both carries as scalars; each carry output reads every operand
     * as a scalar (XLA's {@code ComputeOutputToInputScanOpIndexing}, scalar output case).
     */
    @Test
    void twoInputsAndTwoScalarCarriesSplitAtNumCarries() {
        HloModule m = HloModule.parse("""
                HloModule m
                scan_computation {
                  a = f32[] parameter(0)
                  b = s32[] parameter(1)
                  c = f32[] parameter(2)
                  d = s32[] parameter(3)
                  ROOT t = (f32[], s32[], f32[], s32[]) tuple(a, b, c, d)
                }
                ENTRY e {
                  x = f32[6] parameter(0)
                  y = s32[6] parameter(1)
                  c0 = f32[] parameter(2)
                  c1 = s32[] parameter(3)
                  ROOT scan = (f32[6], s32[6], f32[], s32[]) scan(x, y, c0, c1), dimensions={0}, num_carries=2,
                      to_apply=scan_computation
                }""");
        String scanned = "operand id = 0 (d0) -> (d0), domain: d0 in [0, 5]\n"
                + "operand id = 1 (d0) -> (d0), domain: d0 in [0, 5]\n"
                + "operand id = 2 (d0) -> (), domain: d0 in [0, 5]\n"
                + "operand id = 3 (d0) -> (), domain: d0 in [0, 5]\n";
        String carry = "operand id = 0 () -> ()\noperand id = 1 () -> ()\noperand id = 2 () -> ()\noperand id = 3 () -> ()\n";
        for (int output = 0; output < 4; output++) {
            assertEquals(output < 2 ? scanned : carry,
                    RootMaps.outputToInput(m, output, false), "output " + output);
        }
    }
}
