// @baracuda/cudnn-sys: raw cuDNN 9 bindings, one JS function per C function, same name.
//
// Conventions (docs/ARCHITECTURE.md):
// - A call with no outputs returns the cudnnStatus_t number; a call with outputs returns
//   { status, ...outputs } named after the C out-parameters. A cuDNN status never throws.
// - Handles and descriptors are type-tagged wrapped objects. A foreign object, a destroyed one or
//   the wrong kind is rejected with a TypeError before anything is dereferenced.
// - Wrong argument types throw TypeError, wrong sizes RangeError; nothing is coerced.
// - libcudnn.so.9 is loaded at the first call that needs it (loader.cc), never at require time.
//
// This file registers the exports; the bindings live in one file per family (version.cc,
// descriptors.cc, convolution.cc, algorithms.cc, backend.cc, probe.cc) over the shared
// objects.h, support.h and args.h.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto *data = new AddonData();
  for (int kind = 0; kind < kKindCount; ++kind) {
    Napi::Function constructor = NativeObject::DefineClass(
        env, kKindNames[kind], {}, reinterpret_cast<void *>(static_cast<intptr_t>(kind)));
    data->constructors[kind] = Napi::Persistent(constructor);
    exports.Set(kKindNames[kind], constructor);
  }
  env.SetInstanceData<AddonData>(data);

  struct Entry {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Entry entries[] = {
      {"probe", Probe},
      {"nativeConstants", NativeConstants},
      {"cudnnGetVersion", GetVersion},
      {"cudnnGetMaxDeviceVersion", GetMaxDeviceVersion},
      {"cudnnGetCudartVersion", GetCudartVersion},
      {"cudnnGetProperty", GetProperty},
      {"cudnnGetErrorString", GetErrorString},
      {"cudnnGetLastErrorString", GetLastErrorString},
      {"cudnnCreate", Create},
      {"cudnnDestroy", DestroyHandle},
      {"cudnnSetStream", SetStream},
      {"cudnnGetStream", GetStream},
      {"cudnnCreateTensorDescriptor", CreateTensorDescriptor},
      {"cudnnSetTensorNdDescriptor", SetTensorNdDescriptor},
      {"cudnnSetTensorNdDescriptorEx", SetTensorNdDescriptorEx},
      {"cudnnGetTensorNdDescriptor", GetTensorNdDescriptor},
      {"cudnnTransformTensor", TransformTensor},
      {"cudnnGetTensorSizeInBytes", GetTensorSizeInBytes},
      {"cudnnDestroyTensorDescriptor", DestroyTensorDescriptor},
      {"cudnnCreateFilterDescriptor", CreateFilterDescriptor},
      {"cudnnSetFilterNdDescriptor", SetFilterNdDescriptor},
      {"cudnnGetFilterNdDescriptor", GetFilterNdDescriptor},
      {"cudnnDestroyFilterDescriptor", DestroyFilterDescriptor},
      {"cudnnCreateActivationDescriptor", CreateActivationDescriptor},
      {"cudnnSetActivationDescriptor", SetActivationDescriptor},
      {"cudnnGetActivationDescriptor", GetActivationDescriptor},
      {"cudnnDestroyActivationDescriptor", DestroyActivationDescriptor},
      {"cudnnCreateConvolutionDescriptor", CreateConvolutionDescriptor},
      {"cudnnDestroyConvolutionDescriptor", DestroyConvolutionDescriptor},
      {"cudnnSetConvolutionNdDescriptor", SetConvolutionNdDescriptor},
      {"cudnnGetConvolutionNdDescriptor", GetConvolutionNdDescriptor},
      {"cudnnGetConvolutionNdForwardOutputDim", GetConvolutionNdForwardOutputDim},
      {"cudnnSetConvolutionMathType", SetConvolutionMathType},
      {"cudnnGetConvolutionMathType", GetConvolutionMathType},
      {"cudnnSetConvolutionGroupCount", SetConvolutionGroupCount},
      {"cudnnGetConvolutionGroupCount", GetConvolutionGroupCount},
      {"cudnnSetConvolutionReorderType", SetConvolutionReorderType},
      {"cudnnGetConvolutionReorderType", GetConvolutionReorderType},
      {"cudnnGetConvolutionForwardAlgorithmMaxCount", GetConvolutionForwardAlgorithmMaxCount},
      {"cudnnGetConvolutionForwardAlgorithm_v7", GetConvolutionForwardAlgorithm_v7},
      {"cudnnFindConvolutionForwardAlgorithmEx", FindConvolutionForwardAlgorithmEx},
      {"cudnnGetConvolutionForwardWorkspaceSize", GetConvolutionForwardWorkspaceSize},
      {"cudnnConvolutionForward", ConvolutionForward},
      {"cudnnConvolutionBiasActivationForward", ConvolutionBiasActivationForward},
      {"cudnnGetConvolutionBackwardDataAlgorithmMaxCount",
       GetConvolutionBackwardDataAlgorithmMaxCount},
      {"cudnnGetConvolutionBackwardDataAlgorithm_v7", GetConvolutionBackwardDataAlgorithm_v7},
      {"cudnnFindConvolutionBackwardDataAlgorithmEx", FindConvolutionBackwardDataAlgorithmEx},
      {"cudnnGetConvolutionBackwardDataWorkspaceSize", GetConvolutionBackwardDataWorkspaceSize},
      {"cudnnConvolutionBackwardData", ConvolutionBackwardData},
      {"cudnnGetConvolutionBackwardFilterAlgorithmMaxCount",
       GetConvolutionBackwardFilterAlgorithmMaxCount},
      {"cudnnGetConvolutionBackwardFilterAlgorithm_v7", GetConvolutionBackwardFilterAlgorithm_v7},
      {"cudnnFindConvolutionBackwardFilterAlgorithmEx", FindConvolutionBackwardFilterAlgorithmEx},
      {"cudnnGetConvolutionBackwardFilterWorkspaceSize",
       GetConvolutionBackwardFilterWorkspaceSize},
      {"cudnnConvolutionBackwardFilter", ConvolutionBackwardFilter},
      {"cudnnBackendCreateDescriptor", BackendCreateDescriptor},
      {"cudnnBackendDestroyDescriptor", BackendDestroyDescriptor},
      {"cudnnBackendFinalize", BackendFinalize},
      {"cudnnBackendSetAttribute", BackendSetAttribute},
      {"cudnnBackendGetAttribute", BackendGetAttribute},
      {"cudnnBackendExecute", BackendExecute},
  };
  for (const auto &entry : entries) {
    exports.Set(entry.name, Napi::Function::New(env, entry.fn, entry.name));
  }
  return exports;
}

}  // namespace baracuda::cudnn

static Napi::Object InitBaracudaCudnn(Napi::Env env, Napi::Object exports) {
  return baracuda::cudnn::Init(env, exports);
}
NODE_API_MODULE(baracuda_cudnn, InitBaracudaCudnn)
