"""XLA's verdict on HLO modules, for RunXlaAgreementTest's refusals test.

Usage: python3 xla_verdicts.py MANIFEST
MANIFEST holds one module path a line. Prints one line per module, PATH<TAB>VERDICT: "ok" (parsed
by XLA's own parser, converted to MLIR and compiled for the CPU), "refused: MESSAGE", or
"aborted: LINE" where XLA failed one of its own checks and ended the process. The modules are
compiled in a child process, started again after each abort, so one abort does not hide the rest.
"""
import os
import subprocess
import sys

CHILD = r'''
import sys
from jaxlib import _hlo
from jax._src import xla_bridge
from jax._src.lib import xla_client as xc

backend = xla_bridge.get_backend("cpu")
devices = xc.DeviceList(tuple(backend.devices()[:1]))
for path in sys.argv[1:]:
    print("START\t" + path, flush=True)
    try:
        with open(path) as f:
            module = _hlo.hlo_module_from_text(f.read())
        computation = _hlo.XlaComputation(module.as_serialized_hlo_module_proto())
        mlir = xc._xla.mlir.xla_computation_to_mlir_module(computation)
        backend.compile_and_load(mlir, devices, xc.CompileOptions())
        print(path + "\tok", flush=True)
    except Exception as e:  # one verdict a module
        lines = str(e).splitlines()
        # A parse or verifier error says where on a later line ("... error: ..."): keep it.
        where = next((l.strip() for l in lines[1:] if "error" in l.lower()), "")
        print(path + "\trefused: " + (lines[0] if lines else "") + (" " + where if where else ""), flush=True)
'''


def main():
    with open(sys.argv[1]) as manifest:
        paths = [line.strip() for line in manifest if line.strip()]
    verdicts = {}
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    while True:
        todo = [p for p in paths if p not in verdicts]
        if not todo:
            break
        child = subprocess.run([sys.executable, "-c", CHILD] + todo, capture_output=True, text=True, env=env)
        started = None
        for line in child.stdout.splitlines():
            if line.startswith("START\t"):
                started = line.split("\t", 1)[1]
            elif "\t" in line:
                path, verdict = line.split("\t", 1)
                verdicts[path] = verdict
                started = None
        if started is None:
            if child.returncode != 0:  # it failed before the first module: nothing to go on with
                sys.stderr.write(child.stderr)
                sys.exit(1)
            continue
        check = next((l for l in child.stderr.splitlines() if "Check failed" in l), "")
        verdicts[started] = "aborted: " + (check or "exit status %d" % child.returncode)[:300]
    for p in paths:
        print(p + "\t" + verdicts[p])


if __name__ == "__main__":
    main()
