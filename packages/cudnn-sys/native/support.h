// Shared by the cudnn-sys binding files: result properties, error messages in the form of
// @baracuda/types' describeValue, and access to the loaded library.
#pragma once

#include "objects.h"

namespace baracuda::cudnn {

// Result objects are filled with data properties defined in place (napi_define_properties), never
// assigned: an assignment runs a setter that user code may have put on Object.prototype or
// Array.prototype, which would run JavaScript in the middle of a binding (and could swallow the
// value). Defining runs no JavaScript.
template <typename V>
void Put(const Napi::Object &object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}
template <typename V>
void PutIndex(const Napi::Object &object, uint32_t index, const V &value) {
  Napi::Env env = object.Env();
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      Napi::String::New(env, std::to_string(index)), Napi::Value::From(env, value),
      napi_default_jsproperty));
}

// Describing values for error messages, in the form of @baracuda/types' describeValue. Runs no
// user code that could change the outcome (see support.cc).
std::string QuoteJson(Napi::Env env, const std::u16string &text);
std::string Describe(Napi::Env env, const Napi::Value &value);
[[noreturn]] void ThrowType(Napi::Env env, const std::string &argument,
                            const std::string &expected, const Napi::Value &value);
[[noreturn]] void ThrowRange(Napi::Env env, const std::string &argument,
                             const std::string &expected, const std::string &received);

// The loaded library's symbols, or a thrown Error saying why cuDNN is not available.
const Symbols &Lib(Napi::Env env);

template <typename F>
F Need(Napi::Env env, F fn, const char *name) {
  if (fn == nullptr) {
    const LoadState &state = EnsureLoaded();
    throw Napi::Error::New(env, std::string(name) + " is not exported by " + state.libraryPath +
                                    " (cuDNN " + std::to_string(state.version) + ")");
  }
  return fn;
}

#define CUDNN_FN(name) Need(env, Lib(env).name, #name)

}  // namespace baracuda::cudnn
