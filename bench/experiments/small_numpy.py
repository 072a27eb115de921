"""NumPy's per-call time for the cases of Small.java that NumPy can do with one call into
preallocated outputs (the view made per call, as Small.java's "view(op per call)").

Usage: python3 bench/experiments/small_numpy.py [warmupSeconds] [sampleMs] [samples]
Output: one line per case, "case size variant us_median us_min", as Small.java prints.
"""
import math
import sys
import time

import ml_dtypes
import numpy as np

warm_s = float(sys.argv[1]) if len(sys.argv) > 1 else 0.6
sample_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 60
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 5


def label(s):
    return f"{s >> 20}MiB" if s >= 1 << 20 else f"{s >> 10}KiB" if s >= 1024 else f"{s}B"


def time_case(name, size, variant, fn):
    end = time.perf_counter() + warm_s
    calls = 0
    while time.perf_counter() < end:
        fn()
        calls += 1
    per_call = warm_s / calls
    iters = max(1, int(sample_ms / 1e3 / per_call))
    us = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        us.append((time.perf_counter() - t0) * 1e6 / iters)
    us.sort()
    print(f"{name:<14} {label(size):<7} {variant:<22} {us[samples // 2]:10.3f} {us[0]:10.3f}", flush=True)


def two_d(n):
    # Small.java's twoD: rows ~ sqrt(n), a power of two dividing n
    r = 1
    while r * r * 4 <= n:
        r *= 2
    while n % r:
        r //= 2
    return r, n // r


print(f"# numpy {np.__version__}")
for size in (64, 1024, 16 << 10):
    n = size // 4
    r, c = two_d(n)
    s = np.arange(n, dtype=np.float32).reshape(r, c)
    d = np.empty((c, r), np.float32)
    time_case("transpose2d", size, "copyto(s.T)", lambda: np.copyto(d, s.T))
    h = int(math.isqrt(n // 4))
    x = np.arange(4 * h * h, dtype=np.float32).reshape(1, 4, h, h)
    y = np.empty((1, h, h, 4), np.float32)
    time_case("nchw2nhwc", size, "copyto(transpose)", lambda: np.copyto(y, x.transpose(0, 2, 3, 1)))
    f = np.arange(n, dtype=np.float32)
    b = np.empty(n, ml_dtypes.bfloat16)
    time_case("f32->bf16", size, "copyto(unsafe)", lambda: np.copyto(b, f, casting="unsafe"))
    hp = max(1, int(math.isqrt(size // 12)))
    px = np.arange(hp * hp * 3, dtype=np.uint8).reshape(1, hp, hp, 3)
    out = np.empty((1, 3, hp, hp), np.float32)
    scale = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], np.float32).reshape(3, 1, 1)
    bias = np.array([-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375], np.float32).reshape(3, 1, 1)

    def stage():
        np.multiply(px.transpose(0, 3, 1, 2), scale, out=out)
        np.add(out, bias, out=out)

    time_case("u8nhwc->f32nchw", size, "multiply+add", stage)
