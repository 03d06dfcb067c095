/**
 * Every binding through real C calls against the fake libcublasLt.so.13
 * (native/testing/fake_cublaslt.c), on device buffers of the driver's fake libcuda (host memory):
 * matrix products in every dtype, transposes, row order, strided batches, beta, the heuristic and
 * its workspace, argument errors, destroyed and foreign objects, lifetimes.
 */
import { DeviceBuffer, Stream } from '@baracuda/driver';
import { afterEach, describe, expect, it } from 'vitest';
import type { CublasLtMatmulDesc, CublasLtMatrixLayout } from './index.js';
import * as lt from './index.js';
import { fakeCublasLtCounts, useFakes } from './test-support.js';

const library = useFakes();
const { CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF } = lt.cudaDataType;
const { CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_32F_FAST_TF32 } =
  lt.cublasComputeType;
const D = lt.cublasLtMatmulDescAttributes;
const L = lt.cublasLtMatrixLayoutAttribute;

const i32 = (v: number) => Int32Array.of(v);

function handle() {
  const made = lt.cublasLtCreate();
  expect(made.status).toBe(0);
  return made.lightHandle!;
}
function desc(compute: number, scale: number, transa = 0, transb = 0): CublasLtMatmulDesc {
  const made = lt.cublasLtMatmulDescCreate(compute, scale);
  expect(made.status).toBe(0);
  expect(
    lt.cublasLtMatmulDescSetAttribute(made.matmulDesc!, D.CUBLASLT_MATMUL_DESC_TRANSA, i32(transa)),
  ).toBe(0);
  expect(
    lt.cublasLtMatmulDescSetAttribute(made.matmulDesc!, D.CUBLASLT_MATMUL_DESC_TRANSB, i32(transb)),
  ).toBe(0);
  return made.matmulDesc!;
}
function layout(
  type: number,
  rows: number,
  cols: number,
  ld: number,
  row = false,
): CublasLtMatrixLayout {
  const made = lt.cublasLtMatrixLayoutCreate(type, rows, cols, ld);
  expect(made.status).toBe(0);
  if (row) {
    expect(
      lt.cublasLtMatrixLayoutSetAttribute(made.matLayout!, L.CUBLASLT_MATRIX_LAYOUT_ORDER, i32(1)),
    ).toBe(0);
  }
  return made.matLayout!;
}
function upload(
  values: ArrayLike<number>,
  Ctor: Float32ArrayConstructor | Float64ArrayConstructor,
): DeviceBuffer {
  const host = Ctor.from(values);
  const buffer = DeviceBuffer.alloc(host.byteLength);
  buffer.uploadSync(host);
  return buffer;
}
function download(
  buffer: DeviceBuffer,
  Ctor: Float32ArrayConstructor | Float64ArrayConstructor | Uint16ArrayConstructor,
) {
  const host = new Ctor(buffer.byteLength / Ctor.BYTES_PER_ELEMENT);
  buffer.downloadSync(host);
  return [...host];
}

const owned: { dispose(): void }[] = [];
afterEach(() => {
  for (const o of owned.splice(0)) o.dispose();
});

describe('the fake cuBLASLt through the raw bindings', () => {
  it('reports its version, status strings and where it was loaded from', () => {
    expect(lt.probe()).toMatchObject({
      available: true,
      version: { major: 13, minor: 1, patch: 0, raw: 130100 },
      libraryPath: library,
      missingSymbols: [],
      reason: null,
    });
    expect(lt.cublasLtGetVersion()).toBe(130100);
    expect(lt.cublasLtGetStatusString(7)).toBe('fake: invalid value');
  });

  it('runs an f32 column-major product with beta, and a transposed row-major one', () => {
    const h = handle();
    // A 2×3, B 3×2 (column-major): D = 2·A·B + 0.5·C.
    const a = upload([1, 4, 2, 5, 3, 6], Float32Array); // [[1,2,3],[4,5,6]]
    const b = upload([1, 0, 1, 0, 1, 1], Float32Array); // [[1,0],[0,1],[1,1]]
    const c = upload([10, 20, 30, 40], Float32Array);
    const d = DeviceBuffer.alloc(16);
    owned.push(a, b, c, d);
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const la = layout(CUDA_R_32F, 2, 3, 2);
    const lb = layout(CUDA_R_32F, 3, 2, 3);
    const lc = layout(CUDA_R_32F, 2, 2, 2);
    const stream = Stream.create();
    owned.push(stream);
    const status = lt.cublasLtMatmul(
      h,
      op,
      Float32Array.of(2),
      a.devicePtr,
      la,
      b.devicePtr,
      lb,
      Float32Array.of(0.5),
      c.devicePtr,
      lc,
      d.devicePtr,
      lc,
      null,
      0n,
      0,
      stream.raw,
    );
    expect(status).toBe(0);
    // A·B = [[4,5],[10,11]] → 2·AB + 0.5·C, column-major.
    expect(download(d, Float32Array)).toEqual([8 + 5, 20 + 10, 10 + 15, 22 + 20]);
    expect(fakeCublasLtCounts(library)).toMatchObject({
      lastM: 2,
      lastN: 2,
      lastK: 3,
      lastTransa: 0,
      lastTransb: 0,
      lastComputeType: CUBLAS_COMPUTE_32F,
    });

    // The same product as Dᵀ = Bᵀ·Aᵀ with transposes and row-major layouts (beta 0: C unread).
    const op2 = desc(CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 1, 1);
    const rb = layout(CUDA_R_32F, 3, 2, 2, true); // B as row-major 3×2: op(Bᵀ) is 2×3
    const ra = layout(CUDA_R_32F, 2, 3, 3, true);
    const rd = layout(CUDA_R_32F, 2, 2, 2, true);
    const bRow = upload([1, 0, 0, 1, 1, 1], Float32Array);
    const aRow = upload([1, 2, 3, 4, 5, 6], Float32Array);
    owned.push(bRow, aRow);
    expect(
      lt.cublasLtMatmul(
        h,
        op2,
        Float32Array.of(1),
        bRow.devicePtr,
        rb,
        aRow.devicePtr,
        ra,
        Float32Array.of(0),
        0n,
        rd,
        d.devicePtr,
        rd,
        null,
        0n,
        0,
        stream.raw,
      ),
    ).toBe(0);
    // Dᵀ (2×2 row-major) = [[4,10],[5,11]].
    expect(download(d, Float32Array)).toEqual([4, 10, 5, 11]);
    expect(fakeCublasLtCounts(library)).toMatchObject({
      lastTransa: 1,
      lastTransb: 1,
      lastComputeType: CUBLAS_COMPUTE_32F_FAST_TF32,
    });
    for (const l of [la, lb, lc, rb, ra, rd]) expect(lt.cublasLtMatrixLayoutDestroy(l)).toBe(0);
    expect(lt.cublasLtMatmulDescDestroy(op)).toBe(0);
    expect(lt.cublasLtMatmulDescDestroy(op2)).toBe(0);
    expect(lt.cublasLtDestroy(h)).toBe(0);
  });

  it('runs f64, f16 and bf16 products (strided batch of 2), rounding once to the output type', () => {
    const h = handle();
    const stream = Stream.create();
    owned.push(stream);
    // f64: a batch of two 1×2·2×1 products.
    const a = upload([1, 2, 3, 4], Float64Array);
    const b = upload([0.5, 0.25, 1, 1], Float64Array);
    const d = DeviceBuffer.alloc(16);
    owned.push(a, b, d);
    const op = desc(CUBLAS_COMPUTE_64F, CUDA_R_64F);
    const batched = (type: number, rows: number, cols: number, stride: number) => {
      const l = layout(type, rows, cols, rows);
      expect(
        lt.cublasLtMatrixLayoutSetAttribute(l, L.CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, i32(2)),
      ).toBe(0);
      expect(
        lt.cublasLtMatrixLayoutSetAttribute(
          l,
          L.CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
          BigInt64Array.of(BigInt(stride)),
        ),
      ).toBe(0);
      return l;
    };
    const la = batched(CUDA_R_64F, 1, 2, 2);
    const lb = batched(CUDA_R_64F, 2, 1, 2);
    const ld = batched(CUDA_R_64F, 1, 1, 1);
    expect(
      lt.cublasLtMatmul(
        h,
        op,
        Float64Array.of(1),
        a.devicePtr,
        la,
        b.devicePtr,
        lb,
        Float64Array.of(0),
        0n,
        ld,
        d.devicePtr,
        ld,
        null,
        0n,
        0,
        stream.raw,
      ),
    ).toBe(0);
    expect(download(d, Float64Array)).toEqual([1, 7]);
    expect(fakeCublasLtCounts(library).lastBatch).toBe(2);

    // f16 and bf16: 1·1 scaled by alpha, rounded to nearest even (ties: 1 + half an ulp stays 1,
    // 1 + 1.5 ulp goes to 2 ulp; above a tie rounds up).
    const cases = [
      [CUDA_R_16F, 0x3c00, 1 + 2 ** -11, 0x3c00],
      [CUDA_R_16F, 0x3c00, 1 + 3 * 2 ** -11, 0x3c02],
      [CUDA_R_16F, 0x3c00, 1 + 2 ** -11 + 2 ** -12, 0x3c01],
      [CUDA_R_16BF, 0x3f80, 1 + 2 ** -8, 0x3f80],
      [CUDA_R_16BF, 0x3f80, 1 + 3 * 2 ** -8, 0x3f82],
      [CUDA_R_16BF, 0x3f80, 1 + 2 ** -8 + 2 ** -9, 0x3f81],
    ] as const;
    for (const [type, one, alpha, expected] of cases) {
      const x = DeviceBuffer.alloc(2);
      const y = DeviceBuffer.alloc(2);
      const out = DeviceBuffer.alloc(2);
      owned.push(x, y, out);
      x.uploadSync(Uint16Array.of(one));
      y.uploadSync(Uint16Array.of(one));
      const op16 = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
      const l1 = layout(type, 1, 1, 1);
      expect(
        lt.cublasLtMatmul(
          h,
          op16,
          Float32Array.of(alpha),
          x.devicePtr,
          l1,
          y.devicePtr,
          l1,
          Float32Array.of(0),
          0n,
          l1,
          out.devicePtr,
          l1,
          null,
          0n,
          0,
          stream.raw,
        ),
      ).toBe(0);
      expect(download(out, Uint16Array)[0], `${type} ${alpha}`).toBe(expected);
    }
  });

  it('finds one algorithm within the preference workspace, and none above it', () => {
    const h = handle();
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const l = layout(CUDA_R_32F, 4, 4, 4);
    const made = lt.cublasLtMatmulPreferenceCreate();
    expect(made.status).toBe(0);
    const pref = made.pref!;
    const max = lt.cublasLtMatmulPreferenceAttributes.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES;
    expect(lt.cublasLtMatmulPreferenceSetAttribute(pref, max, BigUint64Array.of(4096n))).toBe(0);
    process.env.FAKE_CUBLASLT_WORKSPACE = '1024';
    try {
      const found = lt.cublasLtMatmulAlgoGetHeuristic(h, op, l, l, l, l, pref, 4);
      expect(found.status).toBe(0);
      expect(found.returnAlgoCount).toBe(1);
      expect(found.heuristicResultsArray).toHaveLength(1);
      const [first] = found.heuristicResultsArray;
      expect(first!.algo).toBeInstanceOf(Uint8Array);
      expect(first!.algo.byteLength).toBe(64);
      expect(first).toMatchObject({ workspaceSize: 1024, state: 0, wavesCount: 1 });
      // The algorithm needs its workspace: a smaller one is refused.
      const m = DeviceBuffer.alloc(64);
      const ws = DeviceBuffer.alloc(1024);
      owned.push(m, ws);
      const call = (bytes: number) =>
        lt.cublasLtMatmul(
          h,
          op,
          Float32Array.of(1),
          m.devicePtr,
          l,
          m.devicePtr,
          l,
          Float32Array.of(0),
          0n,
          l,
          m.devicePtr,
          l,
          first!.algo,
          ws.devicePtr,
          bytes,
          0n,
        );
      expect(call(512)).toBe(lt.cublasStatus.CUBLAS_STATUS_INVALID_VALUE);
      expect(call(1024)).toBe(0);
      expect(fakeCublasLtCounts(library).lastWorkspace).toBe(1024);
      process.env.FAKE_CUBLASLT_WORKSPACE = '8192';
      expect(lt.cublasLtMatmulAlgoGetHeuristic(h, op, l, l, l, l, pref, 1)).toEqual({
        status: lt.cublasStatus.CUBLAS_STATUS_NOT_SUPPORTED,
        heuristicResultsArray: [],
        returnAlgoCount: 0,
      });
    } finally {
      delete process.env.FAKE_CUBLASLT_WORKSPACE;
    }
    expect(lt.cublasLtMatmulPreferenceDestroy(pref)).toBe(0);
  });

  it("keeps to the preference's pointer alignment: an algorithm refuses a pointer aligned less", () => {
    const h = handle();
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const l = layout(CUDA_R_32F, 2, 2, 2);
    const m = DeviceBuffer.alloc(64);
    owned.push(m);
    const algoFor = (align: number | null) => {
      const pref = lt.cublasLtMatmulPreferenceCreate().pref!;
      const A = lt.cublasLtMatmulPreferenceAttributes;
      expect(
        lt.cublasLtMatmulPreferenceSetAttribute(
          pref,
          A.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
          BigUint64Array.of(0n),
        ),
      ).toBe(0);
      if (align !== null) {
        for (const attr of [
          A.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
          A.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          A.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
          A.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
        ]) {
          expect(lt.cublasLtMatmulPreferenceSetAttribute(pref, attr, Uint32Array.of(align))).toBe(
            0,
          );
        }
      }
      const found = lt.cublasLtMatmulAlgoGetHeuristic(h, op, l, l, l, l, pref, 1);
      expect(lt.cublasLtMatmulPreferenceDestroy(pref)).toBe(0);
      return found.heuristicResultsArray[0]!.algo;
    };
    const at4 = m.devicePtr + 4n;
    const call = (algo: Uint8Array) =>
      lt.cublasLtMatmul(
        h,
        op,
        Float32Array.of(1),
        at4,
        l,
        at4,
        l,
        Float32Array.of(0),
        0n,
        l,
        at4,
        l,
        algo,
        0n,
        0,
        0n,
      );
    expect(call(algoFor(null))).toBe(lt.cublasStatus.CUBLAS_STATUS_NOT_SUPPORTED);
    expect(call(algoFor(4))).toBe(0);
  });

  it('returns statuses for what C refuses, and never throws for them', () => {
    expect(lt.cublasLtMatmulDescCreate(12345, CUDA_R_32F)).toEqual({ status: 7, matmulDesc: null });
    expect(lt.cublasLtMatrixLayoutCreate(99, 1, 1, 1)).toEqual({ status: 7, matLayout: null });
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    expect(
      lt.cublasLtMatmulDescSetAttribute(op, D.CUBLASLT_MATMUL_DESC_TRANSA, Int8Array.of(1)),
    ).toBe(7);
    const h = handle();
    const a = layout(CUDA_R_32F, 2, 3, 2);
    const pref = lt.cublasLtMatmulPreferenceCreate().pref!;
    // 2×3 · 2×3 does not multiply.
    expect(lt.cublasLtMatmulAlgoGetHeuristic(h, op, a, a, a, a, pref, 1).status).toBe(7);
  });

  it('rejects wrong arguments with TypeErrors that name what was expected and received', () => {
    const h = handle();
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const l = layout(CUDA_R_32F, 1, 1, 1);
    expect(() => lt.cublasLtMatmulDescCreate('68' as never, 0)).toThrow(
      new TypeError('Expected an int32 for computeType but received "68" of type string'),
    );
    expect(() => lt.cublasLtMatrixLayoutCreate(0, -1, 1, 1)).toThrow(
      new TypeError('Expected a non-negative safe integer for rows but received -1 of type number'),
    );
    expect(() => lt.cublasLtMatmulDescSetAttribute(op, 3, [1] as never)).toThrow(
      new TypeError(
        'Expected a typed array or DataView holding the value for buf but received an array of length 1',
      ),
    );
    expect(() => lt.cublasLtMatmulDescSetAttribute(l as never, 3, i32(0))).toThrow(
      new TypeError(
        'Expected a live cublasLtMatmulDesc_t for matmulDesc but received a live cublasLtMatrixLayout_t',
      ),
    );
    expect(() => lt.cublasLtDestroy({} as never)).toThrow(
      new TypeError('Expected a live cublasLtHandle_t for lightHandle but received an object'),
    );
    const pref = lt.cublasLtMatmulPreferenceCreate().pref!;
    expect(() => lt.cublasLtMatmulAlgoGetHeuristic(h, op, l, l, l, l, pref, 0)).toThrow(
      new TypeError(
        'Expected an int32 from 1 to 1024 for requestedAlgoCount but received 0 of type number',
      ),
    );
    const call = (over: Record<number, unknown>) => {
      const args: unknown[] = [
        h,
        op,
        Float32Array.of(1),
        0n,
        l,
        0n,
        l,
        Float32Array.of(0),
        0n,
        l,
        0n,
        l,
        null,
        0n,
        0,
        0n,
      ];
      for (const [i, v] of Object.entries(over)) args[Number(i)] = v;
      return () => (lt.cublasLtMatmul as (...a: unknown[]) => unknown)(...args);
    };
    expect(call({ 3: 5 })).toThrow(
      new TypeError(
        'Expected a bigint address from 0 to 2^64-1 for A but received 5 of type number',
      ),
    );
    expect(call({ 12: new Uint8Array(8) })).toThrow(
      new TypeError(
        'Expected null or a Uint8Array of 64 bytes (a cublasLtMatmulAlgo_t) for algo but received a typed array of length 8',
      ),
    );
    expect(call({ 2: 1 })).toThrow(
      new TypeError(
        'Expected a Float32Array or Float64Array holding the scalar for alpha but received 1 of type number',
      ),
    );
    expect(call({ 15: -1n })).toThrow(
      new TypeError(
        'Expected a bigint address from 0 to 2^64-1 for stream but received -1n of type bigint',
      ),
    );
  });

  it('marks destroyed objects, refuses them afterwards, and frees everything', () => {
    const before = fakeCublasLtCounts(library);
    const h = handle();
    const op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const l = layout(CUDA_R_32F, 1, 1, 1);
    const pref = lt.cublasLtMatmulPreferenceCreate().pref!;
    expect(fakeCublasLtCounts(library)).toMatchObject({
      handles: before.handles + 1,
      matmulDescs: before.matmulDescs + 1,
      layouts: before.layouts + 1,
      preferences: before.preferences + 1,
    });
    expect(lt.cublasLtDestroy(h)).toBe(0);
    expect(lt.cublasLtMatmulDescDestroy(op)).toBe(0);
    expect(lt.cublasLtMatrixLayoutDestroy(l)).toBe(0);
    expect(lt.cublasLtMatmulPreferenceDestroy(pref)).toBe(0);
    expect(fakeCublasLtCounts(library)).toMatchObject({
      handles: before.handles,
      matmulDescs: before.matmulDescs,
      layouts: before.layouts,
      preferences: before.preferences,
    });
    expect(() => lt.cublasLtDestroy(h)).toThrow(
      new TypeError(
        'Expected a live cublasLtHandle_t for lightHandle but received a destroyed cublasLtHandle_t',
      ),
    );
    expect(() => lt.cublasLtMatrixLayoutSetAttribute(l, 1, i32(0))).toThrow(
      new TypeError(
        'Expected a live cublasLtMatrixLayout_t for matLayout but received a destroyed cublasLtMatrixLayout_t',
      ),
    );
  });
});
