package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tensorbuf run} on a partitioned program's module: shardings read, the program run on the global arrays. */
class RunShardingTest {
    @TempDir
    Path dir;

    @Test
    void shardedModuleRunsUnpartitioned() throws IOException {
        Path hlo = dir.resolve("s.hlo");
        Files.writeString(hlo, """
                HloModule m
                ENTRY e {
                  p0 = f32[2,3]{1,0} parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
                  t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
                  c = f32[3,2]{1,0} custom-call(t), custom_call_target="Sharding", sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
                  ROOT r = f32[3,2]{1,0} reverse(c), dimensions={0}, sharding={replicated}
                }
                """);
        Path a = dir.resolve("a.npy");
        Npy.write(a, new DenseTensor(DType.F32, List.of(2L, 3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)));
        Path out = dir.resolve("r.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor n = Npy.map(out)) {
            assertArrayEquals(new float[] {2, 5, 1, 4, 0, 3}, n.data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
    }

    @Test
    void badShardingIsBadInputWithItsPosition() throws IOException {
        Path hlo = dir.resolve("bad.hlo");
        Files.writeString(hlo, """
                HloModule m
                ENTRY e {
                  ROOT p0 = f32[2,3]{1,0} parameter(0), sharding={devices=[2,2]<=[8]}
                }
                """);
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + dir.resolve("none.npy"), "--out",
                dir.resolve("out.npy").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("3:51: bad sharding: the grid [2, 2] has 4 tiles but the iota [8] has 8 devices"), r.err());
    }
}
