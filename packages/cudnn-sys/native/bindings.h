// Every function the cudnn-sys addon exports, by file. addon.cc registers them.
#pragma once

#include <napi.h>

namespace baracuda::cudnn {

// version.cc
Napi::Value GetVersion(const Napi::CallbackInfo &info);
Napi::Value GetMaxDeviceVersion(const Napi::CallbackInfo &info);
Napi::Value GetCudartVersion(const Napi::CallbackInfo &info);
Napi::Value GetProperty(const Napi::CallbackInfo &info);
Napi::Value GetErrorString(const Napi::CallbackInfo &info);
Napi::Value GetLastErrorString(const Napi::CallbackInfo &info);
Napi::Value Create(const Napi::CallbackInfo &info);
Napi::Value DestroyHandle(const Napi::CallbackInfo &info);
Napi::Value SetStream(const Napi::CallbackInfo &info);
Napi::Value GetStream(const Napi::CallbackInfo &info);

// descriptors.cc
Napi::Value CreateTensorDescriptor(const Napi::CallbackInfo &info);
Napi::Value SetTensorNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value SetTensorNdDescriptorEx(const Napi::CallbackInfo &info);
Napi::Value GetTensorNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value GetTensorSizeInBytes(const Napi::CallbackInfo &info);
Napi::Value DestroyTensorDescriptor(const Napi::CallbackInfo &info);
Napi::Value CreateFilterDescriptor(const Napi::CallbackInfo &info);
Napi::Value SetFilterNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value GetFilterNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value DestroyFilterDescriptor(const Napi::CallbackInfo &info);
Napi::Value CreateActivationDescriptor(const Napi::CallbackInfo &info);
Napi::Value SetActivationDescriptor(const Napi::CallbackInfo &info);
Napi::Value GetActivationDescriptor(const Napi::CallbackInfo &info);
Napi::Value DestroyActivationDescriptor(const Napi::CallbackInfo &info);

// convolution.cc
Napi::Value CreateConvolutionDescriptor(const Napi::CallbackInfo &info);
Napi::Value DestroyConvolutionDescriptor(const Napi::CallbackInfo &info);
Napi::Value SetConvolutionNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionNdDescriptor(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionNdForwardOutputDim(const Napi::CallbackInfo &info);
Napi::Value SetConvolutionMathType(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionMathType(const Napi::CallbackInfo &info);
Napi::Value SetConvolutionGroupCount(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionGroupCount(const Napi::CallbackInfo &info);
Napi::Value SetConvolutionReorderType(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionReorderType(const Napi::CallbackInfo &info);

// algorithms.cc
Napi::Value GetConvolutionBackwardFilterWorkspaceSize(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionBackwardFilterAlgorithmMaxCount(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionBackwardDataAlgorithmMaxCount(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionForwardAlgorithmMaxCount(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionForwardAlgorithm_v7(const Napi::CallbackInfo &info);
Napi::Value FindConvolutionForwardAlgorithmEx(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionForwardWorkspaceSize(const Napi::CallbackInfo &info);
Napi::Value TransformTensor(const Napi::CallbackInfo &info);
Napi::Value ConvolutionForward(const Napi::CallbackInfo &info);
Napi::Value ConvolutionBiasActivationForward(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionBackwardDataAlgorithm_v7(const Napi::CallbackInfo &info);
Napi::Value FindConvolutionBackwardDataAlgorithmEx(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionBackwardDataWorkspaceSize(const Napi::CallbackInfo &info);
Napi::Value ConvolutionBackwardData(const Napi::CallbackInfo &info);
Napi::Value GetConvolutionBackwardFilterAlgorithm_v7(const Napi::CallbackInfo &info);
Napi::Value FindConvolutionBackwardFilterAlgorithmEx(const Napi::CallbackInfo &info);
Napi::Value ConvolutionBackwardFilter(const Napi::CallbackInfo &info);

// backend.cc
Napi::Value BackendCreateDescriptor(const Napi::CallbackInfo &info);
Napi::Value BackendDestroyDescriptor(const Napi::CallbackInfo &info);
Napi::Value BackendFinalize(const Napi::CallbackInfo &info);
Napi::Value BackendSetAttribute(const Napi::CallbackInfo &info);
Napi::Value BackendGetAttribute(const Napi::CallbackInfo &info);
Napi::Value BackendExecute(const Napi::CallbackInfo &info);

// probe.cc
Napi::Value Probe(const Napi::CallbackInfo &info);
Napi::Value NativeConstants(const Napi::CallbackInfo &info);

}  // namespace baracuda::cudnn
