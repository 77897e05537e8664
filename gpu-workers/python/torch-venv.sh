#!/usr/bin/env bash
# Makes TOOLS/torchenv, a Python venv with requirements.txt (stock PyTorch from PyPI, about 5 GB with
# its CUDA libraries), which gpu-workers' tests run to write TorchScript fixtures (run by Maven in
# gpu-workers' process-test-classes, unless tests are skipped):
#
# torch-venv.sh --tools DIR
#
# Rebuilt only when requirements.txt changes (its sha256 is kept in the venv) or the venv's python no
# longer starts (its base interpreter was removed). It is built under a temporary name and renamed
# into place, so a half-made venv is never used.
#
# Failure prints ONE line starting with "[keel-torchenv]" and exits 0: the build goes on, and the
# tests that need the venv fail, saying how to make it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
tools=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tools) tools="$2"; shift 2 ;;
    *) echo "torch-venv.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$tools" ] || { echo "usage: torch-venv.sh --tools DIR" >&2; exit 2; }
# Maven passes gpu-workers/../.tools; venv and pip write the resolved path into the scripts, which
# the rewrite below must find.
mkdir -p "$tools"
tools="$(cd "$tools" && pwd -P)"

started=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - started) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }
export LC_ALL=C
venv="$tools/torchenv"
stamp=.keel-requirements.sha256
log="$tools/keel-torchenv.log"

give_up() {
  echo "[keel-torchenv] $venv NOT made: $* -- the tests that write PyTorch fixtures will fail"
  exit 0
}

want="$(sha256sum "$requirements" | awk '{print $1}')"
up_to_date() {
  [ "$(cat "$venv/$stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/python" -c '' 2>/dev/null
}
# Checked before taking the lock too: an unchanged venv costs no wait behind another build's.
up_to_date && exit 0

command -v python3 >/dev/null || give_up "python3 not found (apt-get install python3 python3-venv)"
mkdir -p "$tools"
# Several builds of one checkout may run at once; only one of them may build the venv.
if command -v flock >/dev/null; then
  exec 9>"$tools/.keel-torchenv.lock"
  flock 9
fi
up_to_date && exit 0
: >"$log"

scratch="$(mktemp -d "$tools/.torchenv-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
new="$scratch/torchenv"
python3 -m venv "$new" >>"$log" 2>&1 ||
  give_up "python3 -m venv failed (apt-get install python3-venv); see $log"
"$new/bin/python" -m pip install --disable-pip-version-check --no-input -r "$requirements" >>"$log" 2>&1 ||
  give_up "pip install -r $requirements failed (no network to PyPI?); see $log"
"$new/bin/python" -c 'import numpy, torch' >>"$log" 2>&1 ||
  give_up "the new venv cannot import torch; see $log"
# pip wrote the temporary path into its scripts' #! lines and the activate scripts; they must name
# the venv where it will live.
{ grep -lIF "$new" "$new"/bin/* 2>/dev/null || true; } | while read -r f; do sed -i "s|$new|$venv|g" "$f"; done
echo "$want" >"$new/$stamp"

# The old venv is moved aside, not deleted first, so the new one takes its place in one rename.
if [ -e "$venv" ] || [ -L "$venv" ]; then
  mv -T "$venv" "$scratch/old"
fi
mv -T "$new" "$venv"
echo "[keel-torchenv] made $venv from $(basename "$here")/requirements.txt ($(elapsed))"
