package dev.tensorbuf.cli;

/**
 * Stands in for the command-line jar in {@link LauncherTest}: prints what the {@code tensorbuf}
 * launcher handed the JVM, one {@code key=value} line each; with {@code PROBE_STDERR} set, then
 * writes that text to standard error and exits 2, as a command refusing bad input does.
 */
public final class LauncherProbe {
    private LauncherProbe() {
    }

    public static void main(String[] args) {
        System.out.println("args=" + String.join("|", args));
        System.out.println("vector=" + ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());
        System.out.println("scalarFirstBytes=" + System.getProperty("tensorbuf.copy.scalarFirstBytes"));
        System.out.println("scalarJobBytes=" + System.getProperty("tensorbuf.convert.scalarJobBytes"));
        System.out.println("copyVector=" + System.getProperty("tensorbuf.copy.vector"));
        System.out.println("nativeAccess=" + LauncherProbe.class.getModule().isNativeAccessEnabled());
        System.out.println("feature=" + Runtime.version().feature());
        java.util.List<String> jvmArgs = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        System.out.println("compileThresholdScaling=" + jvmArgs.stream().filter(a -> a.startsWith("-XX:CompileThresholdScaling="))
                .map(a -> a.substring(a.indexOf('=') + 1)).reduce((a, b) -> b).orElse("default"));
        System.out.println("compileCommands=" + String.join("|", jvmArgs.stream().filter(a -> a.startsWith("-XX:CompileCommand="))
                .map(a -> a.substring("-XX:CompileCommand=".length())).toList()));
        System.out.println("hugePageStages=" + System.getProperty("tensorbuf.convert.hugePageStages"));
        System.out.println("glibcTunables=" + System.getenv("GLIBC_TUNABLES"));
        System.out.println("hugePageHeap=" + jvmArgs.contains("-XX:+UseTransparentHugePages"));
        String err = System.getenv("PROBE_STDERR");
        if (err != null) {
            System.out.flush();
            System.err.print(err);
            System.err.flush();
            System.exit(2);
        }
    }
}
