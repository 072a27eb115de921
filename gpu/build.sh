#!/usr/bin/env bash
# Builds what gpu/check.sh needs on a GPU machine that has no Java and no network, into gpu/dist/:
#   jre/   a Java runtime made with jlink (the modules jdeps finds in the jars, jdk.incubator.vector
#          included), stripped and compressed
#   lib/   tensorbuf's jars and their runtime dependency (Agrona)
#   test/  interop's test classes (the GPU-gated tests, the fake runtime, the speed main), views'
#          test jar, and JUnit's console launcher
#   check.sh, torch_speed.py   so that dist/ alone can travel
# and asserts the whole folder stays well under 64 MiB.
#
#   gpu/build.sh            builds the jars (mvn -o package -DskipTests over interop and what it needs)
#   gpu/build.sh --no-mvn   uses the jars already built (CI runs it right after `mvn -B verify`)
# TENSORBUF_GPU_MAX_MIB (default 52) is the size asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=gpu/dist
max_mib=${TENSORBUF_GPU_MAX_MIB:-52}
junit_platform=1.11.4   # the platform release of the JUnit BOM 5.11.4 in pom.xml
log() { echo "[gpu/build] $*"; }

run_mvn=1
for a in "$@"; do
  case "$a" in
    --no-mvn) run_mvn=0 ;;
    *) echo "usage: gpu/build.sh [--no-mvn]" >&2; exit 2 ;;
  esac
done

# A JDK >= 25 with jlink and jdeps: $JAVA_HOME if it is one, else the first under /usr/lib/jvm.
jdk=""
for d in "${JAVA_HOME:-}" /usr/lib/jvm/* /opt/java/* /usr/local/jdk*; do
  [ -n "$d" ] && [ -x "$d/bin/jlink" ] && [ -x "$d/bin/jdeps" ] || continue
  v=$("$d/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1)
  if [ -n "$v" ] && [ "$v" -ge 25 ]; then jdk=$d; break; fi
done
[ -n "$jdk" ] || { echo "[gpu/build] no JDK >= 25 with jlink and jdeps found" >&2; exit 1; }
log "JDK at $jdk"

if [ "$run_mvn" = 1 ]; then
  log "mvn package (interop and the modules below it)"
  mvn -B -q -o -pl interop -am package -DskipTests
fi

version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n1)
jars=(memory/target/tensorbuf-memory-$version.jar views/target/tensorbuf-views-$version.jar
      ops/target/tensorbuf-ops-$version.jar interop/target/tensorbuf-interop-$version.jar)
for j in "${jars[@]}" views/target/tensorbuf-views-$version-tests.jar interop/target/test-classes/dev/tensorbuf/interop/CudaGpuTest.class; do
  [ -f "$j" ] || { echo "[gpu/build] missing $j: build first (gpu/build.sh without --no-mvn)" >&2; exit 1; }
done
agrona_version=$(sed -n 's|.*<agrona.version>\(.*\)</agrona.version>.*|\1|p' pom.xml)
m2=${MAVEN_REPO:-$HOME/.m2/repository}
agrona=$m2/org/agrona/agrona/$agrona_version/agrona-$agrona_version.jar
console=$m2/org/junit/platform/junit-platform-console-standalone/$junit_platform/junit-platform-console-standalone-$junit_platform.jar
if [ ! -f "$console" ]; then
  log "fetching junit-platform-console-standalone $junit_platform from Maven Central"
  mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get \
      -Dartifact=org.junit.platform:junit-platform-console-standalone:$junit_platform -Dtransitive=false
fi
for j in "$agrona" "$console"; do [ -f "$j" ] || { echo "[gpu/build] missing $j" >&2; exit 1; }; done

rm -rf "$dist/lib" "$dist/test"
mkdir -p "$dist/lib" "$dist/test"
cp "${jars[@]}" "$agrona" "$dist/lib/"
cp views/target/tensorbuf-views-$version-tests.jar "$dist/test/"
cp "$console" "$dist/test/junit-platform-console-standalone.jar"
"$jdk/bin/jar" --create --file "$dist/test/tensorbuf-interop-tests.jar" -C interop/target/test-classes .
rm -f "$dist/check.sh" "$dist/torch_speed.py"
cp gpu/check.sh gpu/torch_speed.py "$dist/"
chmod +x "$dist/check.sh"

# The modules: what jdeps finds in every jar that will run, plus the vector API (an incubator
# module: jdeps reports it too, but a jar that only reaches it reflectively would not say so).
# Our jars are named modules that require org.agrona, so jdeps needs them on its module path too.
modules=$("$jdk/bin/jdeps" --multi-release 25 --ignore-missing-deps --print-module-deps \
    --module-path "$dist/lib" --class-path "$dist/lib/*:$dist/test/*" "$dist"/lib/*.jar "$dist"/test/*.jar 2>/dev/null \
    | tail -n1)
case "$modules" in
  java.*|jdk.*) ;;
  *) echo "[gpu/build] jdeps found no module list: $modules" >&2; exit 1 ;;
esac
modules="$modules,jdk.incubator.vector"
modules=$(echo "$modules" | tr ',' '\n' | sort -u | paste -sd, -)
log "modules: $modules"

stamp="strip-unneeded $modules $("$jdk/bin/java" -version 2>&1 | head -n1)"
if [ -x "$dist/jre/bin/java" ] && [ "$(cat "$dist/jre.stamp" 2>/dev/null)" = "$stamp" ]; then
  log "jlink image up to date"
else
  rm -rf "$dist/jre" "$dist/jre.stamp"
  # --strip-debug also strips native debug symbols, with objcopy where there is one.
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --compress zip-9 \
      --no-header-files --no-man-pages --output "$dist/jre" 2>&1 | grep -v 'Using incubator modules' || true
  [ -x "$dist/jre/bin/java" ] || { echo "[gpu/build] jlink made no runtime" >&2; exit 1; }
  # --strip-debug leaves libjvm.so's symbol table (5 MiB); nothing at run time needs it.
  if command -v strip >/dev/null 2>&1; then
    find "$dist/jre" -name '*.so' -exec strip --strip-unneeded {} +
  fi
  echo "$stamp" > "$dist/jre.stamp"
fi

jre_bytes=$(du -sb "$dist/jre" | cut -f1)
total_bytes=$(du -sb "$dist" | cut -f1)
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
log "jlink image $(mib "$jre_bytes") MiB, $dist in all $(mib "$total_bytes") MiB (limit $max_mib MiB)"
if [ "$total_bytes" -gt $((max_mib * 1048576)) ]; then
  echo "[gpu/build] $dist is $(mib "$total_bytes") MiB, over the $max_mib MiB asserted" >&2
  exit 1
fi
"$dist/jre/bin/java" --list-modules | grep -q '^jdk.incubator.vector@' \
  || { echo "[gpu/build] the image lacks jdk.incubator.vector" >&2; exit 1; }
log "done: run $dist/check.sh on the GPU machine (or gpu/check.sh --fake here)"
