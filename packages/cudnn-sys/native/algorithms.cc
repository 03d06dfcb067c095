// Forward, backward-data and backward-filter convolutions: algorithm queries,
// workspace sizes and the calls themselves; cudnnTransformTensor.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

template <typename Perf>
Napi::Object PerfResults(Napi::Env env, cudnnStatus_t status, int returned,
                         const std::vector<Perf> &perf) {
  Napi::Object result = Result(env, status);
  Put(result, "returnedAlgoCount", returned);
  const size_t shown =
      static_cast<size_t>(std::max(0, std::min(returned, static_cast<int>(perf.size()))));
  Napi::Array list = Napi::Array::New(env, shown);
  for (size_t i = 0; i < shown; ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "algo", static_cast<int>(perf[i].algo));
    Put(entry, "status", static_cast<int>(perf[i].status));
    Put(entry, "time", static_cast<double>(perf[i].time));
    Put(entry, "memory", static_cast<double>(perf[i].memory));
    Put(entry, "determinism", static_cast<int>(perf[i].determinism));
    Put(entry, "mathType", static_cast<int>(perf[i].mathType));
    PutIndex(list, static_cast<uint32_t>(i), entry);
  }
  Put(result, "perfResults", list);
  return result;
}

// requestedAlgoCount sizes the perf-result buffer we allocate: 0..1024.
int AlgoCountArg(Napi::Env env, const Napi::Value &value) {
  return RequestedCountArg(env, value, "requestedAlgoCount", 1024);
}

Napi::Value MaxCount(const Napi::CallbackInfo &info, PFN_cudnnGetConvolutionForwardAlgorithmMaxCount fn) {
  Napi::Env env = info.Env();
  auto handle = HandleArg(env, info[0], "handle");
  int count = 0;
  Napi::Object result = Result(env, fn(handle.get(), &count));
  Put(result, "count", count);
  return result;
}

Napi::Value GetConvolutionForwardAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionForwardAlgorithmMaxCount));
}
Napi::Value GetConvolutionBackwardDataAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount));
}
Napi::Value GetConvolutionBackwardFilterAlgorithmMaxCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return MaxCount(info, CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount));
}

Napi::Value GetConvolutionForwardAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "srcDesc");
  auto w = FilterArg(env, info[2], "filterDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto y = TensorArg(env, info[4], "destDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), x.get(), w.get(), conv.get(), y.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionForwardAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionForwardAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto xDesc = TensorArg(env, info[1], "xDesc");
  auto x = PointerArg(env, info[2], "x");
  auto wDesc = FilterArg(env, info[3], "wDesc");
  auto w = PointerArg(env, info[4], "w");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto yDesc = TensorArg(env, info[6], "yDesc");
  auto y = PointerArg(env, info[7], "y");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), yDesc.get(), y, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionForwardWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "xDesc");
  auto w = FilterArg(env, info[2], "wDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto y = TensorArg(env, info[4], "yDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[5], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), x.get(), w.get(), conv.get(), y.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value TransformTensor(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnTransformTensor);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto beta = ScaleArg(env, info[4], "beta");
  auto yDesc = TensorArg(env, info[5], "yDesc");
  auto y = PointerArg(env, info[6], "y");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, beta.get(), yDesc.get(), y));
}

Napi::Value ConvolutionForward(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionForward);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto wDesc = FilterArg(env, info[4], "wDesc");
  auto w = PointerArg(env, info[5], "w");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[7], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto yDesc = TensorArg(env, info[11], "yDesc");
  auto y = PointerArg(env, info[12], "y");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), algo, workSpace, workSpaceSize,
                        beta.get(), yDesc.get(), y));
}

Napi::Value ConvolutionBiasActivationForward(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBiasActivationForward);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha1 = ScaleArg(env, info[1], "alpha1");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto wDesc = FilterArg(env, info[4], "wDesc");
  auto w = PointerArg(env, info[5], "w");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionFwdAlgo_t>(env, info[7], "algo",
                                                 "a cudnnConvolutionFwdAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto alpha2 = ScaleArg(env, info[10], "alpha2");
  auto zDesc = TensorArg(env, info[11], "zDesc");
  auto z = PointerArg(env, info[12], "z");
  auto biasDesc = TensorArg(env, info[13], "biasDesc");
  auto bias = PointerArg(env, info[14], "bias");
  auto activation = ActivationArg(env, info[15], "activationDesc");
  auto yDesc = TensorArg(env, info[16], "yDesc");
  auto y = PointerArg(env, info[17], "y");
  return Status(env, fn(handle.get(), alpha1.get(), xDesc.get(), x, wDesc.get(), w, conv.get(), algo, workSpace, workSpaceSize,
                        alpha2.get(), zDesc.get(), z, biasDesc.get(), bias, activation.get(), yDesc.get(), y));
}

Napi::Value GetConvolutionBackwardDataAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto w = FilterArg(env, info[1], "filterDesc");
  auto dy = TensorArg(env, info[2], "diffDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dx = TensorArg(env, info[4], "gradDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), w.get(), dy.get(), conv.get(), dx.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionBackwardDataAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionBackwardDataAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto wDesc = FilterArg(env, info[1], "wDesc");
  auto w = PointerArg(env, info[2], "w");
  auto dyDesc = TensorArg(env, info[3], "dyDesc");
  auto dy = PointerArg(env, info[4], "dy");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto dxDesc = TensorArg(env, info[6], "dxDesc");
  auto dx = PointerArg(env, info[7], "dx");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), wDesc.get(), w, dyDesc.get(), dy, conv.get(), dxDesc.get(), dx, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionBackwardDataWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardDataWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto w = FilterArg(env, info[1], "wDesc");
  auto dy = TensorArg(env, info[2], "dyDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dx = TensorArg(env, info[4], "dxDesc");
  auto algo = EnumArg<cudnnConvolutionBwdDataAlgo_t>(env, info[5], "algo",
                                                     "a cudnnConvolutionBwdDataAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), w.get(), dy.get(), conv.get(), dx.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value ConvolutionBackwardData(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBackwardData);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto wDesc = FilterArg(env, info[2], "wDesc");
  auto w = PointerArg(env, info[3], "w");
  auto dyDesc = TensorArg(env, info[4], "dyDesc");
  auto dy = PointerArg(env, info[5], "dy");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionBwdDataAlgo_t>(env, info[7], "algo",
                                                     "a cudnnConvolutionBwdDataAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto dxDesc = TensorArg(env, info[11], "dxDesc");
  auto dx = PointerArg(env, info[12], "dx");
  return Status(env, fn(handle.get(), alpha.get(), wDesc.get(), w, dyDesc.get(), dy, conv.get(), algo, workSpace,
                        workSpaceSize, beta.get(), dxDesc.get(), dx));
}

Napi::Value GetConvolutionBackwardFilterAlgorithm_v7(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "srcDesc");
  auto dy = TensorArg(env, info[2], "diffDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dw = FilterArg(env, info[4], "gradDesc");
  const int requested = AlgoCountArg(env, info[5]);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), x.get(), dy.get(), conv.get(), dw.get(), requested, &returned, perf.data());
  return PerfResults(env, status, returned, perf);
}

Napi::Value FindConvolutionBackwardFilterAlgorithmEx(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnFindConvolutionBackwardFilterAlgorithmEx);
  auto handle = HandleArg(env, info[0], "handle");
  auto xDesc = TensorArg(env, info[1], "xDesc");
  auto x = PointerArg(env, info[2], "x");
  auto dyDesc = TensorArg(env, info[3], "dyDesc");
  auto dy = PointerArg(env, info[4], "y");
  auto conv = ConvArg(env, info[5], "convDesc");
  auto dwDesc = FilterArg(env, info[6], "dwDesc");
  auto dw = PointerArg(env, info[7], "dw");
  const int requested = AlgoCountArg(env, info[8]);
  auto workSpace = PointerArg(env, info[9], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[10], "workSpaceSizeInBytes");
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(requested));
  int returned = 0;
  const cudnnStatus_t status = fn(handle.get(), xDesc.get(), x, dyDesc.get(), dy, conv.get(), dwDesc.get(), dw, requested,
                                  &returned, perf.data(), workSpace, workSpaceSize);
  return PerfResults(env, status, returned, perf);
}

Napi::Value GetConvolutionBackwardFilterWorkspaceSize(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize);
  auto handle = HandleArg(env, info[0], "handle");
  auto x = TensorArg(env, info[1], "xDesc");
  auto dy = TensorArg(env, info[2], "dyDesc");
  auto conv = ConvArg(env, info[3], "convDesc");
  auto dw = FilterArg(env, info[4], "gradDesc");
  auto algo = EnumArg<cudnnConvolutionBwdFilterAlgo_t>(env, info[5], "algo",
                                                       "a cudnnConvolutionBwdFilterAlgo_t");
  size_t size = 0;
  Napi::Object result = Result(env, fn(handle.get(), x.get(), dy.get(), conv.get(), dw.get(), algo, &size));
  Put(result, "sizeInBytes", Napi::Number::New(env, static_cast<double>(size)));
  return result;
}

Napi::Value ConvolutionBackwardFilter(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnConvolutionBackwardFilter);
  auto handle = HandleArg(env, info[0], "handle");
  auto alpha = ScaleArg(env, info[1], "alpha");
  auto xDesc = TensorArg(env, info[2], "xDesc");
  auto x = PointerArg(env, info[3], "x");
  auto dyDesc = TensorArg(env, info[4], "dyDesc");
  auto dy = PointerArg(env, info[5], "dy");
  auto conv = ConvArg(env, info[6], "convDesc");
  auto algo = EnumArg<cudnnConvolutionBwdFilterAlgo_t>(env, info[7], "algo",
                                                       "a cudnnConvolutionBwdFilterAlgo_t");
  auto workSpace = PointerArg(env, info[8], "workSpace");
  const size_t workSpaceSize = SizeArg(env, info[9], "workSpaceSizeInBytes");
  auto beta = ScaleArg(env, info[10], "beta");
  auto dwDesc = FilterArg(env, info[11], "dwDesc");
  auto dw = PointerArg(env, info[12], "dw");
  return Status(env, fn(handle.get(), alpha.get(), xDesc.get(), x, dyDesc.get(), dy, conv.get(), algo, workSpace,
                        workSpaceSize, beta.get(), dwDesc.get(), dw));
}

}  // namespace baracuda::cudnn
