#!/usr/bin/env python3
"""Where replacing a 200 MB file by a rename goes, on the file system of the folder given
(bench/RESULTS.md, "Convert end to end"): the rename itself against the old file's removal.
Each case writes a new 200 MB .part with one write() and then, 3 times each:

  rename-over-tiny     renames it over a 1-byte file: the new file's delayed blocks are allocated
                       and submitted in the renaming thread (ext4's auto_da_alloc)
  srf-then-rename      sync_file_range(WRITE) on the .part first, then the rename over a synced 200 MB file
  unlink-synced        unlinks a synced 200 MB old file, then renames over nothing
  unlink-dropped       the same, the old file's cached pages dropped first (fadvise DONTNEED)
  unlink-recent        the same, the old file written 0.3 s before (still being written back)

    python3 bench/experiments/rename_cost.py DIR
"""
import ctypes
import os
import sys
import time

LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
DATA = os.urandom(1 << 20) * 196


def write(path, data=DATA):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, data)
    os.close(fd)


def timed(label, action):
    t0 = time.perf_counter()
    action()
    print(f"{label:22s} {1e3 * (time.perf_counter() - t0):7.1f} ms", flush=True)


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def submit(path):
    fd = os.open(path, os.O_WRONLY)
    LIBC.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), 2)  # SYNC_FILE_RANGE_WRITE
    os.close(fd)


def main(folder):
    old, part = os.path.join(folder, "old.npy"), os.path.join(folder, "new.part")
    for _ in range(3):
        write(old, b"x")
        os.sync()
        write(part)
        timed("rename-over-tiny", lambda: os.rename(part, old))
    for _ in range(3):
        write(old)
        os.sync()
        write(part)
        timed("srf", lambda: submit(part))
        timed("srf-then-rename", lambda: os.rename(part, old))
    for case in ("unlink-synced", "unlink-dropped", "unlink-recent"):
        for _ in range(3):
            write(old)
            if case == "unlink-recent":
                time.sleep(0.3)
            else:
                os.sync()
            if case == "unlink-dropped":
                drop(old)
            write(part)
            timed(case, lambda: os.unlink(old))
            timed("rename-over-nothing", lambda: os.rename(part, old))
    os.unlink(old)


if __name__ == "__main__":
    main(sys.argv[1])
