#!/usr/bin/env bash
# Element reads (ViewAccessBenchmark) of two bench jars, one JVM per run, in turns:
#   bash bench/experiments/access_ab.sh BEFORE.jar AFTER.jar [ROUNDS]
# Build each jar with `mvn -B -q -pl bench -am package -DskipTests` (bench/target/benchmarks.jar),
# the before jar in a `git worktree` of the older commit. Each line: round, benchmark, build,
# ns/element, bytes allocated per read (0 or the 32-byte index array when getFloat was not
# inlined; JMH prints "≈ 10⁻⁵" for none), and the load average.
set -euo pipefail
java="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
before="$1"; after="$2"; rounds="${3:-8}"
for r in $(seq 1 "$rounds"); do
  for b in getStrided getTiled; do
    for v in before after; do
      jar=$([ "$v" = before ] && echo "$before" || echo "$after")
      out=$("$java" --enable-native-access=ALL-UNNAMED -jar "$jar" "ViewAccessBenchmark.$b" -f 1 -wi 3 -i 5 -w 1 -r 1 -prof gc 2>/dev/null \
        | grep -E "^ViewAccessBenchmark\.$b(:gc.alloc.rate.norm)? " || true)
      echo "$r $b $v $(echo "$out" | awk '{print $4}' | tr '\n' ' ') load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
