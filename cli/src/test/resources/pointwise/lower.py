import jax, jax.numpy as jnp, numpy as np, ml_dtypes, sys
jax.config.update("jax_enable_x64", True)
mean = np.array([123.7, 116.3, 103.5], np.float32); std = np.array([58.4, 57.1, 57.4], np.float32)
def norm(x): return jnp.transpose((x.astype(jnp.float32) - mean) / std, (0, 3, 1, 2))
def rope(x):
    x1, x2 = jnp.split(x, 2, axis=-1); return jnp.concatenate([-x2, x1], axis=-1)
def clip(x): return jnp.clip(x * np.float32(255.0), 0, 255).astype(jnp.uint8)
def tril(x):
    i = jax.lax.broadcasted_iota(jnp.int32, x.shape, 0); j = jax.lax.broadcasted_iota(jnp.int32, x.shape, 1)
    return jnp.where(i >= j, x, jnp.zeros_like(x))
def quantize(x): return jnp.clip(jnp.round(x / np.float32(0.05)) + 3, -128, 127).astype(jnp.int8)
def quantize_per_tensor(x):
    scale = jnp.max(jnp.abs(x)) / np.float32(127)
    return jnp.clip(jnp.round(x / scale), -127, 127).astype(jnp.int8)
def max_normalise(x):
    f = x.astype(jnp.float32); return f / jnp.maximum(jnp.max(f, axis=(1, 2), keepdims=True), np.float32(1))
def mask_count(x): return jnp.count_nonzero(x > np.float32(0.5), axis=1)
def any_all(x): return jnp.all(x > np.float32(-2.5), axis=0) & jnp.any(x > np.float32(1.5), axis=0)
def argmax_argmin(x):
    return jnp.argmax(x, axis=-1).astype(jnp.int32) * 100 + jnp.argmin(x, axis=0)[:x.shape[0]].astype(jnp.int32)
def _ties_and_nans():
    x = np.round(r.standard_normal((9, 12)) * 2).astype(np.float32)
    x[2, [3, 7]] = np.nan; x[5, 0] = np.nan; x[6, :] = 0; x[6, 4] = -0.0; x[7, 5] = 1e-40; x[7, :5] = 0
    return x
def max_pool(x):
    f = x.astype(jnp.float32) / np.float32(255)
    return jax.lax.reduce_window(f, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
def bf16_max_pool(x): return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
def bf16_row_max(x): return jnp.max(x, axis=-1)
def bf16_argmax(x): return jnp.argmax(x, axis=-1).astype(jnp.int32)
def _bf16_logits(shape):
    x = np.round(r.standard_normal(shape) * 8) / 4
    x.flat[[3, 40, 41]] = [np.nan, np.inf, -np.inf]; x.flat[[7, 9]] = [-0.0, 1e-40]
    return x.astype(ml_dtypes.bfloat16)
def root_bins(x): return jnp.sign(x) * jnp.floor(jnp.sqrt(jnp.abs(x - np.float32(0.25))) * np.float32(4)) / np.float32(3)
r = np.random.default_rng(1)
progs = {"normalise_transpose": (norm, r.integers(0, 256, (2, 5, 7, 3)).astype(np.uint8)),
         "rope_rotate_half": (rope, r.standard_normal((2, 3, 8)).astype(np.float32)),
         "clip_cast": (clip, (r.standard_normal((4, 9)) * 1.5).astype(np.float32)),
         "tril_mask": (tril, r.standard_normal((5, 6)).astype(ml_dtypes.bfloat16)),
         "quantize_int8": (quantize, (r.standard_normal((3, 40)) * 4).astype(np.float32)),
         "root_bins": (root_bins, (r.standard_normal((6, 7)) * 9).astype(np.float32)),
         "quantize_per_tensor": (quantize_per_tensor, (r.standard_normal((4, 33)) * 3).astype(np.float32)),
         "max_normalise": (max_normalise, r.integers(0, 256, (2, 5, 7, 3)).astype(np.uint8)),
         "mask_count": (mask_count, r.standard_normal((5, 70)).astype(np.float32)),
         "any_all": (any_all, r.standard_normal((9, 11)).astype(np.float32)),
         "argmax_argmin": (argmax_argmin, _ties_and_nans()),
         "max_pool": (max_pool, r.integers(0, 256, (2, 9, 8, 3)).astype(np.uint8)),
         "bf16_max_pool": (bf16_max_pool, _bf16_logits((2, 9, 8, 3))),
         "bf16_row_max": (bf16_row_max, _bf16_logits((6, 40))),
         "bf16_argmax": (bf16_argmax, _bf16_logits((6, 40)))}
out = sys.argv[1]
only = sys.argv[2:]   # names to lower, all when none
for name, (f, x) in progs.items():
    if only and name not in only:
        continue
    lowered = jax.jit(f).lower(x)
    open(f"{out}/{name}.hlo", "w").write(lowered.as_text(dialect="hlo"))
    open(f"{out}/{name}.opt.hlo", "w").write(lowered.compile().as_text())
    np.save(f"{out}/{name}.in.npy", x); y = np.asarray(jax.jit(f)(x)); np.save(f"{out}/{name}.out.npy", y.view(np.uint16) if y.dtype == ml_dtypes.bfloat16 else y)
    print(name)
