// What a cold JVM pays for its first pass through pattern switches over a sealed interface: each
// switch site spins a class of its own on first use (SwitchBootstraps.typeSwitch), which the JDK 25
// AOT cache does not keep. 17 sites, as many as a 200 MB convert's first copy plan meets, against
// the same 17 written as instanceof chains, in a fresh JVM each (compiled first: the source
// launcher itself loads what the first switch would):
//   javac -d /tmp/ss bench/experiments/SwitchSites.java && cd /tmp/ss
//   java -cp . SwitchSites switch     (or instanceof)
// and with an AOT cache trained on it, as the launcher gives convert:
//   java -XX:AOTCacheOutput=ss.aot -cp . SwitchSites switch
//   java -XX:AOTCache=ss.aot -cp . SwitchSites switch
public class SwitchSites {
  sealed interface S permits A, B, C {}
  record A(int x) implements S {}
  record B(long y) implements S {}
  record C(String z) implements S {}
  static long f0(S s) { return switch (s) { case A a -> a.x() + 0; case B b -> b.y() * 0; case C c -> c.z().length(); }; }
  static long f1(S s) { return switch (s) { case A a -> a.x() + 1; case B b -> b.y() * 1; case C c -> c.z().length(); }; }
  static long f2(S s) { return switch (s) { case A a -> a.x() + 2; case B b -> b.y() * 2; case C c -> c.z().length(); }; }
  static long f3(S s) { return switch (s) { case A a -> a.x() + 3; case B b -> b.y() * 3; case C c -> c.z().length(); }; }
  static long f4(S s) { return switch (s) { case A a -> a.x() + 4; case B b -> b.y() * 4; case C c -> c.z().length(); }; }
  static long f5(S s) { return switch (s) { case A a -> a.x() + 5; case B b -> b.y() * 5; case C c -> c.z().length(); }; }
  static long f6(S s) { return switch (s) { case A a -> a.x() + 6; case B b -> b.y() * 6; case C c -> c.z().length(); }; }
  static long f7(S s) { return switch (s) { case A a -> a.x() + 7; case B b -> b.y() * 7; case C c -> c.z().length(); }; }
  static long f8(S s) { return switch (s) { case A a -> a.x() + 8; case B b -> b.y() * 8; case C c -> c.z().length(); }; }
  static long f9(S s) { return switch (s) { case A a -> a.x() + 9; case B b -> b.y() * 9; case C c -> c.z().length(); }; }
  static long f10(S s) { return switch (s) { case A a -> a.x() + 10; case B b -> b.y() * 10; case C c -> c.z().length(); }; }
  static long f11(S s) { return switch (s) { case A a -> a.x() + 11; case B b -> b.y() * 11; case C c -> c.z().length(); }; }
  static long f12(S s) { return switch (s) { case A a -> a.x() + 12; case B b -> b.y() * 12; case C c -> c.z().length(); }; }
  static long f13(S s) { return switch (s) { case A a -> a.x() + 13; case B b -> b.y() * 13; case C c -> c.z().length(); }; }
  static long f14(S s) { return switch (s) { case A a -> a.x() + 14; case B b -> b.y() * 14; case C c -> c.z().length(); }; }
  static long f15(S s) { return switch (s) { case A a -> a.x() + 15; case B b -> b.y() * 15; case C c -> c.z().length(); }; }
  static long f16(S s) { return switch (s) { case A a -> a.x() + 16; case B b -> b.y() * 16; case C c -> c.z().length(); }; }
  static long g0(S s) { if (s instanceof A a) return a.x() + 0; if (s instanceof B b) return b.y() * 0; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g1(S s) { if (s instanceof A a) return a.x() + 1; if (s instanceof B b) return b.y() * 1; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g2(S s) { if (s instanceof A a) return a.x() + 2; if (s instanceof B b) return b.y() * 2; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g3(S s) { if (s instanceof A a) return a.x() + 3; if (s instanceof B b) return b.y() * 3; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g4(S s) { if (s instanceof A a) return a.x() + 4; if (s instanceof B b) return b.y() * 4; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g5(S s) { if (s instanceof A a) return a.x() + 5; if (s instanceof B b) return b.y() * 5; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g6(S s) { if (s instanceof A a) return a.x() + 6; if (s instanceof B b) return b.y() * 6; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g7(S s) { if (s instanceof A a) return a.x() + 7; if (s instanceof B b) return b.y() * 7; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g8(S s) { if (s instanceof A a) return a.x() + 8; if (s instanceof B b) return b.y() * 8; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g9(S s) { if (s instanceof A a) return a.x() + 9; if (s instanceof B b) return b.y() * 9; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g10(S s) { if (s instanceof A a) return a.x() + 10; if (s instanceof B b) return b.y() * 10; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g11(S s) { if (s instanceof A a) return a.x() + 11; if (s instanceof B b) return b.y() * 11; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g12(S s) { if (s instanceof A a) return a.x() + 12; if (s instanceof B b) return b.y() * 12; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g13(S s) { if (s instanceof A a) return a.x() + 13; if (s instanceof B b) return b.y() * 13; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g14(S s) { if (s instanceof A a) return a.x() + 14; if (s instanceof B b) return b.y() * 14; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g15(S s) { if (s instanceof A a) return a.x() + 15; if (s instanceof B b) return b.y() * 15; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  static long g16(S s) { if (s instanceof A a) return a.x() + 16; if (s instanceof B b) return b.y() * 16; if (s instanceof C c) return c.z().length(); throw new AssertionError(); }
  public static void main(String[] args) {
    S s = new B(3);
    long acc = 0;
    long t0 = System.nanoTime();
    if (args.length > 0 && args[0].equals("instanceof")) {
      acc = g0(s) + g1(s) + g2(s) + g3(s) + g4(s) + g5(s) + g6(s) + g7(s) + g8(s) + g9(s) + g10(s) + g11(s) + g12(s) + g13(s) + g14(s) + g15(s) + g16(s);
    } else {
      acc = f0(s) + f1(s) + f2(s) + f3(s) + f4(s) + f5(s) + f6(s) + f7(s) + f8(s) + f9(s) + f10(s) + f11(s) + f12(s) + f13(s) + f14(s) + f15(s) + f16(s);
    }
    long t1 = System.nanoTime();
    System.out.printf("%s: first calls of 17 sites %.1f ms (%d)%n", args.length > 0 ? args[0] : "switch", (t1 - t0) / 1e6, acc);
  }
}
