#!/usr/bin/env bash
# One-shot `tensorbuf convert` runs (a fresh JVM each), with the Vector API kernels from the first
# copy (scalarFirstBytes=0, the library's default) and with the launcher's setting for convert
# (each kernel scalar for its first 256 MiB), alternating. Prints the seconds convert reports.
# Usage: bash bench/experiments/cold_convert.sh [pairs]   (needs python3 with numpy)
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs="${1:-3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys, numpy as np
d = sys.argv[1]
np.save(d + "/img.npy", np.random.randint(0, 255, (8, 224, 224, 3)).astype(np.uint8))
np.save(d + "/small.npy", np.random.rand(8, 3, 224, 224).astype(np.float32))
np.save(d + "/big.npy", np.random.rand(32, 64, 112, 112).astype(np.float32))
np.save(d + "/big512.npy", np.random.rand(2, 64, 512, 512).astype(np.float32))
np.save(d + "/c3.npy", np.random.rand(32, 3, 512, 512).astype(np.float32))
np.save(d + "/w.npy", np.random.rand(4096, 4096).astype(np.float32))
np.save(d + "/i.npy", np.random.randint(0, 100, (4096, 4096)).astype(np.int32))
PY
cases=("img.npy --layout f32[8,224,224,3]{2,1,3,0} --dtype f32"
       "small.npy --layout bf16[8,3,224,224]{3,2,1,0:T(8,128)(2,1)} --dtype bf16"
       "big.npy --layout f32[32,64,112,112]{1,3,2,0}"
       "big.npy --layout bf16[32,64,112,112]{3,2,1,0:T(8,128)(2,1)} --dtype bf16"
       "big512.npy --layout f32[2,64,512,512]{1,3,2,0}"
       "c3.npy --layout f32[32,3,512,512]{1,3,2,0}"
       "w.npy --layout bf16[4096,4096]{1,0:T(8,128)(2,1)} --dtype bf16"
       "w.npy --dtype s8"
       "w.npy --dtype f16"
       "i.npy --dtype f64")
for c in "${cases[@]}"; do
  set -- $c
  line="$c:"
  for i in $(seq "$pairs"); do
    for mode in vector scalar-first; do
      opts=""; [ "$mode" = vector ] && opts="-Dtensorbuf.copy.scalarFirstBytes=0"
      s=$(TENSORBUF_JAVA_OPTS="$opts" ./tensorbuf convert "$dir/$1" "$dir/out.bin" "$2" "$3" ${4:+"$4"} ${5:+"$5"} --json 2>/dev/null \
          | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
      line="$line $mode=$s"
    done
  done
  echo "$line"
done
