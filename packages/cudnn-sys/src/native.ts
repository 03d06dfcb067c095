/**
 * The one typed description of everything the native addon (`baracuda_cudnn.node`) exports.
 * `src/native.test.ts` enumerates the real exports against {@link NATIVE_EXPORTS}.
 *
 * Conventions: a call with no outputs returns the `cudnnStatus_t` number; a call with outputs
 * returns `{ status, ...outputs }` named after the C out-parameters. Device pointers and streams
 * are `bigint`. A cuDNN status never throws; a wrong argument throws `TypeError`/`RangeError`.
 */

declare const handleBrand: unique symbol;
declare const tensorBrand: unique symbol;
declare const filterBrand: unique symbol;
declare const convolutionBrand: unique symbol;
declare const activationBrand: unique symbol;
declare const backendBrand: unique symbol;

/** A `cudnnHandle_t`, type-tagged. Made by `cudnnCreate`, ended by `cudnnDestroy`. */
export interface CudnnHandle {
  readonly [handleBrand]: true;
}
/** A `cudnnTensorDescriptor_t`, type-tagged. */
export interface CudnnTensorDescriptor {
  readonly [tensorBrand]: true;
}
/** A `cudnnFilterDescriptor_t`, type-tagged. */
export interface CudnnFilterDescriptor {
  readonly [filterBrand]: true;
}
/** A `cudnnConvolutionDescriptor_t`, type-tagged. */
export interface CudnnConvolutionDescriptor {
  readonly [convolutionBrand]: true;
}
/** A `cudnnActivationDescriptor_t`, type-tagged. */
export interface CudnnActivationDescriptor {
  readonly [activationBrand]: true;
}
/** A `cudnnBackendDescriptor_t` (graph API), type-tagged. */
export interface CudnnBackendDescriptor {
  readonly [backendBrand]: true;
}

/** A host scaling factor: `Float32Array(1)` for f32/f16/bf16 compute, `Float64Array(1)` for f64. */
export type CudnnScale = Float32Array | Float64Array;

/** An `int[]` argument: an `Int32Array` or an array of int32 numbers. */
export type CudnnIntArray = Int32Array | readonly number[];

/** The values of a backend attribute, by `cudnnBackendAttributeType_t`. */
export type CudnnBackendAttributeValues =
  | Int32Array
  | BigInt64Array
  | BigUint64Array
  | Float32Array
  | Float64Array
  | Uint8Array
  | string
  | readonly CudnnBackendDescriptor[]
  | readonly CudnnHandle[];

export interface StatusResult {
  status: number;
}

/** One `cudnnConvolution*AlgoPerf_t`. */
export interface CudnnAlgoPerf {
  algo: number;
  status: number;
  /** Milliseconds (Find*Ex measures; Get*_v7 leaves 0 or -1). */
  time: number;
  /** Workspace bytes the algorithm needs. */
  memory: number;
  determinism: number;
  mathType: number;
}

export interface CudnnAlgoPerfResult extends StatusResult {
  returnedAlgoCount: number;
  perfResults: CudnnAlgoPerf[];
}

export interface CudnnGetAttributeResult extends StatusResult {
  /** The attribute's element count as cuDNN reports it (may exceed what was requested). */
  elementCount: number;
  /**
   * The first `min(elementCount, requestedElementCount)` elements: a typed array matching the
   * attribute type, a string for CHAR, the caller's descriptors for BACKEND_DESCRIPTOR, and raw
   * handle addresses (`BigUint64Array`) for HANDLE.
   */
  values: CudnnBackendAttributeValues;
}

/** What the native `probe()` returns; `probe()` in `src/index.ts` decodes it into a `CudnnProbe`. */
export interface NativeProbe {
  available: boolean;
  version: number;
  cudartVersion: number;
  libraryPath: string;
  tried: { path: string; error: string }[];
  preloaded: { path: string; error: string }[];
  missingSymbols: string[];
  reason: string;
}

/** The exports of `baracuda_cudnn.node`; the raw functions below call these one to one. */
export interface NativeBinding {
  readonly CudnnHandle: Function;
  readonly CudnnTensorDescriptor: Function;
  readonly CudnnFilterDescriptor: Function;
  readonly CudnnConvolutionDescriptor: Function;
  readonly CudnnActivationDescriptor: Function;
  readonly CudnnBackendDescriptor: Function;

  probe(): NativeProbe;
  nativeConstants(): Record<string, number>;

  cudnnGetVersion(): number;
  cudnnGetMaxDeviceVersion(): number;
  cudnnGetCudartVersion(): number;
  cudnnGetProperty(type: number): StatusResult & { value: number };
  cudnnGetErrorString(status: number): string;
  cudnnGetLastErrorString(): string;

  cudnnCreate(): StatusResult & { handle: CudnnHandle | null };
  cudnnDestroy(handle: CudnnHandle): number;
  cudnnSetStream(handle: CudnnHandle, streamId: bigint): number;
  cudnnGetStream(handle: CudnnHandle): StatusResult & { streamId: bigint };

  cudnnCreateTensorDescriptor(): StatusResult & { tensorDesc: CudnnTensorDescriptor | null };
  cudnnSetTensorNdDescriptor(
    tensorDesc: CudnnTensorDescriptor,
    dataType: number,
    nbDims: number,
    dimA: CudnnIntArray,
    strideA: CudnnIntArray,
  ): number;
  cudnnSetTensorNdDescriptorEx(
    tensorDesc: CudnnTensorDescriptor,
    format: number,
    dataType: number,
    nbDims: number,
    dimA: CudnnIntArray,
  ): number;
  cudnnGetTensorNdDescriptor(
    tensorDesc: CudnnTensorDescriptor,
    nbDimsRequested: number,
  ): StatusResult & { dataType: number; nbDims: number; dimA: number[]; strideA: number[] };
  cudnnGetTensorSizeInBytes(tensorDesc: CudnnTensorDescriptor): StatusResult & { size: number };
  cudnnDestroyTensorDescriptor(tensorDesc: CudnnTensorDescriptor): number;
  cudnnTransformTensor(
    handle: CudnnHandle,
    alpha: CudnnScale,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    beta: CudnnScale,
    yDesc: CudnnTensorDescriptor,
    y: bigint,
  ): number;

  cudnnCreateFilterDescriptor(): StatusResult & { filterDesc: CudnnFilterDescriptor | null };
  cudnnSetFilterNdDescriptor(
    filterDesc: CudnnFilterDescriptor,
    dataType: number,
    format: number,
    nbDims: number,
    filterDimA: CudnnIntArray,
  ): number;
  cudnnGetFilterNdDescriptor(
    filterDesc: CudnnFilterDescriptor,
    nbDimsRequested: number,
  ): StatusResult & { dataType: number; format: number; nbDims: number; filterDimA: number[] };
  cudnnDestroyFilterDescriptor(filterDesc: CudnnFilterDescriptor): number;

  cudnnCreateActivationDescriptor(): StatusResult & {
    activationDesc: CudnnActivationDescriptor | null;
  };
  cudnnSetActivationDescriptor(
    activationDesc: CudnnActivationDescriptor,
    mode: number,
    reluNanOpt: number,
    coef: number,
  ): number;
  cudnnGetActivationDescriptor(
    activationDesc: CudnnActivationDescriptor,
  ): StatusResult & { mode: number; reluNanOpt: number; coef: number };
  cudnnDestroyActivationDescriptor(activationDesc: CudnnActivationDescriptor): number;

  cudnnCreateConvolutionDescriptor(): StatusResult & {
    convDesc: CudnnConvolutionDescriptor | null;
  };
  cudnnDestroyConvolutionDescriptor(convDesc: CudnnConvolutionDescriptor): number;
  cudnnSetConvolutionNdDescriptor(
    convDesc: CudnnConvolutionDescriptor,
    arrayLength: number,
    padA: CudnnIntArray,
    filterStrideA: CudnnIntArray,
    dilationA: CudnnIntArray,
    mode: number,
    computeType: number,
  ): number;
  cudnnGetConvolutionNdDescriptor(
    convDesc: CudnnConvolutionDescriptor,
    arrayLengthRequested: number,
  ): StatusResult & {
    arrayLength: number;
    padA: number[];
    strideA: number[];
    dilationA: number[];
    mode: number;
    computeType: number;
  };
  cudnnGetConvolutionNdForwardOutputDim(
    convDesc: CudnnConvolutionDescriptor,
    inputTensorDesc: CudnnTensorDescriptor,
    filterDesc: CudnnFilterDescriptor,
    nbDims: number,
  ): StatusResult & { tensorOuputDimA: number[]; tensorOutputDimA: number[] };
  cudnnSetConvolutionMathType(convDesc: CudnnConvolutionDescriptor, mathType: number): number;
  cudnnGetConvolutionMathType(
    convDesc: CudnnConvolutionDescriptor,
  ): StatusResult & { mathType: number };
  cudnnSetConvolutionGroupCount(convDesc: CudnnConvolutionDescriptor, groupCount: number): number;
  cudnnGetConvolutionGroupCount(
    convDesc: CudnnConvolutionDescriptor,
  ): StatusResult & { groupCount: number };
  cudnnSetConvolutionReorderType(convDesc: CudnnConvolutionDescriptor, reorderType: number): number;
  cudnnGetConvolutionReorderType(
    convDesc: CudnnConvolutionDescriptor,
  ): StatusResult & { reorderType: number };

  cudnnGetConvolutionForwardAlgorithmMaxCount(
    handle: CudnnHandle,
  ): StatusResult & { count: number };
  cudnnGetConvolutionForwardAlgorithm_v7(
    handle: CudnnHandle,
    srcDesc: CudnnTensorDescriptor,
    filterDesc: CudnnFilterDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    destDesc: CudnnTensorDescriptor,
    requestedAlgoCount: number,
  ): CudnnAlgoPerfResult;
  cudnnFindConvolutionForwardAlgorithmEx(
    handle: CudnnHandle,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    wDesc: CudnnFilterDescriptor,
    w: bigint,
    convDesc: CudnnConvolutionDescriptor,
    yDesc: CudnnTensorDescriptor,
    y: bigint,
    requestedAlgoCount: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
  ): CudnnAlgoPerfResult;
  cudnnGetConvolutionForwardWorkspaceSize(
    handle: CudnnHandle,
    xDesc: CudnnTensorDescriptor,
    wDesc: CudnnFilterDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    yDesc: CudnnTensorDescriptor,
    algo: number,
  ): StatusResult & { sizeInBytes: number };
  cudnnConvolutionForward(
    handle: CudnnHandle,
    alpha: CudnnScale,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    wDesc: CudnnFilterDescriptor,
    w: bigint,
    convDesc: CudnnConvolutionDescriptor,
    algo: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
    beta: CudnnScale,
    yDesc: CudnnTensorDescriptor,
    y: bigint,
  ): number;
  cudnnConvolutionBiasActivationForward(
    handle: CudnnHandle,
    alpha1: CudnnScale,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    wDesc: CudnnFilterDescriptor,
    w: bigint,
    convDesc: CudnnConvolutionDescriptor,
    algo: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
    alpha2: CudnnScale,
    zDesc: CudnnTensorDescriptor,
    z: bigint,
    biasDesc: CudnnTensorDescriptor,
    bias: bigint,
    activationDesc: CudnnActivationDescriptor,
    yDesc: CudnnTensorDescriptor,
    y: bigint,
  ): number;

  cudnnGetConvolutionBackwardDataAlgorithmMaxCount(
    handle: CudnnHandle,
  ): StatusResult & { count: number };
  cudnnGetConvolutionBackwardDataAlgorithm_v7(
    handle: CudnnHandle,
    filterDesc: CudnnFilterDescriptor,
    diffDesc: CudnnTensorDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    gradDesc: CudnnTensorDescriptor,
    requestedAlgoCount: number,
  ): CudnnAlgoPerfResult;
  cudnnFindConvolutionBackwardDataAlgorithmEx(
    handle: CudnnHandle,
    wDesc: CudnnFilterDescriptor,
    w: bigint,
    dyDesc: CudnnTensorDescriptor,
    dy: bigint,
    convDesc: CudnnConvolutionDescriptor,
    dxDesc: CudnnTensorDescriptor,
    dx: bigint,
    requestedAlgoCount: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
  ): CudnnAlgoPerfResult;
  cudnnGetConvolutionBackwardDataWorkspaceSize(
    handle: CudnnHandle,
    wDesc: CudnnFilterDescriptor,
    dyDesc: CudnnTensorDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    dxDesc: CudnnTensorDescriptor,
    algo: number,
  ): StatusResult & { sizeInBytes: number };
  cudnnConvolutionBackwardData(
    handle: CudnnHandle,
    alpha: CudnnScale,
    wDesc: CudnnFilterDescriptor,
    w: bigint,
    dyDesc: CudnnTensorDescriptor,
    dy: bigint,
    convDesc: CudnnConvolutionDescriptor,
    algo: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
    beta: CudnnScale,
    dxDesc: CudnnTensorDescriptor,
    dx: bigint,
  ): number;

  cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
    handle: CudnnHandle,
  ): StatusResult & { count: number };
  cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    handle: CudnnHandle,
    srcDesc: CudnnTensorDescriptor,
    diffDesc: CudnnTensorDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    gradDesc: CudnnFilterDescriptor,
    requestedAlgoCount: number,
  ): CudnnAlgoPerfResult;
  cudnnFindConvolutionBackwardFilterAlgorithmEx(
    handle: CudnnHandle,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    dyDesc: CudnnTensorDescriptor,
    y: bigint,
    convDesc: CudnnConvolutionDescriptor,
    dwDesc: CudnnFilterDescriptor,
    dw: bigint,
    requestedAlgoCount: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
  ): CudnnAlgoPerfResult;
  cudnnGetConvolutionBackwardFilterWorkspaceSize(
    handle: CudnnHandle,
    xDesc: CudnnTensorDescriptor,
    dyDesc: CudnnTensorDescriptor,
    convDesc: CudnnConvolutionDescriptor,
    gradDesc: CudnnFilterDescriptor,
    algo: number,
  ): StatusResult & { sizeInBytes: number };
  cudnnConvolutionBackwardFilter(
    handle: CudnnHandle,
    alpha: CudnnScale,
    xDesc: CudnnTensorDescriptor,
    x: bigint,
    dyDesc: CudnnTensorDescriptor,
    dy: bigint,
    convDesc: CudnnConvolutionDescriptor,
    algo: number,
    workSpace: bigint,
    workSpaceSizeInBytes: number,
    beta: CudnnScale,
    dwDesc: CudnnFilterDescriptor,
    dw: bigint,
  ): number;

  cudnnBackendCreateDescriptor(
    descriptorType: number,
  ): StatusResult & { descriptor: CudnnBackendDescriptor | null };
  cudnnBackendDestroyDescriptor(descriptor: CudnnBackendDescriptor): number;
  cudnnBackendFinalize(descriptor: CudnnBackendDescriptor): number;
  cudnnBackendSetAttribute(
    descriptor: CudnnBackendDescriptor,
    attributeName: number,
    attributeType: number,
    values: CudnnBackendAttributeValues,
  ): number;
  cudnnBackendGetAttribute(
    descriptor: CudnnBackendDescriptor,
    attributeName: number,
    attributeType: number,
    requestedElementCount: number,
    outDescriptors?: readonly CudnnBackendDescriptor[],
  ): CudnnGetAttributeResult;
  cudnnBackendExecute(
    handle: CudnnHandle,
    executionPlan: CudnnBackendDescriptor,
    variantPack: CudnnBackendDescriptor,
  ): number;
}

/** @internal Every key of {@link NativeBinding}, checked against the real addon by a test. */
export const NATIVE_EXPORTS = [
  'CudnnHandle',
  'CudnnTensorDescriptor',
  'CudnnFilterDescriptor',
  'CudnnConvolutionDescriptor',
  'CudnnActivationDescriptor',
  'CudnnBackendDescriptor',
  'probe',
  'nativeConstants',
  'cudnnGetVersion',
  'cudnnGetMaxDeviceVersion',
  'cudnnGetCudartVersion',
  'cudnnGetProperty',
  'cudnnGetErrorString',
  'cudnnGetLastErrorString',
  'cudnnCreate',
  'cudnnDestroy',
  'cudnnSetStream',
  'cudnnGetStream',
  'cudnnCreateTensorDescriptor',
  'cudnnSetTensorNdDescriptor',
  'cudnnSetTensorNdDescriptorEx',
  'cudnnGetTensorNdDescriptor',
  'cudnnGetTensorSizeInBytes',
  'cudnnDestroyTensorDescriptor',
  'cudnnTransformTensor',
  'cudnnCreateFilterDescriptor',
  'cudnnSetFilterNdDescriptor',
  'cudnnGetFilterNdDescriptor',
  'cudnnDestroyFilterDescriptor',
  'cudnnCreateActivationDescriptor',
  'cudnnSetActivationDescriptor',
  'cudnnGetActivationDescriptor',
  'cudnnDestroyActivationDescriptor',
  'cudnnCreateConvolutionDescriptor',
  'cudnnDestroyConvolutionDescriptor',
  'cudnnSetConvolutionNdDescriptor',
  'cudnnGetConvolutionNdDescriptor',
  'cudnnGetConvolutionNdForwardOutputDim',
  'cudnnSetConvolutionMathType',
  'cudnnGetConvolutionMathType',
  'cudnnSetConvolutionGroupCount',
  'cudnnGetConvolutionGroupCount',
  'cudnnSetConvolutionReorderType',
  'cudnnGetConvolutionReorderType',
  'cudnnGetConvolutionForwardAlgorithmMaxCount',
  'cudnnGetConvolutionForwardAlgorithm_v7',
  'cudnnFindConvolutionForwardAlgorithmEx',
  'cudnnGetConvolutionForwardWorkspaceSize',
  'cudnnConvolutionForward',
  'cudnnConvolutionBiasActivationForward',
  'cudnnGetConvolutionBackwardDataAlgorithmMaxCount',
  'cudnnGetConvolutionBackwardDataAlgorithm_v7',
  'cudnnFindConvolutionBackwardDataAlgorithmEx',
  'cudnnGetConvolutionBackwardDataWorkspaceSize',
  'cudnnConvolutionBackwardData',
  'cudnnGetConvolutionBackwardFilterAlgorithmMaxCount',
  'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
  'cudnnFindConvolutionBackwardFilterAlgorithmEx',
  'cudnnGetConvolutionBackwardFilterWorkspaceSize',
  'cudnnConvolutionBackwardFilter',
  'cudnnBackendCreateDescriptor',
  'cudnnBackendDestroyDescriptor',
  'cudnnBackendFinalize',
  'cudnnBackendSetAttribute',
  'cudnnBackendGetAttribute',
  'cudnnBackendExecute',
] as const satisfies readonly (keyof NativeBinding)[];

// Compile-time: NATIVE_EXPORTS names every member of NativeBinding.
type UnlistedExports = Exclude<keyof NativeBinding, (typeof NATIVE_EXPORTS)[number]>;
const everyExportListed: [UnlistedExports] extends [never] ? true : UnlistedExports = true;
void everyExportListed;
