#!/usr/bin/env python3
"""Joins `tensorbuf bench --json` and `copy_peers.py` output into bench/RESULTS.md, section
"## Copy engine" (replaced if present). Usage: copy_report.py tensorbuf.json peers.json [notes.md]"""
import json
import math
import pathlib
import re
import statistics
import subprocess
import sys

TARGETS = {  # case: (ratio to copy, factor vs the faster peer)
    "nchw_to_nhwc_f32_32x64x112x112": (0.55, 1.5), "nhwc_to_nchw_f32_32x64x112x112": (0.5, 2.0),
    "nchw_to_nhwc_f32_1x3x224x224": (None, 1.0), "nhwc_to_nchw_f32_1x3x224x224": (None, 1.0),
    "f32_4096x4096_to_T8x128": (0.6, 1.2), "f32_T8x128_to_4096x4096": (0.6, 1.2),
    "bf16_4096x4096_to_T8x128_2x1": (0.45, 2.0), "f32_1000x1000_to_T8x128_padded": (0.5, 1.0),
    "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3": (None, 1.5),
    "broadcast_f32_1x64x1x1_to_32x64x112x112": (None, 1.2), "slice_step2_f32_32x64x112x112": (None, 1.5),
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
    rounds = ours.get("rounds", 1)
    load = ours.get("load_average")
    load_text = f"load average {load[0]:.1f}-{load[1]:.1f} on 2 cores" if load else "load average not recorded"
    lines = ["## Copy engine", "",
             f"Machine: {lscpu()}. {load_text}. Each figure is the median of {rounds} "
             "round(s) of tensorbuf and the peers (min-max in brackets where there were several);",
             "ratios to copy are taken within each tensorbuf run, against `MemorySegment.copy` of the same bytes on "
             "as many threads as tensorbuf ran the case on (2, or 1 for the cases under 4 MiB)"
             + ("" if all("copy_threads" in c for c in ours["cases"]) else
                " [this run predates that: its copy ran on one thread]") + ". tensorbuf "
             f"{ours['threads']} threads (copies under 4 MiB, the 1x3x224x224 cases, run on the calling thread alone), "
             f"Vector API kernels {'on' if ours['vector_kernels'] else 'off'}; "
             f"NumPy {peers['numpy']} (one thread: its copies use no more), PyTorch {peers['torch'] or 'not installed'} "
             "(2 threads); where a peer can do a case several ways, each is timed and its fastest counts. "
             "GB/s = bytes read + written.",
             "",
             "\"vs faster peer\" is the median over the rounds of each round's ratio; in a round both sides",
             "warm the case up in their own processes and then take turns, A B B A, about 0.25 s a sample",
             "(the range is those ratios). The verdict is taken on it. Ratios are cut, not rounded, to two decimals.",
             "",
             "| case | tensorbuf GB/s | copy GB/s | ratio to copy (target) | NumPy GB/s | PyTorch GB/s | vs faster peer (target) | met |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    def cell(value, rng, digits=1):
        if value is None:
            return "-"
        if not rng or rng[0] == rng[1]:
            return f"{value:.{digits}f}"
        return f"{value:.{digits}f} ({rng[0]:.{digits}f}-{rng[1]:.{digits}f})"

    def cut(ratio):
        # Cut, so that a ratio printed as the target never hides a miss (0.998 is 0.99x, not 1.00x).
        return f"{math.floor(ratio * 100) / 100:.2f}" if ratio == ratio else "nan"

    def ratio_cell(value, rng):
        if not rng or rng[0] == rng[1]:
            return cut(value)
        return f"{cut(value)} ({cut(rng[0])}-{cut(rng[1])})"

    for c in ours["cases"]:
        p = by_name.get(c["name"], {})
        np_, pt = p.get("numpy_gbps"), p.get("torch_gbps")
        best = max(v for v in (np_, pt, 0.0) if v is not None)
        vs = c["gbps"] / best if best else float("nan")
        tr, tp = TARGETS.get(c["name"], (None, None))
        by_round = c.get("vs_peer_by_round")
        if by_round and len(by_round) > 1:
            # Paired within each round, so a swing of the host's bandwidth between rounds cancels;
            # a ratio of the two sides' medians would pair figures from different moments.
            vs = statistics.median(by_round)
        ok = (tr is None or c["ratio_to_copy"] >= tr) and (tp is None or vs >= tp)
        met = "yes" if ok else "NO"
        if tr is None and tp is None:
            met = "(no target)"
        vs_text = f"{cut(vs)}x" + (f" ({cut(min(by_round))}-{cut(max(by_round))} by round)" if by_round and len(by_round) > 1 else "")
        lines.append(f"| {c['name']} | {cell(c['gbps'], c.get('gbps_range'))} | {c['copy_gbps']:.1f} | "
                     f"{ratio_cell(c['ratio_to_copy'], c.get('ratio_to_copy_range'))} "
                     f"({'>= ' + str(tr) if tr else '-'}) | {cell(np_, p.get('numpy_gbps_range'))} | "
                     f"{cell(pt, p.get('torch_gbps_range'))} | {vs_text} ({'>= ' + str(tp) + 'x' if tp else '-'}) | {met} |")
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
