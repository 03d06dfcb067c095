/**
 * @baracuda/cudnn-sys: raw cuDNN 9 bindings, dlopen'd at first use, C names one to one.
 */
export * from './constants.js';
export {
  type CudnnProbe,
  type CudnnVersion,
  decodeCudnnVersion,
  load,
  nativeConstants,
  probe,
} from './library.js';
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
export * from './raw.js';
