/**
 * The one typed description of everything the native addon (`baracuda_cublaslt.node`) exports.
 * `src/native.test.ts` enumerates the real exports against {@link NATIVE_EXPORTS}.
 *
 * Conventions: a call with no outputs returns the `cublasStatus_t` number; a call with outputs
 * returns `{ status, ...outputs }` named after the C out-parameters. Device pointers, the
 * workspace and streams are `bigint`; attribute values are typed arrays or DataViews (SharedArrayBuffer
 * ones too) whose bytes are what C reads, and the host scalars alpha and beta are a Float32Array or
 * Float64Array (any other view is a TypeError). A cuBLASLt status never throws; a wrong argument
 * throws `TypeError`.
 */
import type { LibrarySearchAttempt } from '@baracuda/types';

declare const handleBrand: unique symbol;
declare const descBrand: unique symbol;
declare const layoutBrand: unique symbol;
declare const prefBrand: unique symbol;

/** A `cublasLtHandle_t`. */
export interface CublasLtHandle {
  readonly [handleBrand]: true;
}
/** A `cublasLtMatmulDesc_t`. */
export interface CublasLtMatmulDesc {
  readonly [descBrand]: true;
}
/** A `cublasLtMatrixLayout_t`. */
export interface CublasLtMatrixLayout {
  readonly [layoutBrand]: true;
}
/** A `cublasLtMatmulPreference_t`. */
export interface CublasLtMatmulPreference {
  readonly [prefBrand]: true;
}

export interface StatusResult {
  /** The `cublasStatus_t`. */
  status: number;
}

/** One `cublasLtMatmulHeuristicResult_t`. */
export interface CublasLtHeuristicResult {
  /** The `cublasLtMatmulAlgo_t`: 64 opaque bytes to pass back to `cublasLtMatmul`. */
  algo: Uint8Array;
  workspaceSize: number;
  state: number;
  wavesCount: number;
}

/** What the addon's own probe reports (see `probe()` in index.ts for the decoded form). */
export interface NativeProbe {
  available: boolean;
  version: number;
  libraryPath: string;
  tried: LibrarySearchAttempt[];
  missingSymbols: string[];
  reason: string;
}

/** An attribute value: the bytes C reads (e.g. an Int32Array of one element for a transpose). */
export type AttributeValue = ArrayBufferView;
/** A host scalar of the descriptor's scale type (Float32Array for CUDA_R_32F, Float64Array for 64F). */
export type HostScalar = Float32Array | Float64Array;

export interface NativeBinding {
  CublasLtObject: new (...args: never[]) => unknown;
  probe(): NativeProbe;
  nativeConstants(): Record<string, number>;
  cublasLtGetVersion(): number;
  cublasLtGetStatusString(status: number): string;
  cublasLtCreate(): StatusResult & { lightHandle: CublasLtHandle | null };
  cublasLtDestroy(lightHandle: CublasLtHandle): number;
  cublasLtMatmulDescCreate(
    computeType: number,
    scaleType: number,
  ): StatusResult & { matmulDesc: CublasLtMatmulDesc | null };
  cublasLtMatmulDescSetAttribute(
    matmulDesc: CublasLtMatmulDesc,
    attr: number,
    buf: AttributeValue,
  ): number;
  cublasLtMatmulDescDestroy(matmulDesc: CublasLtMatmulDesc): number;
  cublasLtMatrixLayoutCreate(
    type: number,
    rows: number,
    cols: number,
    ld: number,
  ): StatusResult & { matLayout: CublasLtMatrixLayout | null };
  cublasLtMatrixLayoutSetAttribute(
    matLayout: CublasLtMatrixLayout,
    attr: number,
    buf: AttributeValue,
  ): number;
  cublasLtMatrixLayoutDestroy(matLayout: CublasLtMatrixLayout): number;
  cublasLtMatmulPreferenceCreate(): StatusResult & { pref: CublasLtMatmulPreference | null };
  cublasLtMatmulPreferenceSetAttribute(
    pref: CublasLtMatmulPreference,
    attr: number,
    buf: AttributeValue,
  ): number;
  cublasLtMatmulPreferenceDestroy(pref: CublasLtMatmulPreference): number;
  cublasLtMatmulAlgoGetHeuristic(
    lightHandle: CublasLtHandle,
    operationDesc: CublasLtMatmulDesc,
    Adesc: CublasLtMatrixLayout,
    Bdesc: CublasLtMatrixLayout,
    Cdesc: CublasLtMatrixLayout,
    Ddesc: CublasLtMatrixLayout,
    preference: CublasLtMatmulPreference,
    requestedAlgoCount: number,
  ): StatusResult & { heuristicResultsArray: CublasLtHeuristicResult[]; returnAlgoCount: number };
  cublasLtMatmul(
    lightHandle: CublasLtHandle,
    computeDesc: CublasLtMatmulDesc,
    alpha: HostScalar,
    A: bigint,
    Adesc: CublasLtMatrixLayout,
    B: bigint,
    Bdesc: CublasLtMatrixLayout,
    beta: HostScalar,
    C: bigint,
    Cdesc: CublasLtMatrixLayout,
    D: bigint,
    Ddesc: CublasLtMatrixLayout,
    algo: Uint8Array | null,
    workspace: bigint,
    workspaceSizeInBytes: number,
    stream: bigint,
  ): number;
}

/** Every export of the addon, checked against the real one by native.test.ts. */
export const NATIVE_EXPORTS = [
  'CublasLtObject',
  'probe',
  'nativeConstants',
  'cublasLtGetVersion',
  'cublasLtGetStatusString',
  'cublasLtCreate',
  'cublasLtDestroy',
  'cublasLtMatmulDescCreate',
  'cublasLtMatmulDescSetAttribute',
  'cublasLtMatmulDescDestroy',
  'cublasLtMatrixLayoutCreate',
  'cublasLtMatrixLayoutSetAttribute',
  'cublasLtMatrixLayoutDestroy',
  'cublasLtMatmulPreferenceCreate',
  'cublasLtMatmulPreferenceSetAttribute',
  'cublasLtMatmulPreferenceDestroy',
  'cublasLtMatmulAlgoGetHeuristic',
  'cublasLtMatmul',
] as const satisfies readonly (keyof NativeBinding)[];
