/**
 * The ONLY module of @baracuda/kernels that touches @baracuda/cublaslt-sys: one matrix product
 * ({@link GemmSpec}, row-major) as a cuBLASLt matmul, built once (handle, descriptor, layouts,
 * the heuristic's first algorithm within the workspace cap) and run on any stream. Row-major
 * products run as their column-major transposes (D^T = op(B)^T·op(A)^T), the layout every cuBLASLt
 * algorithm takes. Nothing here throws for a missing library: {@link cublasLtAvailable} says.
 * @internal
 */
import * as lt from '@baracuda/cublaslt-sys';
import { ElementKind, UnsupportedError } from '@baracuda/types';
import type { GemmOperand, GemmSpec } from './gemm.js';

const { CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF } = lt.cudaDataType;
const C = lt.cublasComputeType;
const DESC = lt.cublasLtMatmulDescAttributes;
const LAYOUT = lt.cublasLtMatrixLayoutAttribute;

let available: boolean | undefined;

/** Whether libcublasLt loads here (probed once; never throws). */
export function cublasLtAvailable(): boolean {
  available ??= lt.probe().available;
  return available;
}

/** @internal Tests only: probe again (after pointing BARACUDA_CUBLASLT_LIBRARY elsewhere). */
export function resetCublasLtProbeForTests(): void {
  available = undefined;
}

const DATA_TYPE: Partial<Record<ElementKind, number>> = {
  [ElementKind.F32]: CUDA_R_32F,
  [ElementKind.F64]: CUDA_R_64F,
  [ElementKind.F16]: CUDA_R_16F,
  [ElementKind.Bf16]: CUDA_R_16BF,
};

/** The compute type of an element kind: f32 accumulation for halves, TF32 only when allowed. */
export function computeTypeOf(element: ElementKind, allowTf32: boolean): number {
  if (element === ElementKind.F64) return C.CUBLAS_COMPUTE_64F;
  if (element === ElementKind.F32 && allowTf32) return C.CUBLAS_COMPUTE_32F_FAST_TF32;
  return C.CUBLAS_COMPUTE_32F;
}

function ok(status: number, call: string): void {
  if (status !== 0) {
    throw new UnsupportedError(
      `${call} returned ${lt.cublasStatusName(status)} (${lt.cublasLtGetStatusString(status)})`,
    );
  }
}

/** One cuBLASLt handle (create on the thread whose context is current; dispose once). */
export class LtHandle {
  readonly raw: lt.CublasLtHandle;
  #disposed = false;
  constructor() {
    const made = lt.cublasLtCreate();
    ok(made.status, 'cublasLtCreate');
    this.raw = made.lightHandle as lt.CublasLtHandle;
  }
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    lt.cublasLtDestroy(this.raw);
  }
}

/** The alignment (bytes, a power of two up to `cap`) every address of `ptrs` has; 0 counts as aligned. */
export function alignmentOf(ptrs: readonly bigint[], cap: number): number {
  let align = cap;
  for (const p of ptrs) {
    if (p === 0n) continue;
    const low = Number(p & -p);
    if (low < align) align = low;
  }
  return align;
}

/** One product, built: run it with alpha, beta and its operands' addresses. */
export class LtMatmul {
  readonly workspaceBytes: number;
  readonly #handle: LtHandle;
  readonly #desc: lt.CublasLtMatmulDesc;
  readonly #layouts: lt.CublasLtMatrixLayout[] = [];
  readonly #a: lt.CublasLtMatrixLayout;
  readonly #b: lt.CublasLtMatrixLayout;
  readonly #d: lt.CublasLtMatrixLayout;
  readonly #algo: Uint8Array;
  readonly #scale: Float32Array | Float64Array;
  readonly #beta: Float32Array | Float64Array;
  #disposed = false;

  /**
   * Throws UnsupportedError when cuBLASLt has no algorithm for it within `maxWorkspaceBytes` whose
   * pointers need no more than `alignment` bytes of alignment.
   */
  constructor(
    handle: LtHandle,
    spec: GemmSpec,
    element: ElementKind,
    computeType: number,
    maxWorkspaceBytes: number,
    alignment: number,
  ) {
    this.#handle = handle;
    const type = DATA_TYPE[element];
    if (type === undefined) throw new UnsupportedError(`cuBLASLt does not take ${element}`);
    const wide = element === ElementKind.F64;
    this.#scale = wide ? new Float64Array(1) : new Float32Array(1);
    this.#beta = wide ? new Float64Array(1) : new Float32Array(1);
    const made = lt.cublasLtMatmulDescCreate(computeType, wide ? CUDA_R_64F : CUDA_R_32F);
    ok(made.status, 'cublasLtMatmulDescCreate');
    this.#desc = made.matmulDesc as lt.CublasLtMatmulDesc;
    try {
      // Column-major: the first operand is B's storage, the second A's (see the header).
      const op = (o: GemmOperand) => Int32Array.of(o.trans ? 1 : 0);
      ok(
        lt.cublasLtMatmulDescSetAttribute(this.#desc, DESC.CUBLASLT_MATMUL_DESC_TRANSA, op(spec.b)),
        'transa',
      );
      ok(
        lt.cublasLtMatmulDescSetAttribute(this.#desc, DESC.CUBLASLT_MATMUL_DESC_TRANSB, op(spec.a)),
        'transb',
      );
      this.#a = this.#layout(type, spec.b, spec.batch);
      this.#b = this.#layout(type, spec.a, spec.batch);
      this.#d = this.#layout(type, { ...spec.d, trans: false }, spec.batch);
      const pref = lt.cublasLtMatmulPreferenceCreate();
      ok(pref.status, 'cublasLtMatmulPreferenceCreate');
      const preference = pref.pref as lt.CublasLtMatmulPreference;
      try {
        ok(
          lt.cublasLtMatmulPreferenceSetAttribute(
            preference,
            lt.cublasLtMatmulPreferenceAttributes.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            BigUint64Array.of(BigInt(maxWorkspaceBytes)),
          ),
          'max workspace',
        );
        const P = lt.cublasLtMatmulPreferenceAttributes;
        for (const attr of [
          P.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
          P.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          P.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
          P.CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
        ]) {
          ok(
            lt.cublasLtMatmulPreferenceSetAttribute(preference, attr, Uint32Array.of(alignment)),
            'alignment',
          );
        }
        const found = lt.cublasLtMatmulAlgoGetHeuristic(
          handle.raw,
          this.#desc,
          this.#a,
          this.#b,
          this.#d,
          this.#d,
          preference,
          1,
        );
        const first = found.heuristicResultsArray[0];
        if (found.status !== 0 || first === undefined) {
          throw new UnsupportedError(
            `cuBLASLt has no algorithm for ${spec.m}×${spec.n}×${spec.k} (batch ${spec.batch}) ${element} within ${maxWorkspaceBytes} bytes of workspace (${lt.cublasStatusName(found.status)})`,
          );
        }
        this.#algo = first.algo;
        this.workspaceBytes = first.workspaceSize;
      } finally {
        lt.cublasLtMatmulPreferenceDestroy(preference);
      }
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  #layout(type: number, o: GemmOperand, batch: number): lt.CublasLtMatrixLayout {
    // A row-major rows×cols matrix is column-major cols×rows with the same leading dimension.
    const made = lt.cublasLtMatrixLayoutCreate(type, o.cols, o.rows, o.ld);
    ok(made.status, 'cublasLtMatrixLayoutCreate');
    const layout = made.matLayout as lt.CublasLtMatrixLayout;
    this.#layouts.push(layout);
    if (batch > 1) {
      ok(
        lt.cublasLtMatrixLayoutSetAttribute(
          layout,
          LAYOUT.CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
          Int32Array.of(batch),
        ),
        'batch count',
      );
      ok(
        lt.cublasLtMatrixLayoutSetAttribute(
          layout,
          LAYOUT.CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
          BigInt64Array.of(BigInt(o.batchStride)),
        ),
        'batch stride',
      );
    }
    return layout;
  }

  /** Enqueue D = alpha·op(A)·op(B) + beta·D on `stream`; `workspace` holds workspaceBytes. */
  run(
    alpha: number,
    beta: number,
    a: bigint,
    b: bigint,
    d: bigint,
    workspace: bigint,
    stream: bigint,
  ): void {
    this.#scale[0] = alpha;
    this.#beta[0] = beta;
    const status = lt.cublasLtMatmul(
      this.#handle.raw,
      this.#desc,
      this.#scale,
      b,
      this.#a,
      a,
      this.#b,
      this.#beta,
      d,
      this.#d,
      d,
      this.#d,
      this.#algo,
      workspace,
      this.workspaceBytes,
      stream,
    );
    ok(status, 'cublasLtMatmul');
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const layout of this.#layouts.splice(0)) lt.cublasLtMatrixLayoutDestroy(layout);
    lt.cublasLtMatmulDescDestroy(this.#desc);
  }
}
