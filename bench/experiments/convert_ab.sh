#!/usr/bin/env bash
# Two option sets (or two builds) of a one-shot `tensorbuf convert` in turns, A B then B A, with
# medians and quartiles of wall time (to the microsecond: /usr/bin/time counts in 10 ms steps,
# about the size of the effects measured here) and of user+sys CPU (the child's rusage). One
# side's TENSORBUF_JAVA_OPTS turns a change off (or on); the launcher puts those options after its
# own, so they win. A_HOME and B_HOME name another checkout's built launcher for that side.
#   bash bench/experiments/convert_ab.sh X.npy ROUNDS "A_OPTS" "B_OPTS" [CONVERT_ARGS...]
#   bash bench/experiments/convert_ab.sh /tmp/x.npy 16 "" \
#     "-XX:CompileCommand=CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ScalarTranspose::row*,4.0"
#   A_HOME=/tmp/old bash bench/experiments/convert_ab.sh /tmp/x.npy 30 "" ""    # two builds
#   B_ENV="GLIBC_TUNABLES=glibc.malloc.hugetlb=0" bash ... # environment variables for one side
# CONVERT_ARGS default to --transpose 0,2,3,1; each run replaces the output the last one wrote
# (ab-out.npy beside X); FRESH=1 removes it first, so each run writes a new file.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
[ $# -ge 4 ] || { echo "usage: convert_ab.sh X.npy ROUNDS A_OPTS B_OPTS [CONVERT_ARGS...]" >&2; exit 2; }
"$root/tensorbuf" --version >/dev/null  # builds the jar first if the sources changed
exec python3 - "$root" "$@" <<'PY'
import os, statistics, subprocess, sys, time
root, inp, rounds, a_opts, b_opts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
args = sys.argv[6:] or ["--transpose", "0,2,3,1"]
out = os.path.join(os.path.dirname(os.path.abspath(inp)), "ab-out.npy")
sides = {"A": (os.environ.get("A_HOME", root), a_opts), "B": (os.environ.get("B_HOME", root), b_opts)}
runs = {"A": [], "B": []}
for r in range(rounds):
    for side in ("AB" if r % 2 == 0 else "BA"):
        home, opts = sides[side]
        if os.environ.get("FRESH") == "1" and os.path.exists(out):
            os.remove(out)
        env = dict(os.environ, TENSORBUF_NO_BUILD="1", TENSORBUF_JAVA_OPTS=opts)
        env.update(kv.split("=", 1) for kv in os.environ.get(side + "_ENV", "").split())
        t0 = time.perf_counter()
        p = subprocess.Popen([os.path.join(home, "tensorbuf"), "convert", inp, out, *args, "--quiet"],
                             env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            sys.exit(f"side {side} failed (status {status})")
        runs[side].append((wall, usage.ru_utime + usage.ru_stime))
for side in "AB":
    wall = [w for w, _ in runs[side]]
    cpu = [c for _, c in runs[side]]
    q = statistics.quantiles(wall) if len(wall) > 1 else [wall[0]] * 3
    print(f"{side} wall median {statistics.median(wall) * 1e3:.1f} ms (quartiles {q[0] * 1e3:.1f}-{q[2] * 1e3:.1f}), "
          f"user+sys median {statistics.median(cpu) * 1e3:.1f} ms, n={len(wall)}")
PY
