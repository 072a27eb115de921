"""The codebooks of ggml's grid IQ types, as gguf-py decodes them, for tensorbuf's BlockKernels.

  gguf_grids.py DIR

Writes DIR/<TYPE>.grid for IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S and IQ1_S (IQ1_M shares IQ1_S's):
gguf.quants.<TYPE>.grid after init_grid(), row after row, each value one signed byte (the grids
hold small integers: 8, 25, 43; 4 to 62; 1 to 15; -1, 0, 1). The files in
ops/src/main/resources/dev/tensorbuf/ops/quant/internal/ were written by this script from gguf-py
0.19.0; BlockKernelsTest compares them with a fresh run when gguf-py is installed.
"""
import sys
import numpy as np
import gguf.quants as q

TYPES = ["IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S"]


def main(out):
    for name in TYPES:
        cls = getattr(q, name)
        cls.init_grid()
        grid = cls.grid.reshape(cls.grid_shape)
        as_bytes = grid.astype(np.int8)
        assert (as_bytes.astype(np.float32) == grid).all(), name
        as_bytes.tofile(f"{out}/{name}.grid")
    print("wrote", len(TYPES), "grids")


if __name__ == "__main__":
    main(sys.argv[1])
