// Our own declarations of the cuBLASLt C API we call, written from NVIDIA's cuBLAS documentation
// (https://docs.nvidia.com/cuda/cublas/#using-the-cublaslt-api), never copied from cublasLt.h.
// native/abi_check.cc proves them against the real <cublasLt.h> where one is installed
// (scripts/abi-check.sh).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct cublasLtContext;
typedef struct cublasLtContext *cublasLtHandle_t;
struct cublasLtMatmulDescOpaque_t;
typedef struct cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
struct cublasLtMatrixLayoutOpaque_t;
typedef struct cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
struct cublasLtMatmulPreferenceOpaque_t;
typedef struct cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;
typedef struct CUstream_st *cudaStream_t;

typedef int cublasStatus_t;
typedef int cublasComputeType_t;
typedef int cudaDataType_t;
typedef int cublasLtMatmulDescAttributes_t;
typedef int cublasLtMatrixLayoutAttribute_t;
typedef int cublasLtMatmulPreferenceAttributes_t;

// An algorithm as the heuristic returns it: 64 opaque bytes, passed back to cublasLtMatmul.
#define BARACUDA_CUBLASLT_ALGO_BYTES 64
typedef struct {
  uint64_t data[8];
} cublasLtMatmulAlgo_t;

typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;

}  // extern "C"

// Every constant we use: name and documented value. Exported as nativeConstants() and checked
// against the header by abi_check.cc.
#define BARACUDA_CUBLASLT_CONSTANTS(X)           \
  X(CUBLAS_STATUS_SUCCESS, 0)                    \
  X(CUBLAS_STATUS_NOT_INITIALIZED, 1)            \
  X(CUBLAS_STATUS_ALLOC_FAILED, 3)               \
  X(CUBLAS_STATUS_INVALID_VALUE, 7)              \
  X(CUBLAS_STATUS_ARCH_MISMATCH, 8)              \
  X(CUBLAS_STATUS_MAPPING_ERROR, 11)             \
  X(CUBLAS_STATUS_EXECUTION_FAILED, 13)          \
  X(CUBLAS_STATUS_INTERNAL_ERROR, 14)            \
  X(CUBLAS_STATUS_NOT_SUPPORTED, 15)             \
  X(CUBLAS_STATUS_LICENSE_ERROR, 16)             \
  X(CUBLAS_COMPUTE_16F, 64)                      \
  X(CUBLAS_COMPUTE_32F, 68)                      \
  X(CUBLAS_COMPUTE_32F_PEDANTIC, 69)             \
  X(CUBLAS_COMPUTE_64F, 70)                      \
  X(CUBLAS_COMPUTE_64F_PEDANTIC, 71)             \
  X(CUBLAS_COMPUTE_32F_FAST_16F, 74)             \
  X(CUBLAS_COMPUTE_32F_FAST_16BF, 75)            \
  X(CUBLAS_COMPUTE_32F_FAST_TF32, 77)            \
  X(CUDA_R_32F, 0)                               \
  X(CUDA_R_64F, 1)                               \
  X(CUDA_R_16F, 2)                               \
  X(CUDA_R_16BF, 14)                             \
  X(CUBLAS_OP_N, 0)                              \
  X(CUBLAS_OP_T, 1)                              \
  X(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, 0)        \
  X(CUBLASLT_MATMUL_DESC_SCALE_TYPE, 1)          \
  X(CUBLASLT_MATMUL_DESC_POINTER_MODE, 2)        \
  X(CUBLASLT_MATMUL_DESC_TRANSA, 3)              \
  X(CUBLASLT_MATMUL_DESC_TRANSB, 4)              \
  X(CUBLASLT_MATMUL_DESC_EPILOGUE, 7)            \
  X(CUBLASLT_MATMUL_DESC_BIAS_POINTER, 8)        \
  X(CUBLASLT_EPILOGUE_DEFAULT, 1)                \
  X(CUBLASLT_EPILOGUE_RELU, 2)                   \
  X(CUBLASLT_EPILOGUE_BIAS, 4)                   \
  X(CUBLASLT_EPILOGUE_RELU_BIAS, 6)              \
  X(CUBLASLT_MATRIX_LAYOUT_TYPE, 0)              \
  X(CUBLASLT_MATRIX_LAYOUT_ORDER, 1)             \
  X(CUBLASLT_MATRIX_LAYOUT_ROWS, 2)              \
  X(CUBLASLT_MATRIX_LAYOUT_COLS, 3)              \
  X(CUBLASLT_MATRIX_LAYOUT_LD, 4)                \
  X(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 5)       \
  X(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 6) \
  X(CUBLASLT_ORDER_COL, 0)                       \
  X(CUBLASLT_ORDER_ROW, 1)                       \
  X(CUBLASLT_MATMUL_PREF_SEARCH_MODE, 0)         \
  X(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 1)  \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 5) \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 6) \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 7) \
  X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 8)

// Every function we call: X(name, return type, parameter list).
#define BARACUDA_CUBLASLT_FUNCTIONS(X)                                                          \
  X(cublasLtGetVersion, size_t, (void))                                                         \
  X(cublasLtGetStatusString, const char *, (cublasStatus_t))                                    \
  X(cublasLtCreate, cublasStatus_t, (cublasLtHandle_t *))                                       \
  X(cublasLtDestroy, cublasStatus_t, (cublasLtHandle_t))                                        \
  X(cublasLtMatmulDescCreate, cublasStatus_t,                                                   \
    (cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t))                              \
  X(cublasLtMatmulDescSetAttribute, cublasStatus_t,                                             \
    (cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *, size_t))               \
  X(cublasLtMatmulDescDestroy, cublasStatus_t, (cublasLtMatmulDesc_t))                          \
  X(cublasLtMatrixLayoutCreate, cublasStatus_t,                                                 \
    (cublasLtMatrixLayout_t *, cudaDataType_t, uint64_t, uint64_t, int64_t))                    \
  X(cublasLtMatrixLayoutSetAttribute, cublasStatus_t,                                           \
    (cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, const void *, size_t))            \
  X(cublasLtMatrixLayoutDestroy, cublasStatus_t, (cublasLtMatrixLayout_t))                      \
  X(cublasLtMatmulPreferenceCreate, cublasStatus_t, (cublasLtMatmulPreference_t *))             \
  X(cublasLtMatmulPreferenceSetAttribute, cublasStatus_t,                                       \
    (cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, const void *, size_t))   \
  X(cublasLtMatmulPreferenceDestroy, cublasStatus_t, (cublasLtMatmulPreference_t))              \
  X(cublasLtMatmulAlgoGetHeuristic, cublasStatus_t,                                             \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,    \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,           \
     cublasLtMatmulHeuristicResult_t *, int *))                                                 \
  X(cublasLtMatmul, cublasStatus_t,                                                             \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,                        \
     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *, const void *,  \
     cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *,      \
     void *, size_t, cudaStream_t))

#define BARACUDA_CUBLASLT_PFN(name, ret, params) typedef ret(*PFN_##name) params;
BARACUDA_CUBLASLT_FUNCTIONS(BARACUDA_CUBLASLT_PFN)
#undef BARACUDA_CUBLASLT_PFN
