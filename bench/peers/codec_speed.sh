#!/usr/bin/env bash
# Decoding LZ4 and Zstandard frames as Arrow IPC buffers hold them: tensorbuf's Lz4Frames and
# ZstdFrames (one thread, JIT warm) beside pyarrow's codecs (the C libraries) on the same frames,
# in turns. Prints each side's median and best MB/s of decoded bytes per case.
# Usage: bench/peers/codec_speed.sh [MiB=48] [ROUNDS=3] [RUNS=9]
# Needs the net module's test classes (mvn -B -q -pl net -am test-compile) and Python with numpy and
# pyarrow (PYTHON=..., default python3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PYTHON:-python3}"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
"$python" bench/peers/codec_peer.py write "$work" "${1:-48}"
cases=(lz4-normal-0 zstd-normal-1 zstd-normal-3 zstd-normal-9 lz4-ramp-0 zstd-ramp-3)
uptime
for round in $(seq "${2:-3}"); do
  echo "round $round"
  "$python" bench/peers/codec_peer.py time "$work" "${3:-9}" "${cases[@]}"
  "$java" -cp net/target/test-classes:net/target/classes dev.tensorbuf.net.internal.CodecSpeed "$work" "${3:-9}" "${cases[@]}"
done
uptime
