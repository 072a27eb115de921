#!/usr/bin/env bash
# The GPU check of tensorbuf (issue 42), for a Linux x86-64 machine with an NVIDIA driver, the CUDA
# runtime libraries and Python with PyTorch and CuPy, and neither Java nor network: it uses the
# runtime and jars gpu/build.sh put into gpu/dist/ (copy that folder over; it holds this script too).
#
#   check.sh [--fake] [--out DIR] [--bytes N]
#
#   1. the GPU-gated JUnit tests (CudaGpuTest, DlpackPythonTest), run with JUnit's console launcher
#      under -Dtensorbuf.gpu.required=true, so that no usable CUDA fails them instead of skipping;
#      none may be skipped
#   2. CudaSpeed: 1 GiB (--bytes) host to device and back, pinned and pageable, in GB/s; then u8 NHWC
#      image batches staged into pinned f32 NCHW buffers and uploaded on a stream, serially and
#      double-buffered (the next batch staged while this one uploads): GB/s, the overlap achieved,
#      and every uploaded batch downloaded and compared ("staged_upload"; must say bytes_checked)
#   3. torch_speed.py: PyTorch's .to('cuda', non_blocking=True) and cudaMemcpy of the same bytes
# Results: DIR/check.json (one object: "ok", each step's outcome and figures) and DIR/check.log
# (everything printed). DIR defaults to ./gpu-check-out. Exit status 0 only when "ok" is true.
#
# --fake runs the Java side against the fake CUDA runtime of the tests (host memory posing as
# device memory), as CI does on machines without a GPU: the tests that need a real GPU (PyTorch,
# CuPy) are then the only ones allowed to skip, and step 3 is left out.
# Environment: TENSORBUF_PYTHON (default python3), the interpreter with torch and cupy (and its
# shared libpython, which the DLPack tests load into the JVM).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/jre/bin/java" ]; then dist=$here; else dist=$here/dist; fi
fake=0
out=$PWD/gpu-check-out
bytes=$((1 << 30))
while [ $# -gt 0 ]; do
  case "$1" in
    --fake) fake=1 ;;
    --out) out=$2; shift ;;
    --bytes) bytes=$2; shift ;;
    *) echo "usage: check.sh [--fake] [--out DIR] [--bytes N]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$dist/jre/bin/java" ] || { echo "[gpu/check] no runtime at $dist/jre: run gpu/build.sh first" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/junit" "$out"/*.json "$out/check.log"
exec > >(tee "$out/check.log") 2>&1
python=${TENSORBUF_PYTHON:-python3}
java=$dist/jre/bin/java
cp=$(echo "$dist"/lib/*.jar "$dist"/test/tensorbuf-*.jar | tr ' ' ':')
jflags=(--enable-native-access=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
        --add-modules jdk.incubator.vector -Xss4m "-Dtensorbuf.python=$python")
log() { echo "[gpu/check] $(date -u +%H:%M:%S) $*"; }
mode=gpu; [ "$fake" = 1 ] && mode=fake
log "mode $mode, results in $out"

# CudaRuntime opens libcudart by name. pip's PyTorch and CuPy bring their own copy (the
# nvidia-cuda-runtime wheel) outside the loader's search path; add those folders after the
# system's, so that a machine with only the wheels still has a runtime to load.
if [ "$fake" = 0 ]; then
  extra=$("$python" - 2>/dev/null <<'PY'
import glob, os
dirs = []
try:
    import nvidia.cuda_runtime as m
    dirs += [os.path.join(p, "lib") for p in m.__path__]
except Exception:
    pass
try:
    import importlib.util
    spec = importlib.util.find_spec("torch")
    if spec and spec.origin:
        dirs.append(os.path.join(os.path.dirname(spec.origin), "lib"))
except Exception:
    pass
dirs += ["/usr/local/cuda/lib64"]
print(":".join(d for d in dirs if glob.glob(os.path.join(d, "libcudart.so*"))))
PY
)
  if [ -n "$extra" ]; then
    export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$extra"
    log "libcudart folders added to LD_LIBRARY_PATH: $extra"
  fi
fi

{
  echo "mode=$mode"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname=$(uname -srm)"
  echo "cpus=$(nproc)"
  echo "java=$("$java" -version 2>&1 | sed -n 2p)"
  echo "python=$("$python" -c 'import sys; print(sys.version.split()[0])' 2>&1)"
  command -v nvidia-smi >/dev/null 2>&1 \
    && echo "gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n1)"
} > "$out/env.txt"
cat "$out/env.txt"

# 1. the GPU-gated tests
props=(-Dtensorbuf.gpu.required=true)
[ "$fake" = 1 ] && props=(-Dtensorbuf.gpu.fake=true)
log "JUnit: CudaGpuTest, DlpackPythonTest"
"$java" "${jflags[@]}" "${props[@]}" -jar "$dist/test/junit-platform-console-standalone.jar" execute \
    --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests --class-path "$cp" \
    --select-class dev.tensorbuf.interop.CudaGpuTest --select-class dev.tensorbuf.interop.DlpackPythonTest \
    --reports-dir "$out/junit"
echo $? > "$out/junit.rc"

# 2. tensorbuf's transfer speed
# The fake's "device" is host memory: 64 MiB shows the code runs, and spares CI a gigabyte.
speed_bytes=$bytes
[ "$fake" = 1 ] && speed_bytes=$((bytes < 64 << 20 ? bytes : 64 << 20))
log "CudaSpeed, $speed_bytes bytes"
speed_args=(--bytes "$speed_bytes" --out "$out/speed-java.json")
[ "$fake" = 1 ] && speed_args=(--fake "${speed_args[@]}")
"$java" "${jflags[@]}" -cp "$cp" dev.tensorbuf.interop.CudaSpeed "${speed_args[@]}"
echo $? > "$out/speed-java.rc"

# 3. PyTorch's and cudaMemcpy's speed on the same bytes
if [ "$fake" = 0 ]; then
  log "torch_speed.py, $bytes bytes"
  "$python" "$dist/torch_speed.py" --bytes "$bytes" > "$out/speed-torch.json"
  echo $? > "$out/speed-torch.rc"
  cat "$out/speed-torch.json"
fi

log "writing check.json"
"$python" - "$out" "$mode" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
out, mode = sys.argv[1], sys.argv[2]
def rc(name):
    p = os.path.join(out, name + ".rc")
    return int(open(p).read()) if os.path.exists(p) else None
def load(name):
    p = os.path.join(out, name)
    try:
        return json.load(open(p))
    except Exception as e:
        return {"error": "%s: %s" % (name, e)}
env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(out, "env.txt")) if "=" in l)
# Tests a fake run may skip: they need a real GPU, and say so (GpuTests.assumeRealGpu).
REAL_GPU_ONLY = "needs a real GPU"
cases = []
report = os.path.join(out, "junit", "TEST-junit-jupiter.xml")
if os.path.exists(report):
    for tc in ET.parse(report).getroot().iter("testcase"):
        status, message = "passed", None
        for tag in ("failure", "error", "skipped"):
            e = tc.find(tag)
            if e is not None:
                text = e.get("message") or ((e.text or "").strip().splitlines() or [""])[0]
                status, message = tag, text[:500]
        cases.append({"class": tc.get("classname"), "name": tc.get("name"), "status": status,
                      "seconds": float(tc.get("time") or 0), "message": message})
count = lambda s: sum(1 for c in cases if c["status"] == s)
allowed_skips = [c for c in cases if c["status"] == "skipped" and mode == "fake" and REAL_GPU_ONLY in (c["message"] or "")]
junit = {"rc": rc("junit"), "tests": len(cases), "passed": count("passed"), "failed": count("failure") + count("error"),
         "skipped": count("skipped"), "skipped_allowed": len(allowed_skips), "cases": cases}
junit["ok"] = (junit["rc"] == 0 and junit["tests"] > 0 and junit["failed"] == 0
               and junit["skipped"] == junit["skipped_allowed"])
result = {"mode": mode, "env": env, "junit": junit}
result["speed_java"] = load("speed-java.json") if rc("speed-java") == 0 else {"error": "CudaSpeed exited %s" % rc("speed-java")}
# The overlapped staging step checks the uploaded bytes itself; its absence is a failure too.
staged = result["speed_java"].get("staged_upload") if isinstance(result["speed_java"], dict) else None
if not (isinstance(staged, dict) and staged.get("bytes_checked") is True):
    result["speed_java"].setdefault("error", "no checked staged_upload step in CudaSpeed's output")
ok = junit["ok"] and "error" not in result["speed_java"]
if mode == "gpu":
    result["speed_torch"] = load("speed-torch.json") if rc("speed-torch") == 0 else {"error": "torch_speed.py exited %s" % rc("speed-torch")}
    ok = ok and "error" not in result["speed_torch"]
result["ok"] = ok
json.dump(result, open(os.path.join(out, "check.json"), "w"), indent=1)
print("[gpu/check] ok=%s: %d tests, %d passed, %d failed, %d skipped (%d allowed)" % (
    ok, junit["tests"], junit["passed"], junit["failed"], junit["skipped"], junit["skipped_allowed"]))
sys.exit(0 if ok else 1)
PY
status=$?
log "done, exit $status; $out/check.json"
exit $status
