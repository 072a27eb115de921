"""Prints an HLO module of N alternating transposes and reshapes of f32[6,35] (RELIABILITY.md,
"Known gaps"): their maps nest floor divisions and modulos the simplifier cannot always undo.

    python3 bench/experiments/reshape_chain.py 360 > /tmp/chain.hlo
    python3 -c "import numpy as np; np.save('/tmp/a.npy', np.arange(210, dtype=np.float32).reshape(6, 35))"
    time ./tensorbuf run /tmp/chain.hlo --arg v0=/tmp/a.npy --out /tmp/o.npy
    python3 bench/experiments/reshape_chain.py 30 --fusion > /tmp/fused.hlo
    time ./tensorbuf indexing /tmp/fused.hlo --instruction f | wc -c
"""
import sys

n = int(sys.argv[1])
fusion = "--fusion" in sys.argv[2:]
shapes = [(6, 35), (10, 21), (14, 15), (5, 42), (7, 30)]
body = ["v0 = f32[6,35]{1,0} parameter(0)"]
rows, cols, k = 6, 35, 0
for i in range(n):
    if i % 2 == 0:
        rows, cols = cols, rows
        body.append(f"v{i + 1} = f32[{rows},{cols}]{{1,0}} transpose(v{i}), dimensions={{1,0}}")
    else:
        k += 1
        rows, cols = shapes[k % len(shapes)]
        body.append(f"v{i + 1} = f32[{rows},{cols}]{{1,0}} reshape(v{i})")
body[-1] = "ROOT " + body[-1]
out = f"f32[{rows},{cols}]{{1,0}}"
if fusion:
    print("HloModule m\n\nchain {\n  " + "\n  ".join(body) + "\n}\n\nENTRY e {\n  p = f32[6,35]{1,0} parameter(0)\n"
          f"  ROOT f = {out} fusion(p), kind=kLoop, calls=chain\n}}")
else:
    print("HloModule m\n\nENTRY e {\n  " + "\n  ".join(body) + "\n}")
