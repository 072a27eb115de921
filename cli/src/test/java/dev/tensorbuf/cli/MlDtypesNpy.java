package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What NumPy with ml_dtypes reads from .npy files the commands write: {@code np.load(f).view(ml_dtypes.T)}. */
final class MlDtypesNpy {
    private MlDtypesNpy() {
    }

    /** One file as NumPy loaded it: the descr it saw, the shape, the values in C order. */
    record Loaded(String descr, List<Long> shape, List<Double> values) {
    }

    /**
     * {@return each file as NumPy loads it viewed as its ml_dtypes type, in the order given}
     * Skips the calling test, with the reason, when numpy or ml_dtypes is missing.
     */
    @SuppressWarnings("unchecked")
    static List<Loaded> load(Path dir, Map<Path, DType> files) throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        List<String> args = new ArrayList<>();
        files.forEach((file, type) -> {
            args.add(file.toString());
            args.add(type.numpyDescr().orElseThrow());
        });
        // A folder of its own: runScript copies the script into it, once.
        Path scriptDir = java.nio.file.Files.createTempDirectory(dir, "peer");
        String out = PythonPeer.runScript("/peers/mldtypes_npy.py", scriptDir, args.toArray(String[]::new));
        List<Loaded> loaded = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            Map<String, Object> o = (Map<String, Object>) Json.parse(line);
            List<Double> values = ((List<Object>) o.get("values")).stream().map(v -> ((Number) v).doubleValue()).toList();
            loaded.add(new Loaded((String) o.get("descr"), (List<Long>) o.get("shape"), values));
        }
        assertEquals(files.size(), loaded.size(), out);
        return loaded;
    }
}
