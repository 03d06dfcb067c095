#!/usr/bin/env bash
# Proves native/nccl_decls.h (our own NCCL prototypes and constants) against the real <nccl.h>.
# Needs only g++ and the NCCL 2 headers; no node-addon-api, no GPU.
#
#   NCCL_INCLUDE_DIR  where nccl.h lives (default: searched: /usr/include, the CUDA toolkit, then
#                     the nvidia-nccl wheel of a Python install, e.g. PyTorch's venv)
#   CUDA_INCLUDE_DIR  where cuda_runtime.h lives (default: searched, /usr/local/cuda/include first)
#   CXX               the compiler (default g++)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nccl_inc="${NCCL_INCLUDE_DIR:-}"
cuda_inc="${CUDA_INCLUDE_DIR:-}"
cxx="${CXX:-g++}"
if [ -z "$nccl_inc" ]; then
  for candidate in /usr/include /usr/local/cuda/include /usr/local/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/include \
    /usr/local/lib/python3*/dist-packages/nvidia/nccl/include; do
    if [ -f "$candidate/nccl.h" ]; then nccl_inc="$candidate"; break; fi
  done
fi
if [ -z "$nccl_inc" ] || [ ! -f "$nccl_inc/nccl.h" ]; then
  echo "FAIL: no nccl.h found (set NCCL_INCLUDE_DIR to the directory holding nccl.h)"
  exit 2
fi
includes=(-I"$here/native" -I"$nccl_inc")
# nccl.h includes cuda_runtime.h (and cuda_fp16.h / cuda_bf16.h): take them from the toolkit or
# from the nvidia-cuda-runtime wheel.
if [ -z "$cuda_inc" ]; then
  for candidate in /usr/local/cuda/include /usr/local/cuda-*/include /usr/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cuda_runtime/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cu*/include; do
    if [ -f "$candidate/cuda_runtime.h" ]; then cuda_inc="$candidate"; break; fi
  done
fi
if [ -n "$cuda_inc" ]; then includes+=(-I"$cuda_inc"); fi

version="$(printf '#include <nccl.h>\nNCCL_MAJOR.NCCL_MINOR.NCCL_PATCH\n' |
  "$cxx" -E -P -x c++ - "${includes[@]}" 2>/dev/null | tail -n 1 | tr -d ' ')"

if "$cxx" -std=c++17 -fsyntax-only "${includes[@]}" "$here/native/abi_check.cc"; then
  echo "PASS: native/nccl_decls.h matches NCCL ${version:-?} headers in $nccl_inc (CUDA headers: ${cuda_inc:-system})"
  exit 0
else
  echo "FAIL: native/nccl_decls.h differs from NCCL ${version:-?} headers in $nccl_inc (see errors above)"
  exit 1
fi
