"""Writes narrow_floats.txt: representative conversions computed by ml_dtypes (NumPy for f16).

usage: python3 make_narrow_floats.py > narrow_floats.txt
"""
import warnings

import numpy as np
import ml_dtypes

warnings.simplefilter("ignore")
TYPES = [("f16", np.float16, 16), ("bf16", ml_dtypes.bfloat16, 16), ("f8e5m2", ml_dtypes.float8_e5m2, 8),
         ("f8e4m3", ml_dtypes.float8_e4m3, 8), ("f8e4m3fn", ml_dtypes.float8_e4m3fn, 8),
         ("f8e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, 8), ("f8e3m4", ml_dtypes.float8_e3m4, 8),
         ("f8e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 8), ("f8e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 8),
         ("f8e8m0fnu", ml_dtypes.float8_e8m0fnu, 8), ("f6e3m2fn", ml_dtypes.float6_e3m2fn, 6),
         ("f6e2m3fn", ml_dtypes.float6_e2m3fn, 6), ("f4e2m1fn", ml_dtypes.float4_e2m1fn, 4)]
PATTERNS16 = [0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3f80, 0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7f7f,
              0x7f80, 0x7fc0, 0x7fc1, 0x8000, 0x8001, 0xbf80, 0xfc00, 0xff80, 0xffff]
PATTERNS8 = [0x00, 0x01, 0x07, 0x08, 0x38, 0x3c, 0x40, 0x77, 0x78, 0x7b, 0x7c, 0x7e, 0x7f, 0x80, 0x81,
             0xb8, 0xf8, 0xfc, 0xfe, 0xff]
INPUTS = [0.0, -0.0, 1.0, -1.0, 1.5, 3.0, 0.1, -0.1, 1e-3, 1e-6, 1e-30, 1e-45, 0.25, 0.75, 1.25, 2.5,
          5.0, 7.0, 100.0, 240.0, 448.0, 464.0, 480.0, 57344.0, 61440.0, 65504.0, 65520.0, 3e38,
          1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -4, 1 + 3 * 2 ** -4, 1 + 2 ** -11, 1 + 3 * 2 ** -11,
          2.0 ** -127, 1.5 * 2 ** -127, 2.0 ** -126, 2.0 ** 127, 1.5 * 2 ** 127]
SPECIAL_BITS = [0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x00000001,
                0x807fffff]

print("# Narrow-float conversions from ml_dtypes " + ml_dtypes.__version__ + " and NumPy " + np.__version__
      + " (f16); made by make_narrow_floats.py.")
print("# decode TYPE PATTERN FLOAT32_BITS | encode TYPE FLOAT32_BITS PATTERN (hex)")
print("# The fnuz NaN (0x80) decodes to +NaN, as XLA and torch give it, not ml_dtypes' -NaN.")
print("# An f16 NaN is quieted both ways, as x86's conversion (XLA, Java's intrinsic) does; NumPy keeps it signalling.")
inputs = np.concatenate([np.array(INPUTS, dtype=np.float32), np.array(SPECIAL_BITS, dtype=np.uint32).view(np.float32)])
for name, t, bits in TYPES:
    store = np.uint16 if bits > 8 else np.uint8
    if bits == 16:
        patterns = PATTERNS16
    elif bits == 8:
        patterns = PATTERNS8
    else:
        patterns = list(range(1 << bits))
    decoded = np.array(patterns, dtype=np.uint32).astype(store).view(t).astype(np.float32).view(np.uint32)
    for p, d in zip(patterns, decoded):
        if name.endswith("fnuz") and p == 0x80:
            d = 0x7FC00000  # the fnuz NaN decodes positive, as XLA and torch take it; ml_dtypes gives -NaN
        if name == "f16" and (p & 0x7C00) == 0x7C00 and (p & 0x3FF) != 0:
            d |= 0x00400000  # quieted, as x86's conversion gives it; NumPy keeps a signalling NaN signalling
        print(f"decode {name} {p:x} {int(d):08x}")
    encoded = inputs.astype(t).view(store)
    for x, e in zip(inputs.view(np.uint32), encoded):
        if name == "f16" and (e & 0x7C00) == 0x7C00 and (e & 0x3FF) != 0:
            e = (e & 0x8000) | 0x7E00 | ((int(x) & 0x7FFFFF) >> 13)  # quieted, keeping the top payload bits
        print(f"encode {name} {int(x):08x} {int(e):x}")
