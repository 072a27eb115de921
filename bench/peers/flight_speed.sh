#!/usr/bin/env bash
# Fetching a tensor over loopback (Arrow Flight): tensorbuf servers (one, and two at once) and a
# pyarrow.flight server in Python serving the same array, each in a process of its own, fetched in
# turns by the same clients, TensorClient (Java) and pyarrow.flight's (Python), beside
# MemorySegment.copy of the same bytes. Prints GB/s and CPU seconds per GiB of client and server.
# Usage: bench/peers/flight_speed.sh [MiB=1024] [ROUNDS=5] [BATCH_BYTES=16777216]
# Needs the net module's test classes (mvn -B -q -pl net -am test-compile) and Python with numpy and pyarrow
# (PYTHON=..., default python3). Everything runs on this machine: note its load (uptime) beside the numbers.
# SERVER_JAVA_OPTS="..." adds JVM options to the tensorbuf servers alone (e.g. JIT settings to try).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mib="${1:-1024}"
rounds="${2:-5}"
python="${PYTHON:-python3}"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cd "$root"
cp_file="$(mktemp)"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$cp_file"' EXIT
mvn -B -q -pl net -am test-compile dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
cp="net/target/test-classes:net/target/classes:$(cat "$cp_file")"
# The JVM options of the tensorbuf launcher, for the client and the servers alike.
opts=(--enable-native-access=ALL-UNNAMED --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-modules jdk.incubator.vector)
case "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" in
  *"[always]"*|*"[madvise]"*) opts+=(-XX:+UseTransparentHugePages) ;;
esac
# The malloc tunables the launcher gives serve and fetch (FlightSpeed runs Python without them).
GLIBC_TUNABLES="$(sed -n 's/^flight_tunables=//p' "$root/tensorbuf")"
export GLIBC_TUNABLES
uptime
"$java" "${opts[@]}" -Xmx4g -cp "$cp" dev.tensorbuf.net.FlightSpeed "$work" "$mib" "$rounds" "$python" \
  "$root/bench/peers/flight_server.py" "$root/bench/peers/flight_client.py" "${3:-16777216}" "${opts[@]}" -Xmx1g \
  ${SERVER_JAVA_OPTS:-} \
  2> >(grep -v 'Using incubator modules' >&2)
uptime
