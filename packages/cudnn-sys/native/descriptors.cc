// Tensor, filter and activation descriptors.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {
Napi::Value CreateTensorDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnTensorDescriptor_t, kTensor>(
      info, CUDNN_FN(cudnnCreateTensorDescriptor), "tensorDesc");
}

Napi::Value SetTensorNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetTensorNdDescriptor);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[1], "dataType", "a cudnnDataType_t");
  const int nbDims = Int32Arg(env, info[2], "nbDims");
  auto dims = IntArrayArg(env, info[3], "dimA", nbDims);
  auto strides = IntArrayArg(env, info[4], "strideA", nbDims);
  return Status(env, fn(desc.get(), dataType, nbDims, dims.data(), strides.data()));
}

Napi::Value SetTensorNdDescriptorEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetTensorNdDescriptorEx);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  auto format = EnumArg<cudnnTensorFormat_t>(env, info[1], "format", "a cudnnTensorFormat_t");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[2], "dataType", "a cudnnDataType_t");
  const int nbDims = Int32Arg(env, info[3], "nbDims");
  auto dims = IntArrayArg(env, info[4], "dimA", nbDims);
  return Status(env, fn(desc.get(), format, dataType, nbDims, dims.data()));
}

Napi::Value GetTensorNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetTensorNdDescriptor);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  const int requested = RequestedCountArg(env, info[1], "nbDimsRequested", kCudnnDimMax);
  cudnnDataType_t dataType{};
  int nbDims = 0;
  int dims[kCudnnDimMax] = {};
  int strides[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(desc.get(), requested, &dataType, &nbDims, dims, strides));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(nbDims, requested)));
  Put(result, "dataType", static_cast<int>(dataType));
  Put(result, "nbDims", nbDims);
  Put(result, "dimA", IntArray(env, dims, shown));
  Put(result, "strideA", IntArray(env, strides, shown));
  return result;
}

Napi::Value GetTensorSizeInBytes(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetTensorSizeInBytes);
  auto desc = TensorArg(env, info[0], "tensorDesc");
  size_t size = 0;
  Napi::Object result = Result(env, fn(desc.get(), &size));
  Put(result, "size", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value DestroyTensorDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnTensorDescriptor_t>(info, kTensor, "tensorDesc",
                                          CUDNN_FN(cudnnDestroyTensorDescriptor));
}

Napi::Value CreateFilterDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnFilterDescriptor_t, kFilter>(
      info, CUDNN_FN(cudnnCreateFilterDescriptor), "filterDesc");
}

Napi::Value SetFilterNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetFilterNdDescriptor);
  auto desc = FilterArg(env, info[0], "filterDesc");
  auto dataType = EnumArg<cudnnDataType_t>(env, info[1], "dataType", "a cudnnDataType_t");
  auto format = EnumArg<cudnnTensorFormat_t>(env, info[2], "format", "a cudnnTensorFormat_t");
  const int nbDims = Int32Arg(env, info[3], "nbDims");
  auto dims = IntArrayArg(env, info[4], "filterDimA", nbDims);
  return Status(env, fn(desc.get(), dataType, format, nbDims, dims.data()));
}

Napi::Value GetFilterNdDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetFilterNdDescriptor);
  auto desc = FilterArg(env, info[0], "filterDesc");
  const int requested = RequestedCountArg(env, info[1], "nbDimsRequested", kCudnnDimMax);
  cudnnDataType_t dataType{};
  cudnnTensorFormat_t format{};
  int nbDims = 0;
  int dims[kCudnnDimMax] = {};
  Napi::Object result = Result(env, fn(desc.get(), requested, &dataType, &format, &nbDims, dims));
  const size_t shown = static_cast<size_t>(std::max(0, std::min(nbDims, requested)));
  Put(result, "dataType", static_cast<int>(dataType));
  Put(result, "format", static_cast<int>(format));
  Put(result, "nbDims", nbDims);
  Put(result, "filterDimA", IntArray(env, dims, shown));
  return result;
}

Napi::Value DestroyFilterDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnFilterDescriptor_t>(info, kFilter, "filterDesc",
                                          CUDNN_FN(cudnnDestroyFilterDescriptor));
}

Napi::Value CreateActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return CreateDescriptor<cudnnActivationDescriptor_t, kActivation>(
      info, CUDNN_FN(cudnnCreateActivationDescriptor), "activationDesc");
}

Napi::Value SetActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetActivationDescriptor);
  auto desc = ActivationArg(env, info[0], "activationDesc");
  auto mode = EnumArg<cudnnActivationMode_t>(env, info[1], "mode", "a cudnnActivationMode_t");
  auto nan = EnumArg<cudnnNanPropagation_t>(env, info[2], "reluNanOpt", "a cudnnNanPropagation_t");
  if (!info[3].IsNumber()) ThrowType(env, "coef", "a number", info[3]);
  const double coef = info[3].As<Napi::Number>().DoubleValue();
  return Status(env, fn(desc.get(), mode, nan, coef));
}

Napi::Value GetActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetActivationDescriptor);
  auto desc = ActivationArg(env, info[0], "activationDesc");
  cudnnActivationMode_t mode{};
  cudnnNanPropagation_t nan{};
  double coef = 0;
  Napi::Object result = Result(env, fn(desc.get(), &mode, &nan, &coef));
  Put(result, "mode", static_cast<int>(mode));
  Put(result, "reluNanOpt", static_cast<int>(nan));
  Put(result, "coef", coef);
  return result;
}

Napi::Value DestroyActivationDescriptor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnActivationDescriptor_t>(info, kActivation, "activationDesc",
                                              CUDNN_FN(cudnnDestroyActivationDescriptor));
}

}  // namespace baracuda::cudnn
