package dev.tensorbuf.testing;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives an {@link Allocator} field a new shared arena before each test and closes it after the
 * test, as {@code @TempDir} does for a directory: a test class states its memory in one line
 * instead of a set-up and a tear-down of its own, and no test sees another's buffers.
 *
 * <pre>{@code
 * @ArenaPerTest
 * private Allocator arena;
 * }</pre>
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ArenaPerTest.Lifecycle.class)
public @interface ArenaPerTest {

    /** Opens the annotated fields' arenas before each test and closes them after it. */
    final class Lifecycle implements BeforeEachCallback, AfterEachCallback {
        private static final ExtensionContext.Namespace OPEN = ExtensionContext.Namespace.create(Lifecycle.class);

        @Override
        public void beforeEach(ExtensionContext context) throws IllegalAccessException {
            List<Allocator> opened = new ArrayList<>();
            context.getStore(OPEN).put(context.getUniqueId(), opened);
            for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
                for (Class<?> c = instance.getClass(); c != Object.class; c = c.getSuperclass()) {
                    for (Field field : c.getDeclaredFields()) {
                        if (field.isAnnotationPresent(ArenaPerTest.class)) {
                            Allocator arena = Allocators.shared();
                            opened.add(arena);
                            assignable(field).set(instance, arena);
                        }
                    }
                }
            }
        }

        @Override
        public void afterEach(ExtensionContext context) {
            @SuppressWarnings("unchecked")
            List<Allocator> opened = (List<Allocator>) context.getStore(OPEN).remove(context.getUniqueId());
            if (opened != null) {
                opened.forEach(Allocator::close);
            }
        }

        private static Field assignable(Field field) {
            int modifiers = field.getModifiers();
            if (field.getType() != Allocator.class || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
                throw new ExtensionConfigurationException("@ArenaPerTest needs a non-static, non-final Allocator field, not "
                        + field);
            }
            field.setAccessible(true);
            return field;
        }
    }
}
