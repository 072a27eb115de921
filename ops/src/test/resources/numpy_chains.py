"""Applies the chains of chains.txt to in<k>.bin (raw little-endian f32) and writes out<k>.bin."""
import json
import os
import sys

import numpy as np

FILL = -7.0


def pad(x, low, high, interior):
    inner = [n + max(n - 1, 0) * i for n, i in zip(x.shape, interior)]
    y = np.full(inner, FILL, dtype=np.float32)
    y[tuple(slice(None, None, i + 1) for i in interior)] = x
    y = np.pad(y, [(max(l, 0), max(h, 0)) for l, h in zip(low, high)], constant_values=FILL)
    return y[tuple(slice(-min(l, 0), y.shape[k] + min(h, 0)) for k, (l, h) in enumerate(zip(low, high)))]


def bitcast(x, m2m, dims, tm2m):
    physical = np.transpose(x, list(reversed(m2m))).ravel()
    tmajor = list(reversed(tm2m))
    y = physical.reshape([dims[d] for d in tmajor])
    return np.transpose(y, np.argsort(tmajor))


def apply(x, words):
    op, args = words[0], [json.loads(w) for w in words[1:]]
    if op == "transpose":
        return np.transpose(x, args[0])
    if op == "slice":
        return x[tuple(slice(s, l, t) for s, l, t in zip(*args))]
    if op == "reverse":
        return np.flip(x, axis=tuple(args[0])) if args[0] else x
    if op == "broadcast":
        out, bd = args
        shape = [1] * len(out)
        for j, o in enumerate(bd):
            shape[o] = x.shape[j]
        return np.broadcast_to(x.reshape(shape), out)
    if op == "pad":
        return pad(x, *args)
    if op == "reshape":
        return np.reshape(x, args[0])
    if op == "concatenate_reversed":
        return np.concatenate([x, np.flip(x, axis=args[0])], axis=args[0])
    if op == "dynamic_slice":
        offsets, sizes = args
        start = [min(max(o, 0), n - s) for o, n, s in zip(offsets, x.shape, sizes)]
        return x[tuple(slice(b, b + s) for b, s in zip(start, sizes))]
    if op == "bitcast":
        return bitcast(x, *args)
    raise ValueError("unknown op " + op)


def main(folder):
    case, x = None, None

    def finish():
        if case is not None:
            np.ascontiguousarray(x, dtype="<f4").tofile(os.path.join(folder, "out%d.bin" % case))

    with open(os.path.join(folder, "chains.txt")) as f:
        for line in f:
            words = line.split()
            if words[0] == "case":
                finish()
                case = int(words[1])
                dims = json.loads(words[2])
                x = np.fromfile(os.path.join(folder, "in%d.bin" % case), dtype="<f4").reshape(dims)
            else:
                x = apply(x, words)
    finish()


if __name__ == "__main__":
    main(sys.argv[1])
