#!/usr/bin/env python3
"""Runs `tensorbuf bench --paced` and `copy_peers.py --paced` in rounds and writes the per-case
medians (with min-max) into bench/RESULTS.md, section "## Copy engine", through copy_report.py.

Each round takes the cases one by one: both sides warm the case up in their own processes, then
take turns, A B B A (B A A B in odd rounds), each sample about 0.25 s. On a small shared VM the
memory bandwidth swings by up to 2x within seconds, and a comparison should not depend on which
side ran in the better moment. Each round's raw JSON is kept in bench/peers/rounds/.

Usage (from the repository root, after `mvn -B -q -pl cli -am package -DskipTests`):
    python3 bench/peers/compare.py [--rounds N] [--notes notes.md] [--case NAME]...
To rewrite the section from the last run's medians without measuring again:
    python3 bench/peers/copy_report.py bench/peers/last-tensorbuf.json bench/peers/last-peers.json bench/peers/copy-notes.md
or from its rounds (kept in bench/peers/rounds/, not committed):
    python3 bench/peers/compare.py --rounds N --from-rounds
"""
import argparse
import importlib.util
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def loadavg():
    try:
        return float(pathlib.Path("/proc/loadavg").read_text().split()[0])
    except OSError:
        return float("nan")


# The jar is built (if stale) once, by case_names(); every later run uses it as it is, so an edit
# made during a run cannot rebuild it between cases.
NO_BUILD = dict(os.environ, TENSORBUF_NO_BUILD="1")


class Paced:
    """A `--paced` benchmark process: warmed up on one case, one sample per request."""

    def __init__(self, cmd, env=None, cwd=ROOT):
        self.cmd = cmd
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env=env or NO_BUILD)

    def line(self):
        text = self.proc.stdout.readline()
        if not text:
            self.proc.wait()
            self.err.seek(0)
            raise RuntimeError(f"{' '.join(map(str, self.cmd))} ended (exit {self.proc.returncode}): {self.err.read()}")
        return json.loads(text)

    def sample(self):
        self.proc.stdin.write("sample\n")
        self.proc.stdin.flush()
        return self.line()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        self.err.close()


def mean_of(samples, keys):
    """samples[0] with each of `keys` replaced by its mean over the samples."""
    out = dict(samples[0])
    for key in keys:
        values = [s[key] for s in samples if s.get(key) is not None]
        if values:
            out[key] = statistics.fmean(values)
    return out


def in_turns(a, b, round_index):
    """Two samples of each of two warmed-up Paced processes, A B B A (B A A B on odd rounds), so a
    drift of the host during the round falls on both alike. Returns (a's samples, b's samples)."""
    got = {a: [], b: []}
    for side in ([a, b, b, a] if round_index % 2 == 0 else [b, a, a, b]):
        got[side].append(side.sample())
    return got[a], got[b]


def measure_case(name, round_index):
    """One round of one case: both sides warmed up in their own processes, then sampled in turn,
    A B B A (B A A B on odd rounds), each sample a fraction of a second after the other. The host's
    memory bandwidth swings by up to 2x within seconds; samples taken seconds apart, in a fixed
    order, made some rows' verdicts depend on which side ran in the better moment. Returns the
    round's (tensorbuf, peers) JSON for this case, each side the mean of its two samples."""
    ours = Paced([str(ROOT / "tensorbuf"), "bench", "--paced", "--threads", "2", "--case", name])
    peers = Paced([sys.executable, str(HERE / "copy_peers.py"), "--paced", "--case", name])
    try:
        ours_ready, peers_ready = ours.line(), peers.line()
        ours_samples, peer_samples = in_turns(ours, peers, round_index)
    finally:
        ours.close()
        peers.close()
    o = {"threads": ours_ready["threads"], "vector_kernels": ours_ready["vector_kernels"],
         "cases": [mean_of(ours_samples, ["gbps", "copy_gbps", "ratio_to_copy", "seconds"])]}
    p = {"numpy": peers_ready["numpy"], "torch": peers_ready["torch"],
         "cases": [mean_of(peer_samples, ["numpy_gbps", "torch_gbps"])]}
    return o, p


def case_names():
    """The engine's case names, from `tensorbuf bench --help`."""
    out = subprocess.run([str(ROOT / "tensorbuf"), "bench", "--help"], cwd=ROOT, capture_output=True, text=True).stdout
    listed = out[out.index("names: [") + len("names: ["):]
    return [n.strip() for n in listed[:listed.index("]")].split(",")]


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--notes", default=str(HERE / "copy-notes.md"),
                    help="text placed under the table (default: bench/peers/copy-notes.md)")
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--from-rounds", action="store_true",
                    help="measure nothing: rebuild the report from the --rounds files already in bench/peers/rounds/")
    args = ap.parse_args()
    rounds_dir = HERE / "rounds"
    rounds_dir.mkdir(exist_ok=True)
    ours_rounds, peer_rounds, loads = [], [], [loadavg()]
    if args.from_rounds:
        for r in range(args.rounds):
            ours_rounds.append(json.loads((rounds_dir / f"tensorbuf-{r}.json").read_text()))
            peer_rounds.append(json.loads((rounds_dir / f"peers-{r}.json").read_text()))
        loads = [x for o in ours_rounds for x in o.get("load_average_at_end", [])] or None
    names = [] if args.from_rounds else (args.case or case_names())
    if names and importlib.util.find_spec("torch") is None:
        # copy_peers.py runs under this interpreter; without torch its rows silently lose a peer.
        print(f"compare.py: PyTorch is not importable by {sys.executable}: the PyTorch column stays empty"
              " (install torch==2.13.0+cpu as .ci/run does, or run this with that venv's python3)", file=sys.stderr)
    for r in range(0 if args.from_rounds else args.rounds):
        ours = None
        peers = None
        for name in names:
            o, p = measure_case(name, r)
            if ours is None:
                ours, peers = o, p
            else:
                ours["cases"] += o["cases"]
                peers["cases"] += p["cases"]
        loads.append(loadavg())
        ours["load_average_at_end"] = [loads[-2], loads[-1]]
        (rounds_dir / f"tensorbuf-{r}.json").write_text(json.dumps(ours, indent=1) + "\n")
        (rounds_dir / f"peers-{r}.json").write_text(json.dumps(peers, indent=1) + "\n")
        ours_rounds.append(ours)
        peer_rounds.append(peers)
        print(f"round {r + 1}/{args.rounds} done, load average {loads[-1]}", file=sys.stderr)
    merged_ours = dict(ours_rounds[0])
    merged_ours["cases"] = []
    for c in ours_rounds[0]["cases"]:
        runs = [next(x for x in o["cases"] if x["name"] == c["name"]) for o in ours_rounds]
        m = {"name": c["name"], "bytes": c["bytes"]}
        if "copy_threads" in c:
            m["copy_threads"] = c["copy_threads"]
        for key in ("gbps", "copy_gbps", "ratio_to_copy"):
            s = spread([x[key] for x in runs])
            m[key] = s["median"]
            m[key + "_range"] = [s["min"], s["max"]]
        # Each round's ratio to the faster peer, from the two sides sampled in turns: the spread
        # says how much of a row's verdict is the host's weather.
        paired = []
        for o, p in zip(ours_rounds, peer_rounds):
            ours_case = next(x for x in o["cases"] if x["name"] == c["name"])
            peer_case = next((x for x in p["cases"] if x["name"] == c["name"]), {})
            best = max([v for v in (peer_case.get("numpy_gbps"), peer_case.get("torch_gbps")) if v] or [0])
            if best:
                paired.append(ours_case["gbps"] / best)
        if paired:
            m["vs_peer_by_round"] = paired
        merged_ours["cases"].append(m)
    merged_ours["rounds"] = args.rounds
    merged_ours["load_average"] = [min(loads), max(loads)] if loads else None
    merged_peers = dict(peer_rounds[0])
    merged_peers["cases"] = []
    wanted = {c["name"] for c in merged_ours["cases"]}
    for c in peer_rounds[0]["cases"]:
        if c["name"] not in wanted:
            continue
        runs = [next(x for x in p["cases"] if x["name"] == c["name"]) for p in peer_rounds]
        m = {"name": c["name"], "bytes": c["bytes"]}
        for key in ("numpy_gbps", "torch_gbps"):
            vals = [x[key] for x in runs if x.get(key) is not None]
            if vals:
                s = spread(vals)
                m[key] = round(s["median"], 3)
                m[key + "_range"] = [s["min"], s["max"]]
        merged_peers["cases"].append(m)
    (HERE / "last-tensorbuf.json").write_text(json.dumps(merged_ours) + "\n")
    (HERE / "last-peers.json").write_text(json.dumps(merged_peers) + "\n")
    report = [sys.executable, str(HERE / "copy_report.py"), str(HERE / "last-tensorbuf.json"),
              str(HERE / "last-peers.json")] + ([args.notes] if args.notes else [])
    subprocess.run(report, cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
