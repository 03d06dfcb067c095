// Version, property and error-string calls, and the cuDNN handle.
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

Napi::Value GetVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetVersion)()));
}

Napi::Value GetMaxDeviceVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetMaxDeviceVersion)()));
}

Napi::Value GetCudartVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(CUDNN_FN(cudnnGetCudartVersion)()));
}

Napi::Value GetProperty(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetProperty);
  auto type = EnumArg<libraryPropertyType>(env, info[0], "type", "a libraryPropertyType");
  int value = 0;
  Napi::Object result = Result(env, fn(type, &value));
  Put(result, "value", value);
  return result;
}

Napi::Value GetErrorString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetErrorString);
  auto status = EnumArg<cudnnStatus_t>(env, info[0], "status", "a cudnnStatus_t");
  const char *text = fn(status);
  return Napi::String::New(env, text ? text : "");
}

Napi::Value GetLastErrorString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetLastErrorString);
  char message[4096];
  message[0] = '\0';
  fn(message, sizeof message);
  message[sizeof message - 1] = '\0';
  return Napi::String::New(env, message);
}

Napi::Value Create(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnCreate);
  cudnnHandle_t handle = nullptr;
  const cudnnStatus_t status = fn(&handle);
  Napi::Object result = Result(env, status);
  Put(result, "handle", Wrap(env, kHandle, handle, status));
  return result;
}

Napi::Value DestroyHandle(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Destroy<cudnnHandle_t>(info, kHandle, "handle", CUDNN_FN(cudnnDestroy));
}

Napi::Value SetStream(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnSetStream);
  auto handle = HandleArg(env, info[0], "handle");
  auto stream = static_cast<cudaStream_t>(PointerArg(env, info[1], "streamId"));
  return Status(env, fn(handle.get(), stream));
}

Napi::Value GetStream(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = CUDNN_FN(cudnnGetStream);
  auto handle = HandleArg(env, info[0], "handle");
  cudaStream_t stream = nullptr;
  Napi::Object result = Result(env, fn(handle.get(), &stream));
  Put(result, "streamId", Napi::BigInt::New(env, static_cast<uint64_t>(
                                                    reinterpret_cast<uintptr_t>(stream))));
  return result;
}

}  // namespace baracuda::cudnn
