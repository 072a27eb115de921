package dev.tensorbuf.cli;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.NpyArray;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.exec.Step;
import dev.tensorbuf.ops.exec.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tensorbuf run}: executes an HLO module of data-movement ops as views and writes the root to {@code .npy}. */
final class RunCommand implements Command {
    private static final Option ARG = Option.value("arg", "NAME=FILE.npy", true,
            "bind a parameter, by name (p0=a.npy) or number (0=a.npy), to a .npy file");
    private static final Option OUT = Option.value("out", "FILE.npy", false, "where to write the ROOT's value (C order)");

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "execute an HLO module of data-movement ops as lazy views, write the ROOT to .npy";
    }

    @Override
    public String synopsis() {
        return "tensorbuf run MODULE.hlo --arg NAME=FILE.npy ... --out FILE.npy [--json]";
    }

    @Override
    public String description() {
        return """
                Executes the ENTRY computation of an HLO module made of data-movement ops: parameter,
                constant, iota, broadcast, transpose, reshape, bitcast, copy, slice, dynamic-slice, pad,
                reverse, concatenate, convert. Each op is a view (its map composed into its operand's,
                no element moved); copy, convert between types, constants and iota make new memory, and
                the ROOT is materialised in its layout. The .npy written holds the logical array in C
                order. Arguments are checked against their parameter's type and dims; any other op
                exits 2 naming it. Each instruction is listed with what it became and its map's form.

                example (np.save("a.npy", np.arange(6, dtype="<f4").reshape(2, 3))):
                  t.hlo:  HloModule m
                          ENTRY e {
                            p0 = f32[2,3]{1,0} parameter(0)
                            t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
                            ROOT r = f32[3,2]{1,0} reverse(t), dimensions={0}
                          }
                  tensorbuf run t.hlo --arg p0=a.npy --out r.npy
                  t.hlo -> r.npy: f32[3,2]{1,0}
                    %p0  parameter  parameter  strided
                    %t   transpose  view       strided
                    %r   reverse    view       strided
                    ROOT copied into f32[3,2]{1,0}; 2 views, 0 copies
                  (r.npy holds [[2, 5], [1, 4], [0, 3]])
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(ARG, OUT, Option.JSON);
    }

    @Override
    public int run(Invocation in) throws Exception {
        in.expectAtMostPositionals(1);
        Path modulePath = Path.of(in.positional(0, "MODULE.hlo"));
        CliFiles.input(modulePath, null);
        String out = in.value("out");
        if (out == null) {
            throw new UsageException("missing --out FILE.npy (usage: " + synopsis() + ")");
        }
        if (!out.toLowerCase(java.util.Locale.ROOT).endsWith(".npy")) {
            // It wrote .npy bytes under any name, and a .safetensors reader then choked on them.
            throw new UsageException("--out " + out + ": run writes .npy only; name it FILE.npy, then use"
                    + " 'tensorbuf convert FILE.npy " + out + "' for another format");
        }
        CliFiles.outputFile(Path.of(out), "--out");
        String text = CliFiles.readUtf8(modulePath);
        HloModule module = HloModule.parse(text);
        List<NpyArray> opened = new ArrayList<>();
        try {
            Map<String, TensorView> args = new LinkedHashMap<>();
            for (String a : in.values("arg")) {
                int eq = a.indexOf('=');
                if (eq <= 0 || eq == a.length() - 1) {
                    throw new UsageException("--arg '" + a + "' must be NAME=FILE.npy or NUMBER=FILE.npy");
                }
                Path file = Path.of(a.substring(eq + 1));
                CliFiles.input(file, "--arg " + a.substring(0, eq));
                // ml_dtypes saves bf16 and f8 as bare void ('<V2'): they take their parameter's type.
                DType declared = HloExecutor.parameterShape(module, a.substring(0, eq)).dtype();
                NpyArray array = Npy.map(file, declared.isNumpyNative() ? null : declared);
                opened.add(array);
                if (args.put(a.substring(0, eq), TensorView.strided(array.data(), array.dtype(), array.layout())) != null) {
                    throw new UsageException("--arg " + a.substring(0, eq) + " is given twice");
                }
            }
            try (Execution x = execute(module, text, args)) {
                write(Path.of(out), x.rowMajor());
                report(in, modulePath, out, x);
            }
        } finally {
            opened.forEach(NpyArray::close);
        }
        return 0;
    }

    private static Execution execute(HloModule module, String text, Map<String, TensorView> args) {
        try {
            return HloExecutor.execute(module, text, args);
        } catch (UnsupportedOpException e) {
            throw new IllegalArgumentException("unsupported op '" + e.opcode() + "' " + e.location()
                    + ": tensorbuf run executes data-movement ops only: "
                    + String.join(", ", HloExecutor.SUPPORTED_OPCODES), e);
        }
    }

    private static void write(Path file, TensorView rowMajor) throws java.io.IOException {
        long bytes = Math.multiplyExact(rowMajor.elementCount(), (long) rowMajor.dtype().byteWidth());
        Npy.write(file, new DenseTensor(rowMajor.dtype(), rowMajor.dims(), rowMajor.buffer().segment().asSlice(0, bytes)));
    }

    private static void report(Invocation in, Path module, String out, Execution x) {
        List<Step> steps = x.steps();
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("out", out);
            json.put("shape", x.resultShape().toString());
            json.put("instructions", steps.stream().map(s -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", s.name());
                m.put("opcode", s.opcode());
                m.put("kind", s.kind().jsonName());
                m.put("form", s.formName());
                return m;
            }).toList());
            in.printJson(json);
            return;
        }
        in.out().println(module + " -> " + out + ": " + x.resultShape());
        int nameWidth = steps.stream().mapToInt(s -> s.name().length() + 1).max().orElse(1);
        int opWidth = steps.stream().mapToInt(s -> s.opcode().length()).max().orElse(1);
        for (Step s : steps) {
            in.out().println(String.format("  %-" + nameWidth + "s  %-" + opWidth + "s  %-9s  %s", "%" + s.name(),
                    s.opcode(), s.kind().jsonName(), s.formName()));
        }
        long views = steps.stream().filter(s -> s.kind() == Step.Kind.VIEW).count();
        long copies = steps.stream().filter(s -> s.kind() == Step.Kind.COPY).count();
        in.out().println("  ROOT " + (x.rootCopied() ? "copied into " : "already in ") + x.resultShape() + "; " + views
                + (views == 1 ? " view, " : " views, ") + copies + (copies == 1 ? " copy" : " copies"));
    }
}
