#!/usr/bin/env python3
"""Joins `tensorbuf bench --json` and `copy_peers.py` output into bench/RESULTS.md, section
"## Copy engine" (replaced if present). Usage: copy_report.py tensorbuf.json peers.json [notes.md]"""
import json
import pathlib
import re
import subprocess
import sys

TARGETS = {  # case: (ratio to copy, factor vs the faster peer)
    "nchw_to_nhwc_f32_32x64x112x112": (0.55, 1.5), "nhwc_to_nchw_f32_32x64x112x112": (0.5, 2.0),
    "nchw_to_nhwc_f32_1x3x224x224": (None, 1.0), "nhwc_to_nchw_f32_1x3x224x224": (None, 1.0),
    "f32_4096x4096_to_T8x128": (0.6, 1.0), "f32_T8x128_to_4096x4096": (0.6, 1.0),
    "bf16_4096x4096_to_T8x128_2x1": (0.45, 2.0), "f32_1000x1000_to_T8x128_padded": (0.5, 1.0),
    "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3": (None, 1.5),
    "broadcast_f32_1x64x1x1_to_32x64x112x112": (None, 1.0), "slice_step2_f32_32x64x112x112": (None, 1.5),
}


def lscpu():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return "lscpu unavailable"
    keep = ("Architecture", "Model name", "CPU(s)", "Thread(s) per core", "L1d", "L2", "L3")
    return "; ".join(" ".join(l.split()) for l in out.splitlines() if l.split(":")[0].strip() in keep)


def main():
    ours = json.loads(pathlib.Path(sys.argv[1]).read_text())
    peers = json.loads(pathlib.Path(sys.argv[2]).read_text())
    notes = pathlib.Path(sys.argv[3]).read_text() if len(sys.argv) > 3 else ""
    by_name = {c["name"]: c for c in peers["cases"]}
    lines = ["## Copy engine", "",
             f"Machine: {lscpu()}. Shared with other jobs while measured (load average above 2 on 2 cores):",
             "absolute numbers are noisy; ratios are taken within one run. tensorbuf "
             f"{ours['threads']} threads, Vector API kernels {'on' if ours['vector_kernels'] else 'off'}; "
             f"NumPy {peers['numpy']}, PyTorch {peers['torch'] or 'not installed'} (2 threads). GB/s = bytes read + written.",
             "",
             "| case | tensorbuf GB/s | copy GB/s | ratio to copy (target) | NumPy GB/s | PyTorch GB/s | vs faster peer (target) | met |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in ours["cases"]:
        p = by_name.get(c["name"], {})
        np_, pt = p.get("numpy_gbps"), p.get("torch_gbps")
        best = max(v for v in (np_, pt, 0.0) if v is not None)
        vs = c["gbps"] / best if best else float("nan")
        tr, tp = TARGETS.get(c["name"], (None, None))
        ok = (tr is None or c["ratio_to_copy"] >= tr) and (tp is None or vs >= tp)
        lines.append(f"| {c['name']} | {c['gbps']:.1f} | {c['copy_gbps']:.1f} | {c['ratio_to_copy']:.2f} "
                     f"({'>= ' + str(tr) if tr else '-'}) | {np_ if np_ is not None else '-'} | "
                     f"{pt if pt is not None else '-'} | {vs:.2f}x (>= {tp}x) | {'yes' if ok else 'NO'} |")
    lines += ["", notes.strip(), ""]
    path = pathlib.Path(__file__).resolve().parent.parent / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    section = "\n".join(lines)
    if "## Copy engine" in text:
        text = re.sub(r"## Copy engine\n.*?(?=\n## |\Z)", section, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + section
    path.write_text(text.rstrip() + "\n")


if __name__ == "__main__":
    main()
