#!/usr/bin/env bash
# The GPU benchmark's device side, in one device call (docs/benchmarks.md,
# "The GPU benchmark"). Prepared here, where python bench/gpu.py --save DIR
# compiled the modules; run there, from the repository root:
#
#   bench/gpu_device_run.sh DIR WHEELS [python -m xsplit.replay options]
#
# DIR: what bench/gpu.py --save wrote (carried to the device).
# WHEELS: a folder with the iree-base-runtime 3.13.0 wheel for the device's
#   Python (gpu.md: cp312, manylinux_2_28_x86_64, 15 MB).
# It installs the runtime to /tmp/site (the device has no network and no
# IREE; numpy, ml_dtypes and torch are there), replays every program on cuda
# (numerics against numpy's float64, then timings; cuBLAS through torch) and
# writes under $OUT: RESULTS-gpu.md, gpu.json, replay.txt (the tables),
# replay.log (each step, timed) and device.txt (the GPU and the drivers).
# Sized to end within 9 minutes of a 10-minute call, the wheel's install
# included: no program starts after DEADLINE_S (default 390 s), the results
# are rewritten after each program, and the whole replay is stopped at 480 s;
# the programs not run are listed, to be run by a second call with --only.
# bench/gpu.py saves the own kernel's tile sweep and the fused GEMM + row sum
# first, then each shape's f32 and f16 side by side.
set -euo pipefail
saved=${1:?usage: bench/gpu_device_run.sh DIR WHEELS [replay options]}
wheels=${2:?usage: bench/gpu_device_run.sh DIR WHEELS [replay options]}
shift 2
out=${OUT:-/tmp/xsplit-gpu-out}
mkdir -p "$out"
start=$(date +%s)

python3 -m pip install -q --no-index --no-deps --target /tmp/site "$wheels"/iree_base_runtime-3.13.0-*.whl
export PYTHONPATH="/tmp/site:$PWD"

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  python3 - <<'PY' 2>&1 || true
import iree.runtime as rt
print("IREE runtime drivers:", rt.query_available_drivers())
try:
    print("cuda devices:", rt.get_driver("cuda").query_available_devices())
except Exception as e:
    print("cuda:", str(e).splitlines()[0])
try:
    import torch
    print("torch", torch.__version__, "cuda available:", torch.cuda.is_available())
except ImportError:
    print("no torch: no cuBLAS column")
PY
} > "$out/device.txt"
cat "$out/device.txt"

status=0
timeout 480 python3 -m xsplit.replay "$saved" --device "${DEVICE:-cuda}" -v \
  --deadline-s "${DEADLINE_S:-390}" \
  --json "$out/gpu.json" --markdown "$out/RESULTS-gpu.md" "$@" \
  > "$out/replay.txt" 2> "$out/replay.log" || status=$?
echo "replay exit status $status after $(( $(date +%s) - start )) s"
tail -n 5 "$out/replay.log"
cat "$out/RESULTS-gpu.md" 2>/dev/null || echo "no results written"
exit "$status"
