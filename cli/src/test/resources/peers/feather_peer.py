"""pyarrow writing Feather V2 files, as pandas' and pyarrow's users have them.

write DIR: DIR/x.npy, an int32 [50, 30, 40] array, and the same as one arrow.fixed_shape_tensor
    column "t" of rows of [30, 40] in DIR/plain.feather (uncompressed) and DIR/lz4.feather and
    DIR/zstd.feather (pyarrow.feather.write_feather's default codec, and zstd).
"""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather


def main():
    d = sys.argv[2]
    x = (np.arange(50 * 30 * 40, dtype=np.int32) % 977 * 7 - 100).reshape(50, 30, 40)   # compresses
    np.save(f"{d}/x.npy", x)
    table = pa.table({"t": pa.FixedShapeTensorArray.from_numpy_ndarray(x)})
    feather.write_feather(table, f"{d}/plain.feather", compression="uncompressed")
    feather.write_feather(table, f"{d}/lz4.feather")
    feather.write_feather(table, f"{d}/zstd.feather", compression="zstd")
    print("ok")


main()
