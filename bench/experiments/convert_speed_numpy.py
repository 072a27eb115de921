"""NumPy's and ml_dtypes' side of ConvSpeed.java: np.copyto(out, x, casting='unsafe') into a
preallocated array, 16M elements, best of 5, ns an element. Same DATA modes (zero, normal, random) and pairs.

python3 bench/experiments/convert_speed_numpy.py [DATA] [PAIRS]
"""
import sys
import time
import warnings

import ml_dtypes
import numpy as np

NAMES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64, "u8": np.uint8,
         "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "f32": np.float32,
         "f64": np.float64, "c64": np.complex64, "c128": np.complex128, "bf16": ml_dtypes.bfloat16,
         "f8e4m3fn": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}
n = 4096 * 4096
data = sys.argv[1] if len(sys.argv) > 1 else "zero"
pairs = sys.argv[2] if len(sys.argv) > 2 else ("f64>f32,f32>f64,s32>f32,f32>s32,s64>f64,u8>f32,f32>bf16,c64>c128,"
        "f32>f32,s16>s32,bf16>f32,f32>f16,f16>f32,f16>bf16,bf16>f16,f32>f8e4m3fn,bf16>f8e4m3fn,f8e4m3fn>bf16,"
        "f8e5m2>f32,f64>bf16,f64>f16,pred>f32,f32>pred")
warnings.simplefilter("ignore")
rng = np.random.default_rng(1)
for pair in pairs.split(","):
    a, b = (NAMES[t] for t in pair.split(">"))
    if data == "random":
        x = rng.integers(0, 256, size=n * np.dtype(a).itemsize, dtype=np.uint8).view(a)
    elif data == "normal":
        g = rng.standard_normal(n)
        if np.dtype(a).kind in "fcV":
            x = (g * 0.05).astype(a)
        else:  # integers: small whole numbers every integer type holds
            x = np.mod(np.rint(g * 100), 2 if a is np.bool_ else 100).astype(a)
    else:
        x = np.zeros(n, dtype=a)
    y = np.empty(n, dtype=b)
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        np.copyto(y, x, casting="unsafe")
        best = min(best, time.perf_counter() - t)
    print(f"{pair.replace('>', ' -> ')}: {best * 1e9 / n:.2f} ns/element")
