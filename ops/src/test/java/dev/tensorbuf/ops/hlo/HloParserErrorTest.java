package dev.tensorbuf.ops.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed HLO gives an {@link HloSyntaxException} naming the line, column and problem. */
class HloParserErrorTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
            missing header            | ROOT p = f32[2] parameter(0)                                                       | 1:1  | expected 'HloModule'
            no computations           | HloModule m                                                                        | 1:12 | expected a computation
            missing equals            | HloModule m\\nENTRY e {\\n  ROOT p f32[2] parameter(0)\\n}                         | 3:10 | expected '='
            unclosed dims             | HloModule m\\nENTRY e {\\n  ROOT p = f32[2 parameter(0)\\n}                        | 3:18 | bad shape: expected ',' or ']' after a dimension size
            unknown type              | HloModule m\\nENTRY e {\\n  ROOT p = f33[2] parameter(0)\\n}                       | 3:12 | bad shape
            unknown opcode            | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] paramter(0)\\n}                        | 3:19 | unknown opcode 'paramter' (did you mean parameter?)
            misspelt transpose        | HloModule m\\nENTRY e {\\n  p = f32[2,3] parameter(0)\\n  ROOT t = f32[3,2] tranpose(p), dimensions={1,0}\\n} | 4:21 | unknown opcode 'tranpose' (did you mean transpose?)
            top-k is XLA's topk       | HloModule m\\nENTRY e {\\n  p = f32[4] parameter(0)\\n  ROOT t = (f32[2], s32[2]) top-k(p), k=2\\n} | 4:29 | unknown opcode 'top-k' (did you mean topk?)
            XLA's opt-barrier         | HloModule m\\nENTRY e {\\n  p = f32[4] parameter(0)\\n  ROOT b = f32[4] optimization-barrier(p)\\n} | 4:19 | unknown opcode 'optimization-barrier' (line
            far from any opcode       | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] frobnicate(0)\\n}                      | 3:19 | unknown opcode 'frobnicate' (line
            parameter not a number    | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(x)\\n}                       | 3:29 | expected a parameter number
            parameter past 2^31 - 1   | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(2147483648)\\n}              | 3:29 | parameter number 2147483648 is past the largest XLA takes (2147483647)
            unknown operand           | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  ROOT n = f32[2] negate(q)\\n}   | 4:26 | unknown operand 'q'
            duplicate name            | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  p = f32[2] parameter(1)\\n}     | 4:3  | duplicate instruction name 'p'
            two roots                 | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(0)\\n  ROOT q = f32[2] negate(p)\\n} | 4:3 | second ROOT
            unclosed computation      | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(0)\\n                          | 2:1  | expected '}' to end computation 'e'
            bad slice                 | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT s = f32[4] slice(p), slice={[0:8:x]}\\n} | 4:36 | expected '[start:limit]'
            bad padding               | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  c = f32[] constant(0)\\n  ROOT q = f32[9] pad(p, c), padding=1_a\\n} | 5:38 | expected low_high
            bad dimensions            | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT r = f32[8] reverse(p), dimensions={0,z}\\n} | 4:45 | expected an integer for dimensions, got 'z'
            unknown window field      | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  c = f32[] constant(0)\\n  ROOT r = f32[8] reduce-window(p, c), window={size=1 skip=2}, to_apply=e\\n} | 5:55 | unknown window field 'skip'
            bad dim labels            | HloModule m\\nENTRY e {\\n  p = f32[1,8,4] parameter(0)\\n  k = f32[3,4,4] parameter(1)\\n  ROOT c = f32[1,6,4] convolution(p, k), window={size=3}, dim_labels=b0x_0io->b0f\\n} | 5:72 | unexpected label 'x'
            one-label dim_labels part | HloModule m\\nENTRY e {\\n  p = f32[1,8,4] parameter(0)\\n  k = f32[3,4,4] parameter(1)\\n  ROOT c = f32[1,6,4] convolution(p, k), window={size=3}, dim_labels=b0f_o->b0f\\n} | 5:74 | needs at least the labels i and o
            unknown computation       | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT f = f32[8] fusion(p), kind=kLoop, calls=nowhere\\n} | 4:48 | unknown computation 'nowhere'
            unterminated comment      | HloModule m\\n/* never closed\\nENTRY e {\\n  ROOT p = f32[2] parameter(0)\\n}           | 2:1  | unterminated comment
            unterminated string       | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter(0), metadata={op_name="x}\\n}   | 3:51 | unterminated string
            duplicate attribute       | HloModule m\\nENTRY e {\\n  p = f32[8] parameter(0)\\n  ROOT r = f32[8] reverse(p), dimensions={0}, dimensions={0}\\n} | 4:47 | duplicate attribute 'dimensions'
            parameter number gap      | HloModule m\\nENTRY e {\\n  p0 = f32[2] parameter(0)\\n  p2 = f32[2] parameter(2)\\n  ROOT a = f32[2] add(p0, p2)\\n} | 4:3 | parameter p2 has number 2 but computation 'e' has no parameter 1
            parameter number twice    | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  q = f32[2] parameter(0)\\n  ROOT a = f32[2] add(p, q)\\n} | 4:3 | parameter number 0 is used twice in computation 'e' (p and q)
            operand defined below     | HloModule m\\nENTRY e {\\n  a = f32[2] negate(b)\\n  b = f32[2] negate(a)\\n  ROOT r = f32[2] add(a, b)\\n} | 3:21 | operand 'b' is used before it is defined, in computation 'e'
            operand is itself         | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  ROOT a = f32[2] add(p, a)\\n} | 4:26 | operand 'a' is used before it is defined
            stablehlo from jax        | module @jit__lambda attributes {mhlo.num_partitions = 1 : i32} {\\n  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {\\n    return %arg0 : tensor<3xf32>\\n  }\\n} | 1:1 | this is StableHLO (MLIR) text; tensorbuf reads HLO text: jax.jit(f).lower(x).as_text(dialect=
            bare mlir function        | \\n  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\\n    return %arg0 : tensor<3xf32>\\n  } | 2:3 | this is StableHLO (MLIR) text
            mlir with locations first | #loc1 = loc("x.py":3:0)\\nmodule @m {\\n} | 1:1 | this is StableHLO (MLIR) text
            misspelt attribute        | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  ROOT c = pred[2] compare(p, p), direction=LT, tpye=TOTALORDER\\n} | 4:49 | unexpected attribute 'tpye' on compare (did you mean type?); it takes backend_config, control-predecessors, direction,
            another op's attribute    | HloModule m\\nENTRY e {\\n  p = f32[2] parameter(0)\\n  ROOT n = f32[2] negate(p), dimensions={0}\\n} | 4:30 | unexpected attribute 'dimensions' on negate; it takes backend_config,
            pred conditional's names  | HloModule m\\nb {\\n  a = f32[2] parameter(0)\\n  ROOT n = f32[2] negate(a)\\n}\\nENTRY e {\\n  i = pred[] parameter(0)\\n  p = f32[2] parameter(1)\\n  ROOT c = f32[2] conditional(i, p, p), branch_computations={b, b}\\n} | 9:41 | unexpected attribute 'branch_computations' on conditional (a conditional on a pred names true_computation and false_computation, one on an index branch_computations); it takes backend_config, control-predecessors, false_computation,
            signature's result        | HloModule m\\nENTRY e (p: f32[2]) -> f32[3] {\\n  p = f32[2] parameter(0)\\n  ROOT n = f32[2] negate(p)\\n} | 2:24 | the shape of computation 'e', f32[3]{0}, is not that of its ROOT n, f32[2]{0}
            signature's parameter     | HloModule m\\nENTRY e (p: f1[4]) -> f32[2] {\\n  p = f32[2] parameter(0)\\n  ROOT n = f32[2] negate(p)\\n} | 2:13 | bad shape
            entry layout's shapes     | HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0,2}}\\nENTRY e {\\n  p = f32[2,3] parameter(0)\\n  ROOT n = f32[2,3] negate(p)\\n} | 1: | bad shape
            a required attribute      | HloModule m\\nENTRY e {\\n  p = f32[10] parameter(0)\\n  ROOT r = f32[10] slice(p)\\n} | 4:20 | slice r needs attribute 'slice'
            missing opcode paren      | HloModule m\\nENTRY e {\\n  ROOT p = f32[2] parameter 0\\n}                        | 3:29 | expected '('
            """)
    void malformedHloNamesLineColumnAndProblem(String name, String text, String where, String problem) {
        String hlo = text.strip().replace("\\n", "\n");
        HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(hlo));
        String location = where.strip();
        assertTrue(e.getMessage().startsWith(location), () -> "message '" + e.getMessage() + "' should start with " + location);
        if (problem != null) {
            assertTrue(e.getMessage().contains(problem.strip()), () -> "message '" + e.getMessage() + "' should contain " + problem);
        }
        assertEquals(hlo, e.input());
    }
}
