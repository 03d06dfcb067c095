#!/usr/bin/env bash
# Proves native/cudnn_decls.h (our own cuDNN prototypes and constants) against the real <cudnn.h>.
# Needs only g++ and the cuDNN 9 headers; no node-addon-api, no GPU.
#
#   CUDNN_INCLUDE_DIR  where cudnn.h lives           (default /usr/include/x86_64-linux-gnu)
#   CUDA_INCLUDE_DIR   where cuda_runtime_api.h lives (default: searched, /usr/local/cuda/include first)
#   CXX                the compiler                   (default g++)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cudnn_inc="${CUDNN_INCLUDE_DIR:-/usr/include/x86_64-linux-gnu}"
cuda_inc="${CUDA_INCLUDE_DIR:-}"
cxx="${CXX:-g++}"

if [ ! -f "$cudnn_inc/cudnn.h" ]; then
  echo "FAIL: no cudnn.h in $cudnn_inc (set CUDNN_INCLUDE_DIR to the directory holding cudnn.h)"
  exit 2
fi
includes=(-I"$here/native" -I"$cudnn_inc")
# cudnn.h includes cuda_runtime_api.h and library_types.h, which a cuDNN package does not ship:
# take them from the CUDA toolkit, or from the nvidia-cuda-runtime wheel of a Python install.
if [ -z "$cuda_inc" ]; then
  for candidate in /usr/local/cuda/include /usr/local/cuda-*/include /usr/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cuda_runtime/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cu*/include; do
    if [ -f "$candidate/cuda_runtime_api.h" ]; then cuda_inc="$candidate"; break; fi
  done
fi
if [ -n "$cuda_inc" ]; then includes+=(-I"$cuda_inc"); fi

version="$(printf '#include <cudnn_version.h>\nCUDNN_MAJOR.CUDNN_MINOR.CUDNN_PATCHLEVEL\n' |
  "$cxx" -E -P -x c++ - -I"$cudnn_inc" 2>/dev/null | tail -n 1 | tr -d ' ')"

if "$cxx" -std=c++17 -fsyntax-only "${includes[@]}" "$here/native/abi_check.cc"; then
  echo "PASS: native/cudnn_decls.h matches cuDNN ${version:-?} headers in $cudnn_inc (CUDA headers: ${cuda_inc:-system})"
  exit 0
else
  echo "FAIL: native/cudnn_decls.h differs from cuDNN ${version:-?} headers in $cudnn_inc (see errors above)"
  exit 1
fi
