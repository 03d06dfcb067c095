// The wrapped cuBLASLt objects (objects.h).
#include "objects.h"

namespace baracuda::cublaslt {

int gConstructToken = 0;

const char *KindName(Kind kind) {
  switch (kind) {
    case Kind::Handle:
      return "cublasLtHandle_t";
    case Kind::MatmulDesc:
      return "cublasLtMatmulDesc_t";
    case Kind::MatrixLayout:
      return "cublasLtMatrixLayout_t";
    case Kind::MatmulPreference:
      return "cublasLtMatmulPreference_t";
  }
  return "cuBLASLt object";
}

LtObject::LtObject(const Napi::CallbackInfo &info) : Napi::ObjectWrap<LtObject>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsExternal() ||
      info[0].As<Napi::External<int>>().Data() != &gConstructToken || !info[1].IsNumber() ||
      !info[2].IsExternal()) {
    throw Napi::TypeError::New(
        env, "CublasLtObject cannot be constructed from JavaScript; use cublasLtCreate(), "
             "cublasLtMatmulDescCreate(), cublasLtMatrixLayoutCreate() or "
             "cublasLtMatmulPreferenceCreate()");
  }
  kind_ = static_cast<Kind>(info[1].As<Napi::Number>().Int32Value());
  raw_ = info[2].As<Napi::External<void>>().Data();
  if (napi_type_tag_object(env, info.This(), &kObjectTag) != napi_ok) {
    throw Napi::Error::New(env, "napi_type_tag_object failed");
  }
}

LtObject::~LtObject() {
  if (destroyed_ || raw_ == nullptr) return;
  destroyed_ = true;
  const LoadState &state = EnsureLoaded();
  if (!state.available) return;
  const Symbols &s = state.sym;
  switch (kind_) {
    case Kind::Handle:
      if (s.cublasLtDestroy) s.cublasLtDestroy(static_cast<cublasLtHandle_t>(raw_));
      break;
    case Kind::MatmulDesc:
      if (s.cublasLtMatmulDescDestroy) {
        s.cublasLtMatmulDescDestroy(static_cast<cublasLtMatmulDesc_t>(raw_));
      }
      break;
    case Kind::MatrixLayout:
      if (s.cublasLtMatrixLayoutDestroy) {
        s.cublasLtMatrixLayoutDestroy(static_cast<cublasLtMatrixLayout_t>(raw_));
      }
      break;
    case Kind::MatmulPreference:
      if (s.cublasLtMatmulPreferenceDestroy) {
        s.cublasLtMatmulPreferenceDestroy(static_cast<cublasLtMatmulPreference_t>(raw_));
      }
      break;
  }
}

Napi::Value WrapObject(Napi::Env env, Kind kind, void *raw) {
  if (raw == nullptr) return env.Null();
  auto *data = env.GetInstanceData<AddonData>();
  return data->objectConstructor.New({Napi::External<int>::New(env, &gConstructToken),
                                      Napi::Number::New(env, static_cast<int>(kind)),
                                      Napi::External<void>::New(env, raw)});
}

}  // namespace baracuda::cublaslt
