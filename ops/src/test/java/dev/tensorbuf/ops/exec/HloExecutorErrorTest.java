package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorView;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Errors of the executor, asserted by message. */
class HloExecutorErrorTest {
    @ArenaPerTest
    private Allocator arena;

    private TensorView view(String shape) {
        return TensorView.of(arena.allocate(256), shape);
    }

    private static String failure(String text, Map<String, TensorView> args) {
        return assertThrows(IllegalArgumentException.class, () -> HloExecutor.execute(text, args).close()).getMessage();
    }

    private static void assertContains(String expected, String actual) {
        assertTrue(actual.contains(expected), () -> "expected '" + expected + "' in: " + actual);
    }

    @Test
    void unsupportedOpNamesOpcodeInstructionAndLine() {
        String text = "HloModule m\n\nENTRY e {\n  p0 = f32[2] parameter(0)\n  ROOT a = f32[2] exponential(p0)\n}\n";
        UnsupportedOpException e = assertThrows(UnsupportedOpException.class,
                () -> HloExecutor.execute(text, Map.of("p0", view("f32[2]"))));
        assertEquals("exponential", e.opcode());
        assertEquals(OptionalInt.of(5), e.line());
        assertTrue(e.getMessage().startsWith("unsupported op 'exponential' (instruction %a, line 5): exponential is computed by"
                + " XLA's own approximation or the C library's, whose bits run does not reproduce (run gives XLA's bits or"
                + " none); data-movement ops execute: parameter, constant, iota, broadcast, transpose"), e.getMessage());
        assertTrue(e.getMessage().contains(", elementwise ops fused into copies: convert, add, subtract, multiply, divide,"
                + " remainder,"), e.getMessage());
    }

    @Test
    void aParsedModuleWithItsTextKeepsLineNumbers() {
        String text = "HloModule m\n\nENTRY e {\n  p0 = f32[2] parameter(0)\n  ROOT a = f32[2] exponential(p0)\n}\n";
        HloModule module = HloModule.parse(text);
        Map<String, TensorView> args = Map.of("p0", view("f32[2]"));
        assertEquals(OptionalInt.of(5), assertThrows(UnsupportedOpException.class,
                () -> HloExecutor.execute(module, text, args)).line());
        assertEquals(OptionalInt.empty(), assertThrows(UnsupportedOpException.class,
                () -> HloExecutor.execute(module, args)).line());
    }

    @Test
    void unsupportedOpIsReportedBeforeArgumentsAreChecked() {
        String text = "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n  ROOT n = f32[2] exponential(p0)\n}\n";
        assertContains("unsupported op 'exponential' (instruction %n, line 4)", failure(text, Map.of()));
    }

    @Test
    void missingArgumentNamesTheParameter() {
        String text = "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n  p1 = s32[] parameter(1)\n"
                + "  ROOT r = f32[2] reverse(p0), dimensions={0}\n}\n";
        assertContains("no argument for parameter 1 (p1: s32[]); bind each by name or number",
                failure(text, Map.of("p0", view("f32[2]"))));
    }

    @Test
    void parametersAreNumberedFromZeroWithoutGapsAsXlaRequires() {
        String gap = "HloModule m\nENTRY e {\n  ROOT p1 = f32[2] parameter(1)\n}\n";
        // The parser refuses these now, as XLA's verifier does, before any run.
        assertContains("parameter p1 has number 1 but computation 'e' has no parameter 0",
                failure(gap, Map.of("p1", view("f32[2]"))));
        String twice = "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(0)\n"
                + "  ROOT c = f32[4] concatenate(a, b), dimensions={0}\n}\n";
        assertContains("parameter number 0 is used twice in computation 'e' (a and b)",
                failure(twice, Map.of("a", view("f32[2]"), "b", view("f32[2]"))));
    }

    @Test
    void argumentOfTheWrongTypeOrDims() {
        String text = "HloModule m\nENTRY e {\n  ROOT p0 = f32[2,3] parameter(0)\n}\n";
        assertContains("argument for parameter 0 (p0: f32[2,3]{1,0}) is s32[2, 3], expected f32[2, 3]",
                failure(text, Map.of("0", view("s32[2,3]"))));
        assertContains("is f32[3, 2], expected f32[2, 3]", failure(text, Map.of("0", view("f32[3,2]"))));
    }

    @Test
    void unknownOrDoubleBinding() {
        String text = "HloModule m\nENTRY e {\n  ROOT p0 = f32[2] parameter(0)\n}\n";
        assertContains("'x' names no parameter of e; its parameters are 0 (p0: f32[2]{0})",
                failure(text, Map.of("x", view("f32[2]"))));
        assertContains("parameter 0 (p0: f32[2]{0}) is bound twice",
                failure(text, Map.of("0", view("f32[2]"), "p0", view("f32[2]"))));
    }

    @Test
    void opErrorsNameTheInstructionAndLine() {
        String text = "HloModule m\nENTRY e {\n  p0 = f32[2,3] parameter(0)\n"
                + "  ROOT t = f32[2,3] transpose(p0), dimensions={1,0}\n}\n";
        assertContains("transpose (instruction %t, line 4): output f32[2,3]{1,0} does not match f32[2,3]{1,0} with dimensions [1, 0]:"
                + " expected [3, 2]",
                failure(text, Map.of("p0", view("f32[2,3]"))));
    }

    @Test
    void literalWithTooFewEntries() {
        String text = "HloModule m\nENTRY e {\n  ROOT c = s32[3] constant({1, 2})\n}\n";
        assertContains("constant (instruction %c, line 3): literal of s32[3]{0} at offset 5: expected ','",
                failure(text, Map.of()));
    }

    @Test
    void literalOfTheWrongType() {
        String text = "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(1.5)\n}\n";
        assertContains("'1.5' is not a s32 value", failure(text, Map.of()));
    }

    @Test
    void complexLiteralsAndConvertsThatXlaHasNoResultFor() {
        String text = "HloModule m\nENTRY e {\n  ROOT c = c64[2] constant({1, 2})\n}\n";
        assertContains("literal of c64[2]{0} at offset 1: expected '('", failure(text, Map.of()));
        text = "HloModule m\nENTRY e {\n  ROOT c = c64[] constant((1, x))\n}\n";
        assertContains("'(1, x)' is not a c64 value", failure(text, Map.of()));
        // jaxlib's CPU compiler crashes on complex -> pred.
        text = "HloModule m\nENTRY e {\n  c = c64[] constant((0, 1))\n  ROOT p = pred[] convert(c)\n}\n";
        assertContains("convert from c64 to pred is not supported", failure(text, Map.of()));
    }

    @Test
    void unsupportedOpInsideACallNamesTheComputationAndTheCallSite() {
        String text = """
                HloModule m

                inner {
                  x = f32[2] parameter(0)
                  ROOT n = f32[2] exponential(x)
                }

                outer {
                  y = f32[2] parameter(0)
                  ROOT f = f32[2] fusion(y), kind=kLoop, calls=inner
                }

                ENTRY e {
                  p0 = f32[2] parameter(0)
                  ROOT c = f32[2] call(p0), to_apply=outer
                }
                """;
        UnsupportedOpException e = assertThrows(UnsupportedOpException.class,
                () -> HloExecutor.execute(text, Map.of("p0", view("f32[2]"))));
        assertEquals("exponential", e.opcode());
        assertEquals(OptionalInt.of(5), e.line());
        assertEquals("(instruction %n, line 5, in inner, called by %f, line 10, in outer, called by %c, line 15)", e.location());
        assertTrue(e.getMessage().endsWith(", and call or fusion of computations made of them"), e.getMessage());
    }

    @Test
    void callWhoseOperandsDoNotMatchItsParametersIsRefused() {
        String text = """
                HloModule m
                f {
                  x = f32[3] parameter(0)
                  ROOT r = f32[3] reverse(x), dimensions={0}
                }
                ENTRY e {
                  p0 = f32[2] parameter(0)
                  ROOT c = f32[3] call(p0), to_apply=f
                }
                """;
        assertContains("call (instruction %c, line 8): operand 0 (p0) is f32[2]{0} but f's parameter x is f32[3]{0}",
                failure(text, Map.of("p0", view("f32[2]"))));
        String twoOperands = text.replace("call(p0)", "call(p0, p0)");
        assertContains("call (instruction %c, line 8): passes 2 operands to f, which has 1 parameters",
                failure(twoOperands, Map.of("p0", view("f32[2]"))));
    }

    @Test
    void errorInsideACallNamesTheInnerInstructionThenTheCallSite() {
        String text = """
                HloModule m
                f {
                  x = f32[2] parameter(0)
                  ROOT r = f32[2] reverse(x), dimensions={3}
                }
                ENTRY e {
                  p0 = f32[2] parameter(0)
                  ROOT c = f32[2] call(p0), to_apply=f
                }
                """;
        assertContains("reverse (instruction %r, line 4, in f, called by %c, line 8): dimensions [3] must be distinct dimensions of its"
                + " rank-1 operand f32[2]{0}",
                failure(text, Map.of("p0", view("f32[2]"))));
    }

    @Test
    void aNestedTupleRootIsRefusedBeforeAnythingRunsButTuplesRunElsewhere() {
        String nested = "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n  t = (f32[2]) tuple(p0)\n"
                + "  ROOT r = ((f32[2]), f32[2]) tuple(t, p0)\n}\n";
        assertContains("tuple element 0 of ROOT (instruction %r, line 5) has shape (f32[2]{0}): only arrays can be written,"
                + " not nested tuples", failure(nested, Map.of("p0", view("f32[2]"))));
        String multiOutputFusion = """
                HloModule m
                f {
                  x = f32[2] parameter(0)
                  ROOT t = (f32[2], f32[2]) tuple(x, x)
                }
                ENTRY e {
                  p0 = f32[2] parameter(0)
                  ROOT r = (f32[2], f32[2]) fusion(p0), kind=kLoop, calls=f
                }
                """;
        try (Execution x = HloExecutor.execute(multiOutputFusion, Map.of("p0", view("f32[2]")))) {
            assertEquals(2, x.outputCount());
        }
        String element = "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n  t = (f32[2]) tuple(p0)\n"
                + "  ROOT r = f32[2] reverse(t), dimensions={0}\n}\n";
        assertContains("operand 0 (t) is a tuple; take its elements with get-tuple-element",
                failure(element, Map.of("p0", view("f32[2]"))));
    }

    @Test
    void dynamicSliceStartMustBeAnIntegerScalar() {
        String text = "HloModule m\nENTRY e {\n  p0 = f32[4] parameter(0)\n  i = f32[] constant(1)\n"
                + "  ROOT d = f32[2] dynamic-slice(p0, i), dynamic_slice_sizes={2}\n}\n";
        assertContains("dynamic-slice (instruction %d, line 5): start operand 1 (i) is f32[], not an integer scalar",
                failure(text, Map.of("p0", view("f32[4]"))));
    }

    @Test
    void bitcastThatChangesTheTypeIsRefused() {
        String text = "HloModule m\nENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT b = s32[4] bitcast(p0)\n}\n";
        assertContains("changes the element type", failure(text, Map.of("p0", view("f32[4]"))));
    }

    @Test
    void concatenateMustNameOneDimension() {
        for (String dims : new String[] {"{}", "{0,1}", "{2}"}) {
            String text = "HloModule m\nENTRY e {\n  p0 = f32[2,5] parameter(0)\n  p1 = f32[2,3] parameter(1)\n"
                    + "  ROOT c = f32[2,8] concatenate(p0, p1), dimensions=" + dims + "\n}\n";
            assertContains("concatenate (instruction %c, line 5): dimensions=", failure(text, Map.of("p0", view("f32[2,5]"), "p1", view("f32[2,3]"))));
            assertContains("must name one dimension of its rank-2 output",
                    failure(text, Map.of("p0", view("f32[2,5]"), "p1", view("f32[2,3]"))));
        }
    }

    /** XLA refuses all of these; they overflowed (exit 1), wrapped to another dimension, or misreported. */
    @Test
    void dimensionAttributesPastIntRangeAreRefusedAsWritten() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        assertContains("transpose (instruction %t, line 4): dimensions [2147483648, 0] are not a permutation of [0, 2)",
                failure(module("ROOT t = f32[3,2] transpose(p0), dimensions={2147483648,0}"), args));
        assertContains("reverse (instruction %t, line 4): dimensions [-2147483649] must be distinct dimensions of its rank-2 operand",
                failure(module("ROOT t = f32[2,3] reverse(p0), dimensions={-2147483649}"), args));
        assertContains("broadcast (instruction %t, line 4): dimensions [0, 4294967297] must be distinct dimensions of its rank-3 output",
                failure(module("ROOT t = f32[2,3,4] broadcast(p0), dimensions={0,4294967297}"), args));
        assertContains("iota (instruction %t, line 4): iota_dimension=4294967296 is not a dimension of s32[3,4]",
                failure(module("ROOT t = s32[3,4] iota(), iota_dimension=4294967296"), args));
        assertContains("iota_dimension=2147483648 is not a dimension of s32[3,4]",
                failure(module("ROOT t = s32[3,4] iota(), iota_dimension=2147483648"), args));
        assertContains("4:21: iota t needs attribute 'iota_dimension'",
                failure(module("ROOT t = s32[3,4] iota()"), args));
    }

    /** XLA (jaxlib 0.10.2) refuses each: the value rounds to infinity, or NaN where the type has no infinity. */
    @Test
    void floatLiteralsOutOfTheTypesRangeAreRefusedAsInXla() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        String[][] cases = {
            {"f32", "1e39", "[-3.40282e+38, 3.40282e+38]"},
            {"f32", "-3.40282357e38", "[-3.40282e+38, 3.40282e+38]"},
            // The double nearest f32's rounding midpoint: XLA casts the double, which rounds up.
            {"f32", "3.4028235677973366e38", "[-3.40282e+38, 3.40282e+38]"},
            {"f64", "1e309", "[-1.79769e+308, 1.79769e+308]"},
            {"f16", "65520", "[-65504, 65504]"},
            {"bf16", "1e39", "[-3.38953e+38, 3.38953e+38]"},
            {"f8e4m3fn", "465", "[-448, 448]"},
            {"f8e4m3fn", "500", "[-448, 448]"},
            {"f8e5m2", "61440", "[-57344, 57344]"},
            {"f8e4m3fnuz", "248", "[-240, 240]"},
        };
        for (String[] c : cases) {
            assertContains("constant (instruction %t, line 4): value " + c[1] + " is out of range for " + c[0]
                    + ", namely " + c[2], failure(module("ROOT t = " + c[0] + "[] constant(" + c[1] + ")"), args));
        }
        assertContains("value 1e39 is out of range for f32", failure(module("ROOT t = c64[] constant((1e39, 0))"), args));
    }

    /** An unsigned constant names its type's range, as a signed one and a converted value do. */
    @Test
    void integerLiteralsOutOfTheTypesRangeNameIt() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        assertContains("constant (instruction %t, line 4): value 256 out of range [0, 255] for u8",
                failure(module("ROOT t = u8[] constant(256)"), args));
        assertContains("constant (instruction %t, line 4): value 128 out of range [-128, 127] for s8",
                failure(module("ROOT t = s8[] constant(128)"), args));
    }

    /** XLA's verifier refuses each (jaxlib 0.10.2); they ran, the extra operand ignored or the types mixed. */
    @Test
    void operandCountsAndStartTypesAreCheckedAsXlasVerifierDoes() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        assertContains("copy (instruction %t, line 4): copy takes 1 operand, got 2: [p0, p0]",
                failure(module("ROOT t = f32[2,3] copy(p0, p0)"), args));
        assertContains("transpose takes 1 operand, got 2", failure(module("ROOT t = f32[3,2] transpose(p0, p0), dimensions={1,0}"), args));
        assertContains("pad takes 2 operands, got 1", failure(module("ROOT t = f32[2,3] pad(p0), padding=0_0x0_0"), args));
        assertContains("iota takes 0 operands, got 1", failure(module("ROOT t = s32[2] iota(p0), iota_dimension=0"), args));
        // concatenate's count is the op's own rule, checked by Ops.concatenate, not by the interpreter's table
        assertContains("concatenate (instruction %t, line 4): a concatenation needs at least one part",
                failure(module("ROOT t = f32[0,3] concatenate(), dimensions={0}"), args));
        String text = "HloModule m\nENTRY e {\n  p0 = f32[2,3] parameter(0)\n  i = s8[] constant(1)\n  j = s64[] constant(0)\n"
                + "  ROOT d = f32[1,2] dynamic-slice(p0, i, j), dynamic_slice_sizes={1,2}\n}\n";
        assertContains("dynamic-slice (instruction %d, line 6): start operands must have one element type, as XLA"
                + " requires: i is s8, j is s64", failure(text, args));
    }

    /**
     * Found by mutating generated modules (one type or shape changed): elementwise work held
     * across a move carried the move's declared shape unchecked, so a pred read as f16 failed with
     * a ClassCastException; a tuple declared as an array left the result without a view.
     */
    @Test
    void declaredShapesAreCheckedWhereWorkIsHeldAndForTuples() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        assertContains("transpose (instruction %t, line 5): transpose keeps its operand's element type: operand 0 (n) is f32,"
                + " the result f16[3,2]{1,0}",
                failure(module("n = f32[2,3] negate(p0)\n  ROOT t = f16[3,2] transpose(n), dimensions={1,0}"), args));
        assertContains("reverse (instruction %t, line 5): output f32[2,4]{1,0} must have the dimensions of its operand f32[2,3]{1,0}",
                failure(module("n = f32[2,3] negate(p0)\n  ROOT t = f32[2,4] reverse(n), dimensions={1}"), args));
        assertContains("copy (instruction %c, line 5): copy keeps its operand's element type: operand 0 (n) is f32, the result"
                + " s32[2,3]{1,0}",
                failure(module("n = f32[2,3] negate(p0)\n  c = s32[2,3] copy(n)\n  ROOT t = s32[2,3] negate(c)"), args));
        assertContains("copy (instruction %c, line 4): copy keeps its operand's dims: operand 0 (p0) is f32[2,3]{1,0}, the result"
                + " f32[3,2]{1,0}", failure(module("c = f32[3,2] copy(p0)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("tuple (instruction %t, line 4): declares f32[2,3]{1,0}, not a tuple",
                failure(module("ROOT t = f32[2,3] tuple(p0)"), args));
        assertContains("tuple (instruction %t, line 4): declares a tuple of 1 but has 2 operands",
                failure(module("ROOT t = (f32[2,3]) tuple(p0, p0)"), args));
        assertContains("tuple (instruction %v, line 5): operand 1 (u) is (f32[2,3]{1,0}), not (f32[3]{0})",
                failure(module("u = (f32[2,3]) tuple(p0)\n  v = (f32[2,3], (f32[3])) tuple(p0, u)\n"
                        + "  ROOT t = f32[2,3] get-tuple-element(v), index=0"), args));
        // Checked before anything runs, so also where nothing reaches it (RunXlaAgreementTest's damaged modules, seed 24).
        assertContains("constant (instruction %c, line 4): declares (s32[], f32[2,3]{1,0}): a constant of a tuple shape is not"
                + " supported; a tuple of constants is", failure(module("c = (s32[], f32[2,3]) constant(p0, p0)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("multiply (instruction %m, line 5): operand 0 (u) is a tuple; take its elements with get-tuple-element",
                failure(module("u = (f32[2,3]) tuple(p0)\n  m = f32[2,3] multiply(u, p0)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("reverse (instruction %r, line 5): operand 0 (u) is a tuple; take its elements with get-tuple-element",
                failure(module("u = (f32[2,3]) tuple(p0)\n  r = f32[2,3] reverse(u), dimensions={0}\n  ROOT t = f32[2,3] negate(p0)"), args));
        // A sort's shape is its operands': a damaged one asked for 2^63 bytes (MutatedModulesTest, seed 777001).
        String sort = "HloModule m\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
                + "  d = f32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n  p0 = f32[2,3] parameter(0)\n"
                + "  s = SHAPE sort(p0, p0), dimensions={1}, is_stable=true, to_apply=cmp\n  ROOT t = f32[2,3] get-tuple-element(s), index=0\n}\n";
        assertContains("sort (instruction %s, line 11): its shape is (f32[2,3]{1,0}, s8[9223372036854775807]{0}), not (f32[2,3]{1,0},"
                + " f32[2,3]{1,0})", failure(sort.replace("SHAPE", "(f32[2,3], s8[9223372036854775807])"), args));
        assertContains("sort (instruction %s, line 11): its shape is f32[2,3]{1,0}, not (f32[2,3]{1,0}, f32[2,3]{1,0})",
                failure(sort.replace("SHAPE", "f32[2,3]"), args));
    }

    /**
     * A loop's and a conditional's computations are checked before they run, as XLA's verifier
     * does: a body returning the wrong shape ran in a loop of no trips, and a branch never chosen
     * was never checked (found by running damaged modules through both).
     */
    @Test
    void everyComputationOfALoopOrConditionalIsCheckedBeforeItRuns() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"), "i", view("s32[]"));
        String loop = """
                HloModule m
                cond {
                  a = (s32[], f32[2,3]) parameter(0)
                  k = s32[] get-tuple-element(a), index=0
                  z = s32[] constant(-2147483648)
                  ROOT lt = pred[] compare(k, z), direction=LT
                }
                body {
                  a = (s32[], f32[2,3]) parameter(0)
                  k = s32[] get-tuple-element(a), index=0
                  ROOT t = (s32[]) tuple(k)
                }
                ENTRY e {
                  p0 = f32[2,3] parameter(0)
                  i = s32[] parameter(1)
                  t = (s32[], f32[2,3]) tuple(i, p0)
                  w = (s32[], f32[2,3]) while(t), condition=cond, body=body
                  ROOT r = f32[2,3] get-tuple-element(w), index=1
                }
                """;
        assertContains("while (instruction %w, line 17): its body body's ROOT is (s32[]), not (s32[], f32[2,3]{1,0})",
                failure(loop, args));
        assertContains("its condition cond's parameter is (s32[], f32[3,2]{1,0}), not (s32[], f32[2,3]{1,0})",
                failure(loop.replace("ROOT t = (s32[]) tuple(k)", "ROOT t = (s32[], f32[2,3]) tuple(k, k)")
                        .replaceFirst("f32\\[2,3\\]", "f32[3,2]"), args));
        String conditional = twoBranches("  a = f32[2,3] parameter(0)\n  ROOT n = s32[] constant(1)");
        Map<String, TensorView> one = Map.of("p0", view("f32[2,3]"));
        assertContains("conditional (instruction %c, line 13): its branch b1's ROOT is s32[], not f32[2,3]{1,0}",
                failure(conditional, one));
        assertContains("its branch b1's parameter is f32[3,2]{1,0}, not f32[2,3]{1,0}",
                failure(conditional.replace("a = f32[2,3] parameter(0)\n  ROOT n = s32[]", "a = f32[3,2] parameter(0)\n  ROOT n = s32[]"),
                        one));
    }

    /**
     * Every instruction's element types and operand count are checked before the run, also where
     * the run never goes: an instruction nothing reads, a branch not chosen (XLA's verifier
     * refuses such modules; run computed them, found running damaged modules through both).
     */
    @Test
    void typesAreCheckedInInstructionsTheRunNeverReaches() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        assertContains("add (instruction %d, line 4): add takes operands of its result type: got [f32, f32] making s32",
                failure(module("d = s32[2,3] add(p0, p0)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("slice (instruction %d, line 4): slice keeps its operand's element type: operand 0 (p0) is f32, the result"
                + " f16[1,3]{1,0}", failure(module("d = f16[1,3] slice(p0), slice={[0:1], [0:3]}\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("transpose (instruction %d, line 4): dimensions [0] are not a permutation of [0, 2)",
                failure(module("d = f32[2,3] transpose(p0), dimensions={0}\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("add (instruction %d, line 6): add is elementwise: operand 1 (r) is f32[3]{0}, the result f32[2,3]{1,0}",
                failure(module("s = f32[1,3] slice(p0), slice={[0:1], [0:3]}\n  r = f32[3] reshape(s)\n"
                        + "  d = f32[2,3] add(p0, r)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("get-tuple-element (instruction %g, line 5): element 0 of u is f32[2,3]{1,0}, not s32[]",
                failure(module("u = (f32[2,3]) tuple(p0)\n  g = s32[] get-tuple-element(u), index=0\n"
                        + "  ROOT t = f32[2,3] negate(p0)"), args));
        String sort = """
                HloModule m
                order {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT lt = s32[] compare(a, b), direction=LT
                }
                ENTRY e {
                  p0 = f32[2,3] parameter(0)
                  ROOT s = f32[2,3] sort(p0), dimensions={1}, to_apply=order
                }
                """;
        assertContains("compare (instruction %lt, line 5, in order, applied by %s, line 9): compare takes two operands of one type"
                + " and makes pred: got [f32, f32] making s32", failure(sort, args));
        assertContains("sort (instruction %s, line 9): its to_apply order's parameter 1 is s32[], not f32[]",
                failure(sort.replace("b = f32[] parameter(1)", "b = s32[] parameter(1)"), args));
        assertContains("sort (instruction %s, line 9): its to_apply order's ROOT is f32[], not pred[]",
                failure(sort.replace("ROOT lt = s32[] compare(a, b), direction=LT", "ROOT lt = f32[] maximum(a, b)"), args));
        assertContains("tuple (instruction %u, line 4): operand 1 (p0) is f32[2,3]{1,0}, not s32[]",
                failure(module("u = (f32[2,3], s32[]) tuple(p0, p0)\n  ROOT t = f32[2,3] negate(p0)"), args));
        assertContains("pad (instruction %n, line 9, in b1, a branch of %c, line 14): pad keeps its operand's element type:"
                + " operand 1 (i) is s32, the result f32[2,3]{1,0}", failure(twoBranches(
                        "  a = f32[2,3] parameter(0)\n  i = s32[] constant(0)\n  ROOT n = f32[2,3] pad(a, i), padding=0_0x0_0"), args));
    }

    /**
     * A move's dims come from its attributes; XLA's verifier infers them for every instruction of
     * every computation, and its parser reads every literal, so a wrong one is refused even where
     * nothing reads it, in a branch never chosen or in a computation nothing calls (each of these
     * XLA refuses too: jaxlib 0.10.2's parser and compiler).
     */
    @Test
    void dimsAndLiteralsAreCheckedInInstructionsTheRunNeverReaches() {
        Map<String, TensorView> args = Map.of("p0", view("f32[2,3]"));
        String unread = "\n  ROOT t = f32[2,3] negate(p0)";
        assertContains("slice (instruction %d, line 4): slice d of f32[2,3]{1,0} to f32[2,3]{1,0}: dim 0 [0:1:1] does not select 2",
                failure(module("d = f32[2,3] slice(p0), slice={[0:1], [0:3]}" + unread), args));
        assertContains("concatenate (instruction %d, line 4): its operands' sizes along dimension 1 add up to 6, not"
                + " to its output's 5", failure(module("d = f32[2,5] concatenate(p0, p0), dimensions={1}" + unread), args));
        assertContains("pad (instruction %d, line 5): pad d of f32[2,3]{1,0} to f32[2,3]{1,0}: dim 1 of size 3 padded by 1_0_0 gives 4,"
                + " not 3", failure(module("z = f32[] constant(0)\n  d = f32[2,3] pad(p0, z), padding=0_0x1_0" + unread), args));
        assertContains("reshape (instruction %d, line 4): reshape d of [2, 3] (6 elements) to [7] (7 elements): element counts differ",
                failure(module("d = f32[7] reshape(p0)" + unread), args));
        assertContains("broadcast (instruction %d, line 4): operand dimension 1 of f32[2,3]{1,0} has size 3 but output"
                + " dimension 2 of f32[2,4,4]{2,1,0} has size 4",
                failure(module("d = f32[2,4,4] broadcast(p0), dimensions={0,2}" + unread), args));
        assertContains("dynamic-slice (instruction %d, line 5): output f32[1,3]{1,0} must have the dimensions"
                + " dynamic_slice_sizes [1, 2]", failure(module("i = s32[] constant(0)\n"
                        + "  d = f32[1,3] dynamic-slice(p0, i, i), dynamic_slice_sizes={1,2}" + unread), args));
        assertContains("constant (instruction %c, line 4): literal of c64[] at offset 0: expected '(', found '1'",
                failure(module("c = c64[] constant(1)" + unread), args));
        assertContains("convert (instruction %b, line 4, in unused, which the entry does not call): convert is elementwise:"
                + " operand 0 (a) is f32[2]{0}, the result f32[]", failure("HloModule m\nunused {\n  a = f32[2] parameter(0)\n"
                        + "  ROOT b = f32[] convert(a)\n}\nENTRY e {\n  p0 = f32[2,3] parameter(0)\n  ROOT t = f32[2,3] negate(p0)\n}\n",
                        args));
        assertContains("scatter (instruction %d, line 10): its indices i are pred[1,1]{1,0}, not integers", failure(module(
                "i = pred[1,1] constant({{0}})\n  d = f32[2,3] scatter(p0, i, p0), update_window_dims={0,1}, inserted_window_dims={},"
                        + " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sum" + unread).replace("ENTRY e {",
                "sum {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {"), args));
        assertContains("call (instruction %d, line 8): its computation g's ROOT is s32[], not f32[2,3]{1,0}",
                failure("HloModule m\ng {\n  a = f32[2,3] parameter(0)\n  ROOT c = s32[] constant(2)\n}\nENTRY e {\n"
                        + "  p0 = f32[2,3] parameter(0)\n  d = f32[2,3] call(p0), to_apply=g" + unread + "\n}\n", args));
        assertContains("fusion (instruction %d, line 9): %z in its computation g is not read", failure("HloModule m\ng {\n"
                + "  a = f32[2,3] parameter(0)\n  z = f32[] constant(0)\n  ROOT n = f32[2,3] negate(a)\n}\nENTRY e {\n"
                + "  p0 = f32[2,3] parameter(0)\n  d = f32[2,3] fusion(p0), kind=kLoop, calls=g" + unread + "\n}\n", args));
        String reduceInBranch = twoBranches("  a = f32[2,3] parameter(0)\n  z = f32[] constant(0)\n"
                + "  r = f32[3] reduce(a, z), dimensions={1}, to_apply=sum\n  ROOT n = f32[2,3] broadcast(r), dimensions={1}")
                .replace("b1 {", "sum {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nb1 {");
        assertContains("reduce (instruction %r, line 14, in b1, a branch of %c, line 20): output f32[3]{0} does not match",
                failure(reduceInBranch, args));
    }

    /** {@return a conditional whose constant selector chooses branch b0, the negation; b1's body is {@code b1}} */
    private static String twoBranches(String b1) {
        return "HloModule m\nb0 {\n  a = f32[2,3] parameter(0)\n  ROOT n = f32[2,3] negate(a)\n}\nb1 {\n" + b1 + "\n}\n"
                + "ENTRY e {\n  p0 = f32[2,3] parameter(0)\n  i = s32[] constant(0)\n"
                + "  ROOT c = f32[2,3] conditional(i, p0, p0), branch_computations={b0, b1}\n}\n";
    }

    private static String module(String root) {
        return "HloModule m\nENTRY e {\n  p0 = f32[2,3] parameter(0)\n  " + root + "\n}\n";
    }
}
