// Errors and argument parsing for the driver addon (declared in support.h).
#include "support.h"

namespace baracuda::driver {

[[noreturn]] void ThrowCuda(Napi::Env env, const char* call, int result) {
  std::string name = ResultName(result);
  std::string text = ResultString(result);
  Napi::Error error = Napi::Error::New(env, std::string("`") + call + "` failed: " + name);
  Put(error.Value(), "cudaCall", Napi::String::New(env, call));
  Put(error.Value(), "cudaResult", Napi::Number::New(env, result));
  Put(error.Value(), "cudaResultName", Napi::String::New(env, name));
  Put(error.Value(), "cudaResultString", Napi::String::New(env, text));
  throw error;
}

Napi::Error MakeCudaError(Napi::Env env, const char* call, int result) {
  std::string name = ResultName(result);
  Napi::Error error = Napi::Error::New(env, std::string("`") + call + "` failed: " + name);
  Put(error.Value(), "cudaCall", Napi::String::New(env, call));
  Put(error.Value(), "cudaResult", Napi::Number::New(env, result));
  Put(error.Value(), "cudaResultName", Napi::String::New(env, name));
  Put(error.Value(), "cudaResultString", Napi::String::New(env, ResultString(result)));
  return error;
}

[[noreturn]] void ThrowType(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

[[noreturn]] void ThrowRange(Napi::Env env, const std::string& message) {
  throw Napi::RangeError::New(env, message);
}

/** The loaded driver, or a thrown error saying why there is none. */
const DriverState& RequireDriver(Napi::Env env) {
  const DriverState& driver = Driver();
  if (!driver.loaded) {
    Napi::Error error = Napi::Error::New(env, "The CUDA driver library (libcuda.so.1) is not loaded");
    Put(error.Value(), "driverNotLoaded", Napi::Boolean::New(env, true));
    throw error;
  }
  if (!driver.initialized) ThrowCuda(env, "cuInit", driver.initResult);
  return driver;
}

double ArgNumber(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsNumber()) ThrowType(info.Env(), std::string("Expected a number for ") + name);
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number) {
    ThrowType(info.Env(), std::string("Expected an integer for ") + name);
  }
  return number;
}

int ArgInt(const Napi::CallbackInfo& info, size_t index, const char* name, int min, int max) {
  double number = ArgNumber(info, index, name);
  if (number < min || number > max) {
    ThrowRange(info.Env(), std::string(name) + " is out of range [" + std::to_string(min) + ", " +
                               std::to_string(max) + "]");
  }
  return static_cast<int>(number);
}

constexpr double kMaxSafeInteger = 9007199254740991.0;

size_t ArgSize(const Napi::CallbackInfo& info, size_t index, const char* name) {
  double number = ArgNumber(info, index, name);
  if (number < 0 || number > kMaxSafeInteger) {
    ThrowRange(info.Env(), std::string(name) + " must be a non-negative safe integer");
  }
  return static_cast<size_t>(number);
}

uint64_t ArgUint32(const Napi::CallbackInfo& info, size_t index, const char* name) {
  double number = ArgNumber(info, index, name);
  if (number < 0 || number > 4294967295.0) {
    ThrowRange(info.Env(), std::string(name) + " is out of range [0, 4294967295]");
  }
  return static_cast<uint64_t>(number);
}

uint64_t ArgBigUint64(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsBigInt()) ThrowType(info.Env(), std::string("Expected a bigint for ") + name);
  bool lossless = false;
  uint64_t result = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowRange(info.Env(), std::string(name) + " does not fit in 64 bits");
  return result;
}

bool ArgBool(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsBoolean()) ThrowType(info.Env(), std::string("Expected a boolean for ") + name);
  return value.As<Napi::Boolean>().Value();
}

HostView ArgHostView(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  napi_env env = info.Env();
  void* data = nullptr;
  size_t length = 0;
  // Raw Node-API on purpose: napi_get_*_info reads the view without running JS
  // and works for views over a SharedArrayBuffer too (Napi::DataView's
  // ArrayBuffer() does not).
  napi_status status = napi_invalid_arg;
  if (value.IsTypedArray()) {
    napi_typedarray_type type;
    size_t elements = 0;
    status = napi_get_typedarray_info(env, value, &type, &elements, &data, nullptr, nullptr);
    if (status == napi_ok) length = value.As<Napi::TypedArray>().ByteLength();
  } else if (value.IsDataView()) {
    status = napi_get_dataview_info(env, value, &length, &data, nullptr, nullptr);
  } else {
    ThrowType(info.Env(), std::string("Expected a TypedArray or DataView for ") + name);
  }
  if (status != napi_ok) {
    ThrowType(info.Env(), std::string("Could not read the memory of ") + name);
  }
  if (data == nullptr && length > 0) {
    ThrowType(info.Env(), std::string(name) + " is backed by a detached ArrayBuffer");
  }
  return HostView{static_cast<uint8_t*>(data), length};
}

HostView ArgUint8Array(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowType(info.Env(), std::string("Expected a Uint8Array for ") + name);
  }
  return ArgHostView(info, index, name);
}

[[noreturn]] void ThrowCudaWithDetail(Napi::Env env, const char* call, int result,
                                      const std::string& detail) {
  Napi::Error error = MakeCudaError(env, call, result);
  std::string text = ResultString(result);
  Put(error.Value(), "cudaResultString",
            Napi::String::New(env, text.empty() ? detail : text + "; " + detail));
  throw error;
}

}  // namespace baracuda::driver
