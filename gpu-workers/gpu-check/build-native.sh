#!/usr/bin/env bash
# Builds Keel's c10d JNI library on a CUDA host, against that host's own PyTorch and NCCL (the ones
# in the jar link DJL's libtorch 2.7.1, which such a host does not have): TCPStore and
# ProcessGroupNCCL in one file, found later through its run path to torch/lib.
#
# build-native.sh SOURCE OUT_DIR
#
# Prints the library's path on success. Otherwise prints ONE line saying what is missing and exits 3;
# a compile error prints the compiler's output on stderr first. PYTHON picks the interpreter
# (default python3), JAVA_HOME or the kit's runtime/ gives jni.h, KEEL_CXX_STD overrides -std.
set -euo pipefail

source_file="$1" out="$2"
python="${PYTHON:-python3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

missing() { echo "$*"; exit 3; }

command -v "$python" >/dev/null || missing "no $python"
command -v g++ >/dev/null || missing "no g++"

# torch's include and lib directories, its version and C++ ABI, and every include directory of the
# NVIDIA wheels beside it (CUDA runtime and NCCL headers; their layout differs between CUDA 12 and 13)
info="$("$python" - <<'PY' 2>&1
import glob, os, sys
try:
    import torch
except Exception as e:
    print("ERROR no PyTorch in python3 (%s)" % str(e).splitlines()[0]); sys.exit(0)
root = os.path.dirname(torch.__file__)
print("VERSION", torch.__version__)
print("CUDA", torch.version.cuda or "")
print("ABI", int(torch.compiled_with_cxx11_abi()))
print("LIB", os.path.join(root, "lib"))
print("INCLUDE", os.path.join(root, "include"))
try:
    import nvidia
    for base in nvidia.__path__:
        for d in sorted(glob.glob(os.path.join(base, "**", "include"), recursive=True)):
            if glob.glob(os.path.join(d, "nccl.h")) or glob.glob(os.path.join(d, "cuda_runtime_api.h")):
                print("CUDA_INCLUDE", d)
except ImportError:
    pass
PY
)"
value() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' <<<"$info"; }
err="$(value ERROR)"
[ -z "$err" ] || missing "$err"
version="$(value VERSION)"
[ -n "$(value CUDA)" ] || missing "the host's PyTorch $version is a CPU build (no torch.version.cuda)"
torch_lib="$(value LIB)" torch_include="$(value INCLUDE)"
[ -f "$torch_lib/libtorch_cuda.so" ] || missing "no libtorch_cuda.so in $torch_lib"
[ -f "$torch_include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp" ] ||
  missing "PyTorch $version has no c10d headers under $torch_include"

java_home="${JAVA_HOME:-}"
[ -f "$java_home/include/jni.h" ] || java_home="$here/runtime"
[ -f "$java_home/include/jni.h" ] || missing "no jni.h (neither \$JAVA_HOME/include nor the kit's runtime/include)"

includes=(-isystem "$torch_include" -isystem "$torch_include/torch/csrc/api/include"
  -I"$java_home/include" -I"$java_home/include/linux")
# The toolkit's headers first: a runtime wheel's include/ lacks crt/, which cuda_runtime_api.h
# includes; the wheels then add nccl.h.
for cuda in "${CUDA_HOME:-}" "$(dirname "$(command -v nvcc || echo /nonexistent/bin/nvcc)")/.." /usr/local/cuda; do
  if [ -f "$cuda/include/cuda_runtime_api.h" ]; then
    includes+=(-isystem "$cuda/include")
    break
  fi
done
while read -r d; do includes+=(-isystem "$d"); done < <(awk '$1 == "CUDA_INCLUDE" { print $2 }' <<<"$info")

# torch 2.7's headers compile as C++17; whether a newer one needs C++20 is untried here, so the
# build tries both (KEEL_CXX_STD picks one)
standards="${KEEL_CXX_STD:-c++17 c++20}"

mkdir -p "$out"
lib="$out/libkeel_c10d_host.so"
stamp="$out/.built-for"
key="$(sha256sum "$source_file" | cut -c1-16) $version"
if [ -f "$lib" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
  echo "$lib"
  exit 0
fi
for std in $standards; do
  if g++ -std="$std" -D_GLIBCXX_USE_CXX11_ABI="$(value ABI)" -O2 -fPIC -fvisibility=hidden -w \
    -DUSE_C10D_NCCL -DUSE_CUDA -DKEEL_C10D_STORE "${includes[@]}" -shared "$source_file" -o "$lib.tmp" \
    -L"$torch_lib" -Wl,-rpath,"$torch_lib" -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -ltorch_cpu -lc10 \
    >"$out/g++-$std.log" 2>&1; then
    mv "$lib.tmp" "$lib"
    echo "$key" >"$stamp"
    echo "$lib"
    exit 0
  fi
done
tail -n 30 "$out/g++-${standards##* }.log" >&2
missing "g++ failed to build Keel's JNI library against PyTorch $version (-std $standards; see $out/g++-*.log)"
