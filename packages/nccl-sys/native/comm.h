// The one wrapped native object: an ncclComm_t. Type-tagged, constructible from C++ only, freed
// exactly once (ncclCommDestroy / ncclCommAbort, or as a safety net by the GC).
#pragma once

#include <napi.h>

#include "loader.h"

namespace baracuda::nccl {

inline constexpr napi_type_tag kCommTag = {0x4e43434c436f6d6dULL, 0x9a3f1c5e7b2d4f60ULL};

// Passed to the constructor from C++ only; JS cannot forge it (support.cc).
extern int gConstructToken;

class NcclComm : public Napi::ObjectWrap<NcclComm> {
 public:
  explicit NcclComm(const Napi::CallbackInfo &info) : Napi::ObjectWrap<NcclComm>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsExternal() ||
        info[0].As<Napi::External<int>>().Data() != &gConstructToken || !info[1].IsExternal()) {
      throw Napi::TypeError::New(
          env, "NcclComm cannot be constructed from JavaScript; use ncclCommInitRank() or "
               "ncclCommInitAll()");
    }
    comm_ = static_cast<ncclComm_t>(info[1].As<Napi::External<void>>().Data());
    if (napi_type_tag_object(env, info.This(), &kCommTag) != napi_ok) {
      throw Napi::Error::New(env, "napi_type_tag_object failed");
    }
  }

  // Safety net for communicators JS never destroyed: ncclCommAbort, which (unlike Destroy) does
  // not wait for peers, so a finalizer can never hang. Touches no JS, never throws.
  ~NcclComm() override {
    if (destroyed_ || comm_ == nullptr) return;
    destroyed_ = true;
    const LoadState &state = EnsureLoaded();
    if (state.available && state.sym.ncclCommAbort) state.sym.ncclCommAbort(comm_);
  }

  ncclComm_t comm() const { return comm_; }
  bool destroyed() const { return destroyed_; }
  void MarkDestroyed() { destroyed_ = true; }

 private:
  ncclComm_t comm_ = nullptr;
  bool destroyed_ = false;
};

struct AddonData {
  Napi::FunctionReference commConstructor;
};

}  // namespace baracuda::nccl
