"""Writes the FlightData fixtures of DoGetReaderTest: each .fd file is one FlightData protobuf
message, the payload of one gRPC message of a DoGet stream, as pyarrow.flight's server sends it
(data_header = the IPC message's flatbuffer, data_body = its body), made from pyarrow's own IPC
stream writer. Run from this directory: python3 make_fixtures.py (pyarrow 25.0.1 wrote the files here).
"""
import numpy as np
import pyarrow as pa


def varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def flight_data(message):
    out = field(2, message.metadata.to_pybytes())
    if message.body is not None and message.body.size > 0:
        out += field(1000, message.body.to_pybytes())
    return out


def messages(table, **options):
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema, options=pa.ipc.IpcWriteOptions(**options)) as w:
        w.write_table(table)
    reader = pa.ipc.MessageReader.open_stream(sink.getvalue())
    out = []
    while True:
        try:
            out.append(reader.read_next_message())
        except StopIteration:
            return out


def write(name, data):
    with open(name + ".fd", "wb") as f:
        f.write(data)


tensor_type = pa.fixed_shape_tensor(pa.float32(), [2, 3])
values = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
column = pa.FixedShapeTensorArray.from_numpy_ndarray(values)
table = pa.table({"tensor": column})
schema_msg, batch_msg = messages(table)
write("schema", flight_data(schema_msg))  # the stream's schema: one fixed_shape_tensor column 'tensor'
write("batch", flight_data(batch_msg))  # 4 rows of f32[2,3], values 0..23

# A row that is null.
storage = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(24, dtype=np.float32)), 6, mask=pa.array([False, True, False, False]))
nulls = pa.table({"tensor": pa.ExtensionArray.from_storage(tensor_type, storage)})
write("nulls", flight_data(messages(nulls)[1]))

# Two columns.
two = pa.table({"tensor": column, "other": column})
write("two_columns", flight_data(messages(two)[1]))

# Compressed bodies, as a server whose IpcWriteOptions ask for compression sends them.
write("compressed", flight_data(messages(table, compression="zstd")[1]))
write("compressed_lz4", flight_data(messages(table, compression="lz4")[1]))

# A dictionary batch (of a dictionary-encoded string column).
dictionary = pa.table({"names": pa.array(["a", "b", "a"]).dictionary_encode()})
write("dictionary", flight_data(messages(dictionary)[1]))
