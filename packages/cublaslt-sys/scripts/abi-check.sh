#!/usr/bin/env bash
# Proves native/cublaslt_decls.h (our own cuBLASLt prototypes and constants) against the real
# <cublasLt.h>. Needs only g++ and the cuBLAS headers; no node-addon-api, no GPU.
#
#   CUBLAS_INCLUDE_DIR  where cublasLt.h lives (default: searched: the CUDA toolkit, then the
#                       NVIDIA wheels of a Python install, e.g. PyTorch's venv)
#   CUDA_INCLUDE_DIR    where cuda_runtime_api.h / library_types.h live (default: searched)
#   CXX                 the compiler (default g++)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lt_inc="${CUBLAS_INCLUDE_DIR:-}"
cuda_inc="${CUDA_INCLUDE_DIR:-}"
cxx="${CXX:-g++}"
if [ -z "$lt_inc" ]; then
  for candidate in /usr/local/cuda/include /usr/local/cuda-*/include /usr/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cublas/include \
    /usr/local/lib/python3*/dist-packages/nvidia/cublas/include; do
    if [ -f "$candidate/cublasLt.h" ]; then lt_inc="$candidate"; break; fi
  done
fi
if [ -z "$lt_inc" ] || [ ! -f "$lt_inc/cublasLt.h" ]; then
  echo "FAIL: no cublasLt.h found (set CUBLAS_INCLUDE_DIR to the directory holding cublasLt.h)"
  exit 2
fi
includes=(-I"$here/native" -I"$lt_inc")
if [ -z "$cuda_inc" ]; then
  for candidate in /usr/local/cuda/include /usr/local/cuda-*/include /usr/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/include \
    /opt/*/.venv/lib/python3*/site-packages/nvidia/cuda_runtime/include; do
    if [ -f "$candidate/cuda_runtime_api.h" ]; then cuda_inc="$candidate"; break; fi
  done
fi
if [ -n "$cuda_inc" ]; then includes+=(-I"$cuda_inc"); fi

version="$(printf '#include <cublasLt.h>\nCUBLAS_VER_MAJOR.CUBLAS_VER_MINOR.CUBLAS_VER_PATCH\n' |
  "$cxx" -E -P -x c++ - "${includes[@]}" 2>/dev/null | tail -n 1 | tr -d ' ')"

if "$cxx" -std=c++17 -fsyntax-only "${includes[@]}" "$here/native/abi_check.cc"; then
  echo "PASS: native/cublaslt_decls.h matches cuBLAS ${version:-?} headers in $lt_inc (CUDA headers: ${cuda_inc:-system})"
  exit 0
else
  echo "FAIL: native/cublaslt_decls.h differs from cuBLAS ${version:-?} headers in $lt_inc (see errors above)"
  exit 1
fi
