#!/usr/bin/env bash
# Two option sets of a one-shot `tensorbuf convert` in turns, A B each round, medians of wall and
# user+sys time per side. One side's TENSORBUF_JAVA_OPTS turns a change off (or on); the launcher
# puts those options after its own, so they win.
#   bash bench/experiments/convert_ab.sh X.npy ROUNDS "A_OPTS" "B_OPTS" [CONVERT_ARGS...]
#   bash bench/experiments/convert_ab.sh /tmp/x.npy 16 "" \
#     "-XX:CompileCommand=CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ScalarTranspose::row*,4.0"
# CONVERT_ARGS default to --transpose 0,2,3,1; each run replaces the output the last one wrote
# (Y.npy beside X); FRESH=1 removes it first, so each run writes a new file.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
input="$1" rounds="$2" a_opts="$3" b_opts="$4"
shift 4
args=("$@")
[ "${#args[@]}" -gt 0 ] || args=(--transpose 0,2,3,1)
output="$(dirname "$input")/ab-out.npy"
times="$(mktemp)"
trap 'rm -f "$times"' EXIT
"$root/tensorbuf" --version >/dev/null  # builds the jar first if the sources changed
for ((i = 0; i < rounds; i++)); do
  for side in A B; do
    if [ "$side" = A ]; then opts="$a_opts"; else opts="$b_opts"; fi
    if [ "${FRESH:-}" = 1 ]; then rm -f "$output"; fi
    /usr/bin/time -f "$side %e %U %S" -a -o "$times" env TENSORBUF_NO_BUILD=1 TENSORBUF_JAVA_OPTS="$opts" \
      "$root/tensorbuf" convert "$input" "$output" "${args[@]}" --quiet >/dev/null
  done
done
python3 - "$times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for side in "AB":
    wall = [float(r[1]) for r in rows if r[0] == side]
    cpu = [float(r[2]) + float(r[3]) for r in rows if r[0] == side]
    print(f"{side} wall median {statistics.median(wall):.3f} s (min {min(wall):.2f}, max {max(wall):.2f}), "
          f"user+sys median {statistics.median(cpu):.3f} s, n={len(wall)}")
PY
