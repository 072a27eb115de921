#!/usr/bin/env python3
"""A/B of two JVM option sets on one copy case: two `tensorbuf bench --paced` processes, warmed up
side by side and sampled in turns as compare.py pairs tensorbuf with its peers (its Paced and
in_turns). Prints each side's median GB/s and the median and range of the per-round ratio B/A.

    python3 bench/experiments/ab_paced.py REPO CASE ROUNDS "A_OPTS" "B_OPTS"
    python3 bench/experiments/ab_paced.py . f32_4096x4096_to_T8x128 8 "" ""   # A/A: the noise floor
    python3 bench/experiments/ab_paced.py /tmp/old:. CASE 8 "" ""            # two checkouts' jars

The options go to the JVM through TENSORBUF_JAVA_OPTS; the jar of REPO is used as built. REPO may
name two checkouts, A's and B's, joined by ':' to compare two builds."""
import os
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "peers"))
from compare import Paced, in_turns  # noqa: E402

repos = sys.argv[1].split(":")
if len(repos) > 2:
    sys.exit("REPO: one checkout, or two joined by ':'")
roots = [pathlib.Path(repos[0]).resolve(), pathlib.Path(repos[-1]).resolve()]
case, rounds = sys.argv[2], int(sys.argv[3])
opts = sys.argv[4:6]


def start(root, java_opts):
    env = dict(os.environ, TENSORBUF_NO_BUILD="1", TENSORBUF_JAVA_OPTS=java_opts)
    p = Paced([str(root / "tensorbuf"), "bench", "--paced", "--threads", "2", "--case", case], env=env, cwd=root)
    p.line()
    return p


a, b = start(roots[0], opts[0]), start(roots[1], opts[1])
ra, rb, ratios = [], [], []
try:
    for r in range(rounds):
        sa, sb = in_turns(a, b, r)
        x, y = statistics.fmean(s["gbps"] for s in sa), statistics.fmean(s["gbps"] for s in sb)
        ra.append(x)
        rb.append(y)
        ratios.append(y / x)
finally:
    a.close()
    b.close()
print(case, "A", opts[0] or "-", round(statistics.median(ra), 1), "B", opts[1] or "-", round(statistics.median(rb), 1),
      "B/A median", round(statistics.median(ratios), 3), "range", round(min(ratios), 2), round(max(ratios), 2))
