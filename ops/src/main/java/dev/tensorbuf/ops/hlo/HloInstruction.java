package dev.tensorbuf.ops.hlo;

import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaShape;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One HLO instruction, {@code name = shape opcode(operands), attributes}, as parsed: operands
 * are names of instructions of the same computation, attributes are typed by their name, and
 * {@code payload} keeps the text between the parentheses of a
 * {@code constant} or {@code parameter}.
 *
 * {@snippet :
 * HloInstruction t = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[3,12288,6,128] parameter(0)
 *       ROOT t = f32[3,6,128,12288] transpose(p0), dimensions={0,2,3,1}
 *     }""").entry().root();
 * t.opcode();             // "transpose"
 * t.operands();           // [p0]
 * t.ints("dimensions");   // [0, 2, 3, 1]
 * t.arrayShape().dims();  // [3, 6, 128, 12288]
 * }
 *
 * <p>Its attributes' typed values ({@code HloAttribute}) are the parser's own, not API: read
 * them by kind through {@link #ints}, {@link #intValue}, {@link #text} and {@link #sharding}.
 */
public final class HloInstruction {
    static {
        HloInstructions.lend(new Lent());
    }

    private final String name;
    private final XlaShape shape;
    private final String opcode;
    private final List<String> operands;
    private final Map<String, HloAttribute> attributes;
    private final String payload;

    private HloInstruction(String name, XlaShape shape, String opcode, List<String> operands,
                           Map<String, HloAttribute> attributes, String payload) {
        this.name = Objects.requireNonNull(name, "name");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.opcode = Objects.requireNonNull(opcode, "opcode");
        this.operands = List.copyOf(operands);
        this.attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    /** What {@link HloInstructions} reaches: the typed attributes, which are not API. */
    private static final class Lent implements HloInstructions.Lender {
        @Override
        public HloInstruction of(String name, XlaShape shape, String opcode, List<String> operands,
                                 Map<String, HloAttribute> attributes, String payload) {
            return new HloInstruction(name, shape, opcode, operands, attributes, payload);
        }

        @Override
        public Map<String, HloAttribute> attributes(HloInstruction in) {
            return in.attributes;
        }
    }

    /** {@return the instruction's name, without {@code %}} */
    public String name() {
        return name;
    }

    /** {@return its result shape, with XLA's default layout where none was written} */
    public XlaShape shape() {
        return shape;
    }

    /** {@return the opcode, e.g. {@code "dynamic-slice"}} */
    public String opcode() {
        return opcode;
    }

    /** {@return operand names in order, without {@code %}} */
    public List<String> operands() {
        return operands;
    }

    /** {@return the names of the attributes written, in the order written} */
    public Set<String> attributeNames() {
        return attributes.keySet();
    }

    /**
     * {@return text inside the parentheses of {@code constant(...)} and {@code parameter(...)},
     * else empty}
     */
    public String payload() {
        return payload;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HloInstruction i && name.equals(i.name) && shape.equals(i.shape) && opcode.equals(i.opcode)
                && operands.equals(i.operands) && attributes.equals(i.attributes) && payload.equals(i.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, shape, opcode, operands, attributes, payload);
    }

    @Override
    public String toString() {
        return "HloInstruction[name=" + name + ", shape=" + shape + ", opcode=" + opcode + ", operands=" + operands
                + ", attributes=" + attributes + ", payload=" + payload + "]";
    }

    private Optional<HloAttribute> attribute(String key) {
        return Optional.ofNullable(attributes.get(key));
    }

    /**
     * {@return an integer-list attribute; {@code dimensions={}} is the empty list}
     *
     * @param key the attribute name, e.g. {@code "dimensions"}
     * @throws IllegalArgumentException if missing or not a list of integers
     */
    public List<Long> ints(String key) {
        return switch (require(key)) {
            case HloAttribute.Ints i -> i.values();
            case HloAttribute.Int i -> List.of(i.value());
            default -> throw wrongKind(key, "a list of integers");
        };
    }

    /** {@return an integer-list attribute, or the empty list when it is not written} @param key the name */
    public List<Long> intsOrEmpty(String key) {
        return attributes.containsKey(key) ? ints(key) : List.of();
    }

    /**
     * {@return a single-integer attribute}
     *
     * @param key the attribute name, e.g. {@code "index_vector_dim"}
     * @param fallback the value when the attribute is not written
     * @throws IllegalArgumentException if written but not one integer
     */
    public long intValue(String key, long fallback) {
        HloAttribute a = attributes.get(key);
        if (a == null) {
            return fallback;
        }
        if (a instanceof HloAttribute.Int i) {
            return i.value();
        }
        throw wrongKind(key, "one integer");
    }

    /**
     * {@return the {@code sharding=} attribute, if written}, e.g. {@code {devices=[2,2]<=[4]}} on
     * a parameter of a partitioned program; the parser has checked it against this shape
     */
    public Optional<dev.tensorbuf.ops.shard.HloSharding> sharding() {
        return attribute("sharding").map(a -> a instanceof HloAttribute.Sharding s ? s.sharding() : null);
    }

    /** {@return the text of an attribute, if written} @param key the attribute name, e.g. {@code "calls"} */
    public Optional<String> text(String key) {
        return attribute(key).map(a -> a instanceof HloAttribute.Text t ? t.text() : a.toString());
    }

    /**
     * {@return the parameter number of a {@code parameter} instruction}
     *
     * @throws IllegalStateException if this is not a {@code parameter}
     * @throws IllegalArgumentException if its number is not ASCII digits or is past 2147483647
     */
    public int parameterNumber() {
        if (!opcode.equals("parameter")) {
            throw new IllegalStateException("instruction " + name + " is a " + opcode + ", not a parameter");
        }
        String number = payload.strip();
        if (!number.matches("\\d+")) {
            throw new IllegalArgumentException("parameter " + name + " has no parameter number of ASCII digits: '" + number + "'");
        }
        try {
            return Integer.parseInt(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + name + " has number " + number
                    + ", past the largest XLA takes (2147483647)", e);
        }
    }

    /**
     * {@return the result as an array shape}
     *
     * @throws IllegalArgumentException if the result is a tuple or another non-array shape
     */
    public ArrayShape arrayShape() {
        if (shape instanceof ArrayShape a) {
            return a;
        }
        throw new IllegalArgumentException("instruction " + name + " has shape " + shape + ", not an array");
    }

    /**
     * {@return the one dimension an attribute names, such as concatenate's and all-gather's
     * {@code dimensions}}
     *
     * @throws IllegalArgumentException naming this instruction if the attribute lists no dimension,
     *     several, or one outside the (array) result
     */
    public int oneDimension(String key) {
        List<Long> dims = ints(key);
        int rank = arrayShape().rank();
        if (dims.size() != 1 || dims.getFirst() < 0 || dims.getFirst() >= rank) {
            throw new IllegalArgumentException(opcode + " " + name + ": " + key + "=" + dims
                    + " must name one dimension of its rank-" + rank + " output");
        }
        return dims.getFirst().intValue();
    }

    /**
     * {@return output {@code index} of the result: the element of a tuple result, or the array itself}
     *
     * @param index the output number, 0 for a single-output instruction
     * @throws IndexOutOfBoundsException if there is no such output
     */
    public ArrayShape outputShape(int index) {
        if (shape instanceof XlaShape.Tuple t) {
            if (index < 0 || index >= t.elements().size()) {
                throw Errors.outOfBounds("output", index, t.elements().size(), name + " of shape " + shape);
            }
            if (t.elements().get(index) instanceof ArrayShape a) {
                return a;
            }
            throw new IllegalArgumentException("output " + index + " of " + name + " is not an array: " + shape);
        }
        if (index != 0) {
            throw Errors.outOfBounds("output", index, 1, name + " of shape " + shape);
        }
        return arrayShape();
    }

    /** {@return the number of outputs: tuple elements, or 1} */
    public int outputCount() {
        return shape instanceof XlaShape.Tuple t ? t.elements().size() : 1;
    }

    private HloAttribute require(String key) {
        HloAttribute a = attributes.get(key);
        if (a == null) {
            throw new IllegalArgumentException("instruction " + name + " (" + opcode + ") has no attribute "
                    + key + "; it has " + attributes.keySet());
        }
        return a;
    }

    private IllegalArgumentException wrongKind(String key, String expected) {
        return new IllegalArgumentException("attribute " + key + " of " + name + " is " + attributes.get(key)
                + ", expected " + expected);
    }
}
