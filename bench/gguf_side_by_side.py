"""gguf-py's side of GgufSideBySide: NumPy dequantize/quantize of tensors built as the Java harness
builds them (random block bytes, small finite f16 scales), one process, median of 5 runs after 1,
wall and CPU milliseconds. Arguments pick cases (TYPE to f32, TYPE:bf16, quantize; Q6_K alone is
Q6_K -> bf16); none runs Q8_0 Q4_0 Q4_K Q6_K quantize. RUNS=N in the environment times N runs.

  python bench/gguf_side_by_side.py [CASE...]
"""
import os
import sys
import time
import numpy as np
from gguf import GGMLQuantizationType as T, GGML_QUANT_SIZES
import gguf.quants as q

OUT = 256 << 20
SCALES = {"Q8_0": [0], "Q4_0": [0], "Q5_0": [0], "Q4_1": [0, 2], "Q5_1": [0, 2], "Q4_K": [0, 2], "Q5_K": [0, 2],
          "Q2_K": [80, 82], "Q3_K": [108], "Q6_K": [208], "MXFP4": []}
# Timed runs a case (after one untimed): RUNS=1 for the slow K-quants on a loaded machine.
RUNS = int(os.environ.get("RUNS", "5"))


CPU = {}


def median(f):
    f()
    times = []
    cpu = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        c0 = time.process_time()
        f()
        cpu.append((time.process_time() - c0) * 1000)
        times.append((time.perf_counter() - t0) * 1000)
    CPU["last"] = sorted(cpu)[RUNS // 2]
    return sorted(times)[RUNS // 2]


CASES = sys.argv[1:] or ["Q8_0", "Q4_0", "Q4_K", "Q6_K", "quantize"]


def blocks(name, values):
    block, size = GGML_QUANT_SIZES[T[name]]
    rng = np.random.default_rng(38)
    b = rng.integers(0, 256, size=(values // block, size), dtype=np.uint8)
    for at in SCALES[name]:
        b[:, at:at + 2] = (rng.random(values // block, dtype=np.float32) * 0.01).astype(np.float16).view(np.uint8).reshape(-1, 2)
    return b.reshape(1, -1)


for case in [c for c in CASES if c != "quantize"]:
    # TYPE (to f32) or TYPE:bf16; a bare Q6_K is Q6_K -> bf16, as before.
    name, to = case.split(":") if ":" in case else (case, "bf16" if case == "Q6_K" else "f32")
    values = OUT // (4 if to == "f32" else 2)
    b = blocks(name, values)
    # gguf-py dequantizes to f32; bf16 output is that, rounded (ml_dtypes), the way a converter would.
    if to == "f32":
        ms = median(lambda: q.dequantize(b, T[name]))
    else:
        import ml_dtypes
        ms = median(lambda: q.dequantize(b, T[name]).astype(ml_dtypes.bfloat16))
    print(f"{name:5} -> {to:4} {OUT >> 20} MiB out {ms:8.1f} ms {(OUT >> 20) / ms * 1000:6.0f} MiB/s of output;"
          f" CPU {CPU['last']:.1f} ms")
if "quantize" not in CASES:
    sys.exit(0)
x = np.random.default_rng(38).standard_normal(OUT // 4, dtype=np.float32).reshape(-1, 4096)
ms = median(lambda: q.quantize(x, T.Q8_0))
print(f"f32 -> Q8_0   {OUT >> 20} MiB in  {ms:8.1f} ms {(OUT >> 20) / ms * 1000:6.0f} MiB/s of input; CPU {CPU['last']:.1f} ms")
