"""jax's boxes of named shardings, beside XLA's text of the same sharding.

Usage: python jax_shard_boxes.py DIR. Writes DIR/boxes.tsv, one case a line: the global shape,
XLA's HloSharding text of NamedSharding(mesh, PartitionSpec(...)) (jax's own
_to_xla_hlo_sharding), the jax device id at each position of the mesh (the text's device
numbers are these positions), and devices_indices_map(shape) as
'device:start-stop/start-stop ...'.
Eight CPU devices, as XLA_FLAGS=--xla_force_host_platform_device_count=8 gives.
ShardingXlaAgreementTest runs it.
"""
import itertools
import os
import random
import sys

os.environ['XLA_FLAGS'] = os.environ.get('XLA_FLAGS', '') + ' --xla_force_host_platform_device_count=8'
os.environ.setdefault('JAX_PLATFORMS', 'cpu')

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

rng = random.Random(40)
devices = jax.devices()
assert len(devices) == 8, devices
meshes = [((8,), ('x',)), ((2, 4), ('x', 'y')), ((4, 2), ('x', 'y')), ((2, 2, 2), ('x', 'y', 'z'))]
lines = []
for case in range(300):
    mesh_shape, names = meshes[case % len(meshes)]
    order = list(range(8))
    if case % 3 == 0:
        rng.shuffle(order)  # a device order that is no iota: the text lists the devices
    mesh = Mesh(np.array([devices[i] for i in order]).reshape(mesh_shape), names)
    rank = rng.randint(1, 3)
    free = list(names)
    rng.shuffle(free)
    spec = []
    for _ in range(rank):
        take = rng.randint(0, min(2, len(free)))
        axes, free = free[:take], free[take:]
        spec.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
    sharding = NamedSharding(mesh, P(*spec))
    shape = []
    for entry in spec:
        parts = 1
        for a in ([] if entry is None else [entry] if isinstance(entry, str) else entry):
            parts *= mesh.shape[a]
        shape.append(parts * rng.randint(1, 3))
    text = str(sharding._to_xla_hlo_sharding(len(shape)))
    boxes = []
    for d, index in sorted(sharding.devices_indices_map(tuple(shape)).items(), key=lambda kv: kv[0].id):
        dims = []
        for sl, n in zip(index, shape):
            start, stop, _ = sl.indices(n)
            dims.append('%d-%d' % (start, stop))
        boxes.append('%d:%s' % (d.id, '/'.join(dims)))
    lines.append('%s\t%s\t%s\t%s' % (','.join(map(str, shape)), text, ','.join(map(str, order)), ' '.join(boxes)))
with open(os.path.join(sys.argv[1], 'boxes.tsv'), 'w', encoding='utf-8') as f:
    f.write('\n'.join(lines) + '\n')
