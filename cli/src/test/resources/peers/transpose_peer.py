"""NumPy's side of ConvertTransposeTest: tensorbuf convert --transpose against x.transpose(perm).

make DIR: writes the inputs: .npy files of several dtypes and ranks (bf16 as np.save writes
ml_dtypes.bfloat16, '<V2') and m.safetensors (conv weights OIHW, activations, a bias, token ids)
through the safetensors reference library.
check CASES.json: for each case {"in", "out", "perm", "tensors" (safetensors: the names reordered),
"dtype" (optional: the floating-point tensors converted to it)} loads IN as NumPy does, builds
np.ascontiguousarray(x.transpose(perm)) (astype'd to dtype if given) and compares dtype, shape and
bytes with OUT; a safetensors OUT must hold every tensor of IN, the others unchanged, and IN's
metadata. Prints one JSON line per case: {"case", "ok", "why"}.
"""
import json
import sys

import ml_dtypes
import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file


def make(d):
    rng = np.random.default_rng(37)
    x = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    x.flat[[0, 7, 11]] = [np.nan, -0.0, np.inf]
    np.save(f"{d}/f32_4d.npy", x)
    np.save(f"{d}/f64_3d.npy", rng.standard_normal((4, 5, 6)))
    np.save(f"{d}/i8_4d.npy", rng.integers(-128, 128, (2, 3, 4, 5), dtype=np.int8))
    np.save(f"{d}/u16_2d.npy", rng.integers(0, 65536, (7, 9), dtype=np.uint16))
    np.save(f"{d}/f16_5d.npy", rng.standard_normal((2, 3, 2, 4, 3)).astype(np.float16))
    np.save(f"{d}/bf16_4d.npy", rng.standard_normal((2, 3, 4, 5)).astype(ml_dtypes.bfloat16))
    save_file({
        "conv": rng.standard_normal((8, 3, 3, 3)).astype(np.float32),
        "act": rng.standard_normal((2, 4, 3, 5)).astype(np.float16),
        "emb": rng.standard_normal((2, 3, 4, 5)).astype(ml_dtypes.bfloat16),
        "bias": rng.standard_normal(8).astype(np.float32),
        "ids": np.arange(5, dtype=np.int64) * 1000,
    }, f"{d}/m.safetensors", metadata={"format": "np"})


def expected(x, perm, dtype):
    y = np.ascontiguousarray(x.transpose(perm)) if perm is not None else x
    if dtype is not None and (y.dtype.kind == "f" or y.dtype == ml_dtypes.bfloat16):
        y = y.astype(getattr(ml_dtypes, dtype) if dtype == "bfloat16" else np.dtype(dtype))
    return y


def same(got, want, what):
    if got.dtype != want.dtype:
        return f"{what}: dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"{what}: shape {got.shape}, expected {want.shape}"
    if got.tobytes() != want.tobytes():
        bad = int(np.argmax(got.view(np.uint8).ravel() != want.view(np.uint8).ravel()))
        return f"{what}: bytes differ from byte {bad}"
    return None


def check_npy(case):
    x = np.load(case["in"])
    got = np.load(case["out"])
    want = expected(x, case["perm"], case.get("dtype"))
    if got.dtype != want.dtype and got.dtype.kind == "V" and got.dtype.itemsize == want.dtype.itemsize:
        got = got.view(want.dtype)  # np.save of an ml_dtypes array writes a void descr
    return same(got, want, case["out"])


def check_safetensors(case):
    x = load_file(case["in"])
    got = load_file(case["out"])
    if list(got) != list(x) and sorted(got) != sorted(x):
        return f"tensors {sorted(got)}, expected {sorted(x)}"
    with safe_open(case["in"], "np") as f_in, safe_open(case["out"], "np") as f_out:
        if f_in.metadata() != f_out.metadata():
            return f"metadata {f_out.metadata()}, expected {f_in.metadata()}"
    for name, a in x.items():
        perm = case["perm"] if name in case["tensors"] else None
        why = same(got[name], expected(a, perm, case.get("dtype")), name)
        if why:
            return why
    return None


def check_single(case):
    """An .npy IN into a .safetensors OUT: one tensor, named after IN."""
    x = np.load(case["in"])
    if case.get("view"):
        x = x.view(getattr(ml_dtypes, case["view"]))
    got = load_file(case["out"])
    if list(got) != [case["name"]]:
        return f"tensors {list(got)}, expected [{case['name']}]"
    return same(got[case["name"]], expected(x, case["perm"], case.get("dtype")), case["name"])


def check(cases_file):
    with open(cases_file) as f:
        cases = json.load(f)
    for case in cases:
        try:
            if case["in"].endswith(".safetensors"):
                why = check_safetensors(case)
            elif case["out"].endswith(".safetensors"):
                why = check_single(case)
            else:
                why = check_npy(case)
        except Exception as e:  # a file NumPy cannot read is a failed case, not a crash of the peer
            why = f"{type(e).__name__}: {e}"
        print(json.dumps({"case": case["case"], "ok": why is None, "why": why}))


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
