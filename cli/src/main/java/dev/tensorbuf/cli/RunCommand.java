package dev.tensorbuf.cli;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.exec.internal.UnsupportedOpException;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tensorbuf run}: executes an HLO module of data-movement ops as views and writes the root
 * to {@code .npy}, safetensors or raw bytes in its own layout.
 */
final class RunCommand implements Command {
    private static final Option ARG = Option.value("arg", "NAME=FILE", true,
            "bind a parameter, by name (p0=a.npy) or number (0=a.npy), to a .npy file, a safetensors tensor"
                    + " (w=m.safetensors, 0=m.safetensors:w) or raw bytes in the parameter's layout (p0=a.bin)");
    private static final Option OUT = Option.value("out", "FILE", false,
            "where to write the ROOT: .npy or .safetensors (C order), any other extension for raw bytes in the"
                    + " ROOT's own layout");

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "execute an HLO module of data-movement ops as lazy views, write the ROOT to .npy, safetensors or raw bytes";
    }

    @Override
    public String synopsis() {
        return "tensorbuf run MODULE.hlo --arg NAME=FILE ... --out FILE.npy|FILE.safetensors|FILE [--json]";
    }

    @Override
    public String description() {
        return """
                Executes the ENTRY computation of an HLO module made of data-movement ops: parameter,
                constant, iota, broadcast, transpose, reshape, bitcast, copy, slice, dynamic-slice, pad,
                reverse, concatenate, convert, dynamic-update-slice, gather, scatter (updates in order, a
                window reaching outside skipped), sort (jnp.sort, argsort, lexsort: keys compared in
                turn), topk (lax.top_k; optimised, XLA's TopK custom-call), bitcast-convert, tuple,
                get-tuple-element, sharding annotations (Sharding, xla.sdy.*) and opt-barrier as the identity, integer
                arithmetic on scalars (jax's negative-index handling of x[i]: compare, select, add, ...),
                folded when the views are made, elementwise ops (convert, add, subtract, multiply, divide,
                remainder, maximum, minimum, clamp, negate, abs, sign, sqrt, floor, ceil, round-nearest-even,
                round-nearest-afz, is-finite, reduce-precision, compare, select, and, or, not, xor,
                shift-left, shift-right-logical, shift-right-arithmetic, popcnt, count-leading-zeros) bit
                for bit as XLA's CPU backend computes them,
                reduce and reduce-window where no order of combining changes a bit (integers by add,
                multiply, maximum, minimum, and, or, xor; pred by the last five; floats by maximum and
                minimum, also rounded each step through bf16 as XLA optimises bf16 reduces; jax's argmax
                and argmin; the init value the reducer's identity; f32 and f64 sums where no order of adding
                rounds, such as a uint8 image's per-channel mean, else refused as they run), and call, fusion, while (a loop) and conditional of computations made of them (jax's
                lower(x).as_text(dialect='hlo') and lower(x).compile().as_text()). Each op is a view (its map composed into its operand's,
                no element moved); elementwise ops are held as one expression and evaluated in the copy
                that needs their value; copy, convert between types, constants, iota and reductions make new memory, and
                the ROOT is copied once, into the layout OUT holds. A .npy or .safetensors OUT holds
                the logical array in C order (safetensors: one tensor named like the ROOT; .npy: bf16, f8 and 1-, 2-
                and 4-bit types as np.save writes ml_dtypes arrays, a void '<V2' or '<V1', but f8e5m2 and
                6-bit types, refused before anything runs); any other extension gets raw bytes, exactly the ROOT's memory
                in the layout the module gives it (tiles, padding zeroed, E(4) packing), for any type.
                Arguments come from .npy files, .npz archives (the array called NAME, or the only one),
                safetensors tensors (NAME=FILE.safetensors takes the
                tensor called NAME, or the file's only one; NAME=FILE.safetensors:TENSOR names it) or
                raw files, read in their parameter's layout, and are checked against their
                parameter's type and dims. Any other op exits 2 naming it. A tuple ROOT (several
                results) needs a .safetensors OUT: one tensor per element, output0, output1, ... Each instruction is listed
                with what it became and its map's form. With --json: {"out", "shape", "root_copied"
                (true when the ROOT was a view, copied once into what OUT holds, false when its
                instruction already made memory in its layout), "written" (the shape the file holds: C order for .npy and
                safetensors), "instructions": [{"name", "opcode", "kind" (parameter, constant, view,
                copy, folded, fused, reduced), "form", "why" (empty when the kind says it all), "fused_into" (for
                a fused instruction), "plans" (for a copy that evaluated fused elementwise work: each
                pass as `tensorbuf plan --json` explains a copy, its "epilogue" the expression and the
                kernel that evaluates it)}, ...]}; a tuple
                ROOT gives "outputs": [{"name", "instruction", "shape", "written", "copied"}, ...].

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
            throw Errors.withUsage("missing --out FILE.npy, FILE.safetensors or a raw FILE", synopsis());
        }
        Path outPath = Path.of(out);
        CliFiles.outputFile(outPath, "--out");
        if (Files.exists(outPath) && Files.isSameFile(outPath, modulePath)) {
            // convert may write over its input (it converts in place); here it would replace the program.
            throw new UsageException("--out " + out + " is the module " + modulePath + ": the output would replace it;"
                    + " give another file");
        }
        String text = CliFiles.readUtf8(modulePath);
        HloModule module = HloModule.parse(text);
        HloInstruction root = module.entry().root();
        // Checked before the arguments are read or anything runs: an f8e5m2 ROOT cannot go to .npy.
        if (root.shape() instanceof dev.tensorbuf.views.XlaShape.Tuple) {
            int n = root.outputCount();
            if (TensorFiles.formatOf(outPath) != TensorFiles.Format.SAFETENSORS) {
                throw new IllegalArgumentException("the ROOT is a tuple of " + n + " arrays: give --out FILE.safetensors"
                        + " (one tensor per element, " + outputNames(n) + ")");
            }
            for (int k = 0; k < n; k++) {
                TensorFiles.requireWritable(outPath, root.outputShape(k), "ROOT element " + k + " (" + OUTPUT + k + ")",
                        "convert it to a type safetensors holds in the module");
            }
        } else if (root.shape() instanceof ArrayShape rootShape) {
            TensorFiles.requireWritable(outPath, rootShape, "ROOT " + root.name(),
                    "write raw bytes instead (--out with any other extension), in the ROOT's layout");
        }
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            Map<String, TensorView> args = new LinkedHashMap<>();
            for (String a : in.values("arg")) {
                int eq = a.indexOf('=');
                if (eq <= 0 || eq == a.length() - 1) {
                    throw new UsageException("--arg '" + a + "' must be NAME=FILE or NUMBER=FILE (a .npy, .safetensors or raw file)");
                }
                String key = a.substring(0, eq);
                if (args.containsKey(key)) {
                    throw Errors.givenTwice("--arg " + key);
                }
                args.put(key, argument(module, key, a.substring(eq + 1), opened));
            }
            try (Execution x = execute(module, text, args)) {
                write(outPath, root.name(), x);
                report(in, modulePath, out, root, x);
            }
        } finally {
            for (AutoCloseable c : opened) {
                c.close();
            }
        }
        return 0;
    }

    /**
     * Opens what {@code --arg KEY=VALUE} names: a {@code .npy} file, or a safetensors tensor, by
     * {@code FILE.safetensors:TENSOR} or else the tensor called {@code KEY} or the file's only one;
     * an {@code .npz} archive's array called {@code KEY}, or its only one.
     */
    private static TensorView argument(HloModule module, String key, String value, List<AutoCloseable> opened)
            throws java.io.IOException {
        String role = "--arg " + key;
        // First, so that an unknown name is what is refused, not the file it names.
        ArrayShape parameter = HloExecutor.parameterShape(module, key);
        Path file = Path.of(value);
        String tensor = null;
        int colon = value.lastIndexOf(':');
        if (TensorFiles.formatOf(file) != TensorFiles.Format.SAFETENSORS && colon > 0
                && TensorFiles.formatOf(Path.of(value.substring(0, colon))) == TensorFiles.Format.SAFETENSORS) {
            file = Path.of(value.substring(0, colon));
            tensor = value.substring(colon + 1);
            if (tensor.isEmpty()) {
                throw new UsageException(role + "=" + value + " has no tensor name after the colon; write FILE.safetensors:TENSOR,"
                        + " or leave the colon out");
            }
        }
        CliFiles.input(file, role);
        return switch (TensorFiles.formatOf(file)) {
            case NPY -> {
                // ml_dtypes saves bf16 and f8 as bare void ('<V2'): they take their parameter's type.
                DType declared = parameter.dtype();
                TensorFiles.refuseArchive(file, false); // an .npz renamed .npy, as convert and inspect refuse it
                Npy.Tensor array = Npy.map(file, declared.isNumpyNative() ? null : declared);
                opened.add(array);
                yield TensorView.strided(array.data(), array.dtype(), array.layout());
            }
            case SAFETENSORS -> {
                String preferred = key.startsWith("%") ? key.substring(1) : key;
                TensorFiles.Opened t = TensorFiles.openSafetensors(file, tensor, preferred, role + "=" + file + ":TENSOR");
                opened.add(t.owner());
                yield t.view();
            }
            case ARROW -> {
                TensorFiles.Opened t = TensorFiles.openArrow(file, null, "a file of one tensor column");
                opened.add(t.owner());
                yield t.view();
            }
            case NPZ -> {
                String preferred = key.startsWith("%") ? key.substring(1) : key;
                TensorFiles.Opened t = TensorFiles.openNpz(file, null, preferred, "an array named " + preferred);
                opened.add(t.owner());
                yield t.view();
            }
            case RAW -> {
                ArrayShape laidOut = parameter.laidOut();
                TensorFiles.Opened raw = TensorFiles.openRaw(file, laidOut,
                        role + "=" + value + " (raw bytes, read in the parameter's layout)", TensorFiles.stem(file));
                opened.add(raw.owner());
                yield raw.view();
            }
        };
    }

    private static Execution execute(HloModule module, String text, Map<String, TensorView> args) {
        try {
            // A large result first-touched in 4 KiB pages costs more than the pass that fills it.
            return HloExecutor.execute(module, text, args,
                    NativeMemory.hugePagesAvailable() ? NativeMemory.hugePageAllocator() : Allocators.shared());
        } catch (UnsupportedOpException e) {
            throw new IllegalArgumentException("unsupported op '" + e.opcode() + "' " + e.location()
                    + ": " + (e.detail().isEmpty() ? "" : e.detail() + "; ") + "tensorbuf run executes data-movement ops: "
                    + String.join(", ", HloExecutor.SUPPORTED_OPCODES) + ", elementwise ops fused into its copies: "
                    + String.join(", ", HloExecutor.ELEMENTWISE_OPCODES) + ", reductions by one exact op: "
                    + String.join(", ", HloExecutor.REDUCTION_OPCODES) + ", and call, fusion, while and conditional of computations made of them", e);
        }
    }

    /**
     * The safetensors names of a tuple ROOT's elements. Positions, not instruction names: those
     * are jax's internal numbering and may repeat (tuple(a, a)), while output0..N-1 follow the
     * order of the function's results.
     */
    private static final String OUTPUT = "output";

    private static String outputNames(int n) {
        return n == 1 ? OUTPUT + 0 : OUTPUT + 0 + " to " + OUTPUT + (n - 1);
    }

    /** Writes the result in C order, as {@link Execution#rowMajor()} gives it, or as raw bytes in its own layout. */
    private static void write(Path file, String name, Execution x) throws java.io.IOException {
        if (x.isTuple()) {
            Map<String, DenseTensor> tensors = new LinkedHashMap<>();
            for (int k = 0; k < x.outputCount(); k++) {
                tensors.put(OUTPUT + k, dense(x.rowMajor(k), x.resultShape(k)));
            }
            SafetensorsFile.write(file, tensors);
            return;
        }
        if (TensorFiles.formatOf(file) == TensorFiles.Format.RAW) {
            ArrayShape shape = x.resultShape();
            // Every slot the tiles address, should a later tile pad inside an earlier one (beyond XLA's ArraySize).
            long bytes = Math.max(shape.arraySize(), shape.physicalByteSize());
            TensorFiles.writeRaw(file, x.result().buffer().segment().asSlice(0, bytes), written -> { });
            return;
        }
        TensorFiles.write(file, name, dense(x.rowMajor(), x.resultShape()));
    }

    /** {@return a C-order view as the tensor files write it} @param shape the output's own shape, any layout */
    private static DenseTensor dense(TensorView rowMajor, ArrayShape shape) {
        long bytes = cOrder(shape).arraySize();
        return new DenseTensor(shape.dtype(), shape.dims(), rowMajor.buffer().segment().asSlice(0, bytes));
    }

    /** {@return {@code shape} laid out as .npy and safetensors hold it: C order, sub-byte types packed} */
    private static ArrayShape cOrder(ArrayShape shape) {
        return shape.withLayout(XlaLayout.packedDescending(shape.dtype(), shape.rank()));
    }

    /** {@return the shape {@code out} holds the ROOT in: its own layout in raw bytes, else C order as the format holds it} */
    private static ArrayShape inFile(String out, ArrayShape shape) {
        Path file = Path.of(out);
        return TensorFiles.formatOf(file) == TensorFiles.Format.RAW ? shape : TensorFiles.asWritten(file, cOrder(shape));
    }

    /**
     * {@return what the file got, e.g. {@code copied into f32[3,2]{1,0}}} A .npy or safetensors file
     * holds C order whatever layout the module gives: then the layout written is named, and the
     * module's is left to raw output, rather than claiming a layout the file does not have.
     */
    private static String written(String out, ArrayShape shape, boolean copied) {
        ArrayShape c = inFile(out, shape);
        if (c.equals(shape)) {
            return (copied ? "copied into " : "already in ") + shape;
        }
        return "written in C order as " + c + " (the file holds no other order; raw output keeps " + shape.requireLayout() + ")";
    }

    /** {@return the instruction a tuple ROOT's element {@code k} comes from: its operand, or for a call returning a tuple, the call and the index} */
    private static String elementName(HloInstruction root, int k) {
        return root.opcode().equals("tuple") ? root.operands().get(k).replaceFirst("^%", "") : root.name() + "." + k;
    }

    private static void report(Invocation in, Path module, String out, HloInstruction root, Execution x) {
        List<ExecutedInstruction> steps = x.steps();
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("out", out);
            json.put("shape", root.shape().toString());
            if (x.isTuple()) {
                List<Map<String, Object>> outputs = new ArrayList<>();
                for (int k = 0; k < x.outputCount(); k++) {
                    Map<String, Object> o = new LinkedHashMap<>();
                    o.put("name", OUTPUT + k);
                    o.put("instruction", elementName(root, k));
                    o.put("shape", x.resultShape(k).toString());
                    o.put("written", cOrder(x.resultShape(k)).toString());
                    o.put("copied", x.rootCopied(k));
                    outputs.add(o);
                }
                json.put("outputs", outputs);
            } else {
                json.put("written", inFile(out, x.resultShape()).toString());
                json.put("root_copied", x.rootCopied());
            }
            json.put("instructions", steps.stream().map(s -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", s.name());
                m.put("opcode", s.opcode());
                m.put("kind", s.kind().jsonName());
                m.put("form", s.formName());
                m.put("why", s.reason());
                if (!s.fusedInto().isEmpty()) {
                    m.put("fused_into", s.fusedInto());
                }
                if (!s.plans().isEmpty()) {
                    m.put("plans", s.plans().stream().map(p -> dev.tensorbuf.interop.json.Json.parse(p.toJson())).toList());
                }
                return m;
            }).toList());
            in.printJson(json);
            return;
        }
        in.out().println(Failure.oneLine(module + " -> " + out) + ": " + root.shape());
        int nameWidth = steps.stream().mapToInt(s -> s.name().length() + 1).max().orElse(1);
        int opWidth = steps.stream().mapToInt(s -> s.opcode().length()).max().orElse(1);
        for (ExecutedInstruction s : steps) {
            String why = (s.fusedInto().isEmpty() ? "" : "into %" + s.fusedInto() + (s.reason().isEmpty() ? "" : ": "))
                    + s.reason();
            in.out().println(String.format("  %-" + nameWidth + "s  %-" + opWidth + "s  %-9s  %s", "%" + s.name(),
                    s.opcode(), s.kind().jsonName(), s.formName()) + (why.isEmpty() ? "" : "  (" + why + ")"));
            for (var p : s.plans()) {
                p.epilogue().ifPresent(e -> in.out().println("      epilogue: " + e.expression() + " per element, "
                        + e.kernel()));
            }
        }
        long views = steps.stream().filter(s -> s.kind() == ExecutedInstruction.Kind.VIEW).count();
        long copies = steps.stream().filter(s -> s.kind() == ExecutedInstruction.Kind.COPY).count();
        String counts = views + (views == 1 ? " view, " : " views, ") + copies + (copies == 1 ? " copy" : " copies");
        long fused = steps.stream().filter(s -> s.kind() == ExecutedInstruction.Kind.FUSED).count();
        if (fused > 0) {
            counts += ", " + fused + " fused";
        }
        long reduced = steps.stream().filter(s -> s.kind() == ExecutedInstruction.Kind.REDUCED).count();
        if (reduced > 0) {
            counts += ", " + reduced + (reduced == 1 ? " reduce" : " reduces");
        }
        if (!x.isTuple()) {
            in.out().println("  ROOT " + written(out, x.resultShape(), x.rootCopied()) + "; " + counts);
            return;
        }
        in.out().println("  ROOT tuple of " + x.outputCount() + " arrays; " + counts);
        for (int k = 0; k < x.outputCount(); k++) {
            in.out().println("    " + OUTPUT + k + " (%" + elementName(root, k) + ") "
                    + written(out, x.resultShape(k), x.rootCopied(k)));
        }
    }
}
