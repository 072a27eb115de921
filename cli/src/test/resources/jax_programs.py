"""Real preprocessing programs written in jax, for RunXlaAgreementTest.

usage: python3 jax_programs.py emit DIR   writes DIR/NAME.hlo, each program's HLO text as jax
                                          lowers it, and DIR/NAME.opt.hlo, as XLA optimises it
                                          (kept in the test resources: jax_programs/)
       python3 jax_programs.py run DIR    writes DIR/NAME.argK.npy, the inputs, and
                                          DIR/NAME.outK.npy, what jax (jitted, CPU) returns for them
Prints one program name a line. Inputs are fixed, and pick the awkward cases: a negative traced
index, a cache position near the end, -0.0 padding, special float values. Four host devices
are forced for the sharded program; the rest run on one.
"""
import os
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_enable_x64", True)


def arange(shape, dtype):
    return (np.arange(int(np.prod(shape))) % 251).reshape(shape).astype(dtype)


def dynamic_slice_traced(x, i):
    return lax.dynamic_slice(x, (i, 0), (2, 4))


def index_traced(x, i):
    return x[i]


def index_modulo(x, i):
    return x[i % 5], x[(i * 3) >> 1], x[jnp.floor(i / 2.0).astype(jnp.int32)]


def kv_cache_update(cache, new, pos):
    return lax.dynamic_update_slice(cache, new, (0, pos, 0))


def channel_gather(image):
    return image[..., jnp.array([2, 0, 1])]


def take_rows(x):
    return x[np.array([3, 1, 1, 0])]


def tril_mask(x):
    return jnp.tril(x)


@jax.jit
def _inner(x):
    return x.T, x[::-1]


def nested_jit_tuple(x):
    a, b = _inner(x)
    return a.reshape(-1), b


def pad_negative_zero(x):
    return jnp.pad(x, 1, constant_values=-0.0)


def bitcast_to_bytes(x):
    return lax.bitcast_convert_type(x, jnp.uint8)


def bitcast_same_width(x):
    return lax.bitcast_convert_type(x[::-1], jnp.int32)


def bitcast_from_bytes(b):
    return lax.bitcast_convert_type(b, jnp.float32)


def iota_bf16(x):
    return x, lax.broadcasted_iota(jnp.bfloat16, (3, 300), 1), lax.broadcasted_iota(jnp.int8, (200, 2), 0)


SPECIALS = [-0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, 1e300,
            1.5, 0.1, 1 / 3, 1e-7, 123456789.0, 1e22, 1e21, 1e16, 1e15, 65504.0, 6e-8, 1e-45, 3.4028234663852886e38,
            1.1754942e-38, -2.5, 9.183549615799121e-41]


def special_constants(x):
    v = np.array(SPECIALS, dtype=np.float64)
    with np.errstate(all="ignore"):
        return (x, jnp.asarray(v), jnp.asarray(v.astype(np.float32)), jnp.asarray(v.astype(jnp.bfloat16)),
                jnp.asarray(v.astype(np.float16)))


def _mesh():
    return Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))


def sharded_transpose(x):
    y = lax.with_sharding_constraint(x.T, NamedSharding(_mesh(), P("a", None)))
    return y[::-1]


def take_along_rows(x, i):
    return jnp.take_along_axis(x, i, axis=1)


def barrier_multiply_add(a, b, c):
    return lax.optimization_barrier(a * b) + c



def random_augment(x, key):
    """A training-time augmentation: a random flip (lax.cond) and a random crop, from threefry's rounds (a while loop)."""
    k1, k2 = jax.random.split(jax.random.wrap_key_data(key))
    flipped = lax.cond(jax.random.bernoulli(k1, 0.5), lambda v: v[:, ::-1], lambda v: v, x)
    i = jax.random.randint(k2, (2,), 0, 3)
    crop = lax.dynamic_slice(flipped, (i[0], i[1], 0), (5, 5, 3))
    return crop, jax.random.uniform(k2, (4,), dtype=jnp.bfloat16, minval=-1, maxval=1)


def scan_ema(x):
    """An exponential moving average over rows (lax.scan: a while loop carrying and stacking)."""
    def step(c, row):
        c = c * np.float32(0.9) + row * np.float32(0.1)
        return c, c
    return lax.scan(step, x[0], x[1:])[1]


def halve_until_small(x):
    """A loop whose trip count depends on the data (lax.while_loop)."""
    def body(s):
        return jnp.where(s[0] > 1, s[0] / 2, s[0]), s[1] + 1
    return lax.while_loop(lambda s: jnp.any(s[0] > 1), body, (x, jnp.int32(0)))


def switch_layout(x, i):
    """lax.switch: a branch chosen by a traced index, clamped into range."""
    return lax.switch(i, [lambda v: v + 1, lambda v: v.T.reshape(v.shape) * 3, lambda v: -v[::-1]], x)


def scatter_updates(x, i, v, labels):
    """x.at[i].add(v) with repeated and out-of-range rows (dropped), a one-hot by scatter, a histogram."""
    hist = jnp.zeros(4, jnp.int32).at[labels % 4].add(1)
    one_hot = jnp.zeros((labels.shape[0], 6), jnp.float32).at[jnp.arange(labels.shape[0]), labels].set(1.0)
    return x.at[i].add(v), x.at[i].subtract(v).astype(jnp.bfloat16), one_hot, hist


def scatter_bf16_add(x, i, v):
    """A bf16 scatter-add, which XLA runs in f32 with each sum rounded through bf16 when optimised."""
    return x.at[i].add(v)


def sort_and_shuffle(x, key):
    """jnp.sort over NaNs, infinities and zeros of both signs; a stable argsort, descending; a random permutation."""
    return (jnp.sort(x, axis=1), jnp.argsort(x, axis=0, descending=True),
            jax.random.permutation(jax.random.wrap_key_data(key), 12))

def lexsort_rows(x, y):
    """Rows ordered by their first column, ties by the second (jnp.lexsort: two keys, the last first); a two-key lax.sort over
    NaNs and zeros of both signs; jnp.unique."""
    ys, zs = lax.sort((y, x[:, 2].astype(jnp.float32)), num_keys=2)
    return x[jnp.lexsort((x[:, 1], x[:, 0]))], ys, zs, jnp.unique(x[:, 0], size=6, fill_value=-9)

def top_k_scores(x):
    """lax.top_k over NaNs of both signs, infinities, signed zeros and ties (plain: XLA's topk op; optimised: its TopK
    custom-call), and a mask of each row's two greatest."""
    values, positions = lax.top_k(x, 3)
    return values, positions, x >= lax.top_k(x, 2)[0][:, -1:]

def u8_means(x, scores):
    """Float sums no order of adding rounds: a uint8 image's per-channel mean (centred by it), a 2x2 average pool, and a
    running count of positive scores (plain: reduces; optimised: XLA splits them into reduce-windows and reduces)."""
    f = x.astype(jnp.float32)
    mean = jnp.mean(f, axis=(0, 1))
    pool = lax.reduce_window(f, 0.0, lax.add, (2, 2, 1), (2, 2, 1), "VALID") / 4
    return mean, f - mean, pool, jnp.cumsum((scores > 0).astype(jnp.float32))

def iterated_values(x, n):
    """Python loops whose values each step reads several times: Newton's reciprocal square root, x * x - x, a leaky
    where, and a Collatz step (as text, each value written out in full would double or triple at every step)."""
    y = jnp.full_like(x, np.float32(0.5))
    for _ in range(40):
        y = y * (np.float32(1.5) - np.float32(0.5) * x * y * y)
    p = x * np.float32(0.1)
    for _ in range(30):
        p = p * p - p
    w = x
    for _ in range(24):
        w = jnp.where(w > 0.5, w * 0.5, w + 0.25)
    for _ in range(60):
        n = jnp.where((n & 1) == 1, 3 * n + 1, n >> 1)
    return y, p, w, n

def counting_constants(x, y):
    """Constants counting 0, 1, 2, ... from -0: XLA's simplifier makes one of one dim an iota, whose 0 is +0, and one of
    two dims only where its reshape mover brings the op back to one dim (beside a reshape, not beside a parameter)."""
    c = np.array([-0.0, 1.0, 2.0], np.float32)
    return (x * c, x.reshape(1, 3) * c[None, :], y * c[None, :], jnp.maximum(y, np.float32(1)) * c[None, :],
            (x.reshape(3, 1) * np.float32(2)) * c[:, None])

def dividing_by_counting(x, col):
    """x / c for a constant c counting 0, 1, 2, ... from -0: a true quotient for c of one dim, an iota to XLA; for c of
    [64,1] x times c's reciprocals (1 / -0 is -inf), also beside a reshape, as the simplifier rewrites the divide before
    its reshape mover runs."""
    c = np.arange(64, dtype=np.float32)
    c[0] = -0.0
    return x / c, col / c[:, None], x.reshape(64, 1) / c[:, None]

def programs():
    """{name: (function, inputs, jit keyword arguments)}"""
    return {
        "dynamic_slice_traced": (dynamic_slice_traced, [arange((6, 4), np.float32), np.int64(-3)], {}),
        "index_traced": (index_traced, [arange((5, 3), np.float32), np.int32(-1)], {}),
        "index_modulo": (index_modulo, [arange((5, 3), np.float32), np.int32(-7)], {}),
        "kv_cache_update": (kv_cache_update, [arange((2, 8, 4), np.float32), -arange((2, 1, 4), np.float32) - 1,
                                              np.int64(6)], {}),
        "channel_gather": (channel_gather, [arange((2, 3, 4, 3), np.uint8)], {}),
        "take_rows": (take_rows, [arange((4, 3), np.float32)], {}),
        "tril_mask": (tril_mask, [arange((4, 4), np.float32)], {}),
        "nested_jit_tuple": (nested_jit_tuple, [arange((2, 3), np.float32)], {}),
        "pad_negative_zero": (pad_negative_zero, [arange((2, 2), np.float32)], {}),
        "bitcast_to_bytes": (bitcast_to_bytes, [np.array([1.0, -0.0, np.inf, 3.3e-39], np.float32)], {}),
        "bitcast_same_width": (bitcast_same_width, [np.array([1.0, -0.0, np.nan, -2.5], np.float32)], {}),
        "bitcast_from_bytes": (bitcast_from_bytes, [arange((3, 4), np.uint8)], {}),
        "iota_bf16": (iota_bf16, [np.zeros((1,), np.float32)], {}),
        "special_constants": (special_constants, [np.zeros((1,), np.float32)], {}),
        "sharded_transpose": (sharded_transpose, [arange((4, 8), np.float32)],
                              {"in_shardings": NamedSharding(_mesh(), P("a", "b"))}),
        "take_along_rows": (take_along_rows, [arange((4, 6), np.float32), np.array([[5, 0], [1, 1], [-1, 3], [2, 9]], np.int32)], {}),
        "barrier_multiply_add": (barrier_multiply_add, [np.linspace(-3, 3, 64, dtype=np.float32) * np.float32(1.1),
                                                        np.linspace(5, -2, 64, dtype=np.float32) * np.float32(0.7),
                                                        np.linspace(-1, 1, 64, dtype=np.float32) / np.float32(3)], {}),
        "random_augment": (random_augment, [arange((8, 8, 3), np.uint8), np.array([7, 9], np.uint32)], {}),
        "scan_ema": (scan_ema, [np.linspace(-4, 4, 28, dtype=np.float32).reshape(7, 4) * np.float32(1.3)], {}),
        "halve_until_small": (halve_until_small, [np.array([0.5, 3.0, 100.0, 7.5, 1.0, 1e30], np.float32)], {}),
        "switch_layout": (switch_layout, [arange((3, 3), np.float32), np.int32(9)], {}),
        "scatter_updates": (scatter_updates, [np.linspace(-2, 2, 15, dtype=np.float32).reshape(5, 3) * np.float32(1.7),
                                              np.array([1, 4, 1, 7, -2, 1], np.int32),
                                              np.linspace(3, -1, 18, dtype=np.float32).reshape(6, 3) * np.float32(1e3),
                                              np.array([5, 0, 3, 3, 9, 2], np.int32)], {}),
        "sort_and_shuffle": (sort_and_shuffle, [np.array([[3.0, np.nan, -0.0, 0.0, -np.inf], [1.0, 1.0, np.inf, -np.nan, -2.5],
                                                          [0.0, -0.0, 7.0, 2.0, np.nan]], np.float32),
                                                np.array([7, 9], np.uint32)], {}),
        "lexsort_rows": (lexsort_rows, [np.array([[1, 5, 0], [0, 2, 1], [1, -1, 2], [0, 2, 3], [-3, 7, 4], [1, 5, 5], [0, 0, 6]], np.int32),
                                        np.array([1.0, np.nan, -0.0, 0.0, 1.0, -np.nan, 0.0], np.float32)], {}),
        "top_k_scores": (top_k_scores, [np.array([[1.0, np.nan, -0.0, 0.0, 2.5, 2.5], [-np.nan, -np.inf, 3.0, -1.0, np.inf, 0.0],
                                                  [0.0, -0.0, 0.0, -0.0, 1.0, 1.0]], np.float32)], {}),
        "u8_means": (u8_means, [(np.arange(16 * 12 * 3) * 37 % 256).astype(np.uint8).reshape(16, 12, 3),
                                np.linspace(-2, 3, 40, dtype=np.float32)], {}),
        "iterated_values": (iterated_values, [np.linspace(0.5, 4, 24, dtype=np.float32).reshape(4, 6),
                                              np.arange(1, 25, dtype=np.int32).reshape(4, 6) * 37], {}),
        "counting_constants": (counting_constants, [np.array([2.0, -3.0, 4.0], np.float32),
                                                    np.array([[5.0, -6.0, 7.0]], np.float32)], {}),
        "dividing_by_counting": (dividing_by_counting, [np.linspace(1, 50, 64, dtype=np.float32) * np.float32(1.3),
                                                        np.linspace(-50, 5, 64, dtype=np.float32).reshape(64, 1) / np.float32(3)],
                                 {}),
        "scatter_bf16_add": (scatter_bf16_add, [np.linspace(-2, 2, 5, dtype=np.float32).astype(jnp.bfloat16),
                                                np.array([1, 1, 3, 1], np.int32),
                                                np.array([0.1, 0.2, 0.3, 7.5], np.float32).astype(jnp.bfloat16)], {}),
    }


def main():
    mode, out = sys.argv[1], sys.argv[2]
    for name, (fn, args, kw) in programs().items():
        jitted = jax.jit(fn, **kw)
        if mode == "emit":
            lowered = jitted.lower(*args)
            with open(os.path.join(out, name + ".hlo"), "w") as f:
                f.write(lowered.as_text(dialect="hlo"))
            # Optimised: XLA's fusions, copies and layouts; its stack frames name this file, not where it lies.
            here = os.path.dirname(os.path.abspath(__file__)) + os.sep
            optimised = lowered.compile().as_text().replace(here, "")
            if "{...}" not in optimised:  # large constants elided: not a runnable module
                with open(os.path.join(out, name + ".opt.hlo"), "w") as f:
                    f.write(optimised)
        else:
            results = jitted(*args)
            if not isinstance(results, tuple):
                results = (results,)
            for k, a in enumerate(args):
                np.save(os.path.join(out, "%s.arg%d.npy" % (name, k)), np.asarray(a))
            for k, r in enumerate(results):
                np.save(os.path.join(out, "%s.out%d.npy" % (name, k)), np.asarray(r))
        print(name)


if __name__ == "__main__":
    main()
