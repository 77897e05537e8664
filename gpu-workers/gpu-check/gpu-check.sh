#!/usr/bin/env bash
# The GPU host check: run on a CUDA host from the kit make-kit.sh assembled (or from this directory
# with KEEL_JAVA and KEEL_GPU_CHECK_CLASSPATH set). Prints one line per check:
#   cuda-devices: ...    the devices JCuda finds
#   nccl-allreduce: ...  a one-rank c10d ProcessGroupNCCL allreduce through Keel's JNI library, built
#                        here (build-native.sh) against this host's PyTorch and NCCL
#   djl-train: ...       a few DJL training steps of a TorchScript model on the GPU, where DJL's
#                        native library matches this host's PyTorch
# each "ok: ...", "not run: <why>" or "FAILED: <why>". Exit code 1 when a check failed, else 0 (also
# when nothing could run). Needs no network; writes only under KEEL_GPU_CHECK_WORK (default
# <kit>/work). PYTHON picks the interpreter that has PyTorch (default python3).
set -uo pipefail

kit="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${KEEL_GPU_CHECK_WORK:-$kit/work}"
python="${PYTHON:-python3}"
java="${KEEL_JAVA:-}"
if [ -z "$java" ]; then
  for candidate in "$kit/runtime/bin/java" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then java="$candidate"; break; fi
  done
fi
[ -n "$java" ] || { echo "gpu-check.sh: no Java (no runtime/ in the kit, no JAVA_HOME, no java on PATH)" >&2; exit 2; }
classpath="${KEEL_GPU_CHECK_CLASSPATH:-$kit/lib/*}"
mkdir -p "$work"

args=()
torch="$("$python" -c 'import os, torch; print(torch.__version__, os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)"
if [ -n "$torch" ]; then
  args+=(--host-torch "${torch%% *}" --host-torch-lib "${torch#* }")
  # the DJL check's model: 8 features in, as DjlTrainCheck feeds it
  if "$python" -c 'import sys, torch
m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
torch.jit.script(m).save(sys.argv[1])' "$work/mlp.torchscript" 2>"$work/torchscript.log"; then
    args+=(--torchscript "$work/mlp.torchscript")
  fi
else
  args+=(--host-torch-absent "no PyTorch in $python")
fi

# Building takes a minute; without a loaded NVIDIA driver the NCCL check cannot run anyway.
if [ ! -e /proc/driver/nvidia/version ]; then
  args+=(--native-library-absent "no NVIDIA kernel driver (/proc/driver/nvidia/version)")
elif [ -z "$torch" ]; then
  args+=(--native-library-absent "no PyTorch in $python to build against")
else
  built="$(PYTHON="$python" "$kit/build-native.sh" "$kit/native/keel_c10d.cpp" "$work/native" 2>"$work/build-native.log")"
  if [ $? -eq 0 ] && [ -f "$built" ]; then
    args+=(--native-library "$built")
  else
    args+=(--native-library-absent "${built:-build-native.sh failed, see $work/build-native.log}")
  fi
fi

# DJL extracts and caches its natives under the user's home unless told otherwise.
exec "$java" -Xmx1g -DDJL_CACHE_DIR="$work/djl" -Dkeel.native.cache="$work/native-cache" \
  -cp "$classpath" dev.keel.gpu.check.GpuCheck "${args[@]}"
