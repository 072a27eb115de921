"""Loads .npy files the way a NumPy user with ml_dtypes does, for the CLI's peer tests.

usage: mldtypes_npy.py FILE TYPE [FILE TYPE ...]
  TYPE is an ml_dtypes name (bfloat16, int4, float8_e4m3fn...). Each file is read with
  np.load(f).view(ml_dtypes.TYPE), and one JSON line is printed per file: its "file", the "descr"
  np.load saw, the "shape" and the "values" in C order, as int64 for integer types and float64
  otherwise (exact: every value of these types is a float64).
"""
import json
import sys

import ml_dtypes
import numpy as np

args = sys.argv[1:]
for file, name in zip(args[0::2], args[1::2]):
    t = np.dtype(getattr(ml_dtypes, name))
    loaded = np.load(file, allow_pickle=False)
    a = loaded.view(t)
    exact = np.int64 if "int" in name else np.float64
    print(json.dumps({"file": file, "descr": loaded.dtype.str, "shape": list(a.shape),
                      "values": a.astype(exact).ravel().tolist()}))
