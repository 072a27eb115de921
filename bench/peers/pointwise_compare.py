#!/usr/bin/env python3
"""Image staging side by side: u8 NHWC [B,224,224,3] -> NCHW normalised per channel, into f32 and
bf16, as `tensorbuf run`'s executor does it in process (PointwiseRunBenchmark.main, the Execution
API writing each run into one result buffer kept across runs, as a staging loop does), as jax does it (jitted, warm, CPU) and as NumPy does it, on the same random pixels.

Rounds alternate the sides (tensorbuf, jax, NumPy; reversed in odd rounds) so that a shared
machine's slow moments fall on each; each side warms up in its own process first. Prints the
median per side and `uptime` before and after.

Usage (after `mvn -B -q -o -pl bench -am package -DskipTests`):
    python3 bench/peers/pointwise_compare.py [--batch 256] [--rounds 3] [--samples 3]
"""
import argparse
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
JAVA = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
MEAN = [123.7, 116.3, 103.5]
STD = [58.4, 57.1, 57.4]


def tensorbuf(out, batch, samples, warmup):
    cmd = [JAVA, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-cp",
           str(ROOT / "bench/target/benchmarks.jar"), "dev.tensorbuf.bench.PointwiseRunBenchmark", out, str(batch),
           str(warmup), str(samples)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [float(x) for x in r.stdout.split()]


def peers(out, batch, samples, warmup):
    import numpy as np
    import jax
    import jax.numpy as jnp
    import ml_dtypes
    x = np.random.default_rng(1).integers(0, 256, (batch, 224, 224, 3), dtype=np.uint8)
    mean = np.array(MEAN, np.float32)
    std = np.array(STD, np.float32)
    dt = jnp.float32 if out == "f32" else jnp.bfloat16
    f = jax.jit(lambda v: jnp.transpose(((v.astype(jnp.float32) - mean) / std).astype(dt), (0, 3, 1, 2)))
    xd = jax.device_put(x)
    npdt = np.float32 if out == "f32" else ml_dtypes.bfloat16

    def numpy_run():
        return np.ascontiguousarray(((x.astype(np.float32) - mean) / std).astype(npdt).transpose(0, 3, 1, 2))

    def jax_run():
        f(xd).block_until_ready()

    times = {"jax": [], "numpy": []}
    for name, fn in (("jax", jax_run), ("numpy", numpy_run)):
        for _ in range(warmup):
            fn()
        for _ in range(samples):
            t = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t) * 1e3)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=3)
    # Each side is timed at its own steady state: jax is after one compiled run, a JVM only once
    # C2 has compiled the pass (2 runs left most samples in C1 code, about 1.6x slower).
    ap.add_argument("--warmup", type=int, default=8)
    a = ap.parse_args()
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for out in ("f32", "bf16"):
        res = {"tensorbuf": [], "jax": [], "numpy": []}
        for k in range(a.rounds):
            order = [0, 1] if k % 2 == 0 else [1, 0]
            for side in order:
                if side == 0:
                    res["tensorbuf"] += tensorbuf(out, a.batch, a.samples, a.warmup)
                else:
                    p = peers(out, a.batch, a.samples, a.warmup)
                    res["jax"] += p["jax"]
                    res["numpy"] += p["numpy"]
        med = {k: statistics.median(v) for k, v in res.items()}
        print(f"u8 NHWC [{a.batch},224,224,3] -> {out} NCHW normalised: "
              + ", ".join(f"{k} {v:.1f} ms" for k, v in med.items())
              + f"; tensorbuf vs jax {med['jax'] / med['tensorbuf']:.2f}x, vs NumPy {med['numpy'] / med['tensorbuf']:.2f}x")
        sys.stdout.flush()
    print("uptime after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
