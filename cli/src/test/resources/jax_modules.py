"""Exports jax functions as HLO text for RunXlaAgreementTest, with jax's own results.

Usage: python3 jax_modules.py DIR
For each case NAME: DIR/NAME.hlo (plain HLO, `lower(x).as_text(dialect='hlo')`, where jnp.flip,
pad and roll sit in a `call`), DIR/NAME.opt.hlo (optimised HLO, `compile().as_text()`, every op in
a `fusion`), DIR/NAME.in.npy and DIR/NAME.out.npy (what jax computes). Prints the names, one a line.
"""
import sys

import numpy as np
import jax
import jax.numpy as jnp

CASES = {
    "roll": lambda a: jnp.roll(a, 1, axis=1),
    "roll2d": lambda a: jnp.roll(a, (2, -1), axis=(0, 1)),
    "flip": lambda a: jnp.flip(a, 0),
    "pad": lambda a: jnp.pad(a, ((1, 0), (0, 2))),
    "pad_constant": lambda a: jnp.pad(a, ((0, 1), (2, 1)), constant_values=-1.5),
    "transpose": lambda a: a.T,
    "flip_transpose": lambda a: jnp.flip(a, 1).T[1:],
}


def main():
    out = sys.argv[1]
    x = (np.arange(12, dtype=np.float32) * 0.5 - 2).reshape(3, 4)
    for name, f in CASES.items():
        lowered = jax.jit(f).lower(x)
        with open(f"{out}/{name}.hlo", "w") as fh:
            fh.write(lowered.as_text(dialect="hlo"))
        with open(f"{out}/{name}.opt.hlo", "w") as fh:
            fh.write(lowered.compile().as_text())
        np.save(f"{out}/{name}.in.npy", x)
        np.save(f"{out}/{name}.out.npy", np.ascontiguousarray(np.asarray(jax.jit(f)(x))))
        print(name)


if __name__ == "__main__":
    main()
