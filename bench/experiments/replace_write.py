#!/usr/bin/env python3
"""What writing a 200 MB file costs, by the way the file is put in place, on the file system of
the folder given (bench/RESULTS.md, "Convert end to end"). Each way replaces a file that a rename
put there a moment before (as the previous round of convert_e2e.sh left it) and writes 98 pieces
of 2 MiB, as convert's stage does:

  part-trunc  a new .part file, reopened with O_TRUNC, renamed over the file (tensorbuf before 1023b2c3)
  part        a new .part file opened for writing alone, renamed over the file (tensorbuf now)
  numpy       the file itself opened with O_TRUNC, as np.save opens it
  in-place    the old file's own pages written over (not atomic: shown as the floor)
  fallocate   a new .part file with its space reserved first, renamed over the file

    python3 bench/experiments/replace_write.py DIR [ROUNDS=4]

Prints each way's total and its steps (open, write, close, rename) in ms, round by round, the ways
in turns. A second mode times NumPy's own steps of the main job in one process:

    python3 bench/experiments/replace_write.py DIR numpy     (needs DIR/x.npy, f32[64,256,56,56])
"""
import os
import sys
import time

PIECE = os.urandom(2 << 20)
PIECES = 98


def write_all(fd):
    for _ in range(PIECES):
        os.write(fd, PIECE)


def put_there(path):
    """The file as a rename leaves it, settled for half a second."""
    fd = os.open(path + ".prev", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    write_all(fd)
    os.close(fd)
    os.rename(path + ".prev", path)
    time.sleep(0.5)


def way(name, path):
    put_there(path)
    part = path + ".part"
    steps = []
    t = time.perf_counter()

    def step(label):
        nonlocal t
        now = time.perf_counter()
        steps.append((label, now - t))
        t = now

    if name in ("numpy", "in-place"):
        flags = os.O_WRONLY | (os.O_TRUNC if name == "numpy" else 0)
        fd = os.open(path, flags)
        step("open")
        write_all(fd)
        step("write")
        os.close(fd)
        step("close")
        return steps
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    if name == "part-trunc":
        os.close(fd)
        fd = os.open(part, os.O_WRONLY | os.O_TRUNC)
    elif name == "fallocate":
        os.posix_fallocate(fd, 0, PIECES * len(PIECE))
    step("open")
    write_all(fd)
    step("write")
    os.close(fd)
    step("close")
    os.rename(part, path)
    step("rename")
    return steps


def numpy_steps(folder):
    t0 = time.perf_counter()
    import numpy as np
    t1 = time.perf_counter()
    x = np.load(os.path.join(folder, "x.npy"))
    t2 = time.perf_counter()
    y = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    t3 = time.perf_counter()
    np.save(os.path.join(folder, "z.npy"), y)
    t4 = time.perf_counter()
    print(f"import {1e3 * (t1 - t0):.0f} ms, load {1e3 * (t2 - t1):.0f}, transpose {1e3 * (t3 - t2):.0f},"
          f" save {1e3 * (t4 - t3):.0f}")


def main():
    folder = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "numpy":
        numpy_steps(folder)
        return
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    path = os.path.join(folder, "replace_write.bin")
    try:
        for r in range(rounds):
            for name in ("part-trunc", "part", "numpy", "in-place", "fallocate"):
                steps = way(name, path)
                total = sum(s for _, s in steps)
                print(f"round {r} {name:10s} {1e3 * total:6.1f} ms: "
                      + ", ".join(f"{label} {1e3 * s:.1f}" for label, s in steps))
    finally:
        for p in (path, path + ".part", path + ".prev"):
            if os.path.exists(p):
                os.remove(p)


if __name__ == "__main__":
    main()
