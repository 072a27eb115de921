"""Hugging Face's side of SafetensorsCheckpointTest.

  sharded_peer.py save DIR MAX     writes DIR/hf as huggingface_hub's save_torch_state_dict writes a
                                   sharded checkpoint (its split, safetensors.numpy.save_file per shard with
                                   {"format": "pt"}, the index by json.dump(indent=2)), and DIR/state.json:
                                   the state dict's order
  sharded_peer.py splits DIR       DIR/splits.json: huggingface_hub's split of random size lists
  sharded_peer.py check DIR        loads DIR/ours (index, then each shard with safetensors) and compares
                                   every tensor with DIR/hf's

torch is not needed: huggingface_hub's split is split_state_dict_into_shards_factory, which
split_torch_state_dict_into_shards calls with the storage size, the byte size for plain tensors.
"""
import json
import os
import random
import sys
from pathlib import PureWindowsPath

import numpy as np
from huggingface_hub.serialization import split_state_dict_into_shards_factory
from safetensors.numpy import load_file, save_file

PATTERN = "model{suffix}.safetensors"


def state_dict():
    """Sizes chosen around a 1000-byte limit: an exact fill, an oversized tensor, empty and scalar ones."""
    s = {}
    s["model.embed.weight"] = (np.arange(100, dtype=np.float32) * 0.5).reshape(10, 10)  # 400
    s["model.norm.weight"] = np.linspace(-1, 1, 100).astype(np.float16)  # 200
    s["model.ids"] = (np.arange(400) % 251).astype(np.uint8)  # 400: fills the shard to exactly 1000
    s["lm_head.weight"] = np.arange(300, dtype=np.float32) - 7  # 1200: past the limit, a shard of its own
    s["d\u00e9codeur.poids \"q\""] = np.arange(50, dtype=np.int64) * -3  # 400, a name json.dump escapes
    s["model.bias"] = np.full(16, 2.5, dtype=np.float32)  # 64
    s["model.empty"] = np.zeros((0, 3), dtype=np.uint8)  # 0
    s["model.scale"] = np.array(3.25, dtype=np.float32)  # 4
    return s


def split(sd, max_size):
    return split_state_dict_into_shards_factory(sd, get_storage_size=lambda t: t.nbytes, filename_pattern=PATTERN,
                                                max_shard_size=max_size)


def save(out, max_size):
    sd = state_dict()
    hf = os.path.join(out, "hf")
    os.makedirs(hf, exist_ok=True)
    sp = split(sd, max_size)
    for filename, names in sp.filename_to_tensors.items():
        save_file({n: sd[n] for n in names}, os.path.join(hf, filename), metadata={"format": "pt"})
    if sp.is_sharded:
        index = {"metadata": {**sp.metadata, "format": "pt"}, "weight_map": sp.tensor_to_filename}
        with open(os.path.join(hf, "model.safetensors.index.json"), "w") as f:
            json.dump(index, f, indent=2)
    with open(os.path.join(out, "state.json"), "w") as f:
        json.dump({"order": list(sd), "files": sorted(os.listdir(hf))}, f)
    print("saved %d tensors in %d files" % (len(sd), len(sp.filename_to_tensors)))


def splits(out):
    rng = random.Random(42)
    cases = []
    for _ in range(200):
        n = rng.randint(1, 12)
        sizes = [rng.choice([0, 1, 2, 3, 5, 8, 13, 40, 100]) for _ in range(n)]
        limit = rng.choice([1, 5, 10, 16, 40, 99, 100, 1000])
        sd = {"t%d" % i: np.zeros(b, dtype=np.uint8) for i, b in enumerate(sizes)}
        sp = split(sd, limit)
        cases.append({"sizes": sizes, "max": limit, "files": sp.filename_to_tensors,
                      "total_size": sp.metadata["total_size"]})
    with open(os.path.join(out, "splits.json"), "w") as f:
        json.dump(cases, f)
    print("split %d" % len(cases))


def load(folder):
    """What huggingface_hub's sharded loader checks, then every shard through safetensors."""
    index_file = os.path.join(folder, "model.safetensors.index.json")
    assert os.path.getsize(index_file) <= 10 * 1024 * 1024
    with open(index_file, encoding="utf-8") as f:
        index = json.load(f)
    assert isinstance(index, dict) and isinstance(index.get("weight_map"), dict), index
    tensors = {}
    for shard in sorted(set(index["weight_map"].values())):
        p = PureWindowsPath(shard)
        assert not p.drive and not p.root and ".." not in p.parts and shard.endswith(".safetensors"), shard
        loaded = load_file(os.path.join(folder, shard))
        for name, value in loaded.items():
            assert index["weight_map"][name] == shard, (name, shard)
            assert name not in tensors, name
            tensors[name] = value
    assert set(tensors) == set(index["weight_map"]), (sorted(tensors), sorted(index["weight_map"]))
    assert index["metadata"]["total_size"] == sum(t.nbytes for t in tensors.values()), index["metadata"]
    return index, tensors


def check(out):
    index, ours = load(os.path.join(out, "ours"))
    hf_index, hf = load(os.path.join(out, "hf"))
    assert index == hf_index, (index, hf_index)
    for name, value in hf.items():
        assert ours[name].dtype == value.dtype and ours[name].shape == value.shape, name
        assert np.array_equal(ours[name], value), name
    print("checked %d" % len(ours))


if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "save":
        save(out, int(sys.argv[3]))
    elif mode == "splits":
        splits(out)
    elif mode == "check":
        check(out)
    else:
        raise SystemExit("unknown mode " + mode)
