"""pyarrow as the peer for tensorbuf's Arrow tensors and Flight server.

check FILE COLUMN EXPECTED.npy [SHAPE PERM]: the column, read by pyarrow (file or stream) and
    turned into NumPy by FixedShapeTensorArray.to_numpy_ndarray(), equals EXPECTED (dtype too);
    when given, the type's physical shape and permutation (JSON) are checked as well.
write DIR: writes DIR/permuted.arrow (file) and DIR/permuted.arrows (stream) of column "t", a
    permuted fixed_shape_tensor with dim_names in two record batches, DIR/permuted.npy, the
    array NumPy says the column is, and DIR/feather.arrow, the same column as
    pyarrow.feather.write_feather writes it by default (LZ4-compressed buffers), and
    DIR/feather-zstd.arrow, with compression='zstd'.
flight-get PORT TICKET_JSON EXPECTED.npy [TOKEN]: fetches the ticket from the server with
    pyarrow.flight and checks the column "tensor" equals EXPECTED.
flight-get-slice PORT TICKET_JSON GLOBAL.npy SLICES: fetches the ticket and checks the column
    equals NumPy's GLOBAL[SLICES] (SLICES as Python writes them, "4:7,3:5"); prints "ok ROWS BATCHES".
npy-slices GLOBAL.npy (SHARD.npy SLICES)...: checks each SHARD equals NumPy's GLOBAL[SLICES]; prints "ok N".
flight-list PORT [TOKEN]: prints each listed flight's descriptor path and schema metadata as JSON lines.
"""
import json
import sys

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc


def read_table(path):
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic == b"ARROW1":
        return ipc.open_file(path).read_all()
    return ipc.open_stream(path).read_all()


def as_numpy(column):
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return arr.to_numpy_ndarray()


def same(got, want, what):
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        print(f"{what}: got {got.dtype}{list(got.shape)} {got.ravel()[:8]}, want {want.dtype}{list(want.shape)} {want.ravel()[:8]}")
        sys.exit(1)


def main():
    cmd = sys.argv[1]
    if cmd == "check":
        path, column, expected = sys.argv[2:5]
        table = read_table(path)
        col = table.column(column)
        same(as_numpy(col), np.load(expected), path)
        if len(sys.argv) > 5:
            t = col.type
            want_shape, want_perm = json.loads(sys.argv[5]), json.loads(sys.argv[6])
            if list(t.shape) != want_shape or (list(t.permutation) if t.permutation else list(range(len(t.shape)))) != want_perm:
                print(f"type {t}: shape {t.shape} permutation {t.permutation}, want {want_shape} {want_perm}")
                sys.exit(1)
        print("ok")
    elif cmd == "write":
        d = sys.argv[2]
        logical = (np.arange(5 * 3 * 4, dtype=np.int32) * 7 - 100).reshape(5, 4, 3).transpose(0, 2, 1)  # rows of [3, 4]
        arr = pa.FixedShapeTensorArray.from_numpy_ndarray(logical)
        typ = pa.fixed_shape_tensor(pa.int32(), arr.type.shape, dim_names=["H", "W"], permutation=arr.type.permutation)
        arr = pa.ExtensionArray.from_storage(typ, arr.storage)
        batch1 = pa.record_batch([arr.slice(0, 2)], names=["t"])
        batch2 = pa.record_batch([arr.slice(2)], names=["t"])
        with ipc.new_file(f"{d}/permuted.arrow", batch1.schema) as w:
            w.write_batch(batch1)
            w.write_batch(batch2)
        with ipc.new_stream(f"{d}/permuted.arrows", batch1.schema) as w:
            w.write_batch(pa.record_batch([arr], names=["t"]))
        np.save(f"{d}/permuted.npy", np.ascontiguousarray(logical))
        import pyarrow.feather as feather
        feather.write_feather(pa.table({"t": arr}), f"{d}/feather.arrow")
        feather.write_feather(pa.table({"t": arr}), f"{d}/feather-zstd.arrow", compression="zstd")
        print(json.dumps({"shape": list(typ.shape), "permutation": list(typ.permutation)}))
    elif cmd == "npy-slices":
        whole = np.load(sys.argv[2])
        pairs = sys.argv[3:]
        for shard, slices in zip(pairs[0::2], pairs[1::2]):
            index = tuple(slice(*(int(x) for x in part.split(":"))) for part in slices.split(","))
            same(np.load(shard), whole[index], shard)
        print("ok", len(pairs) // 2)
    elif cmd == "flight-get-slice":
        import pyarrow.flight as fl
        client = fl.connect(f"grpc://127.0.0.1:{int(sys.argv[2])}")
        table = client.do_get(fl.Ticket(sys.argv[3].encode()), fl.FlightCallOptions(timeout=60)).read_all()
        index = tuple(slice(*(int(x) for x in part.split(":"))) for part in sys.argv[5].split(","))
        same(as_numpy(table.column("tensor")), np.load(sys.argv[4])[index], "flight shard")
        print("ok", table.num_rows, len(table.column("tensor").chunks))
        client.close()
    elif cmd in ("flight-get", "flight-list"):
        import pyarrow.flight as fl
        port = int(sys.argv[2])
        token = sys.argv[5] if cmd == "flight-get" and len(sys.argv) > 5 else (sys.argv[3] if cmd == "flight-list" and len(sys.argv) > 3 else None)
        headers = [(b"authorization", b"Bearer " + token.encode())] if token else []
        opts = fl.FlightCallOptions(headers=headers, timeout=60)
        client = fl.connect(f"grpc://127.0.0.1:{port}")
        if cmd == "flight-get":
            reader = client.do_get(fl.Ticket(sys.argv[3].encode()), opts)
            table = reader.read_all()
            same(as_numpy(table.column("tensor")), np.load(sys.argv[4]), "flight")
            print("ok", table.num_rows, len(table.column("tensor").chunks))
        else:
            for info in client.list_flights(options=opts):
                t = info.schema.field("tensor").type
                print(json.dumps({"path": [p.decode() for p in info.descriptor.path], "shape": list(t.shape),
                                  "value_type": str(t.value_type), "records": info.total_records}))
        client.close()


main()
