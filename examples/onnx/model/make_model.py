"""Writes conv3x8.onnx: one 3x3 convolution from 3 to 8 channels, padding 1, NCHW f32 in and out.

Run once; the .onnx beside this script is committed. The weights follow a formula that
StageAndRun.java repeats for its own reference convolution:
    w[o, c, i, j] = ((o * 27 + c * 9 + i * 3 + j) % 11 - 5) / 8
    b[o]          = (o - 4) / 4
IR version 8 and opset 13 keep the file readable by every ONNX Runtime of the last years.
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

o, c, k = 8, 3, 3
w = np.fromfunction(lambda oo, cc, i, j: ((oo * 27 + cc * 9 + i * 3 + j) % 11 - 5) / 8, (o, c, k, k)).astype(np.float32)
b = ((np.arange(o) - 4) / 4).astype(np.float32)

graph = helper.make_graph(
    [helper.make_node("Conv", ["input", "weight", "bias"], ["output"], kernel_shape=[k, k], pads=[1, 1, 1, 1])],
    "conv3x8",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", c, "H", "W"])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", o, "H", "W"])],
    initializer=[numpy_helper.from_array(w, "weight"), numpy_helper.from_array(b, "bias")],
)
model = helper.make_model(graph, producer_name="tensorbuf-examples", opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("conv3x8.onnx")
out.write_bytes(model.SerializeToString())
print(f"wrote {out} ({out.stat().st_size} bytes)")
