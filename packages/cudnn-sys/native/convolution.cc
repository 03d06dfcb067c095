// The convolution descriptor.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

Napi::Value CreateConvolutionDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnConvolutionDescriptor_t, kConvolution>(
      info, CUDNN_FN(cudnnCreateConvolutionDescriptor), "convDesc");
}

Napi::Value DestroyConvolutionDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnConvolutionDescriptor_t>(info, kConvolution, "convDesc",
                                               CUDNN_FN(cudnnDestroyConvolutionDescriptor));
}

Napi::Value SetConvolutionNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetConvolutionNdDescriptor);
  auto desc = ConvArg(env, info[0], "convDesc");
  const int length = Int32Arg(env, info[1], "arrayLength");
  auto pad = IntArrayArg(env, info[2], "padA", length);
  auto stride = IntArrayArg(env, info[3], "filterStrideA", length);
  auto dilation = IntArrayArg(env, info[4], "dilationA", length);
  auto mode = EnumArg<cudnnConvolutionMode_t>(env, info[5], "mode", "a cudnnConvolutionMode_t");
  auto computeType = EnumArg<cudnnDataType_t>(env, info[6], "computeType", "a cudnnDataType_t");
  return Status(env, fn(desc.get(), length, pad.data(), stride.data(), dilation.data(), mode,
                        computeType));
}

Napi::Value GetConvolutionNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionNdDescriptor);
  auto desc = ConvArg(env, info[0], "convDesc");
  const int requested =
      RequestedCountArg(env, info[1], "arrayLengthRequested", kCudnnDimMax - 2);
  int length = 0;
  int pad[kCudnnDimMax] = {};
  int stride[kCudnnDimMax] = {};
  int dilation[kCudnnDimMax] = {};
  cudnnConvolutionMode_t mode{};
  cudnnDataType_t computeType{};
  Napi::Object result =
      Result(env, fn(desc.get(), requested, &length, pad, stride, dilation, &mode, &computeType));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(length, requested)));
  Put(result, "arrayLength", length);
  Put(result, "padA", IntArray(env, pad, shown));
  Put(result, "strideA", IntArray(env, stride, shown));
  Put(result, "dilationA", IntArray(env, dilation, shown));
  Put(result, "mode", static_cast<int>(mode));
  Put(result, "computeType", static_cast<int>(computeType));
  return result;
}

Napi::Value GetConvolutionNdForwardOutputDim(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionNdForwardOutputDim);
  auto conv = ConvArg(env, info[0], "convDesc");
  auto input = TensorArg(env, info[1], "inputTensorDesc");
  auto filter = FilterArg(env, info[2], "filterDesc");
  const int nbDims = RequestedCountArg(env, info[3], "nbDims", kCudnnDimMax);
  int dims[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(conv.get(), input.get(), filter.get(), nbDims, dims));
  Napi::Array out = IntArray(env, dims, static_cast<size_t>(nbDims));
  // The C parameter is spelled tensorOuputDimA; tensorOutputDimA is the same array.
  Put(result, "tensorOuputDimA", out);
  Put(result, "tensorOutputDimA", out);
  return result;
}

#define CONV_SETTER(jsName, cName, Type, argName, what)                          \
  Napi::Value jsName(const Napi::CallbackInfo &info) {                           \
    Napi::Env env = info.Env();                                                  \
    auto fn = CUDNN_FN(cName);                                                   \
    auto desc = ConvArg(env, info[0], "convDesc");                               \
    auto value = EnumArg<Type>(env, info[1], argName, what);                     \
    return Status(env, fn(desc.get(), value));                                         \
  }
#define CONV_GETTER(jsName, cName, Type, outName)                                \
  Napi::Value jsName(const Napi::CallbackInfo &info) {                           \
    Napi::Env env = info.Env();                                                  \
    auto fn = CUDNN_FN(cName);                                                   \
    auto desc = ConvArg(env, info[0], "convDesc");                               \
    Type value{};                                                                \
    Napi::Object result = Result(env, fn(desc.get(), &value));                         \
    Put(result, outName, static_cast<int>(value));                                \
    return result;                                                               \
  }
CONV_SETTER(SetConvolutionMathType, cudnnSetConvolutionMathType, cudnnMathType_t, "mathType",
            "a cudnnMathType_t")
CONV_GETTER(GetConvolutionMathType, cudnnGetConvolutionMathType, cudnnMathType_t, "mathType")
CONV_SETTER(SetConvolutionGroupCount, cudnnSetConvolutionGroupCount, int, "groupCount",
            "an int32")
CONV_GETTER(GetConvolutionGroupCount, cudnnGetConvolutionGroupCount, int, "groupCount")
CONV_SETTER(SetConvolutionReorderType, cudnnSetConvolutionReorderType, cudnnReorderType_t,
            "reorderType", "a cudnnReorderType_t")
CONV_GETTER(GetConvolutionReorderType, cudnnGetConvolutionReorderType, cudnnReorderType_t,
            "reorderType")
#undef CONV_SETTER
#undef CONV_GETTER

}  // namespace baracuda::cudnn
