// The wrapped native objects: one JS class per kind (handle, tensor, filter, convolution,
// activation and backend descriptors), type-tagged, constructible from C++ only, destroyed
// exactly once (explicitly or, as a safety net, by the GC).
#pragma once

#include <napi.h>

#include <string>
#include <utility>
#include <vector>

#include "cudnn_decls.h"
#include "loader.h"

namespace baracuda::cudnn {

enum Kind : int {
  kHandle = 0,
  kTensor,
  kFilter,
  kConvolution,
  kActivation,
  kBackend,
  kKindCount
};

inline constexpr const char *kKindNames[kKindCount] = {
    "CudnnHandle",          "CudnnTensorDescriptor",     "CudnnFilterDescriptor",
    "CudnnConvolutionDescriptor", "CudnnActivationDescriptor", "CudnnBackendDescriptor"};

inline constexpr const char *kKindCreators[kKindCount] = {
    "cudnnCreate()",
    "cudnnCreateTensorDescriptor()",
    "cudnnCreateFilterDescriptor()",
    "cudnnCreateConvolutionDescriptor()",
    "cudnnCreateActivationDescriptor()",
    "cudnnBackendCreateDescriptor()"};

// One random tag per kind: napi_check_object_type_tag tells our objects from any other object,
// and one kind from another, without dereferencing anything.
inline constexpr napi_type_tag kTags[kKindCount] = {
    {0x7a1c3e0b9d2f4a61ULL, 0x8b5e2d4c6f1a3b70ULL}, {0x1f9e8d7c6b5a4930ULL, 0x2e8d7c6b5a493821ULL},
    {0x3d7c6b5a49382716ULL, 0x4c6b5a4938271605ULL}, {0x5b5a493827160594ULL, 0x6a49382716059483ULL},
    {0x7938271605948372ULL, 0x8827160594837261ULL}, {0x9716059483726150ULL, 0xa605948372615049ULL}};

// Passed to the class constructors from C++ only; JS cannot forge it (support.cc).
extern int gConstructToken;

class NativeObject : public Napi::ObjectWrap<NativeObject> {
 public:
  explicit NativeObject(const Napi::CallbackInfo &info) : Napi::ObjectWrap<NativeObject>(info) {
    kind_ = static_cast<Kind>(reinterpret_cast<intptr_t>(info.Data()));
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsExternal() ||
        info[0].As<Napi::External<int>>().Data() != &gConstructToken || !info[1].IsExternal()) {
      throw Napi::TypeError::New(env, std::string(kKindNames[kind_]) +
                                          " cannot be constructed from JavaScript; use " +
                                          kKindCreators[kind_]);
    }
    ptr_ = info[1].As<Napi::External<void>>().Data();
    napi_status status = napi_type_tag_object(env, info.This(), &kTags[kind_]);
    if (status != napi_ok) throw Napi::Error::New(env, "napi_type_tag_object failed");
  }

  // Safety net for objects JS never destroyed. Runs from the GC or at environment teardown: it
  // touches no JS, ignores the status and never throws.
  ~NativeObject() override {
    if (destroyed_ || ptr_ == nullptr) return;
    destroyed_ = true;
    const LoadState &state = EnsureLoaded();
    if (!state.available) return;
    const Symbols &s = state.sym;
    switch (kind_) {
      case kHandle:
        if (s.cudnnDestroy) s.cudnnDestroy(static_cast<cudnnHandle_t>(ptr_));
        break;
      case kTensor:
        if (s.cudnnDestroyTensorDescriptor)
          s.cudnnDestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(ptr_));
        break;
      case kFilter:
        if (s.cudnnDestroyFilterDescriptor)
          s.cudnnDestroyFilterDescriptor(static_cast<cudnnFilterDescriptor_t>(ptr_));
        break;
      case kConvolution:
        if (s.cudnnDestroyConvolutionDescriptor)
          s.cudnnDestroyConvolutionDescriptor(static_cast<cudnnConvolutionDescriptor_t>(ptr_));
        break;
      case kActivation:
        if (s.cudnnDestroyActivationDescriptor)
          s.cudnnDestroyActivationDescriptor(static_cast<cudnnActivationDescriptor_t>(ptr_));
        break;
      case kBackend:
        if (s.cudnnBackendDestroyDescriptor) s.cudnnBackendDestroyDescriptor(ptr_);
        break;
      default:
        break;
    }
  }

  Kind kind() const { return kind_; }
  void *ptr() const { return ptr_; }
  bool destroyed() const { return destroyed_; }
  void MarkDestroyed() {
    destroyed_ = true;
    kept_.clear();
  }

  // Objects this one refers to through an attribute (a backend descriptor's operation graph, an
  // execution plan's handle). Holding them keeps the GC from finalizing (and so destroying) a
  // child while its parent can still reach it. One list per attribute name, replaced on each set.
  void Keep(int attributeName, std::vector<Napi::ObjectReference> refs) {
    for (auto &entry : kept_) {
      if (entry.first == attributeName) {
        entry.second = std::move(refs);
        return;
      }
    }
    kept_.emplace_back(attributeName, std::move(refs));
  }

 private:
  Kind kind_ = kHandle;
  void *ptr_ = nullptr;
  bool destroyed_ = false;
  std::vector<std::pair<int, std::vector<Napi::ObjectReference>>> kept_;
};

struct AddonData {
  Napi::FunctionReference constructors[kKindCount];
};

}  // namespace baracuda::cudnn
