"""ONNX Runtime's answer for StageAndRun.java, computed the usual Python way.

    python3 reference.py MODEL PIXELS N H W OUT

PIXELS holds u8 NHWC [N, H, W, 3] in C order. The batch is normalised with ImageNet's mean and
std in float64, rounded to float32, transposed to NCHW, and run through MODEL with onnxruntime;
OUT receives the f32 output in C order. Exit status 3 (with the reason on stderr) when numpy or
onnxruntime cannot be imported, so the caller can skip rather than fail.
"""
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:
    print(f"{e}", file=sys.stderr)
    sys.exit(3)

model, pixels, n, h, w, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
mean = np.array([123.675, 116.28, 103.53])
std = np.array([58.395, 57.12, 57.375])
x = np.fromfile(pixels, dtype=np.uint8).reshape(n, h, w, 3)
nchw = np.ascontiguousarray(((x - mean) / std).astype(np.float32).transpose(0, 3, 1, 2))
session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
(y,) = session.run(None, {"input": nchw})
np.ascontiguousarray(y, dtype=np.float32).tofile(out)
print(f"onnxruntime {ort.__version__}: output {list(y.shape)}")
