#!/usr/bin/env python3
"""A/B of two JVM option sets on one copy case: two `tensorbuf bench --paced` processes, warmed up
side by side, sampled A B B A (B A A B on odd rounds) as compare.py pairs tensorbuf with its peers.
Prints each side's median GB/s and the median and range of the per-round ratio B/A.

    python3 bench/experiments/ab_paced.py REPO CASE ROUNDS "A_OPTS" "B_OPTS"
    python3 bench/experiments/ab_paced.py . f32_4096x4096_to_T8x128 8 "" ""   # A/A: the noise floor

The options go to the JVM through TENSORBUF_JAVA_OPTS; the jar of REPO is used as built."""
import json
import os
import statistics
import subprocess
import sys

root, case, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
opts = sys.argv[4:6]


def start(o):
    env = dict(os.environ, TENSORBUF_NO_BUILD="1", TENSORBUF_JAVA_OPTS=o)
    p = subprocess.Popen([os.path.join(root, "tensorbuf"), "bench", "--paced", "--threads", "2", "--case", case],
                         cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, env=env)
    json.loads(p.stdout.readline())
    return p


def sample(p):
    p.stdin.write("s\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())["gbps"]


a, b = start(opts[0]), start(opts[1])
ra, rb, ratios = [], [], []
for r in range(rounds):
    got = {a: [], b: []}
    for p in ([a, b, b, a] if r % 2 == 0 else [b, a, a, b]):
        got[p].append(sample(p))
    x, y = statistics.fmean(got[a]), statistics.fmean(got[b])
    ra.append(x)
    rb.append(y)
    ratios.append(y / x)
for p in (a, b):
    p.stdin.close()
    p.wait()
print(case, "A", opts[0] or "-", round(statistics.median(ra), 1), "B", opts[1] or "-", round(statistics.median(rb), 1),
      "B/A median", round(statistics.median(ratios), 3), "range", round(min(ratios), 2), round(max(ratios), 2))
