// The library's version and status strings, and the lifetime and attributes of handles, matmul
// descriptors, matrix layouts and preferences.
#include "bindings.h"
#include "support.h"

namespace baracuda::cublaslt {
namespace {

// Destroys the object whatever the status: cuBLASLt frees it or it was never valid; either way
// the wrapper must never be passed to C again.
template <typename T, typename F>
Napi::Value DestroyObject(const Napi::CallbackInfo &info, Kind kind, const char *argument, F fn) {
  Napi::Env env = info.Env();
  ObjectArg object(env, info[0], argument, kind);
  const cublasStatus_t status = fn(object.get<T>());
  object.native()->MarkDestroyed();
  return Status(env, status);
}

template <typename T, typename F>
Napi::Value SetAttribute(const Napi::CallbackInfo &info, Kind kind, const char *argument, F fn) {
  Napi::Env env = info.Env();
  ObjectArg object(env, info[0], argument, kind);
  const int attr = Int32Arg(env, info[1], "attr");
  const auto buf = BytesArg(env, info[2], "buf");
  return Status(env, fn(object.get<T>(), attr, buf.data(), buf.size()));
}

}  // namespace

Napi::Value GetVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Napi::Number::New(env, static_cast<double>(LT_FN(cublasLtGetVersion)()));
}

Napi::Value GetStatusString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const int status = Int32Arg(env, info[0], "status");
  const char *text = LT_FN(cublasLtGetStatusString)(status);
  return Napi::String::New(env, text ? text : "");
}

Napi::Value Create(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = LT_FN(cublasLtCreate);
  cublasLtHandle_t handle = nullptr;
  const cublasStatus_t status = fn(&handle);
  Napi::Object result = Result(env, status);
  PutValue(result, "lightHandle", status == 0 ? WrapObject(env, Kind::Handle, handle) : env.Null());
  return result;
}

Napi::Value Destroy(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return DestroyObject<cublasLtHandle_t>(info, Kind::Handle, "lightHandle", LT_FN(cublasLtDestroy));
}

Napi::Value MatmulDescCreate(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const int computeType = Int32Arg(env, info[0], "computeType");
  const int scaleType = Int32Arg(env, info[1], "scaleType");
  cublasLtMatmulDesc_t desc = nullptr;
  const cublasStatus_t status = LT_FN(cublasLtMatmulDescCreate)(&desc, computeType, scaleType);
  Napi::Object result = Result(env, status);
  PutValue(result, "matmulDesc",
           status == 0 ? WrapObject(env, Kind::MatmulDesc, desc) : env.Null());
  return result;
}

Napi::Value MatmulDescSetAttribute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return SetAttribute<cublasLtMatmulDesc_t>(info, Kind::MatmulDesc, "matmulDesc",
                                            LT_FN(cublasLtMatmulDescSetAttribute));
}

Napi::Value MatmulDescDestroy(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return DestroyObject<cublasLtMatmulDesc_t>(info, Kind::MatmulDesc, "matmulDesc",
                                             LT_FN(cublasLtMatmulDescDestroy));
}

Napi::Value MatrixLayoutCreate(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const int type = Int32Arg(env, info[0], "type");
  const auto rows = static_cast<uint64_t>(SafeIntArg(env, info[1], "rows", true));
  const auto cols = static_cast<uint64_t>(SafeIntArg(env, info[2], "cols", true));
  const int64_t ld = SafeIntArg(env, info[3], "ld", false);
  cublasLtMatrixLayout_t layout = nullptr;
  const cublasStatus_t status = LT_FN(cublasLtMatrixLayoutCreate)(&layout, type, rows, cols, ld);
  Napi::Object result = Result(env, status);
  PutValue(result, "matLayout",
           status == 0 ? WrapObject(env, Kind::MatrixLayout, layout) : env.Null());
  return result;
}

Napi::Value MatrixLayoutSetAttribute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return SetAttribute<cublasLtMatrixLayout_t>(info, Kind::MatrixLayout, "matLayout",
                                              LT_FN(cublasLtMatrixLayoutSetAttribute));
}

Napi::Value MatrixLayoutDestroy(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return DestroyObject<cublasLtMatrixLayout_t>(info, Kind::MatrixLayout, "matLayout",
                                               LT_FN(cublasLtMatrixLayoutDestroy));
}

Napi::Value MatmulPreferenceCreate(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  cublasLtMatmulPreference_t pref = nullptr;
  const cublasStatus_t status = LT_FN(cublasLtMatmulPreferenceCreate)(&pref);
  Napi::Object result = Result(env, status);
  PutValue(result, "pref",
           status == 0 ? WrapObject(env, Kind::MatmulPreference, pref) : env.Null());
  return result;
}

Napi::Value MatmulPreferenceSetAttribute(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return SetAttribute<cublasLtMatmulPreference_t>(info, Kind::MatmulPreference, "pref",
                                                  LT_FN(cublasLtMatmulPreferenceSetAttribute));
}

Napi::Value MatmulPreferenceDestroy(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return DestroyObject<cublasLtMatmulPreference_t>(info, Kind::MatmulPreference, "pref",
                                                   LT_FN(cublasLtMatmulPreferenceDestroy));
}

}  // namespace baracuda::cublaslt
