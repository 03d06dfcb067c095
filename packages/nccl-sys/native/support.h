// Shared by the nccl-sys binding files: argument conversion (no coercion, ever), results, error
// messages in the form of @baracuda/types' describeValue, and access to the loaded library.
//
// The rule for every binding (docs/ARCHITECTURE.md, native addon conventions): convert every
// argument first, then unwrap communicators (CommArg::get()) inside the C call's argument list,
// so JavaScript run by a conversion (a getter) cannot free a communicator already unwrapped.
#pragma once

#include <string>

#include "comm.h"

namespace baracuda::nccl {

// Result objects get data properties defined in place, never assigned (no setter on
// Object.prototype runs in the middle of a binding).
template <typename V>
void Put(const Napi::Object &object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}

std::string Describe(Napi::Env env, const Napi::Value &value);
[[noreturn]] void ThrowType(Napi::Env env, const std::string &argument,
                            const std::string &expected, const Napi::Value &value);

// The loaded library's symbols, or a thrown Error saying why NCCL is not available.
const Symbols &Lib(Napi::Env env);

template <typename F>
F Need(Napi::Env env, F fn, const char *name) {
  if (fn == nullptr) {
    const LoadState &state = EnsureLoaded();
    throw Napi::Error::New(env, std::string(name) + " is not exported by " + state.libraryPath);
  }
  return fn;
}
#define NCCL_FN(name) Need(env, Lib(env).name, #name)

// A communicator argument, checked when converted and again by get() at the C call.
class CommArg {
 public:
  CommArg(Napi::Env env, const Napi::Value &value, const char *argument)
      : env_(env), value_(value), argument_(argument) {
    native();
  }
  ncclComm_t get() const { return native()->comm(); }
  NcclComm *native() const;

 private:
  Napi::Env env_;
  Napi::Value value_;
  const char *argument_;
};

int Int32Arg(Napi::Env env, const Napi::Value &value, const char *argument,
             const char *what = "an int32");
size_t SizeArg(Napi::Env env, const Napi::Value &value, const char *argument);
void *PointerArg(Napi::Env env, const Napi::Value &value, const char *argument);
// A 128-byte ncclUniqueId: a Uint8Array of exactly NCCL_UNIQUE_ID_BYTES bytes, copied.
ncclUniqueId UniqueIdArg(Napi::Env env, const Napi::Value &value, const char *argument);

Napi::Number Status(Napi::Env env, ncclResult_t status);
Napi::Object Result(Napi::Env env, ncclResult_t status);
Napi::Value WrapComm(Napi::Env env, ncclComm_t comm);

}  // namespace baracuda::nccl
