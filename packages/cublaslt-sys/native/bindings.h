// Every function the cublaslt-sys addon exports, by file. addon.cc registers them.
#pragma once

#include <napi.h>

namespace baracuda::cublaslt {

// addon.cc
Napi::Value Probe(const Napi::CallbackInfo &info);
Napi::Value NativeConstants(const Napi::CallbackInfo &info);

// lifetime.cc: the library, handles, descriptors, layouts and preferences
Napi::Value GetVersion(const Napi::CallbackInfo &info);
Napi::Value GetStatusString(const Napi::CallbackInfo &info);
Napi::Value Create(const Napi::CallbackInfo &info);
Napi::Value Destroy(const Napi::CallbackInfo &info);
Napi::Value MatmulDescCreate(const Napi::CallbackInfo &info);
Napi::Value MatmulDescSetAttribute(const Napi::CallbackInfo &info);
Napi::Value MatmulDescDestroy(const Napi::CallbackInfo &info);
Napi::Value MatrixLayoutCreate(const Napi::CallbackInfo &info);
Napi::Value MatrixLayoutSetAttribute(const Napi::CallbackInfo &info);
Napi::Value MatrixLayoutDestroy(const Napi::CallbackInfo &info);
Napi::Value MatmulPreferenceCreate(const Napi::CallbackInfo &info);
Napi::Value MatmulPreferenceSetAttribute(const Napi::CallbackInfo &info);
Napi::Value MatmulPreferenceDestroy(const Napi::CallbackInfo &info);

// matmul.cc
Napi::Value MatmulAlgoGetHeuristic(const Napi::CallbackInfo &info);
Napi::Value Matmul(const Napi::CallbackInfo &info);

}  // namespace baracuda::cublaslt
