"""A pyarrow.flight client for flight_speed.sh: fetches the whole tensor x.npy from a Flight server
REPS times (after one warm-up) into one preallocated NumPy array, the Python peer of TensorClient,
so that servers can be compared with the same client on both sides. Checks the values of the last
fetch against the harness's pattern (element i is i % 1000). Prints one line per fetch:
"SECONDS CPU_SECONDS" (this process's CPU time over the fetch).
Usage: flight_client.py PORT ROWS COLS REPS"""
import resource
import sys
import time

import numpy as np
import pyarrow.flight as fl

port, rows, cols, reps = (int(a) for a in sys.argv[1:5])
client = fl.connect(f"grpc://127.0.0.1:{port}")
ticket = fl.Ticket(b'{"path": "x.npy"}')
dst = np.empty((rows, cols), dtype=np.float32)


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def fetch():
    at = 0
    for chunk in client.do_get(ticket):
        column = chunk.data.column(0)
        # The batch's tensor column as an ndarray over Arrow's memory (no copy), then one copy into place.
        part = column.to_numpy_ndarray() if hasattr(column, "to_numpy_ndarray") else column.storage.flatten().to_numpy()
        n = len(column)
        dst[at:at + n] = part.reshape(n, cols)
        at += n
    if at != rows:
        raise SystemExit(f"fetched {at} of {rows} rows")


fetch()
for _ in range(reps):
    c0, t0 = cpu(), time.perf_counter()
    fetch()
    print(f"{time.perf_counter() - t0:.6f} {cpu() - c0:.6f}", flush=True)
want = (np.arange(rows * cols, dtype=np.int64) % 1000).astype(np.float32).reshape(rows, cols)
if not np.array_equal(dst, want):
    raise SystemExit("fetched values differ from the served tensor")
