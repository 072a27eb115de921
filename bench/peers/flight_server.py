"""A pyarrow.flight server streaming one .npy array as arrow.fixed_shape_tensor batches (16 MiB),
the Python peer of tensorbuf serve in flight_speed.sh. Prints its port, then serves until killed.
Usage: flight_server.py ARRAY.npy"""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl


class TensorServer(fl.FlightServerBase):
    def __init__(self, array):
        super().__init__("grpc://127.0.0.1:0")
        self.array = array

    def do_get(self, context, ticket):
        arr = self.array
        rows = max(1, (16 << 20) // max(1, arr[0].nbytes))
        typ = pa.fixed_shape_tensor(pa.from_numpy_dtype(arr.dtype), list(arr.shape[1:]))
        schema = pa.schema([pa.field("tensor", typ)], metadata={"tensorbuf.dims": str(list(arr.shape))})

        def batches():
            for r in range(0, arr.shape[0], rows):
                # A C-contiguous slice of the mapped file: pyarrow wraps it without a copy.
                yield pa.record_batch([pa.FixedShapeTensorArray.from_numpy_ndarray(arr[r:r + rows])], schema=schema)

        return fl.GeneratorStream(schema, batches())


server = TensorServer(np.load(sys.argv[1], mmap_mode="r"))
print(server.port, flush=True)
server.serve()
