/**
 * The raw cuDNN functions: one per C function, same name and parameter order, each loading cuDNN
 * on its first call (see library.ts).
 */
import { lib, requireExported } from './library.js';
import type { NativeBinding } from './native.js';

// ---- Raw functions: one per C function, same name and parameter order. ----
// A call with no outputs returns the cudnnStatus_t; a call with outputs returns {status, ...}.
// Before cuDNN is loaded, the first call loads it and throws LibraryNotFoundError if it cannot.
// Parameter and result types come from `NativeBinding` in src/native.ts, the one description.

/** The addon's exports that are raw cuDNN calls. */
type RawName = Extract<keyof NativeBinding, `cudnn${string}`>;

/**
 * The raw function `name`: loads cuDNN on its first call (throwing `LibraryNotFoundError` when it
 * cannot, and trying again on the next call), then forwards every call to the addon's function.
 */
function raw<K extends RawName>(name: K): NativeBinding[K] {
  let native: ((...args: unknown[]) => unknown) | undefined;
  const forward = (...args: unknown[]): unknown => {
    if (native === undefined) {
      const binding = lib();
      requireExported(name);
      native = binding[name] as (...args: unknown[]) => unknown;
    }
    return native(...args);
  };
  Object.defineProperty(forward, 'name', { value: name });
  return forward as NativeBinding[K];
}

/**
 * [cudnnGetVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetversion).
 */
export const cudnnGetVersion = raw('cudnnGetVersion');

/**
 * [cudnnGetMaxDeviceVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetmaxdeviceversion).
 */
export const cudnnGetMaxDeviceVersion = raw('cudnnGetMaxDeviceVersion');

/**
 * [cudnnGetCudartVersion](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetcudartversion).
 */
export const cudnnGetCudartVersion = raw('cudnnGetCudartVersion');

/**
 * [cudnnGetProperty](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetproperty).
 */
export const cudnnGetProperty = raw('cudnnGetProperty');

/**
 * [cudnnGetErrorString](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngeterrorstring).
 */
export const cudnnGetErrorString = raw('cudnnGetErrorString');

/**
 * [cudnnGetLastErrorString](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetlasterrorstring).
 * cuDNN's last error message for this thread (the C call fills a caller buffer; this returns it).
 */
export const cudnnGetLastErrorString = raw('cudnnGetLastErrorString');

/**
 * [cudnnCreate](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnncreate).
 * `handle` is null when `status` is not CUDNN_STATUS_SUCCESS.
 */
export const cudnnCreate = raw('cudnnCreate');

/**
 * [cudnnDestroy](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnndestroy).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnDestroy = raw('cudnnDestroy');

/**
 * [cudnnSetStream](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnsetstream).
 */
export const cudnnSetStream = raw('cudnnSetStream');

/**
 * [cudnnGetStream](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnngetstream).
 */
export const cudnnGetStream = raw('cudnnGetStream');

/**
 * [cudnnCreateTensorDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreatetensordescriptor).
 */
export const cudnnCreateTensorDescriptor = raw('cudnnCreateTensorDescriptor');

/**
 * [cudnnSetTensorNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsettensornddescriptor).
 */
export const cudnnSetTensorNdDescriptor = raw('cudnnSetTensorNdDescriptor');

/**
 * [cudnnSetTensorNdDescriptorEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsettensornddescriptorex).
 */
export const cudnnSetTensorNdDescriptorEx = raw('cudnnSetTensorNdDescriptorEx');

/**
 * [cudnnGetTensorNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngettensornddescriptor).
 */
export const cudnnGetTensorNdDescriptor = raw('cudnnGetTensorNdDescriptor');

/**
 * [cudnnGetTensorSizeInBytes](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngettensorsizeinbytes).
 */
export const cudnnGetTensorSizeInBytes = raw('cudnnGetTensorSizeInBytes');

/**
 * [cudnnDestroyTensorDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroytensordescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnDestroyTensorDescriptor = raw('cudnnDestroyTensorDescriptor');

/**
 * [cudnnTransformTensor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnntransformtensor):
 * y = alpha * x + beta * y, converting between the layouts the two descriptors' strides describe
 * (same dims). `alpha`/`beta` are Float32Array(1), or Float64Array(1) for double tensors.
 */
export const cudnnTransformTensor = raw('cudnnTransformTensor');

/**
 * [cudnnCreateFilterDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreatefilterdescriptor).
 */
export const cudnnCreateFilterDescriptor = raw('cudnnCreateFilterDescriptor');

/**
 * [cudnnSetFilterNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsetfilternddescriptor).
 */
export const cudnnSetFilterNdDescriptor = raw('cudnnSetFilterNdDescriptor');

/**
 * [cudnnGetFilterNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngetfilternddescriptor).
 */
export const cudnnGetFilterNdDescriptor = raw('cudnnGetFilterNdDescriptor');

/**
 * [cudnnDestroyFilterDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroyfilterdescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnDestroyFilterDescriptor = raw('cudnnDestroyFilterDescriptor');

/**
 * [cudnnCreateActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnncreateactivationdescriptor).
 */
export const cudnnCreateActivationDescriptor = raw('cudnnCreateActivationDescriptor');

/**
 * [cudnnSetActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnnsetactivationdescriptor).
 */
export const cudnnSetActivationDescriptor = raw('cudnnSetActivationDescriptor');

/**
 * [cudnnGetActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnngetactivationdescriptor).
 */
export const cudnnGetActivationDescriptor = raw('cudnnGetActivationDescriptor');

/**
 * [cudnnDestroyActivationDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-ops-library.html#cudnndestroyactivationdescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnDestroyActivationDescriptor = raw('cudnnDestroyActivationDescriptor');

/**
 * [cudnnCreateConvolutionDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnncreateconvolutiondescriptor).
 */
export const cudnnCreateConvolutionDescriptor = raw('cudnnCreateConvolutionDescriptor');

/**
 * [cudnnDestroyConvolutionDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnndestroyconvolutiondescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnDestroyConvolutionDescriptor = raw('cudnnDestroyConvolutionDescriptor');

/**
 * [cudnnSetConvolutionNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionnddescriptor).
 */
export const cudnnSetConvolutionNdDescriptor = raw('cudnnSetConvolutionNdDescriptor');

/**
 * [cudnnGetConvolutionNdDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionnddescriptor).
 */
export const cudnnGetConvolutionNdDescriptor = raw('cudnnGetConvolutionNdDescriptor');

/**
 * [cudnnGetConvolutionNdForwardOutputDim](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionndforwardoutputdim).
 * `tensorOuputDimA` keeps the C spelling; `tensorOutputDimA` is the same array.
 */
export const cudnnGetConvolutionNdForwardOutputDim = raw('cudnnGetConvolutionNdForwardOutputDim');

/**
 * [cudnnSetConvolutionMathType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionmathtype).
 */
export const cudnnSetConvolutionMathType = raw('cudnnSetConvolutionMathType');

/**
 * [cudnnGetConvolutionMathType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionmathtype).
 */
export const cudnnGetConvolutionMathType = raw('cudnnGetConvolutionMathType');

/**
 * [cudnnSetConvolutionGroupCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutiongroupcount).
 */
export const cudnnSetConvolutionGroupCount = raw('cudnnSetConvolutionGroupCount');

/**
 * [cudnnGetConvolutionGroupCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutiongroupcount).
 */
export const cudnnGetConvolutionGroupCount = raw('cudnnGetConvolutionGroupCount');

/**
 * [cudnnSetConvolutionReorderType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionreordertype).
 */
export const cudnnSetConvolutionReorderType = raw('cudnnSetConvolutionReorderType');

/**
 * [cudnnGetConvolutionReorderType](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionreordertype).
 */
export const cudnnGetConvolutionReorderType = raw('cudnnGetConvolutionReorderType');

/**
 * [cudnnGetConvolutionForwardAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithmmaxcount).
 */
export const cudnnGetConvolutionForwardAlgorithmMaxCount = raw(
  'cudnnGetConvolutionForwardAlgorithmMaxCount',
);

/**
 * [cudnnGetConvolutionForwardAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithm_v7).
 */
export const cudnnGetConvolutionForwardAlgorithm_v7 = raw('cudnnGetConvolutionForwardAlgorithm_v7');

/**
 * [cudnnFindConvolutionForwardAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionforwardalgorithmex).
 */
export const cudnnFindConvolutionForwardAlgorithmEx = raw('cudnnFindConvolutionForwardAlgorithmEx');

/**
 * [cudnnGetConvolutionForwardWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardworkspacesize).
 */
export const cudnnGetConvolutionForwardWorkspaceSize = raw(
  'cudnnGetConvolutionForwardWorkspaceSize',
);

/**
 * [cudnnConvolutionForward](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionforward).
 */
export const cudnnConvolutionForward = raw('cudnnConvolutionForward');

/**
 * [cudnnConvolutionBiasActivationForward](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbiasactivationforward).
 */
export const cudnnConvolutionBiasActivationForward = raw('cudnnConvolutionBiasActivationForward');

/**
 * [cudnnGetConvolutionBackwardDataAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataalgorithmmaxcount).
 */
export const cudnnGetConvolutionBackwardDataAlgorithmMaxCount = raw(
  'cudnnGetConvolutionBackwardDataAlgorithmMaxCount',
);

/**
 * [cudnnGetConvolutionBackwardDataAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataalgorithm_v7).
 */
export const cudnnGetConvolutionBackwardDataAlgorithm_v7 = raw(
  'cudnnGetConvolutionBackwardDataAlgorithm_v7',
);

/**
 * [cudnnFindConvolutionBackwardDataAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionbackwarddataalgorithmex).
 */
export const cudnnFindConvolutionBackwardDataAlgorithmEx = raw(
  'cudnnFindConvolutionBackwardDataAlgorithmEx',
);

/**
 * [cudnnGetConvolutionBackwardDataWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwarddataworkspacesize).
 */
export const cudnnGetConvolutionBackwardDataWorkspaceSize = raw(
  'cudnnGetConvolutionBackwardDataWorkspaceSize',
);

/**
 * [cudnnConvolutionBackwardData](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbackwarddata).
 */
export const cudnnConvolutionBackwardData = raw('cudnnConvolutionBackwardData');

/**
 * [cudnnGetConvolutionBackwardFilterAlgorithmMaxCount](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilteralgorithmmaxcount).
 */
export const cudnnGetConvolutionBackwardFilterAlgorithmMaxCount = raw(
  'cudnnGetConvolutionBackwardFilterAlgorithmMaxCount',
);

/**
 * [cudnnGetConvolutionBackwardFilterAlgorithm_v7](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilteralgorithm_v7).
 */
export const cudnnGetConvolutionBackwardFilterAlgorithm_v7 = raw(
  'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
);

/**
 * [cudnnFindConvolutionBackwardFilterAlgorithmEx](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnfindconvolutionbackwardfilteralgorithmex).
 */
export const cudnnFindConvolutionBackwardFilterAlgorithmEx = raw(
  'cudnnFindConvolutionBackwardFilterAlgorithmEx',
);

/**
 * [cudnnGetConvolutionBackwardFilterWorkspaceSize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnngetconvolutionbackwardfilterworkspacesize).
 */
export const cudnnGetConvolutionBackwardFilterWorkspaceSize = raw(
  'cudnnGetConvolutionBackwardFilterWorkspaceSize',
);

/**
 * [cudnnConvolutionBackwardFilter](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-cnn-library.html#cudnnconvolutionbackwardfilter).
 */
export const cudnnConvolutionBackwardFilter = raw('cudnnConvolutionBackwardFilter');

/**
 * [cudnnBackendCreateDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendcreatedescriptor).
 */
export const cudnnBackendCreateDescriptor = raw('cudnnBackendCreateDescriptor');

/**
 * [cudnnBackendDestroyDescriptor](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackenddestroydescriptor).
 * Marks the object destroyed whatever the status; destroying it again throws `TypeError`.
 */
export const cudnnBackendDestroyDescriptor = raw('cudnnBackendDestroyDescriptor');

/**
 * [cudnnBackendFinalize](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendfinalize).
 */
export const cudnnBackendFinalize = raw('cudnnBackendFinalize');

/**
 * [cudnnBackendSetAttribute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendsetattribute).
 * `values` must match `attributeType` (INT64 → BigInt64Array, VOID_PTR → BigUint64Array, FLOAT → Float32Array,
 * DOUBLE → Float64Array, BOOLEAN → Uint8Array, INT32 and enum types → Int32Array, FRACTION → BigInt64Array of
 * (numerator, denominator) pairs, CHAR → string or Uint8Array, BACKEND_DESCRIPTOR → CudnnBackendDescriptor[],
 * HANDLE → CudnnHandle[]); the element count is its length. Typed arrays are passed in place, not copied.
 * Descriptors and handles set here are kept alive (not garbage-collected) while `descriptor` lives.
 */
export const cudnnBackendSetAttribute = raw('cudnnBackendSetAttribute');

/**
 * [cudnnBackendGetAttribute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendgetattribute).
 * Reads up to `requestedElementCount` elements. For BACKEND_DESCRIPTOR pass `outDescriptors`: exactly
 * `requestedElementCount` descriptors created beforehand (the C API fills them); they come back as `values`.
 * CHAR comes back as a string, HANDLE as raw addresses (BigUint64Array).
 */
export const cudnnBackendGetAttribute = raw('cudnnBackendGetAttribute');

/**
 * [cudnnBackendExecute](https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnbackendexecute).
 * Enqueues the plan on the handle's stream and returns; hot path.
 */
export const cudnnBackendExecute = raw('cudnnBackendExecute');
