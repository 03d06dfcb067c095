// Argument conversion and results for the cudnn-sys bindings (declared in args.h).
#include "args.h"

#include <cmath>

namespace baracuda::cudnn {

NativeObject *UnwrapObject(Napi::Env env, const Napi::Value &value, Kind kind,
                           const char *argument) {
  bool tagged = false;
  if (value.IsObject()) {
    napi_check_object_type_tag(env, value, &kTags[kind], &tagged);
  }
  if (!tagged) ThrowType(env, argument, std::string("a live ") + kKindNames[kind], value);
  NativeObject *native = NativeObject::Unwrap(value.As<Napi::Object>());
  if (native == nullptr || native->destroyed()) {
    ThrowType(env, argument, std::string("a live ") + kKindNames[kind], value);
  }
  return native;
}

ObjectArg<cudnnHandle_t> HandleArg(Napi::Env env, const Napi::Value &v, const char *name) {
  return {env, v, kHandle, name};
}

ObjectArg<cudnnTensorDescriptor_t> TensorArg(Napi::Env env, const Napi::Value &v,
                                             const char *name) {
  return {env, v, kTensor, name};
}

ObjectArg<cudnnFilterDescriptor_t> FilterArg(Napi::Env env, const Napi::Value &v,
                                             const char *name) {
  return {env, v, kFilter, name};
}

ObjectArg<cudnnConvolutionDescriptor_t> ConvArg(Napi::Env env, const Napi::Value &v,
                                                const char *name) {
  return {env, v, kConvolution, name};
}

ObjectArg<cudnnActivationDescriptor_t> ActivationArg(Napi::Env env, const Napi::Value &v,
                                                     const char *name) {
  return {env, v, kActivation, name};
}

ObjectArg<cudnnBackendDescriptor_t> BackendArg(Napi::Env env, const Napi::Value &v,
                                               const char *name) {
  return {env, v, kBackend, name};
}

int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument,
             const char *what) {
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < -2147483648.0 ||
      number > 2147483647.0) {
    ThrowType(env, argument, what, value);
  }
  return static_cast<int>(number);
}

size_t SizeArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a non-negative safe integer";
  if (!value.IsNumber()) ThrowType(env, argument, what, value);
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number) ThrowType(env, argument, what, value);
  if (number < 0 || number > 9007199254740991.0) {
    ThrowRange(env, argument, what, Describe(env, value));
  }
  return static_cast<size_t>(number);
}

void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument) {
  constexpr const char *what = "a device pointer as a bigint";
  if (!value.IsBigInt()) ThrowType(env, argument, what, value);
  bool lossless = false;
  const uint64_t address = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowRange(env, argument, "a bigint from 0n to 2n ** 64n - 1n", Describe(env, value));
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

std::vector<Napi::Value> ArrayElements(const Napi::Array &array) {
  const uint32_t length = array.Length();
  std::vector<Napi::Value> elements;
  elements.reserve(length);
  for (uint32_t i = 0; i < length; ++i) elements.push_back(array.Get(i));
  return elements;
}

std::vector<int> IntArrayArg(Napi::Env env, const Napi::Value &value, const char *argument,
                             int count) {
  const std::string what =
      "an Int32Array or an array of " + std::to_string(count < 0 ? 0 : count) + " int32 values";
  std::vector<int> out;
  if (value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array) {
    Napi::Int32Array array = value.As<Napi::Int32Array>();
    if (count < 0 || array.ElementLength() != static_cast<size_t>(count)) {
      ThrowRange(env, argument, what,
                 "an Int32Array of length " + std::to_string(array.ElementLength()));
    }
    out.assign(array.Data(), array.Data() + array.ElementLength());
    return out;
  }
  if (!value.IsArray()) ThrowType(env, argument, what, value);
  Napi::Array array = value.As<Napi::Array>();
  if (count < 0 || array.Length() != static_cast<uint32_t>(count)) {
    ThrowRange(env, argument, what, "an array of length " + std::to_string(array.Length()));
  }
  out.resize(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const std::string element = std::string(argument) + "[" + std::to_string(i) + "]";
    out[i] = Int32Arg(env, array.Get(i), element.c_str());
  }
  return out;
}

int RequestedCountArg(Napi::Env env, const Napi::Value &value, const char *argument, int max) {
  const int count = Int32Arg(env, value, argument);
  if (count < 0 || count > max) {
    ThrowRange(env, argument, "an integer from 0 to " + std::to_string(max),
               Describe(env, value));
  }
  return count;
}

Napi::Number Status(Napi::Env env, cudnnStatus_t status) {
  return Napi::Number::New(env, static_cast<int>(status));
}

Napi::Object Result(Napi::Env env, cudnnStatus_t status) {
  Napi::Object result = Napi::Object::New(env);
  Put(result, "status", Status(env, status));
  return result;
}

Napi::Array IntArray(Napi::Env env, const int *values, size_t count) {
  Napi::Array array = Napi::Array::New(env, count);
  for (size_t i = 0; i < count; ++i) PutIndex(array, static_cast<uint32_t>(i), values[i]);
  return array;
}

Napi::Value Wrap(Napi::Env env, Kind kind, void *ptr, cudnnStatus_t status) {
  if (static_cast<int>(status) != k::CUDNN_STATUS_SUCCESS || ptr == nullptr) return env.Null();
  AddonData *data = env.GetInstanceData<AddonData>();
  return data->constructors[kind].New(
      {Napi::External<int>::New(env, &gConstructToken), Napi::External<void>::New(env, ptr)});
}

}  // namespace baracuda::cudnn
