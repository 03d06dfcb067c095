import { LibraryNotFoundError, type LibrarySearchAttempt } from '@baracuda/types';
import { loadAddon } from './addon.js';
import type {
  CudnnActivationDescriptor,
  CudnnAlgoPerfResult,
  CudnnBackendAttributeValues,
  CudnnBackendDescriptor,
  CudnnConvolutionDescriptor,
  CudnnFilterDescriptor,
  CudnnGetAttributeResult,
  CudnnHandle,
  CudnnIntArray,
  CudnnScale,
  CudnnTensorDescriptor,
  NativeBinding,
  StatusResult,
} from './native.js';

export * from './constants.js';
export type {
  CudnnActivationDescriptor,
  CudnnAlgoPerf,
  CudnnAlgoPerfResult,
  CudnnBackendAttributeValues,
  CudnnBackendDescriptor,
  CudnnConvolutionDescriptor,
  CudnnFilterDescriptor,
  CudnnGetAttributeResult,
  CudnnHandle,
  CudnnIntArray,
  CudnnScale,
  CudnnTensorDescriptor,
  NativeBinding,
  StatusResult,
} from './native.js';

/** cuDNN's version, decoded the way cuDNN 9 encodes it: `major * 10000 + minor * 100 + patch`. */
export interface CudnnVersion {
  major: number;
  minor: number;
  patch: number;
  /** What `cudnnGetVersion()` returned, e.g. 91400 for 9.14.0. */
  raw: number;
}

/** What {@link probe} found. */
export interface CudnnProbe {
  available: boolean;
  version: CudnnVersion | null;
  /** `cudnnGetCudartVersion()`: the CUDA runtime cuDNN was built with, e.g. 13000. */
  cudartVersion: number | null;
  /** The libcudnn.so.9 file loaded, or null. */
  libraryPath: string | null;
  /** Every path tried, in order, with its error ("" for the one that loaded). */
  tried: LibrarySearchAttempt[];
  /**
   * Sibling libraries (libcudnn_*.so.9, cuBLASLt, NVRTC) loaded by full path ahead of a
   * libcudnn.so.9 found by path, so that cuDNN's own dlopen calls resolve to the same directory.
   */
  preloaded: LibrarySearchAttempt[];
  /** Functions this addon binds that the loaded library does not export. */
  missingSymbols: string[];
  /** Why cuDNN is unavailable, or null. */
  reason: string | null;
}

/** Decodes a `cudnnGetVersion()` value: 91400 → `{major: 9, minor: 14, patch: 0, raw: 91400}`. */
export function decodeCudnnVersion(raw: number): CudnnVersion {
  return {
    major: Math.floor(raw / 10000),
    minor: Math.floor((raw % 10000) / 100),
    patch: raw % 100,
    raw,
  };
}

const CUDNN_LIBRARY = 'libcudnn.so.9 (cuDNN 9)';
const CUDNN_SOLUTIONS = [
  'Install cuDNN 9 for your CUDA version: sudo apt install libcudnn9-cuda-13 (or libcudnn9-cuda-12)',
  'Or install the Python wheel: pip install nvidia-cudnn-cu13 (or nvidia-cudnn-cu12); it is found under site-packages/nvidia/cudnn/lib',
  'Or set BARACUDA_CUDNN_LIBRARY=/path/to/libcudnn.so.9 (or the directory holding it)',
];

/**
 * Loads cuDNN if that was not tried yet, and reports what happened. Never throws: a missing addon
 * or library is reported as `available: false` with every path tried.
 */
export function probe(): CudnnProbe {
  let native: NativeBinding;
  try {
    native = loadAddon();
  } catch (error) {
    return {
      available: false,
      version: null,
      cudartVersion: null,
      libraryPath: null,
      tried: LibraryNotFoundError.isInstance(error) ? [...error.searched] : [],
      preloaded: [],
      missingSymbols: [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
  const found = native.probe();
  return {
    available: found.available,
    version: found.available ? decodeCudnnVersion(found.version) : null,
    cudartVersion: found.available ? found.cudartVersion : null,
    libraryPath: found.available ? found.libraryPath : null,
    tried: found.tried,
    preloaded: found.preloaded,
    missingSymbols: found.missingSymbols,
    reason: found.available ? null : found.reason,
  };
}

/**
 * Loads cuDNN (once) and returns the probe. Throws `LibraryNotFoundError` listing every path
 * tried and how to install cuDNN 9 when it cannot be loaded.
 */
export function load(): CudnnProbe {
  const found = probe();
  if (!found.available) {
    throw new LibraryNotFoundError(CUDNN_LIBRARY, found.tried, CUDNN_SOLUTIONS, {
      cause: new Error(found.reason ?? 'cuDNN is unavailable'),
    });
  }
  return found;
}

let loaded: NativeBinding | undefined;

function lib(): NativeBinding {
  if (loaded) return loaded;
  load();
  loaded = loadAddon();
  return loaded;
}

/**
 * The addon's constant table (`native/cudnn_decls.h`), which `native/abi_check.cc` proves against
 * `<cudnn.h>`. Needs the addon, not cuDNN.
 */
export function nativeConstants(): Record<string, number> {
  return loadAddon().nativeConstants();
}

// ---- Raw functions: one per C function, same name and parameter order. ----
// A call with no outputs returns the cudnnStatus_t; a call with outputs returns {status, ...}.
// Before cuDNN is loaded, the first call loads it and throws LibraryNotFoundError if it cannot.

/**
 * [cudnnGetVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetversion).
 */
export function cudnnGetVersion(): number {
  return lib().cudnnGetVersion();
}

/**
 * [cudnnGetMaxDeviceVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetmaxdeviceversion).
 */
export function cudnnGetMaxDeviceVersion(): number {
  return lib().cudnnGetMaxDeviceVersion();
}

/**
 * [cudnnGetCudartVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetcudartversion).
 */
export function cudnnGetCudartVersion(): number {
  return lib().cudnnGetCudartVersion();
}

/**
 * [cudnnGetProperty](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetproperty).
 */
export function cudnnGetProperty(type: number): StatusResult & { value: number } {
  return lib().cudnnGetProperty(type);
}

/**
 * [cudnnGetErrorString](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngeterrorstring).
 */
export function cudnnGetErrorString(status: number): string {
  return lib().cudnnGetErrorString(status);
}

/**
 * [cudnnGetLastErrorString](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetlasterrorstring).
 * cuDNN's last error message for this thread (the C call fills a caller buffer; this returns it).
 */
export function cudnnGetLastErrorString(): string {
  return lib().cudnnGetLastErrorString();
}

/**
 * [cudnnCreate](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnncreate).
 * `handle` is null when `status` is not CUDNN_STATUS_SUCCESS.
 */
export function cudnnCreate(): StatusResult & { handle: CudnnHandle | null } {
  return lib().cudnnCreate();
}

/**
 * [cudnnDestroy](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnndestroy).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnDestroy(handle: CudnnHandle): number {
  return lib().cudnnDestroy(handle);
}

/**
 * [cudnnSetStream](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnsetstream).
 */
export function cudnnSetStream(handle: CudnnHandle, streamId: bigint): number {
  return lib().cudnnSetStream(handle, streamId);
}

/**
 * [cudnnGetStream](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetstream).
 */
export function cudnnGetStream(handle: CudnnHandle): StatusResult & { streamId: bigint } {
  return lib().cudnnGetStream(handle);
}

/**
 * [cudnnCreateTensorDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreatetensordescriptor).
 */
export function cudnnCreateTensorDescriptor(): StatusResult & {
  tensorDesc: CudnnTensorDescriptor | null;
} {
  return lib().cudnnCreateTensorDescriptor();
}

/**
 * [cudnnSetTensorNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsettensornddescriptor).
 */
export function cudnnSetTensorNdDescriptor(
  tensorDesc: CudnnTensorDescriptor,
  dataType: number,
  nbDims: number,
  dimA: CudnnIntArray,
  strideA: CudnnIntArray,
): number {
  return lib().cudnnSetTensorNdDescriptor(tensorDesc, dataType, nbDims, dimA, strideA);
}

/**
 * [cudnnSetTensorNdDescriptorEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsettensornddescriptorex).
 */
export function cudnnSetTensorNdDescriptorEx(
  tensorDesc: CudnnTensorDescriptor,
  format: number,
  dataType: number,
  nbDims: number,
  dimA: CudnnIntArray,
): number {
  return lib().cudnnSetTensorNdDescriptorEx(tensorDesc, format, dataType, nbDims, dimA);
}

/**
 * [cudnnGetTensorNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngettensornddescriptor).
 */
export function cudnnGetTensorNdDescriptor(
  tensorDesc: CudnnTensorDescriptor,
  nbDimsRequested: number,
): StatusResult & { dataType: number; nbDims: number; dimA: number[]; strideA: number[] } {
  return lib().cudnnGetTensorNdDescriptor(tensorDesc, nbDimsRequested);
}

/**
 * [cudnnGetTensorSizeInBytes](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngettensorsizeinbytes).
 */
export function cudnnGetTensorSizeInBytes(
  tensorDesc: CudnnTensorDescriptor,
): StatusResult & { size: number } {
  return lib().cudnnGetTensorSizeInBytes(tensorDesc);
}

/**
 * [cudnnDestroyTensorDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroytensordescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnDestroyTensorDescriptor(tensorDesc: CudnnTensorDescriptor): number {
  return lib().cudnnDestroyTensorDescriptor(tensorDesc);
}

/**
 * [cudnnTransformTensor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnntransformtensor):
 * y = alpha * x + beta * y, converting between the layouts the two descriptors' strides describe
 * (same dims). `alpha`/`beta` are Float32Array(1), or Float64Array(1) for double tensors.
 */
export function cudnnTransformTensor(
  handle: CudnnHandle,
  alpha: CudnnScale,
  xDesc: CudnnTensorDescriptor,
  x: bigint,
  beta: CudnnScale,
  yDesc: CudnnTensorDescriptor,
  y: bigint,
): number {
  return lib().cudnnTransformTensor(handle, alpha, xDesc, x, beta, yDesc, y);
}

/**
 * [cudnnCreateFilterDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreatefilterdescriptor).
 */
export function cudnnCreateFilterDescriptor(): StatusResult & {
  filterDesc: CudnnFilterDescriptor | null;
} {
  return lib().cudnnCreateFilterDescriptor();
}

/**
 * [cudnnSetFilterNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsetfilternddescriptor).
 */
export function cudnnSetFilterNdDescriptor(
  filterDesc: CudnnFilterDescriptor,
  dataType: number,
  format: number,
  nbDims: number,
  filterDimA: CudnnIntArray,
): number {
  return lib().cudnnSetFilterNdDescriptor(filterDesc, dataType, format, nbDims, filterDimA);
}

/**
 * [cudnnGetFilterNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngetfilternddescriptor).
 */
export function cudnnGetFilterNdDescriptor(
  filterDesc: CudnnFilterDescriptor,
  nbDimsRequested: number,
): StatusResult & { dataType: number; format: number; nbDims: number; filterDimA: number[] } {
  return lib().cudnnGetFilterNdDescriptor(filterDesc, nbDimsRequested);
}

/**
 * [cudnnDestroyFilterDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroyfilterdescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnDestroyFilterDescriptor(filterDesc: CudnnFilterDescriptor): number {
  return lib().cudnnDestroyFilterDescriptor(filterDesc);
}

/**
 * [cudnnCreateActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreateactivationdescriptor).
 */
export function cudnnCreateActivationDescriptor(): StatusResult & {
  activationDesc: CudnnActivationDescriptor | null;
} {
  return lib().cudnnCreateActivationDescriptor();
}

/**
 * [cudnnSetActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsetactivationdescriptor).
 */
export function cudnnSetActivationDescriptor(
  activationDesc: CudnnActivationDescriptor,
  mode: number,
  reluNanOpt: number,
  coef: number,
): number {
  return lib().cudnnSetActivationDescriptor(activationDesc, mode, reluNanOpt, coef);
}

/**
 * [cudnnGetActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngetactivationdescriptor).
 */
export function cudnnGetActivationDescriptor(
  activationDesc: CudnnActivationDescriptor,
): StatusResult & { mode: number; reluNanOpt: number; coef: number } {
  return lib().cudnnGetActivationDescriptor(activationDesc);
}

/**
 * [cudnnDestroyActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroyactivationdescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnDestroyActivationDescriptor(
  activationDesc: CudnnActivationDescriptor,
): number {
  return lib().cudnnDestroyActivationDescriptor(activationDesc);
}

/**
 * [cudnnCreateConvolutionDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnncreateconvolutiondescriptor).
 */
export function cudnnCreateConvolutionDescriptor(): StatusResult & {
  convDesc: CudnnConvolutionDescriptor | null;
} {
  return lib().cudnnCreateConvolutionDescriptor();
}

/**
 * [cudnnDestroyConvolutionDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnndestroyconvolutiondescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnDestroyConvolutionDescriptor(convDesc: CudnnConvolutionDescriptor): number {
  return lib().cudnnDestroyConvolutionDescriptor(convDesc);
}

/**
 * [cudnnSetConvolutionNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionnddescriptor).
 */
export function cudnnSetConvolutionNdDescriptor(
  convDesc: CudnnConvolutionDescriptor,
  arrayLength: number,
  padA: CudnnIntArray,
  filterStrideA: CudnnIntArray,
  dilationA: CudnnIntArray,
  mode: number,
  computeType: number,
): number {
  return lib().cudnnSetConvolutionNdDescriptor(
    convDesc,
    arrayLength,
    padA,
    filterStrideA,
    dilationA,
    mode,
    computeType,
  );
}

/**
 * [cudnnGetConvolutionNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionnddescriptor).
 */
export function cudnnGetConvolutionNdDescriptor(
  convDesc: CudnnConvolutionDescriptor,
  arrayLengthRequested: number,
): StatusResult & {
  arrayLength: number;
  padA: number[];
  strideA: number[];
  dilationA: number[];
  mode: number;
  computeType: number;
} {
  return lib().cudnnGetConvolutionNdDescriptor(convDesc, arrayLengthRequested);
}

/**
 * [cudnnGetConvolutionNdForwardOutputDim](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionndforwardoutputdim).
 * `tensorOuputDimA` keeps the C spelling; `tensorOutputDimA` is the same array.
 */
export function cudnnGetConvolutionNdForwardOutputDim(
  convDesc: CudnnConvolutionDescriptor,
  inputTensorDesc: CudnnTensorDescriptor,
  filterDesc: CudnnFilterDescriptor,
  nbDims: number,
): StatusResult & { tensorOuputDimA: number[]; tensorOutputDimA: number[] } {
  return lib().cudnnGetConvolutionNdForwardOutputDim(convDesc, inputTensorDesc, filterDesc, nbDims);
}

/**
 * [cudnnSetConvolutionMathType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionmathtype).
 */
export function cudnnSetConvolutionMathType(
  convDesc: CudnnConvolutionDescriptor,
  mathType: number,
): number {
  return lib().cudnnSetConvolutionMathType(convDesc, mathType);
}

/**
 * [cudnnGetConvolutionMathType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionmathtype).
 */
export function cudnnGetConvolutionMathType(
  convDesc: CudnnConvolutionDescriptor,
): StatusResult & { mathType: number } {
  return lib().cudnnGetConvolutionMathType(convDesc);
}

/**
 * [cudnnSetConvolutionGroupCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutiongroupcount).
 */
export function cudnnSetConvolutionGroupCount(
  convDesc: CudnnConvolutionDescriptor,
  groupCount: number,
): number {
  return lib().cudnnSetConvolutionGroupCount(convDesc, groupCount);
}

/**
 * [cudnnGetConvolutionGroupCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutiongroupcount).
 */
export function cudnnGetConvolutionGroupCount(
  convDesc: CudnnConvolutionDescriptor,
): StatusResult & { groupCount: number } {
  return lib().cudnnGetConvolutionGroupCount(convDesc);
}

/**
 * [cudnnSetConvolutionReorderType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionreordertype).
 */
export function cudnnSetConvolutionReorderType(
  convDesc: CudnnConvolutionDescriptor,
  reorderType: number,
): number {
  return lib().cudnnSetConvolutionReorderType(convDesc, reorderType);
}

/**
 * [cudnnGetConvolutionReorderType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionreordertype).
 */
export function cudnnGetConvolutionReorderType(
  convDesc: CudnnConvolutionDescriptor,
): StatusResult & { reorderType: number } {
  return lib().cudnnGetConvolutionReorderType(convDesc);
}

/**
 * [cudnnGetConvolutionForwardAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithmmaxcount).
 */
export function cudnnGetConvolutionForwardAlgorithmMaxCount(
  handle: CudnnHandle,
): StatusResult & { count: number } {
  return lib().cudnnGetConvolutionForwardAlgorithmMaxCount(handle);
}

/**
 * [cudnnGetConvolutionForwardAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithm_v7).
 */
export function cudnnGetConvolutionForwardAlgorithm_v7(
  handle: CudnnHandle,
  srcDesc: CudnnTensorDescriptor,
  filterDesc: CudnnFilterDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  destDesc: CudnnTensorDescriptor,
  requestedAlgoCount: number,
): CudnnAlgoPerfResult {
  return lib().cudnnGetConvolutionForwardAlgorithm_v7(
    handle,
    srcDesc,
    filterDesc,
    convDesc,
    destDesc,
    requestedAlgoCount,
  );
}

/**
 * [cudnnFindConvolutionForwardAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionforwardalgorithmex).
 */
export function cudnnFindConvolutionForwardAlgorithmEx(
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
): CudnnAlgoPerfResult {
  return lib().cudnnFindConvolutionForwardAlgorithmEx(
    handle,
    xDesc,
    x,
    wDesc,
    w,
    convDesc,
    yDesc,
    y,
    requestedAlgoCount,
    workSpace,
    workSpaceSizeInBytes,
  );
}

/**
 * [cudnnGetConvolutionForwardWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardworkspacesize).
 */
export function cudnnGetConvolutionForwardWorkspaceSize(
  handle: CudnnHandle,
  xDesc: CudnnTensorDescriptor,
  wDesc: CudnnFilterDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  yDesc: CudnnTensorDescriptor,
  algo: number,
): StatusResult & { sizeInBytes: number } {
  return lib().cudnnGetConvolutionForwardWorkspaceSize(handle, xDesc, wDesc, convDesc, yDesc, algo);
}

/**
 * [cudnnConvolutionForward](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionforward).
 */
export function cudnnConvolutionForward(
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
): number {
  return lib().cudnnConvolutionForward(
    handle,
    alpha,
    xDesc,
    x,
    wDesc,
    w,
    convDesc,
    algo,
    workSpace,
    workSpaceSizeInBytes,
    beta,
    yDesc,
    y,
  );
}

/**
 * [cudnnConvolutionBiasActivationForward](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbiasactivationforward).
 */
export function cudnnConvolutionBiasActivationForward(
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
): number {
  return lib().cudnnConvolutionBiasActivationForward(
    handle,
    alpha1,
    xDesc,
    x,
    wDesc,
    w,
    convDesc,
    algo,
    workSpace,
    workSpaceSizeInBytes,
    alpha2,
    zDesc,
    z,
    biasDesc,
    bias,
    activationDesc,
    yDesc,
    y,
  );
}

/**
 * [cudnnGetConvolutionBackwardDataAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataalgorithmmaxcount).
 */
export function cudnnGetConvolutionBackwardDataAlgorithmMaxCount(
  handle: CudnnHandle,
): StatusResult & { count: number } {
  return lib().cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle);
}

/**
 * [cudnnGetConvolutionBackwardDataAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataalgorithm_v7).
 */
export function cudnnGetConvolutionBackwardDataAlgorithm_v7(
  handle: CudnnHandle,
  filterDesc: CudnnFilterDescriptor,
  diffDesc: CudnnTensorDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  gradDesc: CudnnTensorDescriptor,
  requestedAlgoCount: number,
): CudnnAlgoPerfResult {
  return lib().cudnnGetConvolutionBackwardDataAlgorithm_v7(
    handle,
    filterDesc,
    diffDesc,
    convDesc,
    gradDesc,
    requestedAlgoCount,
  );
}

/**
 * [cudnnFindConvolutionBackwardDataAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionbackwarddataalgorithmex).
 */
export function cudnnFindConvolutionBackwardDataAlgorithmEx(
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
): CudnnAlgoPerfResult {
  return lib().cudnnFindConvolutionBackwardDataAlgorithmEx(
    handle,
    wDesc,
    w,
    dyDesc,
    dy,
    convDesc,
    dxDesc,
    dx,
    requestedAlgoCount,
    workSpace,
    workSpaceSizeInBytes,
  );
}

/**
 * [cudnnGetConvolutionBackwardDataWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataworkspacesize).
 */
export function cudnnGetConvolutionBackwardDataWorkspaceSize(
  handle: CudnnHandle,
  wDesc: CudnnFilterDescriptor,
  dyDesc: CudnnTensorDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  dxDesc: CudnnTensorDescriptor,
  algo: number,
): StatusResult & { sizeInBytes: number } {
  return lib().cudnnGetConvolutionBackwardDataWorkspaceSize(
    handle,
    wDesc,
    dyDesc,
    convDesc,
    dxDesc,
    algo,
  );
}

/**
 * [cudnnConvolutionBackwardData](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbackwarddata).
 */
export function cudnnConvolutionBackwardData(
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
): number {
  return lib().cudnnConvolutionBackwardData(
    handle,
    alpha,
    wDesc,
    w,
    dyDesc,
    dy,
    convDesc,
    algo,
    workSpace,
    workSpaceSizeInBytes,
    beta,
    dxDesc,
    dx,
  );
}

/**
 * [cudnnGetConvolutionBackwardFilterAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilteralgorithmmaxcount).
 */
export function cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
  handle: CudnnHandle,
): StatusResult & { count: number } {
  return lib().cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle);
}

/**
 * [cudnnGetConvolutionBackwardFilterAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilteralgorithm_v7).
 */
export function cudnnGetConvolutionBackwardFilterAlgorithm_v7(
  handle: CudnnHandle,
  srcDesc: CudnnTensorDescriptor,
  diffDesc: CudnnTensorDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  gradDesc: CudnnFilterDescriptor,
  requestedAlgoCount: number,
): CudnnAlgoPerfResult {
  return lib().cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    handle,
    srcDesc,
    diffDesc,
    convDesc,
    gradDesc,
    requestedAlgoCount,
  );
}

/**
 * [cudnnFindConvolutionBackwardFilterAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionbackwardfilteralgorithmex).
 */
export function cudnnFindConvolutionBackwardFilterAlgorithmEx(
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
): CudnnAlgoPerfResult {
  return lib().cudnnFindConvolutionBackwardFilterAlgorithmEx(
    handle,
    xDesc,
    x,
    dyDesc,
    y,
    convDesc,
    dwDesc,
    dw,
    requestedAlgoCount,
    workSpace,
    workSpaceSizeInBytes,
  );
}

/**
 * [cudnnGetConvolutionBackwardFilterWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilterworkspacesize).
 */
export function cudnnGetConvolutionBackwardFilterWorkspaceSize(
  handle: CudnnHandle,
  xDesc: CudnnTensorDescriptor,
  dyDesc: CudnnTensorDescriptor,
  convDesc: CudnnConvolutionDescriptor,
  gradDesc: CudnnFilterDescriptor,
  algo: number,
): StatusResult & { sizeInBytes: number } {
  return lib().cudnnGetConvolutionBackwardFilterWorkspaceSize(
    handle,
    xDesc,
    dyDesc,
    convDesc,
    gradDesc,
    algo,
  );
}

/**
 * [cudnnConvolutionBackwardFilter](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbackwardfilter).
 */
export function cudnnConvolutionBackwardFilter(
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
): number {
  return lib().cudnnConvolutionBackwardFilter(
    handle,
    alpha,
    xDesc,
    x,
    dyDesc,
    dy,
    convDesc,
    algo,
    workSpace,
    workSpaceSizeInBytes,
    beta,
    dwDesc,
    dw,
  );
}

/**
 * [cudnnBackendCreateDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendcreatedescriptor).
 */
export function cudnnBackendCreateDescriptor(
  descriptorType: number,
): StatusResult & { descriptor: CudnnBackendDescriptor | null } {
  return lib().cudnnBackendCreateDescriptor(descriptorType);
}

/**
 * [cudnnBackendDestroyDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackenddestroydescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export function cudnnBackendDestroyDescriptor(descriptor: CudnnBackendDescriptor): number {
  return lib().cudnnBackendDestroyDescriptor(descriptor);
}

/**
 * [cudnnBackendFinalize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendfinalize).
 */
export function cudnnBackendFinalize(descriptor: CudnnBackendDescriptor): number {
  return lib().cudnnBackendFinalize(descriptor);
}

/**
 * [cudnnBackendSetAttribute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendsetattribute).
 * `values` must match `attributeType` (INT64 → BigInt64Array, VOID_PTR → BigUint64Array, FLOAT → Float32Array,
 * DOUBLE → Float64Array, BOOLEAN → Uint8Array, INT32 and enum types → Int32Array, FRACTION → BigInt64Array of
 * (numerator, denominator) pairs, CHAR → string or Uint8Array, BACKEND_DESCRIPTOR → CudnnBackendDescriptor[],
 * HANDLE → CudnnHandle[]); the element count is its length. Typed arrays are passed in place, not copied.
 * Descriptors and handles set here are kept alive (not garbage-collected) while `descriptor` lives.
 */
export function cudnnBackendSetAttribute(
  descriptor: CudnnBackendDescriptor,
  attributeName: number,
  attributeType: number,
  values: CudnnBackendAttributeValues,
): number {
  return lib().cudnnBackendSetAttribute(descriptor, attributeName, attributeType, values);
}

/**
 * [cudnnBackendGetAttribute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendgetattribute).
 * Reads up to `requestedElementCount` elements. For BACKEND_DESCRIPTOR pass `outDescriptors`: exactly
 * `requestedElementCount` descriptors created beforehand (the C API fills them); they come back as `values`.
 * CHAR comes back as a string, HANDLE as raw addresses (BigUint64Array).
 */
export function cudnnBackendGetAttribute(
  descriptor: CudnnBackendDescriptor,
  attributeName: number,
  attributeType: number,
  requestedElementCount: number,
  outDescriptors?: readonly CudnnBackendDescriptor[],
): CudnnGetAttributeResult {
  return lib().cudnnBackendGetAttribute(
    descriptor,
    attributeName,
    attributeType,
    requestedElementCount,
    outDescriptors,
  );
}

/**
 * [cudnnBackendExecute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendexecute).
 * Enqueues the plan on the handle's stream and returns; hot path.
 */
export function cudnnBackendExecute(
  handle: CudnnHandle,
  executionPlan: CudnnBackendDescriptor,
  variantPack: CudnnBackendDescriptor,
): number {
  return lib().cudnnBackendExecute(handle, executionPlan, variantPack);
}
