package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * No public signature leaks a type a user cannot name: every public or protected member
 * (constructor, method, field, nested type) of a public type in a package our library modules
 * export to everyone mentions, in its parameters, return, field type, throws, type parameters,
 * supertypes or any type argument of those, only types of packages exported to everyone (ours
 * by the module descriptors, the JDK's and libraries' by their modules). javac's
 * {@code -Xlint:exports} says the same at compile time, for one module at a time; this reads the
 * compiled classes of all of them.
 */
class ApiSignatureTest {

    @Test
    void publicSignaturesMentionOnlyExportedTypes() throws ClassNotFoundException {
        Set<String> exported = ApiSurfaceTest.publicTypes(ApiSurfaceTest.LIBRARY).keySet();
        List<Class<?>> types = new ArrayList<>();
        for (var e : ApiSurfaceTest.publicTypes(ApiSurfaceTest.LIBRARY).entrySet()) {
            for (String simple : e.getValue()) {
                types.add(Class.forName(e.getKey() + "." + simple, false, getClass().getClassLoader()));
            }
        }
        assertTrue(types.size() > 20, "the scan found only " + types.size() + " types");
        List<String> leaks = leaks(types, exported);
        assertEquals(List.of(), leaks, "public signatures naming types users cannot reach; move these members to"
                + " a friend class in the internal package (as AccessCopies and HloInstructions)");
    }

    /** The scan finds what it is for: a public type whose members name an internal type. */
    @Test
    void theScanFindsALeak() {
        Set<String> exported = Set.of("dev.tensorbuf.ops.copy", "dev.tensorbuf.cli");
        List<String> leaks = leaks(List.of(Leaky.class), exported);
        assertEquals(List.of(
                "dev.tensorbuf.cli.ApiSignatureTest$Leaky$Nested: dev.tensorbuf.ops.hlo.internal.HloSyntaxException in"
                        + " method parse()",
                "dev.tensorbuf.cli.ApiSignatureTest$Leaky: dev.tensorbuf.ops.copy.internal.Access in field side",
                "dev.tensorbuf.cli.ApiSignatureTest$Leaky: dev.tensorbuf.ops.copy.internal.Step in method"
                        + " steps(dev.tensorbuf.ops.copy.CopyPlan)"), leaks);
    }

    /** A fixture of each kind of leak the scan must see; private members and types are left out. */
    public static final class Leaky {
        public dev.tensorbuf.ops.copy.internal.Access side;
        private dev.tensorbuf.ops.copy.internal.Access hidden;

        public List<? extends dev.tensorbuf.ops.copy.internal.Step> steps(dev.tensorbuf.ops.copy.CopyPlan plan) {
            return List.of();
        }

        public static class Nested {
            protected void parse() throws dev.tensorbuf.ops.hlo.internal.HloSyntaxException {
            }
        }

        private static class Hidden {
            public dev.tensorbuf.ops.copy.internal.Access side;
        }
    }

    private static List<String> leaks(List<Class<?>> types, Set<String> exported) {
        Set<String> found = new TreeSet<>();
        List<Class<?>> queue = new ArrayList<>(types);
        while (!queue.isEmpty()) {
            Class<?> c = queue.removeLast();
            String where = c.getName() + ": ";
            check(found, where, "supertypes", exported, c.getGenericSuperclass());
            check(found, where, "supertypes", exported, c.getGenericInterfaces());
            check(found, where, "type parameters", exported, c.getTypeParameters());
            for (Field f : c.getDeclaredFields()) {
                if (visible(f.getModifiers()) && !f.isSynthetic()) {
                    check(found, where, "field " + f.getName(), exported, f.getGenericType());
                }
            }
            List<Executable> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
            members.addAll(List.of(c.getDeclaredMethods()));
            for (Executable m : members) {
                if (!visible(m.getModifiers()) || m.isSynthetic() || m instanceof Method method && method.isBridge()) {
                    continue;
                }
                String what = (m instanceof Constructor<?> ? "constructor " : "method ") + m.getName() + "("
                        + String.join(", ", List.of(m.getParameterTypes()).stream().map(Class::getName).toList()) + ")";
                check(found, where, what, exported, m.getGenericParameterTypes());
                check(found, where, what, exported, m.getGenericExceptionTypes());
                check(found, where, what, exported, m.getTypeParameters());
                if (m instanceof Method method) {
                    check(found, where, what, exported, method.getGenericReturnType());
                }
            }
            for (Class<?> nested : c.getDeclaredClasses()) {
                if (visible(nested.getModifiers())) {
                    queue.add(nested);
                }
            }
        }
        return List.copyOf(found);
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(Set<String> found, String where, String what, Set<String> exported, Type... types) {
        Set<Type> seen = new HashSet<>();
        List<Type> queue = new ArrayList<>();
        for (Type t : types) {
            if (t != null) {
                queue.add(t);
            }
        }
        while (!queue.isEmpty()) {
            Type t = queue.removeLast();
            if (!seen.add(t)) {
                continue;
            }
            switch (t) {
                case Class<?> c when c.isArray() -> queue.add(c.getComponentType());
                case Class<?> c -> {
                    if (!reachable(c, exported)) {
                        found.add(where + c.getName() + " in " + what);
                    }
                }
                case ParameterizedType p -> {
                    queue.add(p.getRawType());
                    queue.addAll(List.of(p.getActualTypeArguments()));
                    if (p.getOwnerType() != null) {
                        queue.add(p.getOwnerType());
                    }
                }
                case WildcardType w -> {
                    queue.addAll(List.of(w.getUpperBounds()));
                    queue.addAll(List.of(w.getLowerBounds()));
                }
                case TypeVariable<?> v -> queue.addAll(List.of(v.getBounds()));
                case GenericArrayType a -> queue.add(a.getGenericComponentType());
                default -> throw new AssertionError("unknown kind of type " + t);
            }
        }
    }

    /**
     * {@return whether a user of the library can name {@code c}} Ours: a public type (and each
     * enclosing type public) in a package exported to everyone. Others: a public type in a package
     * its module exports (on the class path, where tests run, libraries are unnamed and export all).
     */
    private static boolean reachable(Class<?> c, Set<String> exported) {
        if (c.isPrimitive()) {
            return true;
        }
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) && !(k != c && Modifier.isProtected(k.getModifiers()))) {
                return false;
            }
        }
        if (c.getPackageName().startsWith("dev.tensorbuf.")) {
            return exported.contains(c.getPackageName());
        }
        Module m = c.getModule();
        return !m.isNamed() || m.isExported(c.getPackageName());
    }
}
