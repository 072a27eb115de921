package dev.tensorbuf.net;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.net.internal.ArrowDTypes;
import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Arrow's canonical {@code arrow.fixed_shape_tensor} extension type: each row of a column is one
 * tensor of {@link #shape()} (the physical, row-major shape) stored as a
 * {@code FixedSizeList<value_type>[prod(shape)]}; {@link #permutation()} says which physical dim
 * each logical dim is ({@code logical[i] = shape[permutation[i]]}), as pyarrow's
 * {@code FixedShapeTensorArray.to_numpy_ndarray()} reads it.
 *
 * <p>Arrow Java has no class for this type, so tensorbuf writes and reads it as what goes on the
 * wire: a fixed-size list field whose metadata carries {@code ARROW:extension:name} and
 * {@code ARROW:extension:metadata}; pyarrow reads such a field as the extension type.
 * {@snippet :
 * FixedShapeTensorType t = FixedShapeTensorType.of(DType.F32, List.of(2L, 3L)).withPermutation(List.of(1, 0));
 * t.logicalDims();    // [3, 2]
 * t.metadataJson();   // {"shape":[2,3],"permutation":[1,0]}
 * t.listSize();       // 6
 * FixedShapeTensorType.parse(DType.F32, "{\"shape\":[2,3],\"permutation\":[0,0]}");
 * // IllegalArgumentException: "arrow.fixed_shape_tensor metadata: permutation [0, 0] is not a permutation of [0, 2)"
 * }
 *
 * @param dtype the element type (Arrow's {@code value_type})
 * @param shape the physical shape of each row's tensor, row-major; empty for a scalar per row
 * @param dimNames names of the physical dims, or empty
 * @param permutation the logical-to-physical dim order, or empty for the identity
 */
public record FixedShapeTensorType(DType dtype, List<Long> shape, List<String> dimNames, List<Integer> permutation) {
    /** The extension name, in every field's {@code ARROW:extension:name}. */
    public static final String EXTENSION_NAME = "arrow.fixed_shape_tensor";
    static final String NAME_KEY = "ARROW:extension:name";
    static final String METADATA_KEY = "ARROW:extension:metadata";

    /**
     * @throws IllegalArgumentException if a dim is negative, the element count overflows, the names
     *     or the permutation do not have one entry per dim, or the permutation is not one
     */
    public FixedShapeTensorType {
        java.util.Objects.requireNonNull(dtype, "dtype");
        shape = List.copyOf(shape);
        dimNames = List.copyOf(dimNames);
        permutation = List.copyOf(permutation);
        long count = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException(EXTENSION_NAME + ": shape " + shape + " has a negative dim");
            }
            try {
                count = Math.multiplyExact(count, d);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(EXTENSION_NAME + ": shape " + shape + " has more elements than a long counts");
            }
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(EXTENSION_NAME + ": shape " + shape + " has " + count
                    + " elements; an Arrow fixed-size list holds at most " + Integer.MAX_VALUE);
        }
        if (!dimNames.isEmpty() && dimNames.size() != shape.size()) {
            throw new IllegalArgumentException(EXTENSION_NAME + ": dim_names " + dimNames + " has " + dimNames.size()
                    + " names for the " + shape.size() + " dims of shape " + shape);
        }
        if (!permutation.isEmpty()) {
            boolean[] seen = new boolean[shape.size()];
            boolean ok = permutation.size() == shape.size();
            for (int p : permutation) {
                ok &= p >= 0 && p < seen.length && !seen[p];
                if (p >= 0 && p < seen.length) {
                    seen[p] = true;
                }
            }
            if (!ok) {
                throw new IllegalArgumentException(EXTENSION_NAME + " metadata: permutation " + permutation
                        + " is not a permutation of [0, " + shape.size() + ")");
            }
        }
    }

    /** {@return the type of rows of {@code shape}, row-major, without names} */
    public static FixedShapeTensorType of(DType dtype, List<Long> shape) {
        return new FixedShapeTensorType(dtype, shape, List.of(), List.of());
    }

    /** {@return this type with the logical-to-physical dim order {@code permutation}} */
    public FixedShapeTensorType withPermutation(List<Integer> permutation) {
        return new FixedShapeTensorType(dtype, shape, dimNames, isIdentity(permutation) ? List.of() : permutation);
    }

    /** {@return this type with names for the physical dims} */
    public FixedShapeTensorType withDimNames(List<String> names) {
        return new FixedShapeTensorType(dtype, shape, names, permutation);
    }

    private static boolean isIdentity(List<Integer> permutation) {
        for (int i = 0; i < permutation.size(); i++) {
            if (permutation.get(i) != i) {
                return false;
            }
        }
        return true;
    }

    /** {@return the permutation, the identity when none was given} */
    public List<Integer> effectivePermutation() {
        if (!permutation.isEmpty()) {
            return permutation;
        }
        List<Integer> identity = new ArrayList<>();
        for (int i = 0; i < shape.size(); i++) {
            identity.add(i);
        }
        return identity;
    }

    /** {@return each row's dims as a reader sees them: {@code shape[permutation[i]]}} */
    public List<Long> logicalDims() {
        List<Long> dims = new ArrayList<>();
        for (int p : effectivePermutation()) {
            dims.add(shape.get(p));
        }
        return List.copyOf(dims);
    }

    /** {@return the elements of one row, the fixed-size list's size} */
    public int listSize() {
        long count = 1;
        for (long d : shape) {
            count *= d;
        }
        return (int) count;
    }

    /** {@return the extension metadata, as the canonical type spells it} */
    public String metadataJson() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("shape", shape);
        if (!dimNames.isEmpty()) {
            o.put("dim_names", dimNames);
        }
        if (!permutation.isEmpty()) {
            o.put("permutation", permutation);
        }
        return Json.write(o);
    }

    /**
     * {@return an Arrow field named {@code name} of this type: a non-null fixed-size list of the
     * element type, with the extension's metadata}
     *
     * @throws IllegalArgumentException if Arrow has no type for the element type (bf16, f8, pred...)
     */
    public Field field(String name) {
        ArrowType element = ArrowDTypes.arrowType(dtype);
        Map<String, String> metadata = new HashMap<>();
        metadata.put(NAME_KEY, EXTENSION_NAME);
        metadata.put(METADATA_KEY, metadataJson());
        Field values = new Field("item", FieldType.notNullable(element), null);
        return new Field(name, new FieldType(false, new ArrowType.FixedSizeList(listSize()), null, metadata), List.of(values));
    }

    /**
     * {@return the type of an Arrow field, when it is an {@code arrow.fixed_shape_tensor}}
     *
     * @throws IllegalArgumentException if the field says it is one but its metadata, storage or
     *     element type is not what the type allows, naming the field and what was wrong
     */
    public static Optional<FixedShapeTensorType> ofField(Field field) {
        Map<String, String> md = field.getMetadata();
        if (md == null || !EXTENSION_NAME.equals(md.get(NAME_KEY))) {
            return Optional.empty();
        }
        String where = "field '" + field.getName() + "'";
        if (!(field.getType() instanceof ArrowType.FixedSizeList list) || field.getChildren().size() != 1) {
            throw new IllegalArgumentException(where + " is " + EXTENSION_NAME + " but its storage is " + field.getType()
                    + ", not a fixed-size list");
        }
        DType dtype = ArrowDTypes.dtype(field.getChildren().getFirst().getType(), where);
        FixedShapeTensorType t;
        try {
            t = parse(dtype, md.getOrDefault(METADATA_KEY, ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        if (t.listSize() != list.getListSize()) {
            throw new IllegalArgumentException(where + ": shape " + t.shape() + " has " + t.listSize()
                    + " elements but the storage lists hold " + list.getListSize());
        }
        return Optional.of(t);
    }

    /**
     * {@return the type of elements {@code dtype} with the extension metadata {@code json}}
     *
     * @throws IllegalArgumentException if the JSON is not an object with an integer array
     *     {@code shape}, and optional string array {@code dim_names} and integer array
     *     {@code permutation}, naming the key
     */
    public static FixedShapeTensorType parse(DType dtype, String json) {
        String what = EXTENSION_NAME + " metadata";
        // The project's own reader, not Jackson: reading a file's type loaded 600 of Jackson's classes.
        Object root;
        try {
            root = Json.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not JSON: " + firstLine(e.getMessage()));
        }
        if (!(root instanceof Map<?, ?> object)) {
            throw new IllegalArgumentException(what + " is not a JSON object: " + abbreviate(json));
        }
        if (!(object.get("shape") instanceof List<?> shapeList)) {
            throw new IllegalArgumentException(what + " has no \"shape\" array: " + abbreviate(json));
        }
        List<Long> shape = new ArrayList<>();
        for (Object n : shapeList) {
            if (!(n instanceof Long v)) {
                throw new IllegalArgumentException(what + ": shape entry " + Json.write(n) + " is not an integer");
            }
            shape.add(v);
        }
        List<String> names = new ArrayList<>();
        Object namesNode = object.get("dim_names");
        if (namesNode != null) {
            if (!(namesNode instanceof List<?> list)) {
                throw new IllegalArgumentException(what + ": dim_names is not an array: " + Json.write(namesNode));
            }
            for (Object n : list) {
                if (!(n instanceof String name)) {
                    throw new IllegalArgumentException(what + ": dim_names entry " + Json.write(n) + " is not a string");
                }
                names.add(name);
            }
        }
        List<Integer> perm = new ArrayList<>();
        Object permNode = object.get("permutation");
        if (permNode != null) {
            if (!(permNode instanceof List<?> list)) {
                throw new IllegalArgumentException(what + ": permutation is not an array: " + Json.write(permNode));
            }
            for (Object n : list) {
                if (!(n instanceof Long v) || v != v.intValue()) {
                    throw new IllegalArgumentException(what + ": permutation entry " + Json.write(n) + " is not an integer");
                }
                perm.add(v.intValue());
            }
        }
        return new FixedShapeTensorType(dtype, shape, names, perm).withPermutation(perm);
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
