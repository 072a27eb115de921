"""A pyarrow.flight server sending one array as arrow.fixed_shape_tensor batches compressed with a
codec (IpcWriteOptions(compression=CODEC)), as a pyarrow server configured to save bandwidth does.
Prints its port, then serves until killed (or its stdin closes).
Usage: flight_compressed_server.py ARRAY.npy CODEC ROWS_PER_BATCH
"""
import sys
import threading

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl


class Server(fl.FlightServerBase):
    def __init__(self, array, codec, rows):
        super().__init__("grpc://127.0.0.1:0")
        self.array = array
        self.options = pa.ipc.IpcWriteOptions(compression=codec)
        self.rows = rows

    def do_get(self, context, ticket):
        arr = self.array
        typ = pa.fixed_shape_tensor(pa.from_numpy_dtype(arr.dtype), list(arr.shape[1:]))
        schema = pa.schema([pa.field("tensor", typ)])
        batches = (pa.record_batch([pa.FixedShapeTensorArray.from_numpy_ndarray(arr[r:r + self.rows])], schema=schema)
                   for r in range(0, arr.shape[0], self.rows))
        return fl.GeneratorStream(schema, batches, options=self.options)


server = Server(np.load(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
print(server.port, flush=True)
threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
server.serve()
