package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.text.TextFormatException;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.internal.Suggestions;
import java.text.ParsePosition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recursive-descent reader of HLO module text. Tokens may be separated by any whitespace and
 * comments, as in XLA's lexer; an instruction ends where its attribute list ends, not at a line
 * end. Shapes are handed to {@link XlaShape#parse(String, ParsePosition)}.
 */
public final class HloParser {
    private final String original;
    /** The text with comments blanked out, so positions match the original. */
    private final String text;
    private int pos;
    /** Where the last shape read began. */
    private int shapeAt;

    private HloParser(String original) {
        this.original = original;
        this.text = Scanner.blankComments(original, this::error);
    }

    /** {@return the module} @param text HLO module text @throws HloSyntaxException at the first problem */
    public static HloModule parse(String text) {
        refuseMlir(text);
        return new HloParser(text).module();
    }

    /** What StableHLO/MLIR text starts with: jax's default {@code lower(x).as_text()} is MLIR, not HLO. */
    private static final java.util.regex.Pattern MLIR_START = java.util.regex.Pattern.compile("^(?:module\\b|func\\.func\\b|#loc)");

    /**
     * Refuses MLIR text before the comment scanner or the header check see it: either would report
     * a problem with the text (a missing 'HloModule', a string it cannot end) rather than that it
     * is another format, which is what the user needs to hear to re-export it.
     */
    private static void refuseMlir(String text) {
        int start = 0;
        while (start < text.length() && Character.isWhitespace(text.charAt(start))) {
            start++;
        }
        if (MLIR_START.matcher(text).region(start, text.length()).lookingAt()) {
            throw new HloSyntaxException("this is StableHLO (MLIR) text; tensorbuf reads HLO text:"
                    + " jax.jit(f).lower(x).as_text(dialect='hlo')", text, start);
        }
    }

    private HloModule module() {
        skipSpace();
        boolean header = lookWord().equals("HloModule");
        if (!header && !startsBareComputation()) {
            throw error("expected 'HloModule' at the start of the module, or a computation"
                    + " ('ENTRY name {' or 'name {') as in a module without its header line", pos);
        }
        String name = null;
        Map<String, String> attributes = new LinkedHashMap<>();
        if (header) {
            pos += "HloModule".length();
            skipSpace();
            name = name("module name");
            skipSpace();
        }
        while (header && peek() == ',') {
            pos++;
            skipSpace();
            String key = word();
            if (key.isEmpty()) {
                throw error("expected a module attribute name after ','", pos);
            }
            expect('=');
            skipSpace();
            int start = pos;
            pos = Scanner.valueEnd(text, pos, this::error);
            attributes.put(key, text.substring(start, pos).strip());
            if (key.equals("entry_computation_layout") && text.charAt(start) == '{') {
                // XLA's parser reads its shapes (a layout of the wrong rank is refused), not more.
                int end = pos;
                pos = start + 1;
                skipSpace();
                signature(false);
                expect('}');
                pos = end;
            }
            skipSpace();
        }
        List<HloComputation> computations = new ArrayList<>();
        Map<String, Integer> calledAt = new LinkedHashMap<>();
        while (true) {
            skipSpace();
            if (pos >= text.length()) {
                break;
            }
            if (STACK_FRAME_SECTIONS.contains(lookWord()) && !startsComputationAfterWord()) {
                skipStackFrameSection();
                continue;
            }
            computations.add(computation(calledAt, computations));
        }
        if (computations.isEmpty()) {
            throw error("expected a computation: the module has none", pos);
        }
        long entries = computations.stream().filter(HloComputation::isEntry).count();
        if (entries > 1) {
            throw error("the module has " + entries + " ENTRY computations, expected one", text.length());
        }
        for (Map.Entry<String, Integer> called : calledAt.entrySet()) {
            if (computations.stream().noneMatch(c -> c.name().equals(called.getKey()))) {
                throw error("unknown computation '" + called.getKey() + "'", called.getValue());
            }
        }
        rejectCallCycles(computations, calledAt);
        if (name == null) {
            // XLA names a module read without its header after its entry computation.
            HloComputation entry = computations.stream().filter(HloComputation::isEntry).findFirst()
                    .orElse(computations.getLast());
            name = "module_" + entry.name();
        }
        return new HloModule(name, attributes, computations);
    }

    /**
     * {@return whether the text at {@code pos} starts a computation, the way XLA's parser decides
     * that text without an {@code HloModule} line is a module}: the word {@code ENTRY}, or a name
     * directly followed by {@code '{'}. A computation with a signature ({@code f (p: f32[]) -> f32[] {})
     * does not qualify there either: XLA reads such text as a single instruction and fails.
     */
    private boolean startsBareComputation() {
        int save = pos;
        try {
            if (lookWord().equals("ENTRY")) {
                return true;
            }
            if (peek() == '%') {
                pos++;
            }
            if (word().isEmpty()) {
                return false;
            }
            skipSpace();
            return peek() == '{';
        } finally {
            pos = save;
        }
    }

    /**
     * The sections XLA prints after the module header of a compiled module
     * ({@code jax.jit(f).lower(x).compile().as_text()}): source locations for metadata's
     * {@code stack_frame_id}, which no analysis here reads.
     */
    private static final java.util.Set<String> STACK_FRAME_SECTIONS =
            java.util.Set.of("FileNames", "FunctionNames", "FileLocations", "StackFrames");

    /** {@return whether the word at {@code pos} is followed by a signature or body, so it names a computation} */
    private boolean startsComputationAfterWord() {
        int save = pos;
        pos += lookWord().length();
        skipSpace();
        boolean computation = peek() == '(' || peek() == '{' || text.startsWith("->", pos);
        pos = save;
        return computation;
    }

    /** Skips a section name and its entries, each an id and a quoted string or a {...} record. */
    private void skipStackFrameSection() {
        pos += lookWord().length();
        while (true) {
            skipSpace();
            int entry = pos;
            while (pos < text.length() && AsciiDigits.isDigit(text.charAt(pos))) {
                pos++;
            }
            if (pos == entry) {
                return;
            }
            skipSpace();
            if (peek() == '"') {
                pos = Scanner.stringEnd(text, pos, this::error);
            } else if (peek() == '{') {
                pos = Scanner.balancedEnd(text, pos, this::error);
            } else {
                throw error("expected a quoted string or a {...} record after entry id "
                        + text.substring(entry, pos).strip(), pos);
            }
        }
    }

    /**
     * XLA's call graph is acyclic (its verifier refuses recursion); the analyses walk into called
     * computations, so a cycle here would recurse without end.
     */
    private void rejectCallCycles(List<HloComputation> computations, Map<String, Integer> calledAt) {
        Map<String, List<String>> calls = new LinkedHashMap<>();
        for (HloComputation c : computations) {
            List<String> callees = new ArrayList<>();
            for (HloInstruction i : c.instructions()) {
                for (String key : List.of("to_apply", "calls", "condition", "body")) {
                    if (HloInstructions.attributes(i).get(key) instanceof HloAttribute.Text t) {
                        for (String n : t.text().replaceAll("[{}]", "").split(",")) {
                            String callee = n.strip();
                            callees.add(callee.startsWith("%") ? callee.substring(1) : callee);
                        }
                    }
                }
            }
            calls.put(c.name(), callees);
        }
        List<String> cycle = firstCycle(calls);
        if (cycle != null) {
            throw error("computations call each other in a cycle: " + String.join(" -> ", cycle),
                    calledAt.getOrDefault(cycle.getFirst(), 0));
        }
    }

    /**
     * {@return the first cycle a depth-first walk of {@code edges} finds, as the names along it
     * from the first repeated one to its repetition, or null}: with a stack of its own, since a
     * chain of thousands of instructions is ordinary HLO. Names without edges of their own are leaves.
     */
    private static List<String> firstCycle(Map<String, List<String>> edges) {
        Map<String, Integer> state = new HashMap<>(); // 1 on the path, 2 done
        for (String root : edges.keySet()) {
            if (state.containsKey(root)) {
                continue;
            }
            Deque<Iterator<String>> stack = new ArrayDeque<>();
            Deque<String> path = new ArrayDeque<>();
            state.put(root, 1);
            path.addLast(root);
            stack.push(edges.get(root).iterator());
            while (!stack.isEmpty()) {
                if (!stack.peek().hasNext()) {
                    stack.pop();
                    state.put(path.removeLast(), 2);
                    continue;
                }
                String next = stack.peek().next();
                Integer seen = state.get(next);
                if (seen != null && seen == 1) {
                    List<String> cycle = new ArrayList<>(path);
                    cycle.add(next);
                    return cycle.subList(cycle.indexOf(next), cycle.size());
                }
                if (seen == null && edges.containsKey(next)) {
                    state.put(next, 1);
                    path.addLast(next);
                    stack.push(edges.get(next).iterator());
                }
            }
        }
        return null;
    }

    private HloComputation computation(Map<String, Integer> calledAt, List<HloComputation> before) {
        int start = pos;
        boolean entry = false;
        String first = lookWord();
        if (first.equals("ENTRY")) {
            entry = true;
            pos += first.length();
            skipSpace();
        }
        int nameAt = pos;
        String name = name("computation name");
        if (before.stream().anyMatch(c -> c.name().equals(name))) {
            throw error("duplicate computation name '" + name + "'", nameAt);
        }
        skipSpace();
        XlaShape result = null;
        int resultAt = pos;
        if (peek() == '(') {
            result = signature(true);
            resultAt = shapeAt;
            skipSpace();
        } else if (text.startsWith("->", pos)) {
            pos += 2;
            skipSpace();
            resultAt = pos;
            result = shape();
            skipSpace();
        }
        if (peek() != '{') {
            throw error("expected '{' to start the body of computation '" + name + "'", pos);
        }
        pos++;
        List<HloInstruction> instructions = new ArrayList<>();
        Map<String, Integer> definedAt = new HashMap<>();
        List<Object[]> undefined = new ArrayList<>(); // operands not yet defined where they are used
        Map<String, XlaShape> shapes = new HashMap<>();
        String root = null;
        while (true) {
            skipSpace();
            if (pos >= text.length()) {
                throw error("expected '}' to end computation '" + name + "' (started here)", start);
            }
            if (peek() == '}') {
                pos++;
                break;
            }
            int instrAt = pos;
            boolean isRoot = false;
            if (lookWord().equals("ROOT")) {
                isRoot = true;
                pos += 4;
                skipSpace();
            }
            List<Object[]> uses = new ArrayList<>(); // its operands, each with where it is written
            HloInstruction instruction = instruction(uses, calledAt, shapes);
            for (Object[] use : uses) {
                if (!definedAt.containsKey((String) use[0])) {
                    undefined.add(use);
                }
            }
            if (definedAt.put(instruction.name(), instrAt) != null) {
                throw error("duplicate instruction name '" + instruction.name() + "' in computation '" + name + "'", instrAt);
            }
            if (isRoot) {
                if (root != null) {
                    throw error("second ROOT in computation '" + name + "' (first: " + root + ")", instrAt);
                }
                root = instruction.name();
            }
            instructions.add(instruction);
            shapes.put(instruction.name(), instruction.shape());
        }
        if (instructions.isEmpty()) {
            throw error("computation '" + name + "' has no instructions", start);
        }
        String rootName = root != null ? root : instructions.getLast().name();
        XlaShape rootShape = shapes.get(rootName);
        if (result != null && !result.toStringWithoutLayout().equals(rootShape.toStringWithoutLayout())) {
            throw error("the shape of computation '" + name + "', " + result + ", is not that of its ROOT " + rootName + ", "
                    + rootShape, resultAt);
        }
        if (!undefined.isEmpty()) {
            // As XLA's parser: an operand is defined above its use, so instructions form no cycle.
            Object[] use = undefined.getFirst();
            throw error(definedAt.containsKey((String) use[0])
                    ? "operand '" + use[0] + "' is used before it is defined, in computation '" + name + "'"
                    : "unknown operand '" + use[0] + "' in computation '" + name + "'", (Integer) use[1]);
        }
        checkParameterNumbers(name, instructions, definedAt);
        return new HloComputation(name, entry, instructions, rootName);
    }

    /**
     * Reads a signature, {@code (p: f32[2], q: s32[]) -> f32[2]} ({@code named}) or
     * {@code (f32[2], s32[])->f32[2]}, and returns its result shape, leaving {@link #pos} after it.
     * XLA's parser reads the parameters' shapes and checks only the result against the ROOT.
     */
    private XlaShape signature(boolean named) {
        expect('(');
        skipSpace();
        while (peek() != ')') {
            if (named) {
                name("parameter name");
                skipSpace();
                expect(':');
                skipSpace();
            }
            shape();
            skipSpace();
            if (peek() != ',') {
                break;
            }
            pos++;
            skipSpace();
        }
        expect(')');
        skipSpace();
        if (!text.startsWith("->", pos)) {
            throw error("expected '->' and the result shape after the parameters", pos);
        }
        pos += 2;
        skipSpace();
        return shape();
    }

    /** As XLA's verifier: a computation's parameters are numbered 0 to n - 1, each once. */
    private void checkParameterNumbers(String computation, List<HloInstruction> instructions, Map<String, Integer> definedAt) {
        Map<Integer, HloInstruction> byNumber = new java.util.TreeMap<>();
        for (HloInstruction i : instructions) {
            if (i.opcode().equals("parameter")) {
                HloInstruction before = byNumber.put(i.parameterNumber(), i);
                if (before != null) {
                    throw error("parameter number " + i.parameterNumber() + " is used twice in computation '"
                            + computation + "' (" + before.name() + " and " + i.name() + ")", definedAt.get(i.name()));
                }
            }
        }
        int expected = 0;
        for (Map.Entry<Integer, HloInstruction> p : byNumber.entrySet()) {
            if (p.getKey() != expected) {
                throw error("parameter " + p.getValue().name() + " has number " + p.getKey() + " but computation '"
                        + computation + "' has no parameter " + expected + ": parameters are numbered 0 to n - 1",
                        definedAt.get(p.getValue().name()));
            }
            expected++;
        }
    }

    /** Parses one instruction; {@code shapes} holds those above it, by name. */
    private HloInstruction instruction(List<Object[]> uses, Map<String, Integer> calledAt, Map<String, XlaShape> shapes) {
        String name = name("instruction name");
        expect('=');
        skipSpace();
        XlaShape shape = shape();
        skipSpace();
        int opAt = pos;
        String opcode = word();
        if (opcode.isEmpty()) {
            throw error("expected an opcode after the shape of '" + name + "'", opAt);
        }
        if (!Opcodes.isKnown(opcode)) {
            throw error("unknown opcode '" + opcode + "'" + Opcodes.didYouMean(opcode), opAt);
        }
        expect('(');
        List<String> operands = new ArrayList<>();
        String payload = "";
        if (opcode.equals("constant") || opcode.equals("parameter")) {
            int open = pos - 1;
            int end = Scanner.balancedEnd(text, open, this::error);
            payload = text.substring(open + 1, end - 1).strip();
            if (opcode.equals("parameter") && !payload.matches("\\d+")) {
                throw error("expected a parameter number, got '" + payload + "'", open + 1);
            }
            String digits = payload.replaceFirst("^0+(?=.)", "");
            if (opcode.equals("parameter")
                    && (digits.length() > 10 || digits.length() == 10 && digits.compareTo("2147483647") > 0)) {
                throw error("parameter number " + payload + " is past the largest XLA takes (2147483647)", open + 1);
            }
            pos = end;
        } else {
            skipSpace();
            if (peek() != ')') {
                while (true) {
                    skipSpace();
                    operandShapeIfAny();
                    skipSpace();
                    int at = pos;
                    String operand = name("operand name");
                    uses.add(new Object[] {operand, at});
                    operands.add(operand);
                    skipSpace();
                    if (peek() == ',') {
                        pos++;
                        continue;
                    }
                    break;
                }
            }
            expect(')');
        }
        Map<String, HloAttribute> attributes = new LinkedHashMap<>();
        boolean predSelector = !operands.isEmpty() && shapes.get(operands.getFirst()) instanceof ArrayShape selector
                && selector.dtype() == DType.PRED;
        skipSpace();
        while (peek() == ',') {
            pos++;
            skipSpace();
            int keyAt = pos;
            String key = word();
            if (key.isEmpty()) {
                throw error("expected an attribute name after ','", keyAt);
            }
            List<String> takes = Opcodes.attributes(opcode, predSelector);
            if (takes != null && !takes.contains(key)) {
                String hint = opcode.equals("conditional") && (key.equals("branch_computations") || key.endsWith("_computation"))
                        ? " (a conditional on a pred names true_computation and false_computation, one on an index"
                                + " branch_computations)"
                        : Suggestions.didYouMean(key, takes, "");
                throw error("unexpected attribute '" + key + "' on " + opcode + hint + "; it takes " + String.join(", ", takes), keyAt);
            }
            expect('=');
            skipSpace();
            int valueAt = pos;
            pos = Scanner.valueEnd(text, pos, this::error);
            if (pos == valueAt) {
                throw error("expected a value for attribute '" + key + "'", valueAt);
            }
            if (attributes.containsKey(key)) {
                throw error("duplicate attribute '" + key + "'", keyAt);
            }
            HloAttribute value = Attributes.read(key, text.substring(valueAt, pos), valueAt, this::error);
            if (value instanceof HloAttribute.Sharding s) {
                try {
                    s.sharding().checkShape(shape);
                } catch (IllegalArgumentException e) {
                    throw error(e.getMessage(), valueAt);
                }
            }
            attributes.put(key, value);
            if (key.equals("to_apply") || key.equals("calls") || key.equals("condition") || key.equals("body")) {
                String callee = ((HloAttribute.Text) value).text();
                for (String c : callee.replaceAll("[{}]", "").split(",")) {
                    String n = c.strip();
                    calledAt.putIfAbsent(n.startsWith("%") ? n.substring(1) : n, valueAt);
                }
            }
            skipSpace();
        }
        for (String required : Opcodes.required(opcode, predSelector)) {
            if (!attributes.containsKey(required)) {
                throw error(opcode + " " + name + " needs attribute '" + required + "'", opAt);
            }
        }
        try {
            return HloInstructions.of(name, shape, opcode, operands, attributes, payload);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage(), opAt);
        }
    }

    /** Skips an inline operand shape ({@code f32[2] %p0}, {@code (f32[], s32[]) t}) when one is there. */
    private void operandShapeIfAny() {
        if (peek() == '(') {
            shape();
            return;
        }
        int save = pos;
        String w = word();
        int after = pos;
        skipSpace();
        boolean isShape = !w.isEmpty() && (peek() == '[' && after == pos);
        pos = save;
        if (isShape) {
            shape();
        }
    }

    private XlaShape shape() {
        shapeAt = pos;
        ParsePosition p = new ParsePosition(pos);
        try {
            XlaShape s = XlaShape.parse(text, p);
            pos = p.getIndex();
            return s;
        } catch (HloSyntaxException e) {
            throw e;
        } catch (TextFormatException e) {
            throw error("bad shape: " + stripLocation(e.getMessage()), e.position());
        } catch (IllegalArgumentException e) {
            throw error("bad shape: " + e.getMessage(), pos);
        }
    }

    private static String stripLocation(String message) {
        int at = message.indexOf(" at position ");
        return at < 0 ? message : message.substring(0, at);
    }

    private String name(String what) {
        skipSpace();
        int start = pos;
        if (peek() == '%') {
            pos++;
        }
        int nameStart = pos;
        while (pos < text.length() && Scanner.isNameChar(text.charAt(pos))) {
            pos++;
        }
        if (pos == nameStart) {
            throw error("expected " + what, start);
        }
        return text.substring(nameStart, pos);
    }

    private String word() {
        int start = pos;
        while (pos < text.length() && Scanner.isNameChar(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos);
    }

    private String lookWord() {
        int save = pos;
        String w = word();
        pos = save;
        return w;
    }

    private void expect(char c) {
        skipSpace();
        if (peek() != c) {
            String found = pos >= text.length() ? "end of input" : "'" + text.charAt(pos) + "'";
            throw error("expected '" + c + "', found " + found, pos);
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private HloSyntaxException error(String problem, int position) {
        return new HloSyntaxException(problem, original, position);
    }
}
