"""gguf-py (llama.cpp's reference GGUF library) as a peer of tensorbuf's GgufFile and GgufWriter.

  gguf_peer.py read FILE OUT.json   GGUFReader reads FILE; its fields and tensors go to OUT.json
  gguf_peer.py write FILE OUT.json  GGUFWriter writes FILE; what it wrote goes to OUT.json
  gguf_peer.py types OUT.json -     every ggml type's id and block sizes go to OUT.json

Values are canonical: integers as integers, floats as the integer of their bits (f32 or f64),
strings, booleans, arrays as lists. Tensors: name, type name, logical dims (outermost first), and
their bytes as hex.
"""
import json
import struct
import sys

import numpy as np
import gguf
from gguf import GGUFReader, GGUFWriter, GGUFValueType, GGMLQuantizationType, GGML_QUANT_SIZES


def canon(vtype, value):
    if vtype == GGUFValueType.FLOAT32:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if vtype == GGUFValueType.FLOAT64:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if vtype == GGUFValueType.BOOL:
        return bool(value)
    return value


def read(path, out):
    r = GGUFReader(path)
    fields = {}
    for name, f in r.fields.items():
        if name.startswith("GGUF."):
            continue
        types = [t.name for t in f.types]
        if f.types[0] == GGUFValueType.ARRAY and len(f.types) > 1 and f.types[1] == GGUFValueType.ARRAY:
            fields[name] = {"types": types[:2]}  # gguf-py flattens arrays of arrays; only the types are compared
            continue
        contents = f.contents()
        if f.types[0] == GGUFValueType.ARRAY:
            sub = f.types[-1] if len(f.types) > 1 else None
            value = [canon(sub, v) for v in contents]
        else:
            value = canon(f.types[0], contents)
        fields[name] = {"types": types, "value": value}
    tensors = []
    for t in r.tensors:
        tensors.append({
            "name": t.name,
            "type": t.tensor_type.name,
            "dims": [int(d) for d in reversed(t.shape.tolist())],
            "n_bytes": int(t.n_bytes),
            "data_offset": int(t.data_offset),
            "hex": np.asarray(t.data).view(np.uint8).tobytes().hex(),
        })
    json.dump({"alignment": int(r.alignment), "data_offset": int(r.data_offset), "fields": fields,
               "tensors": tensors}, open(out, "w"))
    print("read", len(fields), "fields", len(tensors), "tensors")


def write(path, out):
    rng = np.random.default_rng(38)
    w = GGUFWriter(path, "llama")
    w.add_custom_alignment(64)
    w.add_uint8("u8", 200)
    w.add_int8("i8", -100)
    w.add_uint16("u16", 60000)
    w.add_int16("i16", -30000)
    w.add_uint32("u32", 4000000000)
    w.add_int32("i32", -2000000000)
    w.add_float32("f32", 0.1)
    w.add_uint64("u64", 2**64 - 2)
    w.add_int64("i64", -2**62)
    w.add_float64("f64", 0.1)
    w.add_bool("bool", True)
    w.add_string("str", "héllo ▁wörld")
    w.add_array("tokens", ["<s>", "</s>", "▁the"])
    w.add_array("ints", [1, -2, 3])
    w.add_array("floats", [0.5, -1.25])
    tensors = []
    f32 = rng.standard_normal((3, 64)).astype(np.float32)
    f16 = rng.standard_normal((2, 32)).astype(np.float16)
    bf = rng.standard_normal((2, 32)).astype(np.float32)
    q = rng.standard_normal((4, 64)).astype(np.float32)
    for name, data, qtype in (("f32", f32, None), ("f16", f16, None),
                              ("bf16", gguf.quants.quantize(bf, GGMLQuantizationType.BF16), GGMLQuantizationType.BF16),
                              ("q8_0", gguf.quants.quantize(q, GGMLQuantizationType.Q8_0), GGMLQuantizationType.Q8_0),
                              ("q4_0", gguf.quants.quantize(q, GGMLQuantizationType.Q4_0), GGMLQuantizationType.Q4_0)):
        w.add_tensor(name, data, raw_dtype=qtype)
        tensors.append({"name": name, "hex": data.view(np.uint8).tobytes().hex()})
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    json.dump({"tensors": tensors}, open(out, "w"))
    print("wrote", len(tensors), "tensors")


def types(out, _):
    """Every ggml type gguf-py knows: id, values per block, bytes per block."""
    json.dump({t.name: [int(t), *GGML_QUANT_SIZES[t]] for t in GGMLQuantizationType}, open(out, "w"))
    print("types", len(GGMLQuantizationType))


if __name__ == "__main__":
    {"read": read, "write": write, "types": types}[sys.argv[1]](sys.argv[2], sys.argv[3])
