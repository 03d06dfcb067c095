// probe() and nativeConstants().
#include "args.h"
#include "bindings.h"

namespace baracuda::cudnn {

Napi::Array Attempts(Napi::Env env, const std::vector<LoadAttempt> &attempts) {
  Napi::Array array = Napi::Array::New(env, attempts.size());
  for (size_t i = 0; i < attempts.size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "path", attempts[i].path);
    Put(entry, "error", attempts[i].error);
    PutIndex(array, static_cast<uint32_t>(i), entry);
  }
  return array;
}

// Loads cuDNN if that was not tried yet and reports the outcome. Never throws.
Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const LoadState &state = EnsureLoaded();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "available", state.available);
  Put(result, "version", Napi::Number::New(env, static_cast<double>(state.version)));
  Put(result, "cudartVersion", Napi::Number::New(env, static_cast<double>(state.cudartVersion)));
  Put(result, "libraryPath", state.libraryPath);
  Put(result, "tried", Attempts(env, state.tried));
  Put(result, "preloaded", Attempts(env, state.preloaded));
  Napi::Array missing = Napi::Array::New(env, state.missingSymbols.size());
  for (size_t i = 0; i < state.missingSymbols.size(); ++i) {
    PutIndex(missing, static_cast<uint32_t>(i), state.missingSymbols[i]);
  }
  Put(result, "missingSymbols", missing);
  Put(result, "reason", state.reason);
  return result;
}

Napi::Value NativeConstants(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object table = Napi::Object::New(env);
#define BARACUDA_CUDNN_EXPORT_CONSTANT(name, value) Put(table, #name, value);
  BARACUDA_CUDNN_CONSTANTS(BARACUDA_CUDNN_EXPORT_CONSTANT)
  BARACUDA_CUDNN_CONSTANTS_VERSIONED(BARACUDA_CUDNN_EXPORT_CONSTANT)
#undef BARACUDA_CUDNN_EXPORT_CONSTANT
  Put(table, "CUDNN_DIM_MAX", kCudnnDimMax);
  return table;
}

}  // namespace baracuda::cudnn
