"""NumPy's slices of a global array, for the boxes tensorbuf says each device holds.

Usage: python numpy_shard_slices.py DIR. Reads DIR/cases.txt, one case a line: the global dims
(comma-separated, empty for a scalar), a tab, then 'device:start-stop/start-stop ...'. The global
array is (np.arange(n) * 7 + 3) as int32 in C order; for each device writes
DIR/case<k>_dev<d>.bin, the bytes of g[start0:stop0, start1:stop1, ...] in C order.
ShardedTensorNumpyTest runs it.
"""
import os
import sys

import numpy as np

d = sys.argv[1]
with open(os.path.join(d, 'cases.txt'), encoding='utf-8') as f:
    for k, line in enumerate(f):
        dims_text, boxes = line.rstrip('\n').split('\t')
        dims = [int(x) for x in dims_text.split(',')] if dims_text else []
        n = int(np.prod(dims)) if dims else 1
        g = (np.arange(n, dtype=np.int64) * 7 + 3).astype(np.int32).reshape(dims)
        for entry in boxes.split(' '):
            device, ranges = entry.split(':')
            index = tuple(slice(int(a), int(b)) for a, b in (r.split('-') for r in ranges.split('/'))) if ranges else ()
            part = np.ascontiguousarray(g[index])
            with open(os.path.join(d, 'case%d_dev%s.bin' % (k, device)), 'wb') as out:
                out.write(part.astype('<i4').tobytes())
