#!/usr/bin/env python3
"""The copy engine's benchmark cases in NumPy 2.x (one thread: its copies do not use more) and
PyTorch 2.x (CPU, 2 threads), each writing into a preallocated `out`; where a case can be written
several ways, each is timed and the fastest reported (with "<lib>_expression"). Prints {"cases": [{"name", "bytes", "numpy_gbps", "torch_gbps"}]}.
GB/s counts bytes read + bytes written, as `tensorbuf bench` does. bf16 in NumPy is moved as
uint16 (same bytes; NumPy has no bfloat16); the f32 -> bf16 case converts to ml_dtypes.bfloat16 and
has no NumPy figure when ml_dtypes is not importable. Usage: python3 copy_peers.py [--quick] [--case NAME]... > peers.json
   or: python3 copy_peers.py --paced --case NAME   (JSON lines, one sample per line of standard input)
"""
import json
import os
import sys
import time

# Huge pages for every side: NumPy advises them for arrays from 4 MiB on its own, tensorbuf bench
# takes its buffers from HugePageAllocator, and PyTorch does the same when this is set before it
# loads (its CPU allocator reads it).
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")

import numpy as np

try:
    import ml_dtypes  # NumPy's bfloat16; without it the f32 -> bf16 case has no NumPy figure
except ImportError:
    ml_dtypes = None

try:
    import torch
    torch.set_num_threads(2)
except ImportError:  # NumPy-only results; the report says so
    torch = None

QUICK = "--quick" in sys.argv
# --case NAME (repeatable): time only these cases
ONLY = {sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--case"}
# --paced: one sample of the one --case per line of standard input (see paced())
PACED = "--paced" in sys.argv
REPS = 5 if QUICK else 15
# ... and at least this many seconds of them, as `tensorbuf bench` does: 15 repetitions of the 8 MB
# case last 2 ms, and one scheduler hiccup then moves the median of the whole sample.
SAMPLE_SECONDS = 0.05 if QUICK else 0.25


def warm(fn):
    for _ in range(3):
        fn()


# As `tensorbuf bench`: a block is at least 3 calls and 20 ms, its first call not counted.
BLOCK_REPS, BLOCK_SECONDS = 3, 0.02
# lib: (bytes, its baseline copy), for the current case (see baseline()).
BASELINES = {}


def baseline(lib, nbytes):
    """A copy of nbytes / 2 bytes between two buffers of the library's own: what `tensorbuf bench`
    runs between its blocks of a case (`MemorySegment.copy` of the same bytes)."""
    if BASELINES.get(lib, (None,))[0] != nbytes:
        BASELINES.pop(lib, None)
        half = nbytes // 2
        if lib == "numpy":
            a, b = np.ones(half, np.uint8), np.zeros(half, np.uint8)
            BASELINES[lib] = nbytes, lambda: np.copyto(b, a)
        else:
            a, b = torch.ones(half, dtype=torch.uint8), torch.zeros(half, dtype=torch.uint8)
            BASELINES[lib] = nbytes, lambda: b.copy_(a)
    return BASELINES[lib][1]


def block(fn, ts):
    start = time.perf_counter()
    i = 0
    while i < BLOCK_REPS or time.perf_counter() - start < BLOCK_SECONDS:
        t0 = time.perf_counter()
        fn()
        if i > 0:
            ts.append(time.perf_counter() - t0)
        i += 1


def sample(fn, base):
    """The median seconds of at least REPS counted calls and SAMPLE_SECONDS of them, in blocks that
    alternate with blocks of `base`, as `tensorbuf bench` alternates a case with its baseline copy.
    Timed back to back instead, a case repeated over the same arrays finds part of them still in a
    large last-level cache: on the 2-core Intel Xeon VM (model 167) PyTorch's f32 -> T(8,128) took
    4.0-4.5 ms back to back and 5.4-5.6 after a block of copies, as the engine's 3.9-4.5 and 5.5-6.0
    (bench/experiments/after_copies.py, AfterCopies.java)."""
    ts = []
    start = time.perf_counter()
    while len(ts) < REPS or time.perf_counter() - start < SAMPLE_SECONDS:
        block(base, [])
        block(fn, ts)
    ts.sort()
    return ts[len(ts) // 2]


def figures(name, nbytes, by_lib):
    """{"name", "bytes", "<lib>_gbps", "<lib>_expression"} from one sample of each expression of
    each library ({lib: {label: fn}}): the fastest expression is the library's figure."""
    r = {"name": name, "bytes": nbytes}
    for lib, fns in by_lib.items():
        base = baseline(lib, nbytes)
        timings = {label: sample(fn, base) for label, fn in fns.items()}
        label = min(timings, key=timings.get)
        r[lib + "_gbps"] = round(nbytes / timings[label] / 1e9, 3)
        if len(fns) > 1:
            r[lib + "_expression"] = label
    return r


def cases(lib, want):
    """Yields (name, bytes, {label: fn}) for the cases `want` accepts, inputs and outputs
    preallocated (touched by the warm-up calls). Where one expression is not the library's fastest
    way to do the work, several are given and the fastest is reported: a slow peer would flatter us."""
    if lib == "numpy":
        zeros, rand = np.zeros, lambda shape, dt: np.ones(shape, dtype=dt)
        f32, u16, u8 = np.float32, np.uint16, np.uint8
        def copy(out, src):
            np.copyto(out, src)
        perm = lambda a, p: a.transpose(p)
    else:
        zeros = lambda shape, dt: torch.zeros(shape, dtype=dt)
        rand = lambda shape, dt: torch.ones(shape, dtype=dt)
        f32, u16, u8 = torch.float32, torch.bfloat16, torch.uint8
        def copy(out, src):
            out.copy_(src)
        perm = lambda a, p: a.permute(p)

    n, c, h, w = 32, 64, 112, 112
    big = n * c * h * w * 4 * 2
    if want("nchw_to_nhwc_f32_32x64x112x112"):
        a = rand((n, c, h, w), f32)
        out = zeros((n, h, w, c), f32)
        yield "nchw_to_nhwc_f32_32x64x112x112", big, {"permute": lambda: copy(out, perm(a, (0, 2, 3, 1)))}
    if want("nhwc_to_nchw_f32_32x64x112x112"):
        a2 = rand((n, h, w, c), f32)
        out2 = zeros((n, c, h, w), f32)
        yield "nhwc_to_nchw_f32_32x64x112x112", big, {"permute": lambda: copy(out2, perm(a2, (0, 3, 1, 2)))}
    if want("nchw_to_nhwc_f32_1x3x224x224"):
        s = rand((1, 3, 224, 224), f32)
        so = zeros((1, 224, 224, 3), f32)

        def planes_in():
            for k in range(3):
                copy(so[0, :, :, k], s[0, k])
        yield "nchw_to_nhwc_f32_1x3x224x224", 3 * 224 * 224 * 8, \
            {"permute": lambda: copy(so, perm(s, (0, 2, 3, 1))), "per plane": planes_in}
    if want("nhwc_to_nchw_f32_1x3x224x224"):
        s2 = rand((1, 224, 224, 3), f32)
        so2 = zeros((1, 3, 224, 224), f32)

        def planes_out():
            for k in range(3):
                copy(so2[0, k], s2[0, :, :, k])
        yield "nhwc_to_nchw_f32_1x3x224x224", 3 * 224 * 224 * 8, \
            {"permute": lambda: copy(so2, perm(s2, (0, 3, 1, 2))), "per plane": planes_out}
    if want("f32_4096x4096_to_T8x128"):
        m = rand((4096, 4096), f32)
        t = zeros((512, 32, 8, 128), f32)
        yield "f32_4096x4096_to_T8x128", 4096 * 4096 * 8, \
            {"permute": lambda: copy(t, perm(m.reshape(512, 8, 32, 128), (0, 2, 1, 3)))}
    if want("f32_T8x128_to_4096x4096"):
        t2 = rand((512, 32, 8, 128), f32)
        m2 = zeros((4096, 4096), f32)
        yield "f32_T8x128_to_4096x4096", 4096 * 4096 * 8, \
            {"permute": lambda: copy(m2.reshape(512, 8, 32, 128), perm(t2, (0, 2, 1, 3)))}
    if want("bf16_4096x4096_to_T8x128_2x1"):
        b = rand((4096, 4096), u16)
        bt = zeros((512, 32, 4, 128, 2), u16)
        src = b.reshape(512, 4, 2, 32, 128)

        def pair_rows():
            # One copy per row of each (2,1) pair: the innermost loop runs over 128, not over 2.
            for k in range(2):
                copy(bt[..., k], perm(src[:, :, k], (0, 2, 1, 3)))
        yield "bf16_4096x4096_to_T8x128_2x1", 4096 * 4096 * 4, \
            {"permute": lambda: copy(bt, perm(src, (0, 3, 1, 4, 2))), "per pair row": pair_rows}
    # f32 -> bf16 converted and (2,1)-packed in one pass: copy_/copyto convert while they permute.
    if lib == "torch" or ml_dtypes is not None:
        bf16 = torch.bfloat16 if lib == "torch" else ml_dtypes.bfloat16
        if want("f32_4096x4096_to_bf16_T8x128_2x1"):
            fm = rand((4096, 4096), f32)
            fbt = zeros((512, 32, 4, 128, 2), bf16)
            fview = perm(fm.reshape(512, 4, 2, 32, 128), (0, 3, 1, 4, 2))
            yield "f32_4096x4096_to_bf16_T8x128_2x1", 4096 * 4096 * 6, \
                {"permute": (lambda: fbt.copy_(fview)) if lib == "torch"
                 else (lambda: np.copyto(fbt, fview, casting="unsafe"))}
        if want("bf16_T8x128_2x1_to_f32_4096x4096"):
            # and back: unpacked and widened to f32 in one pass.
            pbt = rand((512, 32, 4, 128, 2), bf16)
            fout = zeros((4096, 4096), f32)
            oview = perm(fout.reshape(512, 4, 2, 32, 128), (0, 3, 1, 4, 2))
            yield "bf16_T8x128_2x1_to_f32_4096x4096", 4096 * 4096 * 6, \
                {"permute": (lambda: oview.copy_(pbt)) if lib == "torch"
                 else (lambda: np.copyto(oview, pbt, casting="unsafe"))}
    if want("f32_1000x1000_to_T8x128_padded"):
        p = rand((1000, 1000), f32)
        pt = zeros((125, 8, 8, 128), f32)

        def padded():
            copy(pt[:, :7], perm(p[:, :896].reshape(125, 8, 7, 128), (0, 2, 1, 3)))
            copy(pt[:, 7, :, :104], p[:, 896:].reshape(125, 8, 104))
            pt[:, 7, :, 104:] = 0
        yield "f32_1000x1000_to_T8x128_padded", 1000 * 1000 * 4 + 1000 * 1024 * 4, {"permute": padded}
    if want("u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3"):
        img = rand((32, 224, 224, 3), u8)
        staged = zeros((32, 3, 224, 224), f32)
        if lib == "numpy":
            scale = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], dtype=np.float32).reshape(1, 3, 1, 1)
            bias = np.array([-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375], dtype=np.float32).reshape(1, 3, 1, 1)

            def stage():
                np.multiply(img.transpose(0, 3, 1, 2), scale, out=staged)
                np.add(staged, bias, out=staged)
        else:
            scale = torch.tensor([1 / 58.395, 1 / 57.12, 1 / 57.375]).reshape(1, 3, 1, 1)
            bias = torch.tensor([-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375]).reshape(1, 3, 1, 1)

            def stage():
                torch.addcmul(bias, img.permute(0, 3, 1, 2), scale, out=staged)
        yield "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3", 32 * 224 * 224 * 3 * 5, {"fused": stage}
    if want("broadcast_f32_1x64x1x1_to_32x64x112x112"):
        bb = rand((1, 64, 1, 1), f32)
        bo = zeros((n, c, h, w), f32)
        yield "broadcast_f32_1x64x1x1_to_32x64x112x112", n * c * h * w * 8, \
            {"broadcast": (lambda: np.copyto(bo, bb)) if lib == "numpy" else (lambda: bo.copy_(bb.expand(n, c, h, w)))}
    if want("slice_step2_f32_32x64x112x112"):
        whole = rand((n, c, h, w), f32)
        sl = zeros((n, c, 56, 56), f32)
        yield "slice_step2_f32_32x64x112x112", n * c * 56 * 56 * 8, {"slice": lambda: copy(sl, whole[:, :, ::2, ::2])}
    if want("f64_to_f32_4096x4096"):
        d64 = rand((4096, 4096), np.float64 if lib == "numpy" else torch.float64)
        d32 = zeros((4096, 4096), f32)
        yield "f64_to_f32_4096x4096", 4096 * 4096 * 12, \
            {"convert": (lambda: np.copyto(d32, d64, casting="same_kind")) if lib == "numpy" else (lambda: d32.copy_(d64))}


NAMES = ["nchw_to_nhwc_f32_32x64x112x112", "nhwc_to_nchw_f32_32x64x112x112", "nchw_to_nhwc_f32_1x3x224x224",
         "nhwc_to_nchw_f32_1x3x224x224", "f32_4096x4096_to_T8x128", "f32_T8x128_to_4096x4096",
         "bf16_4096x4096_to_T8x128_2x1", "f32_4096x4096_to_bf16_T8x128_2x1", "bf16_T8x128_2x1_to_f32_4096x4096",
         "f32_1000x1000_to_T8x128_padded", "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3",
         "broadcast_f32_1x64x1x1_to_32x64x112x112", "slice_step2_f32_32x64x112x112", "f64_to_f32_4096x4096"]


def main():
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__.strip())
        print("cases: " + ", ".join(NAMES))
        return
    unknown = sorted(ONLY - set(NAMES))
    if unknown:
        sys.exit(f"copy_peers.py: unknown case(s) {', '.join(unknown)}; cases: {', '.join(NAMES)}")
    want = lambda name: not ONLY or name in ONLY
    libs = ["numpy"] + (["torch"] if torch is not None else [])
    versions = {"numpy": np.__version__, "torch": torch.__version__ if torch is not None else None}
    if PACED:
        if len(ONLY) != 1:
            sys.exit(f"copy_peers.py: --paced times exactly one --case, got {len(ONLY)}")
        paced(libs, versions)
        return
    results = []
    for lib in libs:
        for name, nbytes, fns in cases(lib, want):
            for fn in fns.values():
                warm(fn)
            r = figures(name, nbytes, {lib: fns})
            known = next((x for x in results if x["name"] == name), None)
            if known is None:
                results.append(r)
            else:
                known.update(r)
    json.dump(dict(versions, cases=results), sys.stdout, indent=1)
    print()


def paced(libs, versions):
    """Warms the one case up in every library, prints {"numpy", "torch", "ready"}, then answers each
    line of standard input with one sample of it as a JSON line (compare.py interleaves these with
    `tensorbuf bench --paced`, so both sides are measured a fraction of a second apart)."""
    name = next(iter(ONLY))
    by_lib, nbytes = {}, None
    for lib in libs:
        for _, nbytes, fns in cases(lib, lambda n: n == name):
            for fn in fns.values():
                warm(fn)
            by_lib[lib] = fns
    if not by_lib:
        sys.exit(f"copy_peers.py: no library here can run {name}")
    print(json.dumps(dict(versions, ready=name)), flush=True)
    for _ in sys.stdin:
        print(json.dumps(figures(name, nbytes, by_lib)), flush=True)

if __name__ == "__main__":
    main()
