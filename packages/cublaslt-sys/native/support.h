// Shared by the cublaslt-sys binding files: argument conversion (no coercion, ever), results,
// error messages in the form of @baracuda/types' describeValue, and access to the loaded library.
//
// The rule for every binding (docs/ARCHITECTURE.md, native addon conventions): convert every
// argument first, then unwrap objects (ObjectArg::get()) inside the C call's argument list, so
// JavaScript run by a conversion cannot free an object already unwrapped.
#pragma once

#include <string>
#include <vector>

#include "objects.h"

namespace baracuda::cublaslt {

// Result objects get data properties defined in place, never assigned (no setter on
// Object.prototype runs in the middle of a binding).
template <typename V>
void Put(const Napi::Object &object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}
void PutValue(const Napi::Object &object, const char *key, const Napi::Value &value);

std::string Describe(Napi::Env env, const Napi::Value &value);
[[noreturn]] void ThrowType(Napi::Env env, const std::string &argument,
                            const std::string &expected, const Napi::Value &value);

// The loaded library's symbols, or a thrown Error saying why cuBLASLt is not available.
const Symbols &Lib(Napi::Env env);

template <typename F>
F Need(Napi::Env env, F fn, const char *name) {
  if (fn == nullptr) {
    const LoadState &state = EnsureLoaded();
    throw Napi::Error::New(env, std::string(name) + " is not exported by " + state.libraryPath);
  }
  return fn;
}
#define LT_FN(name) Need(env, Lib(env).name, #name)

// An object argument of one kind, checked when converted and again by get() at the C call.
class ObjectArg {
 public:
  ObjectArg(Napi::Env env, const Napi::Value &value, const char *argument, Kind kind)
      : env_(env), value_(value), argument_(argument), kind_(kind) {
    native();
  }
  template <typename T>
  T get() const {
    return static_cast<T>(native()->raw());
  }
  LtObject *native() const;

 private:
  Napi::Env env_;
  Napi::Value value_;
  const char *argument_;
  Kind kind_;
};

int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument,
             const char *what = "an int32");
// A safe integer (|v| <= 2^53 - 1); `nonNegative` rejects negatives.
int64_t SafeIntArg(Napi::Env env, const Napi::Value &value, const char *argument, bool nonNegative);
void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument);
// The bytes of an ArrayBufferView (a typed array or DataView), copied.
std::vector<unsigned char> BytesArg(Napi::Env env, const Napi::Value &value, const char *argument);

Napi::Number Status(Napi::Env env, cublasStatus_t status);
Napi::Object Result(Napi::Env env, cublasStatus_t status);

}  // namespace baracuda::cublaslt
