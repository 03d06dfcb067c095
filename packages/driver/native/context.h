// Primary contexts (retained once per device, shared by every worker) and the
// scoped context switch the native states' destructors use.
#pragma once

#include "support.h"

namespace baracuda::driver {

struct DeviceContext {
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool memoryPools = false;
};

/**
 * Retains the device's primary context on first use and makes it current on
 * the calling thread, so cuDNN (runtime API) and our allocations share it.
 */
const DeviceContext& EnterDevice(Napi::Env env, int ordinal);

/**
 * Makes `context` current for a destructor's cleanup call and restores the
 * previous one afterwards, so a finalizer never changes what JS code (or cuDNN)
 * sees as current. Ignores every error: this is a safety net.
 */
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext context) {
    const DriverApi& api = Driver().api;
    if (api.cuCtxGetCurrent != nullptr) api.cuCtxGetCurrent(&previous_);
    if (api.cuCtxSetCurrent != nullptr && previous_ != context) {
      api.cuCtxSetCurrent(context);
      restore_ = true;
    }
  }
  ~ScopedContext() {
    if (restore_) Driver().api.cuCtxSetCurrent(previous_);
  }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool restore_ = false;
};

}  // namespace baracuda::driver
