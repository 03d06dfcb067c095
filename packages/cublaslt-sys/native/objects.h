// The wrapped native objects: a cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t or
// cublasLtMatmulPreference_t. One type-tagged class with a kind, constructible from C++ only,
// freed exactly once (its Destroy call, or as a safety net by the GC).
#pragma once

#include <napi.h>

#include "loader.h"

namespace baracuda::cublaslt {

inline constexpr napi_type_tag kObjectTag = {0x6375626c61734c74ULL, 0x3e8b51d2a7c94f06ULL};

enum class Kind { Handle = 0, MatmulDesc = 1, MatrixLayout = 2, MatmulPreference = 3 };

/// The C type name of a kind, e.g. "cublasLtHandle_t".
const char *KindName(Kind kind);

// Passed to the constructor from C++ only; JS cannot forge it (objects.cc).
extern int gConstructToken;

class LtObject : public Napi::ObjectWrap<LtObject> {
 public:
  explicit LtObject(const Napi::CallbackInfo &info);
  // Safety net for objects JS never destroyed: the kind's Destroy. Touches no JS, never throws.
  ~LtObject() override;

  Kind kind() const { return kind_; }
  void *raw() const { return raw_; }
  bool destroyed() const { return destroyed_; }
  void MarkDestroyed() { destroyed_ = true; }

 private:
  Kind kind_ = Kind::Handle;
  void *raw_ = nullptr;
  bool destroyed_ = false;
};

struct AddonData {
  Napi::FunctionReference objectConstructor;
};

/// A new JS object owning `raw` of `kind`; null for a null `raw`.
Napi::Value WrapObject(Napi::Env env, Kind kind, void *raw);

}  // namespace baracuda::cublaslt
