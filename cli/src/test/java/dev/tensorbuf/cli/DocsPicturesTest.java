package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pictures README.md shows are what {@code tensorbuf render} draws today, byte for byte. */
class DocsPicturesTest {
    /** docs/ file -> the render arguments that make it (regenerate with these after a change). */
    private static final Map<String, String[]> PICTURES = Map.of(
            "figure1-f32-T2x2.svg", new String[] {"render", "f32[3,5]{1,0:T(2,2)}"},
            "figure2-bf16-T2x4-2x1.svg", new String[] {"render", "bf16[4,8]{1,0:T(2,4)(2,1)}"},
            "strided-broadcast-padded.svg", new String[] {"render", "--dtype", "f32", "--sizes", "2,3,4", "--strides", "0,5,1"});

    @Test
    void docsPicturesAreCurrent() throws Exception {
        for (var e : PICTURES.entrySet()) {
            CliHarness r = CliHarness.run(e.getValue());
            assertEquals(0, r.code(), r.err());
            String committed = Files.readString(Path.of("..", "docs", e.getKey()));
            assertEquals(committed, r.out(), "docs/" + e.getKey() + " is stale: regenerate it with ./tensorbuf "
                    + String.join(" ", e.getValue()) + " --out docs/" + e.getKey());
        }
    }
}
