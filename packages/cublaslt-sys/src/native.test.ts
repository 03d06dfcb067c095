import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import {
  CUBLASLT_ALGO_BYTES,
  cublasComputeType,
  cublasLtEpilogue,
  cublasLtMatmulDescAttributes,
  cublasLtMatmulPreferenceAttributes,
  cublasLtMatrixLayoutAttribute,
  cublasLtOrder,
  cublasOperation,
  cublasStatus,
  cublasStatusName,
  cudaDataType,
} from './constants.js';
import { NATIVE_EXPORTS } from './native.js';

describe('the native addon', () => {
  it('loads without cuBLASLt and exports exactly what NativeBinding describes', () => {
    const binding = loadAddon() as unknown as Record<string, unknown>;
    expect(Object.keys(binding).sort()).toEqual([...NATIVE_EXPORTS].sort());
    for (const name of NATIVE_EXPORTS) expect(typeof binding[name], name).toBe('function');
  });

  it('refuses to construct an object from JavaScript', () => {
    const binding = loadAddon();
    expect(() => Reflect.construct(binding.CublasLtObject, [])).toThrow(
      new TypeError(
        'CublasLtObject cannot be constructed from JavaScript; use cublasLtCreate(), cublasLtMatmulDescCreate(), cublasLtMatrixLayoutCreate() or cublasLtMatmulPreferenceCreate()',
      ),
    );
  });

  it("has the TypeScript enums' values in its constant table (the one proven against cublasLt.h)", () => {
    const ours: Record<string, number> = {
      ...cublasStatus,
      ...cublasComputeType,
      ...cudaDataType,
      ...cublasOperation,
      ...cublasLtMatmulDescAttributes,
      ...cublasLtEpilogue,
      ...cublasLtMatrixLayoutAttribute,
      ...cublasLtOrder,
      ...cublasLtMatmulPreferenceAttributes,
      CUBLASLT_ALGO_BYTES,
    };
    expect(loadAddon().nativeConstants()).toEqual(ours);
  });

  it('names statuses', () => {
    expect(cublasStatusName(7)).toBe('CUBLAS_STATUS_INVALID_VALUE');
    expect(cublasStatusName(99)).toBe('cublasStatus_t(99)');
  });
});
