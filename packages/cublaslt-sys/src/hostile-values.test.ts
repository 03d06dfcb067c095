/**
 * Values the bad-input corpus (packages/corpus, src/targets/cublaslt-sys.ts) found mishandled:
 * views over a SharedArrayBuffer (an untyped "Invalid argument" before), alpha/beta views that are
 * not Float32Array or Float64Array (read as a float of the wrong width before), and
 * cublasStatusName of a non-int32 (a made-up name before). Against the fake libcublasLt.so.13.
 */
import { describe, expect, it } from 'vitest';
import * as lt from './index.js';
import { useFakes } from './test-support.js';

useFakes();
const { CUDA_R_32F } = lt.cudaDataType;
const { CUBLAS_COMPUTE_32F } = lt.cublasComputeType;
const TRANSA = lt.cublasLtMatmulDescAttributes.CUBLASLT_MATMUL_DESC_TRANSA;

const sharedI32 = (value: number) => {
  const view = new Int32Array(new SharedArrayBuffer(8), 4, 1);
  view[0] = value;
  return view;
};

function desc() {
  const made = lt.cublasLtMatmulDescCreate(CUBLAS_COMPUTE_32F, CUDA_R_32F);
  expect(made.status).toBe(0);
  return made.matmulDesc!;
}

describe('views over a SharedArrayBuffer', () => {
  it('are attribute values like any other view (their bytes, at their offset, are read)', () => {
    const d = desc();
    expect(lt.cublasLtMatmulDescSetAttribute(d, TRANSA, sharedI32(1))).toBe(0);
    // The fake refuses a transpose other than 0 or 1: the value 5 must have been read.
    expect(lt.cublasLtMatmulDescSetAttribute(d, TRANSA, sharedI32(5))).toBe(
      lt.cublasStatus.CUBLAS_STATUS_INVALID_VALUE,
    );
    const pref = lt.cublasLtMatmulPreferenceCreate().pref!;
    const workspace = new BigUint64Array(new SharedArrayBuffer(8));
    expect(
      lt.cublasLtMatmulPreferenceSetAttribute(
        pref,
        lt.cublasLtMatmulPreferenceAttributes.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
        workspace,
      ),
    ).toBe(0);
    expect(lt.cublasLtMatmulPreferenceDestroy(pref)).toBe(0);
    expect(lt.cublasLtMatmulDescDestroy(d)).toBe(0);
  });
});

describe('cublasLtMatmul alpha and beta', () => {
  // A 0×4 by 4×4 product: m = 0, so the fake touches no element of the (null) matrices.
  function call(alpha: unknown, beta: unknown = Float32Array.of(0)): unknown {
    const h = lt.cublasLtCreate().lightHandle!;
    const d = desc();
    const empty = () => lt.cublasLtMatrixLayoutCreate(CUDA_R_32F, 0, 4, 1).matLayout!;
    const square = lt.cublasLtMatrixLayoutCreate(CUDA_R_32F, 4, 4, 4).matLayout!;
    const matmul = lt.cublasLtMatmul as (...args: unknown[]) => unknown;
    try {
      return matmul(
        h,
        d,
        alpha,
        0n,
        empty(),
        0n,
        square,
        beta,
        0n,
        empty(),
        0x1000n,
        empty(),
        null,
        0n,
        0,
        0n,
      );
    } finally {
      lt.cublasLtDestroy(h);
      lt.cublasLtMatmulDescDestroy(d);
    }
  }

  it('take a Float32Array or Float64Array, also over a SharedArrayBuffer', () => {
    expect(call(Float32Array.of(1))).toBe(0);
    expect(call(Float64Array.of(1), Float64Array.of(0))).toBe(0);
    expect(call(new Float32Array(new SharedArrayBuffer(4)))).toBe(0);
  });

  it('refuse any other view with a TypeError naming what was received', () => {
    expect(() => call(Uint8Array.of(1))).toThrow(
      new TypeError(
        'Expected a Float32Array or Float64Array holding the scalar for alpha but received a typed array of length 1',
      ),
    );
    expect(() => call(Float32Array.of(1), new DataView(new ArrayBuffer(4)))).toThrow(
      new TypeError(
        'Expected a Float32Array or Float64Array holding the scalar for beta but received an object',
      ),
    );
    expect(() => call(new BigInt64Array(1))).toThrow(TypeError);
    expect(() => call(new Float32Array(0))).toThrow(
      new TypeError(
        'Expected a typed array or DataView holding the value for alpha but received a typed array of length 0',
      ),
    );
  });
});

describe('cublasStatusName', () => {
  it('names an int32 and refuses anything else', () => {
    expect(lt.cublasStatusName(7)).toBe('CUBLAS_STATUS_INVALID_VALUE');
    expect(lt.cublasStatusName(-1)).toBe('cublasStatus_t(-1)');
    expect(() => lt.cublasStatusName('7' as never)).toThrow(
      new TypeError('Expected an int32 for status but received "7" of type string'),
    );
    expect(() => lt.cublasStatusName(Number.NaN)).toThrow(TypeError);
    expect(() => lt.cublasStatusName(2 ** 31)).toThrow(
      new RangeError(
        'Expected an int32 from -2147483648 to 2147483647 for status but received 2147483648',
      ),
    );
  });
});
