import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * What a fresh JVM pays for its first FFM downcall, the way reserving a file's space with
 * fallocate(2) would go (bench/RESULTS.md, "Convert end to end"): the linker and a handle made
 * and called once, here for getpid(2), which does nothing itself.
 *
 *   java --enable-native-access=ALL-UNNAMED bench/experiments/FirstDowncall.java
 *
 * Run it several times (and with -XX:AOTCache=... of a training run to see what a cache saves).
 */
public class FirstDowncall {
    public static void main(String[] args) throws Throwable {
        long t0 = System.nanoTime();
        Linker linker = Linker.nativeLinker();
        MethodHandle getpid = linker.downcallHandle(linker.defaultLookup().find("getpid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        long t1 = System.nanoTime();
        int pid = (int) getpid.invokeExact();
        long t2 = System.nanoTime();
        System.out.printf("linker and handle %.1f ms, first call %.1f ms (pid %d)%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6, pid);
    }
}
