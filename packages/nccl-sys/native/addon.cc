// @baracuda/nccl-sys: raw NCCL 2 bindings, one JS function per C function, same name.
//
// Conventions (docs/ARCHITECTURE.md), as in cudnn-sys:
// - A call with no outputs returns the ncclResult_t number; a call with outputs returns
//   { status, ...outputs } named after the C out-parameters. An NCCL result never throws.
// - Communicators are type-tagged wrapped objects (NcclComm). A foreign object or a destroyed one
//   is rejected with a TypeError before anything is dereferenced.
// - Wrong argument types throw TypeError; nothing is coerced. Pointers and streams are bigint.
// - libnccl.so.2 is loaded at the first call that needs it (loader.cc), never at require time.
// - Extensions beyond the C API: ncclCommInitRankAsync (the same call on a worker thread) and
//   the optional trailing cudaDevice of ncclCommInitRank (the device made current for the call).
#include "bindings.h"
#include "support.h"

namespace baracuda::nccl {

// Loads NCCL if that was not tried yet and reports the outcome. Never throws.
Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const LoadState &state = EnsureLoaded();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "available", state.available);
  Put(result, "version", state.version);
  Put(result, "libraryPath", state.libraryPath);
  Napi::Array tried = Napi::Array::New(env, state.tried.size());
  for (size_t i = 0; i < state.tried.size(); ++i) {
    Napi::Object entry = Napi::Object::New(env);
    Put(entry, "path", state.tried[i].path);
    Put(entry, "error", state.tried[i].error);
    tried.DefineProperty(Napi::PropertyDescriptor::Value(
        Napi::String::New(env, std::to_string(i)), entry, napi_default_jsproperty));
  }
  Put(result, "tried", tried);
  Napi::Array missing = Napi::Array::New(env, state.missingSymbols.size());
  for (size_t i = 0; i < state.missingSymbols.size(); ++i) {
    missing.DefineProperty(Napi::PropertyDescriptor::Value(
        Napi::String::New(env, std::to_string(i)), Napi::String::New(env, state.missingSymbols[i]),
        napi_default_jsproperty));
  }
  Put(result, "missingSymbols", missing);
  Put(result, "reason", state.reason);
  return result;
}

Napi::Value NativeConstants(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object table = Napi::Object::New(env);
#define BARACUDA_NCCL_EXPORT_CONSTANT(name, value) Put(table, #name, value);
  BARACUDA_NCCL_CONSTANTS(BARACUDA_NCCL_EXPORT_CONSTANT)
#undef BARACUDA_NCCL_EXPORT_CONSTANT
  Put(table, "NCCL_UNIQUE_ID_BYTES", BARACUDA_NCCL_UNIQUE_ID_BYTES);
  return table;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto *data = new AddonData();
  Napi::Function constructor = NcclComm::DefineClass(env, "NcclComm", {});
  data->commConstructor = Napi::Persistent(constructor);
  exports.Set("NcclComm", constructor);
  env.SetInstanceData<AddonData>(data);

  struct Entry {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Entry entries[] = {
      {"probe", Probe},
      {"nativeConstants", NativeConstants},
      {"ncclGetVersion", GetVersion},
      {"ncclGetUniqueId", GetUniqueId},
      {"ncclCommInitRank", CommInitRank},
      {"ncclCommInitRankAsync", CommInitRankAsync},
      {"ncclCommInitAll", CommInitAll},
      {"ncclCommDestroy", CommDestroy},
      {"ncclCommAbort", CommAbort},
      {"ncclCommGetAsyncError", CommGetAsyncError},
      {"ncclCommCount", CommCount},
      {"ncclCommCuDevice", CommCuDevice},
      {"ncclCommUserRank", CommUserRank},
      {"ncclAllReduce", AllReduce},
      {"ncclBroadcast", Broadcast},
      {"ncclReduceScatter", ReduceScatter},
      {"ncclAllGather", AllGather},
      {"ncclSend", Send},
      {"ncclRecv", Recv},
      {"ncclGroupStart", GroupStart},
      {"ncclGroupEnd", GroupEnd},
      {"ncclGetErrorString", GetErrorString},
      {"ncclGetLastError", GetLastError},
  };
  for (const auto &entry : entries) {
    exports.Set(entry.name, Napi::Function::New(env, entry.fn, entry.name));
  }
  return exports;
}

}  // namespace baracuda::nccl

static Napi::Object InitBaracudaNccl(Napi::Env env, Napi::Object exports) {
  return baracuda::nccl::Init(env, exports);
}
NODE_API_MODULE(baracuda_nccl, InitBaracudaNccl)
