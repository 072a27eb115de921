#!/usr/bin/env bash
# End-to-end time of the main job as a user runs it: a fresh process each run, files on disk, page
# cache warm. tensorbuf convert x.npy y.npy --transpose 0,2,3,1 on f32[64,256,56,56] (200 MB)
# against NumPy doing the same, run alternately so that both see the same machine load.
#
# usage: bench/peers/convert_e2e.sh [ROUNDS] [PYTHON] [MODE]     (defaults: 7, python3, transpose)
#   MODE copy: the plain copy instead, convert x.npy y.npy against np.save('y.npy', np.load('x.npy'))
#   TENSORBUF_HOME=DIR runs DIR/tensorbuf (another checkout, e.g. an older commit's built jar)
#   FRESH=1 removes both outputs before every run, so each writes a new file; by default each run
#   replaces the file the previous round wrote, which costs more (see bench/RESULTS.md)
# Build the jar first: mvn -B -q -o -pl cli -am package -DskipTests
# Prints one line per run (wall, user, sys seconds), then median and min-max of each side and
# the load (uptime) before and after. The files live in a temporary folder under /tmp, removed at
# the end. The first tensorbuf run after a rebuild also writes the launcher's class-data archive;
# a warm-up run of each side comes before the timed rounds.
set -euo pipefail
rounds="${1:-7}"
python="${2:-python3}"
mode="${3:-transpose}"
root="${TENSORBUF_HOME:-$(cd "$(dirname "$0")/../.." && pwd)}"
dir="$(mktemp -d /tmp/tensorbuf-e2e.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$python" -c "import numpy as np; np.save('x.npy', np.random.default_rng(0).standard_normal((64, 256, 56, 56), dtype=np.float32))"

if [ "$mode" = copy ]; then
  tb=(env TENSORBUF_NO_BUILD=1 "$root/tensorbuf" convert x.npy y.npy --quiet)
  np=("$python" -c "import numpy as np; np.save('z.npy', np.load('x.npy'))")
else
  tb=(env TENSORBUF_NO_BUILD=1 "$root/tensorbuf" convert x.npy y.npy --transpose 0,2,3,1 --quiet)
  np=("$python" -c "import numpy as np; np.save('z.npy', np.ascontiguousarray(np.load('x.npy').transpose(0,2,3,1)))")
fi
echo "tensorbuf: ${tb[*]:1}"
echo "numpy:     ${np[*]}"

timed() { # label output command...: prints "label wall user sys"; FRESH=1 removes output first
  local label="$1" output="$2"; shift 2
  if [ "${FRESH:-}" = 1 ]; then rm -f "$output"; fi
  /usr/bin/time -f '%e %U %S' -o "$dir/time.txt" "$@" >/dev/null 2>&1
  echo "$label $(tail -n1 "$dir/time.txt")"
}

echo "load before: $(uptime)"
timed warmup-tensorbuf y.npy "${tb[@]}" >/dev/null
timed warmup-numpy z.npy "${np[@]}" >/dev/null
cmp -s y.npy z.npy || { echo "tensorbuf and NumPy wrote different files" >&2; exit 1; }
results="$dir/results.txt"
for ((i = 0; i < rounds; i++)); do
  timed tensorbuf y.npy "${tb[@]}" | tee -a "$results"
  timed numpy z.npy "${np[@]}" | tee -a "$results"
done
echo "load after: $(uptime)"
"$python" - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def side(name):
    wall = [float(r[1]) for r in rows if r[0] == name]
    cpu = [float(r[2]) + float(r[3]) for r in rows if r[0] == name]
    return wall, cpu
for name in ("tensorbuf", "numpy"):
    wall, cpu = side(name)
    print(f"{name:9s} wall median {statistics.median(wall):.2f} s (min {min(wall):.2f}, max {max(wall):.2f});"
          f" user+sys median {statistics.median(cpu):.2f} s, n={len(wall)}")
tw, _ = side("tensorbuf")
nw, _ = side("numpy")
print(f"NumPy median / tensorbuf median: {statistics.median(nw) / statistics.median(tw):.2f}x")
PY
