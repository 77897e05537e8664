#!/usr/bin/env bash
# Builds Keel's c10d JNI libraries for linux-x86_64 (run by Maven in gpu-workers' process-test-classes):
#   libkeel_c10d.so       TCPStore + ProcessGroupGloo, linked to DJL's libc10.so / libtorch_cpu.so
#   libkeel_c10d_nccl.so  ProcessGroupNCCL, compile-and-link only unless a CUDA libtorch is present
#
# build.sh --out DIR --tools DIR --java-home DIR --libtorch-jar JAR [--nccl true|false]
#
# Headers are fetched once into the tools directory (git-ignored): torch/include from the torch
# wheel on PyPI, gloo from Debian's libgloo-dev (apt-get download, no root), CUDA and NCCL headers
# from NVIDIA's PyPI wheels. Built libraries are cached there by a hash of everything that goes
# into them, so an unchanged build (even after `mvn clean`) only copies a file.
#
# A missing tool or download prints ONE line starting with "[keel-native]" and exits 0: the rest
# of the build and single-process training work without these libraries. A compile error in
# keel_c10d.cpp fails the build.
set -euo pipefail

TORCH_VERSION=2.7.1
# torch 2.7.1's own pins (its wheel's Requires-Dist), plus the nvcc/cccl parts of the same CUDA
# 12.6.77 release that cuda_runtime_api.h and cuda_fp16.h include.
CUDA_WHEELS=(nvidia-cuda-runtime-cu12==12.6.77 nvidia-cuda-nvcc-cu12==12.6.77 nvidia-cuda-cccl-cu12==12.6.77
  nvidia-cublas-cu12==12.6.4.1 nvidia-cusparse-cu12==12.5.4.2 nvidia-cusolver-cu12==11.7.1.2 nvidia-nccl-cu12==2.26.2)
CXXFLAGS=(-std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -O2 -fPIC -fvisibility=hidden -Wall -Wno-unused-function)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="" tools="" java_home="" libtorch_jar="" nccl=true
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --tools) tools="$2"; shift 2 ;;
    --java-home) java_home="$2"; shift 2 ;;
    --libtorch-jar) libtorch_jar="$2"; shift 2 ;;
    --nccl) nccl="$2"; shift 2 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$tools" ] && [ -n "$java_home" ] && [ -n "$libtorch_jar" ] || {
  echo "usage: build.sh --out DIR --tools DIR --java-home DIR --libtorch-jar JAR [--nccl true|false]" >&2; exit 2; }

started=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - started) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }
log="$tools/keel-native.log"
export LC_ALL=C

# Downloads are announced only in the log and the final line: a failed build prints exactly one line.
fetched=""
fetching() {
  echo "[keel-native] downloading $1" >>"$log"
  fetched="${fetched:+$fetched, }$1"
}
fetched_note() { [ -z "$fetched" ] || echo "; fetched into $tools: $fetched"; }

# One line, then stop: what is missing, what to do, and what still works.
give_up() {
  echo "[keel-native] collectives library NOT built: $* -- single-process training is unaffected;" \
    "distributed training needs it (see gpu-workers/README.md)"
  exit 0
}

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) give_up "only linux-x86_64 is supported, this is $(uname -s)-$(uname -m)" ;;
esac
command -v g++ >/dev/null || give_up "g++ not found (apt-get install g++)"
command -v python3 >/dev/null || give_up "python3 not found (apt-get install python3 python3-pip)"
[ -f "$java_home/include/jni.h" ] || give_up "no jni.h under $java_home/include (build with a JDK, not a JRE)"
[ -f "$libtorch_jar" ] || give_up "DJL's libtorch jar $libtorch_jar is missing (run Maven once without -o)"

mkdir -p "$tools" "$out"
# Several builds of one checkout may run at once; downloads and the cache must not interleave.
if command -v flock >/dev/null; then
  exec 9>"$tools/.keel-native.lock"
  flock 9
fi
: >"$log"
scratch="$(mktemp -d "$tools/.scratch-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# unzip ZIP DEST PATTERN... (python's zipfile: no unzip binary needed)
extract() {
  python3 - "$@" <<'PY'
import fnmatch, shutil, sys, zipfile, os
archive, dest, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(archive) as z:
    for info in z.infolist():
        if not info.is_dir() and any(fnmatch.fnmatchcase(info.filename, p) for p in patterns):
            target = os.path.join(dest, info.filename)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
PY
}

pip_download() {
  python3 -m pip download --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --platform manylinux2014_x86_64 --python-version 3.11 --disable-pip-version-check -q "$@" >>"$log" 2>&1
}

# Exported symbol tables of the CUDA libraries, so the NCCL library links against stubs that carry
# exactly what the real ones export (no 1 GB libtorch_cuda.so on disk, and still -z defs checking).
symbols_of() {
  nm -D --defined-only --format=posix "$1" | awk '{print $1, $2}' | gzip -n >"$2"
}

fetch_torch() {
  local dest="$tools/torch-$TORCH_VERSION"
  if [ -f "$dest/.complete" ] && { [ "$nccl" != true ] || [ -f "$dest/symbols/.complete" ]; }; then
    return 0
  fi
  command -v nm >/dev/null || give_up "nm not found (apt-get install binutils)"
  python3 -m pip --version >/dev/null 2>&1 || give_up "pip not found (apt-get install python3-pip)"
  fetching "torch==$TORCH_VERSION headers (821 MB wheel from PyPI, 52 MB kept)"
  local tmp="$scratch/torch"
  pip_download -d "$tmp/wheel" "torch==$TORCH_VERSION" ||
    give_up "pip download torch==$TORCH_VERSION failed (no network to PyPI?); see $log"
  local wheel=("$tmp"/wheel/torch-*.whl)
  if [ ! -f "$dest/.complete" ]; then
    extract "${wheel[0]}" "$tmp/x" 'torch/include/*'
    mkdir -p "$tmp/out"
    mv "$tmp/x/torch/include" "$tmp/out/include"
    touch "$tmp/out/.complete"
    rm -rf "$dest"
    mv "$tmp/out" "$dest"
  fi
  if [ "$nccl" = true ] && [ ! -f "$dest/symbols/.complete" ]; then
    extract "${wheel[0]}" "$tmp/x" 'torch/lib/libtorch_cuda.so' 'torch/lib/libc10_cuda.so'
    mkdir -p "$dest/symbols"
    symbols_of "$tmp/x/torch/lib/libtorch_cuda.so" "$dest/symbols/libtorch_cuda.so.gz"
    symbols_of "$tmp/x/torch/lib/libc10_cuda.so" "$dest/symbols/libc10_cuda.so.gz"
    touch "$dest/symbols/.complete"
  fi
}

gloo_include=""
fetch_gloo() {
  if [ -f /usr/include/gloo/config.h ]; then
    gloo_include=/usr/include
    return 0
  fi
  local dest="$tools/gloo"
  if [ ! -f "$dest/.complete" ]; then
    command -v apt-get >/dev/null ||
      give_up "gloo headers not found (install Debian/Ubuntu's libgloo-dev, or put them in $dest/include/gloo)"
    fetching "gloo headers (Debian's libgloo-dev, 49 kB)"
    local tmp="$scratch/gloo"
    mkdir -p "$tmp"
    (cd "$tmp" && apt-get download libgloo-dev) >>"$log" 2>&1 ||
      give_up "apt-get download libgloo-dev failed (no network, or run apt-get update); see $log"
    dpkg-deb -x "$tmp"/libgloo-dev_*.deb "$tmp/x"
    mkdir -p "$tmp/out"
    mv "$tmp/x/usr/include" "$tmp/out/include"
    dpkg-deb -f "$tmp"/libgloo-dev_*.deb Version >"$tmp/out/VERSION"
    touch "$tmp/out/.complete"
    rm -rf "$dest"
    mv "$tmp/out" "$dest"
  fi
  gloo_include="$dest/include"
}

fetch_cuda() {
  local dest="$tools/cuda-12.6"
  [ -f "$dest/.complete" ] && return 0
  fetching "CUDA 12.6 and NCCL 2.26.2 headers (1 GB of wheels from PyPI, 6 MB kept)"
  local tmp="$scratch/cuda"
  pip_download -d "$tmp/wheels" "${CUDA_WHEELS[@]}" || return 1
  mkdir -p "$tmp/out/include"
  local w
  for w in "$tmp"/wheels/*.whl; do
    case "$w" in
      # only CCCL's nv/target, which cuda_fp16.h includes; thrust and cub are device code
      */nvidia_cuda_cccl_*) extract "$w" "$tmp/x" 'nvidia/cuda_cccl/include/nv/*' ;;
      *) extract "$w" "$tmp/x" 'nvidia/*/include/*' ;;
    esac
    rm -f "$w"
  done
  for w in "$tmp"/x/nvidia/*/include; do
    cp -r "$w"/. "$tmp/out/include/"
  done
  touch "$tmp/out/.complete"
  rm -rf "$dest"
  mv "$tmp/out" "$dest"
}

# DJL's own libc10.so and libtorch_cpu.so, from the Maven jar DJL extracts at run time: linking
# against these exact files makes every symbol this library needs one that DJL's libtorch exports.
libtorch_dir=""
fetch_libtorch() {
  local dest
  dest="$tools/djl-$(basename "$libtorch_jar" .jar)"
  if [ ! -f "$dest/.complete" ]; then
    local tmp="$scratch/libtorch"
    extract "$libtorch_jar" "$tmp/x" 'pytorch/cpu/linux-x86_64/libc10.so' 'pytorch/cpu/linux-x86_64/libtorch_cpu.so'
    mv "$tmp/x/pytorch/cpu/linux-x86_64" "$tmp/out"
    touch "$tmp/out/.complete"
    rm -rf "$dest"
    mv "$tmp/out" "$dest"
  fi
  libtorch_dir="$dest"
}

fetch_torch
fetch_gloo
fetch_libtorch
torch_include="$tools/torch-$TORCH_VERSION/include"
includes=(-isystem "$torch_include" -isystem "$torch_include/torch/csrc/api/include"
  -I"$java_home/include" -I"$java_home/include/linux")

# Everything that goes into a library; the key names its cache entry.
key_of() {
  {
    sha256sum "$here/keel_c10d.cpp" "$here/build.sh" | awk '{print $1}'
    g++ -dumpfullversion -dumpversion
    echo "$TORCH_VERSION $(basename "$libtorch_jar") ${CUDA_WHEELS[*]} ${CXXFLAGS[*]} $*"
    cat "$tools/gloo/VERSION" 2>/dev/null || echo "$gloo_include"
  } | sha256sum | cut -c1-24
}

# install NAME KEY: copies the cached library to the output unless it is already there.
install_cached() {
  local name="$1" cached="$2"
  if ! cmp -s "$cached" "$out/$name"; then
    cp "$cached" "$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name"
  fi
}

build_gloo() {
  local name=libkeel_c10d.so key cache
  key="$(key_of gloo)"
  cache="$tools/keel-native/$key/$name"
  if [ -f "$cache" ]; then
    install_cached "$name" "$cache"
    echo "[keel-native] $name up to date ($(elapsed))"
    return 0
  fi
  mkdir -p "$(dirname "$cache")"
  g++ "${CXXFLAGS[@]}" -DUSE_C10D_GLOO "${includes[@]}" -isystem "$gloo_include" -shared "$here/keel_c10d.cpp" \
    -o "$cache.tmp" -L"$libtorch_dir" -Wl,-z,defs -Wl,--as-needed -lc10 -ltorch_cpu
  mv "$cache.tmp" "$cache"
  install_cached "$name" "$cache"
  echo "[keel-native] built $name ($(elapsed)$(fetched_note))"
  fetched=""
}

# A shared library with SONAME $1 that defines, as empty stubs, those of $3's symbols (gzipped
# "name type" lines) that object $4 needs.
stub_library() {
  local soname="$1" dir="$2" table="$3" object="$4"
  nm -u --format=posix "$object" | awk '{print $1}' | sort -u >"$dir/undefined"
  {
    echo ".text"
    zcat "$table" | sort -k1,1 | join - "$dir/undefined" | while read -r sym type; do
      case "$type" in
        T | t | W | w | i) printf '.globl %s\n.type %s,@function\n%s:\nret\n' "$sym" "$sym" "$sym" ;;
        *) printf '.data\n.globl %s\n.type %s,@object\n.size %s,8\n%s:\n.quad 0\n.text\n' "$sym" "$sym" "$sym" "$sym" ;;
      esac
    done
  } >"$dir/$soname.s"
  g++ -shared -nostdlib -Wl,-soname,"$soname" "$dir/$soname.s" -o "$dir/$soname"
}

build_nccl() {
  local name=libkeel_c10d_nccl.so key cache
  started=$(date +%s%N)
  if ! fetch_cuda; then
    echo "[keel-native] $name (GPU) NOT built: pip download of ${CUDA_WHEELS[*]} failed (no network to PyPI?);" \
      "see $log -- the CPU library is complete"
    return 0
  fi
  key="$(key_of nccl)"
  cache="$tools/keel-native/$key/$name"
  if [ -f "$cache" ]; then
    install_cached "$name" "$cache"
    echo "[keel-native] $name up to date ($(elapsed))"
    return 0
  fi
  local work="$scratch/nccl"
  mkdir -p "$work"
  g++ "${CXXFLAGS[@]}" -DUSE_C10D_NCCL -DUSE_CUDA "${includes[@]}" -isystem "$tools/cuda-12.6/include" \
    -c "$here/keel_c10d.cpp" -o "$work/keel_c10d_nccl.o"
  local symbols="$tools/torch-$TORCH_VERSION/symbols"
  stub_library libtorch_cuda.so "$work" "$symbols/libtorch_cuda.so.gz" "$work/keel_c10d_nccl.o"
  stub_library libc10_cuda.so "$work" "$symbols/libc10_cuda.so.gz" "$work/keel_c10d_nccl.o"
  mkdir -p "$(dirname "$cache")"
  g++ -shared "$work/keel_c10d_nccl.o" -o "$cache.tmp" -L"$work" -L"$libtorch_dir" -Wl,-z,defs -Wl,--as-needed \
    -ltorch_cuda -lc10_cuda -lc10 -ltorch_cpu
  mv "$cache.tmp" "$cache"
  install_cached "$name" "$cache"
  echo "[keel-native] built $name ($(elapsed)$(fetched_note))"
}

build_gloo
if [ "$nccl" = true ]; then
  build_nccl
else
  rm -f "$out/libkeel_c10d_nccl.so"
fi
