/**
 * cuBLASLt's enums, from the documented values (https://docs.nvidia.com/cuda/cublas/#cublasltmatmul).
 * `native.test.ts` checks them against the addon's table (`native/cublaslt_decls.h`), which
 * `native/abi_check.cc` proves against `<cublasLt.h>`.
 */
import { describeValue } from '@baracuda/types';

/** `cublasStatus_t`. */
export const cublasStatus = Object.freeze({
  CUBLAS_STATUS_SUCCESS: 0,
  CUBLAS_STATUS_NOT_INITIALIZED: 1,
  CUBLAS_STATUS_ALLOC_FAILED: 3,
  CUBLAS_STATUS_INVALID_VALUE: 7,
  CUBLAS_STATUS_ARCH_MISMATCH: 8,
  CUBLAS_STATUS_MAPPING_ERROR: 11,
  CUBLAS_STATUS_EXECUTION_FAILED: 13,
  CUBLAS_STATUS_INTERNAL_ERROR: 14,
  CUBLAS_STATUS_NOT_SUPPORTED: 15,
  CUBLAS_STATUS_LICENSE_ERROR: 16,
} as const);

/** `cublasComputeType_t` (the floating-point ones). */
export const cublasComputeType = Object.freeze({
  CUBLAS_COMPUTE_16F: 64,
  CUBLAS_COMPUTE_32F: 68,
  CUBLAS_COMPUTE_32F_PEDANTIC: 69,
  CUBLAS_COMPUTE_64F: 70,
  CUBLAS_COMPUTE_64F_PEDANTIC: 71,
  CUBLAS_COMPUTE_32F_FAST_16F: 74,
  CUBLAS_COMPUTE_32F_FAST_16BF: 75,
  CUBLAS_COMPUTE_32F_FAST_TF32: 77,
} as const);

/** `cudaDataType_t` (the real floating-point ones a convolution uses). */
export const cudaDataType = Object.freeze({
  CUDA_R_32F: 0,
  CUDA_R_64F: 1,
  CUDA_R_16F: 2,
  CUDA_R_16BF: 14,
} as const);

/** `cublasOperation_t`. */
export const cublasOperation = Object.freeze({ CUBLAS_OP_N: 0, CUBLAS_OP_T: 1 } as const);

/** `cublasLtMatmulDescAttributes_t` (those we document; each takes the C type named). */
export const cublasLtMatmulDescAttributes = Object.freeze({
  /** int32 (`cublasComputeType_t`). */
  CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: 0,
  /** int32 (`cudaDataType_t`). */
  CUBLASLT_MATMUL_DESC_SCALE_TYPE: 1,
  /** int32. */
  CUBLASLT_MATMUL_DESC_POINTER_MODE: 2,
  /** int32 (`cublasOperation_t`). */
  CUBLASLT_MATMUL_DESC_TRANSA: 3,
  /** int32 (`cublasOperation_t`). */
  CUBLASLT_MATMUL_DESC_TRANSB: 4,
  /** uint32 (`cublasLtEpilogue_t`). */
  CUBLASLT_MATMUL_DESC_EPILOGUE: 7,
  /** A device pointer (a BigUint64Array of one element). */
  CUBLASLT_MATMUL_DESC_BIAS_POINTER: 8,
} as const);

/** `cublasLtEpilogue_t` (the ones a convolution's epilogue maps to). */
export const cublasLtEpilogue = Object.freeze({
  CUBLASLT_EPILOGUE_DEFAULT: 1,
  CUBLASLT_EPILOGUE_RELU: 2,
  CUBLASLT_EPILOGUE_BIAS: 4,
  CUBLASLT_EPILOGUE_RELU_BIAS: 6,
} as const);

/** `cublasLtMatrixLayoutAttribute_t`. */
export const cublasLtMatrixLayoutAttribute = Object.freeze({
  /** uint32 (`cudaDataType_t`). */
  CUBLASLT_MATRIX_LAYOUT_TYPE: 0,
  /** int32 (`cublasLtOrder_t`). */
  CUBLASLT_MATRIX_LAYOUT_ORDER: 1,
  /** uint64. */
  CUBLASLT_MATRIX_LAYOUT_ROWS: 2,
  /** uint64. */
  CUBLASLT_MATRIX_LAYOUT_COLS: 3,
  /** int64. */
  CUBLASLT_MATRIX_LAYOUT_LD: 4,
  /** int32. */
  CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: 5,
  /** int64 (elements between consecutive matrices of a batch). */
  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: 6,
} as const);

/** `cublasLtOrder_t` (the two plain ones). */
export const cublasLtOrder = Object.freeze({
  CUBLASLT_ORDER_COL: 0,
  CUBLASLT_ORDER_ROW: 1,
} as const);

/** `cublasLtMatmulPreferenceAttributes_t`. */
export const cublasLtMatmulPreferenceAttributes = Object.freeze({
  /** uint32. */
  CUBLASLT_MATMUL_PREF_SEARCH_MODE: 0,
  /** uint64: the most workspace an algorithm may need. */
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: 1,
  /** uint32: the alignment (bytes) A's pointer is guaranteed (default 256). */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: 5,
  /** uint32: B's. */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES: 6,
  /** uint32: C's. */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: 7,
  /** uint32: D's. */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES: 8,
} as const);

/** `sizeof(cublasLtMatmulAlgo_t)`. */
export const CUBLASLT_ALGO_BYTES = 64;

const STATUS_NAMES = new Map<number, string>(
  Object.entries(cublasStatus).map(([name, value]) => [value, name]),
);

/**
 * The name of a `cublasStatus_t`, e.g. 7 → `CUBLAS_STATUS_INVALID_VALUE`; `cublasStatus_t(99)` when
 * unknown. Anything but an int32 is a `TypeError` (a `RangeError` for an integer out of range).
 */
export function cublasStatusName(status: number): string {
  if (typeof status !== 'number' || !Number.isInteger(status)) {
    throw new TypeError(`Expected an int32 for status but received ${describeValue(status)}`);
  }
  if (status < -(2 ** 31) || status > 2 ** 31 - 1) {
    throw new RangeError(
      `Expected an int32 from -2147483648 to 2147483647 for status but received ${status}`,
    );
  }
  return STATUS_NAMES.get(status) ?? `cublasStatus_t(${String(status)})`;
}
