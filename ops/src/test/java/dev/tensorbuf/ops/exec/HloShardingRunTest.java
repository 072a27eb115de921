package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Modules of partitioned programs run unpartitioned: shardings read and checked, sharding custom-calls as identities. */
class HloShardingRunTest {
    @ArenaPerTest
    private Allocator arena;

    /**
     * jax 0.10.2's HLO (lower(...).as_text(dialect='hlo')) of
     * {@code jit(lambda a, b: (with_sharding_constraint(a.T[::-1], P('y', None)), concatenate([b, b])),
     * in_shardings=(P('x','y'), P(None,'x')), out_shardings=(P('x'), P()))} on a 2x2 mesh.
     */
    static final String JAX_MODULE = """
            HloModule jit_f, entry_computation_layout={(f32[4,6]{1,0}, s32[2,4]{1,0})->(f32[6,4]{1,0}, s32[4,4]{1,0})}, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=2, "y"=2]>}}

            ENTRY main.1 {
              a.1 = f32[4,6]{1,0} parameter(0), sharding={devices=[2,2]<=[4]}, frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{\\"x\\"}, {\\"y\\"}]>"}
              transpose.1 = f32[6,4]{0,1} transpose(a.1), dimensions={1,0}
              rev.1 = f32[6,4]{0,1} reverse(transpose.1), dimensions={0}
              sharding_constraint.2 = f32[6,4]{1,0} custom-call(rev.1), custom_call_target="Sharding", sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\\"y\\"}, {}]>]>"}
              sharding_constraint.3 = f32[6,4]{1,0} custom-call(sharding_constraint.2), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\\"x\\"}, {}]>]>"}
              reshape.2 = f32[6,4]{1,0} reshape(sharding_constraint.3), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
              b.1 = s32[2,4]{1,0} parameter(1), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}, frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{}, {\\"x\\"}]>"}
              concatenate.2 = s32[4,4]{1,0} concatenate(b.1, b.1), dimensions={0}
              concatenate.3 = s32[4,4]{1,0} custom-call(concatenate.2), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{}, {}]>]>"}
              reshape.3 = s32[4,4]{1,0} reshape(concatenate.3), sharding={replicated}
              ROOT tuple.1 = (f32[6,4]{1,0}, s32[4,4]{1,0}) tuple(sharding_constraint.3, concatenate.3), sharding={{devices=[2,1,2]<=[4] last_tile_dim_replicate}, {replicated}}
            }
            """;

    @Test
    void jaxShardedModuleRunsOnGlobalArraysAsJaxComputes() {
        HloModule m = HloModule.parse(JAX_MODULE);
        assertEquals(HloSharding.parse("{devices=[2,2]<=[4]}"), m.entry().find("a.1").orElseThrow().sharding().orElseThrow());
        assertEquals("{{devices=[2,1,2]<=[4] last_tile_dim_replicate}, {replicated}}",
                m.entry().root().sharding().orElseThrow().toString());
        TensorView a = TensorView.of(arena.allocate(4 * 24), "f32[4,6]");
        float[] av = new float[24];
        for (int i = 0; i < av.length; i++) {
            av[i] = i;
        }
        TensorElements.of(a).copyFrom(av);
        TensorView b = TensorView.of(arena.allocate(4 * 8), "s32[2,4]");
        TensorElements.of(b).copyFrom(new long[] {0, 1, 2, 3, 4, 5, 6, 7});
        try (Execution x = HloExecutor.execute(JAX_MODULE, Map.of("0", a, "1", b))) {
            // jax 0.10.2 on 4 CPU devices: [[5,11,17,23],[4,10,16,22],...,[0,6,12,18]] and [[0..3],[4..7],[0..3],[4..7]]
            assertArrayEquals(new float[] {5, 11, 17, 23, 4, 10, 16, 22, 3, 9, 15, 21, 2, 8, 14, 20, 1, 7, 13, 19, 0, 6, 12, 18},
                    TensorElements.of(x.rowMajor(0)).toFloatArray());
            assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}, TensorElements.of(x.rowMajor(1)).toLongArray());
        }
    }

    private static String module(String... body) {
        return "HloModule m\nENTRY e {\n  " + String.join("\n  ", body) + "\n}\n";
    }

    @Test
    void badShardingIsASyntaxErrorInsideTheValue() {
        HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(module(
                "ROOT p = f32[4,4] parameter(0), sharding={devices=[2,2]<=[2,2]T(0,5)}")));
        assertEquals(3, e.line());
        // "  ROOT p = f32[4,4] parameter(0), sharding=" is 43 characters; the 5 is at index 25 of the value.
        assertEquals(43 + 25 + 1, e.column(), e.getMessage());
        assertTrue(e.problem().startsWith("bad sharding: iota transpose entry 5 out of range [0, 2)"), e.getMessage());
    }

    @Test
    void shardingMustFitTheShape() {
        HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(module(
                "ROOT p = f32[8] parameter(0), sharding={devices=[2,2]<=[4]}")));
        assertTrue(e.problem().contains("tiles 2 dimensions but f32[8]{0} has 1"), e.getMessage());
        assertEquals(42, e.column(), "the value's first character: " + e.getMessage());
        HloSyntaxException t = assertThrows(HloSyntaxException.class, () -> HloModule.parse(module(
                "ROOT p = (f32[8], f32[2]) parameter(0), sharding={{replicated}}")));
        assertTrue(t.problem().contains("has 1 element but (f32[8]{0}, f32[2]{0}) has 2 leaves"), t.getMessage());
    }

    @Test
    void shardShapeCustomCallsRunOnlyWhereTheyKeepTheShape() {
        TensorView p = TensorView.of(arena.allocate(16), "f32[4]");
        TensorElements.of(p).copyFrom(new float[] {1, 2, 3, 4});
        String same = module("p = f32[4] parameter(0), sharding={replicated}",
                "ROOT m = f32[4] custom-call(p), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}");
        try (Execution x = HloExecutor.execute(same, Map.of("0", p))) {
            assertArrayEquals(new float[] {1, 2, 3, 4}, TensorElements.of(x.rowMajor()).toFloatArray());
        }
        String split = module("p = f32[4] parameter(0), sharding={devices=[2]<=[2]}",
                "ROOT m = f32[2] custom-call(p), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloExecutor.execute(split, Map.of("0", p)).close());
        assertTrue(e.getMessage().contains("custom-call SPMDFullToShardShape turns [4] into [2]"), e.getMessage());
        String other = module("p = f32[4] parameter(0)",
                "ROOT m = f32[4] custom-call(p), custom_call_target=\"my_kernel\"");
        assertThrows(UnsupportedOpException.class, () -> HloExecutor.execute(other, Map.of("0", p)).close());
    }
}
