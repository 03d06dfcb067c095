// Shared by the driver addon's binding files (native/*.cc): errors, result
// properties, argument parsing. Every binding converts its arguments with the
// Arg* functions (no coercion, ever) and reports CUDA failures with ThrowCuda.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "cuda_decls.h"
#include "loader.h"

namespace baracuda::driver {

using namespace cu;

// Result objects are filled with data properties defined in place (napi_define_properties), never
// assigned: an assignment runs a setter that user code may have put on Object.prototype or
// Array.prototype, which would run JavaScript in the middle of a binding (and could swallow the
// value). Defining runs no JavaScript.
template <typename V>
void Put(const Napi::Object& object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}
template <typename V>
void PutIndex(const Napi::Object& object, uint32_t index, const V &value) {
  Napi::Env env = object.Env();
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      Napi::String::New(env, std::to_string(index)), Napi::Value::From(env, value),
      napi_default_jsproperty));
}

[[noreturn]] void ThrowCuda(Napi::Env env, const char* call, int result);
Napi::Error MakeCudaError(Napi::Env env, const char* call, int result);
/**
 * A CUDA error whose description (`cudaResultString`) carries what we were
 * doing, e.g. which kernel name was not found.
 */
[[noreturn]] void ThrowCudaWithDetail(Napi::Env env, const char* call, int result,
                                      const std::string& detail);
[[noreturn]] void ThrowType(Napi::Env env, const std::string& message);
[[noreturn]] void ThrowRange(Napi::Env env, const std::string& message);

/** The loaded driver, or a thrown error saying why there is none. */
const DriverState& RequireDriver(Napi::Env env);

/** The resolved entry point, or a thrown CUDA_ERROR_NOT_FOUND naming the missing symbol. */
template <typename Fn>
Fn Entry(Napi::Env env, Fn DriverApi::*member, const char* symbol) {
  Fn fn = Driver().api.*member;
  if (fn == nullptr) {
    Napi::Error error = Napi::Error::New(
        env, std::string("The CUDA driver at ") + Driver().libraryPath + " does not export " +
                 symbol + "; update the NVIDIA driver");
    Put(error.Value(), "cudaCall", Napi::String::New(env, symbol));
    Put(error.Value(), "cudaResult", Napi::Number::New(env, CUDA_ERROR_NOT_FOUND));
    Put(error.Value(), "cudaResultName", Napi::String::New(env, "CUDA_ERROR_NOT_FOUND"));
    Put(error.Value(), "cudaResultString",
              Napi::String::New(env, std::string("symbol ") + symbol + " not found in libcuda"));
    throw error;
  }
  return fn;
}

// Calls a driver function and throws a CUDA error unless it returns CUDA_SUCCESS.
#define CU_CHECK(env, fn, ...)                                            \
  do {                                                                    \
    CUresult cu_check_result_ = Entry(env, &DriverApi::fn, #fn)(__VA_ARGS__); \
    if (cu_check_result_ != CUDA_SUCCESS) ThrowCuda(env, #fn, cu_check_result_); \
  } while (0)

double ArgNumber(const Napi::CallbackInfo& info, size_t index, const char* name);
int ArgInt(const Napi::CallbackInfo& info, size_t index, const char* name, int min, int max);
size_t ArgSize(const Napi::CallbackInfo& info, size_t index, const char* name);
uint64_t ArgUint32(const Napi::CallbackInfo& info, size_t index, const char* name);
uint64_t ArgBigUint64(const Napi::CallbackInfo& info, size_t index, const char* name);
bool ArgBool(const Napi::CallbackInfo& info, size_t index, const char* name);

/** Host bytes of a TypedArray or DataView. */
struct HostView {
  uint8_t* data;
  size_t length;
};

HostView ArgHostView(const Napi::CallbackInfo& info, size_t index, const char* name);
/** The bytes of a Uint8Array (nothing else: no coercion from other views). */
HostView ArgUint8Array(const Napi::CallbackInfo& info, size_t index, const char* name);

}  // namespace baracuda::driver
