#!/usr/bin/env bash
# Fetches the LibTorch 2.x C++ headers (a CUDA build's, with c10/cuda and ATen/cuda)
# from the torch wheel on PyPI and unpacks only its torch/include folder into a cache
# outside the source tree. Nothing is unpacked twice: a complete cache is reused.
#
# Usage: scripts/fetch-libtorch-headers.sh [TORCH_VERSION]    (default: 2.11.0)
# Prints the include directory (the one that holds ATen/ and torch/csrc/api/include/).
# Environment:
#   TORCH_SYNC_CACHE  cache root (default: ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync)
# Exit status: 0 with the include directory on stdout; 1 with a message on stderr when
# pip or unzip is missing, the download fails, or the wheel holds no torch/include.
set -euo pipefail

version=${1:-2.11.0}
cache_root=${TORCH_SYNC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync}
dest="$cache_root/libtorch-$version"
include="$dest/torch/include"
stamp="$dest/.complete"

if [ -f "$stamp" ] && [ -f "$include/ATen/core/Tensor.h" ]; then
  echo "$include"
  exit 0
fi

for tool in python3 unzip; do
  command -v "$tool" >/dev/null || { echo "fetch-libtorch-headers: '$tool' is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
python3 -m pip --version >/dev/null 2>&1 ||
  { echo "fetch-libtorch-headers: pip is missing (Debian: python3-pip; scripts/install-deps.sh installs it)" >&2; exit 1; }

mkdir -p "$cache_root"
work=$(mktemp -d "$cache_root/.download.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "fetch-libtorch-headers: downloading the torch $version wheel (only torch/include is kept)" >&2
# The Linux x86-64 wheel on PyPI is a CUDA build, so its headers include c10/cuda.
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.12 --implementation cp \
    --dest "$work" "torch==$version" >&2; then
  echo "fetch-libtorch-headers: 'pip download torch==$version' failed (is PyPI reachable?)" >&2
  exit 1
fi
wheel=$(ls "$work"/torch-"$version"*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || { echo "fetch-libtorch-headers: pip produced no torch wheel in $work" >&2; exit 1; }

unzip -q "$wheel" 'torch/include/*' -d "$work/unpacked"
[ -f "$work/unpacked/torch/include/ATen/core/Tensor.h" ] ||
  { echo "fetch-libtorch-headers: $wheel holds no torch/include/ATen/core/Tensor.h" >&2; exit 1; }

# Replace any partial earlier attempt, then mark the cache complete.
rm -rf "$dest"
mkdir -p "$dest"
mv "$work/unpacked/torch" "$dest/torch"
echo "torch $version from $(basename "$wheel")" >"$stamp"
echo "$include"
