// @baracuda/cublaslt-sys: raw cuBLASLt bindings, one JS function per C function, same name.
//
// Conventions (docs/ARCHITECTURE.md), as in cudnn-sys and nccl-sys:
// - A call with no outputs returns the cublasStatus_t number; a call with outputs returns
//   { status, ...outputs } named after the C out-parameters. A cuBLASLt status never throws.
// - Handles, descriptors, layouts and preferences are type-tagged wrapped objects of one class
//   (a kind each). A foreign object, one of another kind or a destroyed one is rejected with a
//   TypeError before anything is dereferenced.
// - Wrong argument types throw TypeError; nothing is coerced. Pointers and streams are bigint;
//   attribute values and host scalars are typed arrays (their bytes are what C reads).
// - libcublasLt is loaded at the first call that needs it (loader.cc), never at require time.
#include "bindings.h"
#include "support.h"

namespace baracuda::cublaslt {

// Loads cuBLASLt if that was not tried yet and reports the outcome. Never throws.
Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const LoadState &state = EnsureLoaded();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "available", state.available);
  Put(result, "version", static_cast<double>(state.version));
  Put(result, "libraryPath", state.libraryPath);
  Napi::Array tried = Napi::Array::New(env, state.tried.size());
  for (size_t i = 0; i < state.tried.size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "path", state.tried[i].path);
    Put(entry, "error", state.tried[i].error);
    tried.DefineProperty(Napi::PropertyDescriptor::Value(
        Napi::String::New(env, std::to_string(i)), entry, napi_default_jsproperty));
  }
  PutValue(result, "tried", tried);
  Napi::Array missing = Napi::Array::New(env, state.missingSymbols.size());
  for (size_t i = 0; i < state.missingSymbols.size(); ++i) {
    missing.DefineProperty(Napi::PropertyDescriptor::Value(
        Napi::String::New(env, std::to_string(i)), Napi::String::New(env, state.missingSymbols[i]),
        napi_default_jsproperty));
  }
  PutValue(result, "missingSymbols", missing);
  Put(result, "reason", state.reason);
  return result;
}

Napi::Value NativeConstants(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object table = Napi::Object::New(env);
#define BARACUDA_CUBLASLT_EXPORT_CONSTANT(name, value) Put(table, #name, value);
  BARACUDA_CUBLASLT_CONSTANTS(BARACUDA_CUBLASLT_EXPORT_CONSTANT)
#undef BARACUDA_CUBLASLT_EXPORT_CONSTANT
  Put(table, "CUBLASLT_ALGO_BYTES", BARACUDA_CUBLASLT_ALGO_BYTES);
  return table;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto *data = new AddonData();
  Napi::Function constructor = LtObject::DefineClass(env, "CublasLtObject", {});
  data->objectConstructor = Napi::Persistent(constructor);
  exports.Set("CublasLtObject", constructor);
  env.SetInstanceData<AddonData>(data);

  struct Entry {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Entry entries[] = {
      {"probe", Probe},
      {"nativeConstants", NativeConstants},
      {"cublasLtGetVersion", GetVersion},
      {"cublasLtGetStatusString", GetStatusString},
      {"cublasLtCreate", Create},
      {"cublasLtDestroy", Destroy},
      {"cublasLtMatmulDescCreate", MatmulDescCreate},
      {"cublasLtMatmulDescSetAttribute", MatmulDescSetAttribute},
      {"cublasLtMatmulDescDestroy", MatmulDescDestroy},
      {"cublasLtMatrixLayoutCreate", MatrixLayoutCreate},
      {"cublasLtMatrixLayoutSetAttribute", MatrixLayoutSetAttribute},
      {"cublasLtMatrixLayoutDestroy", MatrixLayoutDestroy},
      {"cublasLtMatmulPreferenceCreate", MatmulPreferenceCreate},
      {"cublasLtMatmulPreferenceSetAttribute", MatmulPreferenceSetAttribute},
      {"cublasLtMatmulPreferenceDestroy", MatmulPreferenceDestroy},
      {"cublasLtMatmulAlgoGetHeuristic", MatmulAlgoGetHeuristic},
      {"cublasLtMatmul", Matmul},
  };
  for (const auto &entry : entries) {
    exports.Set(entry.name, Napi::Function::New(env, entry.fn, entry.name));
  }
  return exports;
}

}  // namespace baracuda::cublaslt

static Napi::Object InitBaracudaCublasLt(Napi::Env env, Napi::Object exports) {
  return baracuda::cublaslt::Init(env, exports);
}
NODE_API_MODULE(baracuda_cublaslt, InitBaracudaCublasLt)
