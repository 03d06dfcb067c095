// Makes a device's primary context current on the calling thread for one call (NCCL's
// ncclCommInitRank takes "the current CUDA device"), and restores the previous context after.
#pragma once

#include <string>

#include "loader.h"

namespace baracuda::nccl {

class DeviceGuard {
 public:
  // device < 0: leave the thread's context alone.
  explicit DeviceGuard(int device) : device_(device) {
    if (device_ < 0) return;
    const CudaContextApi &api = CudaContext();
    if (!api.reason.empty()) {
      error_ = api.reason;
      return;
    }
    CUcontext_nccl_sys context = nullptr;
    if (api.retain(&context, device_) != 0) {
      error_ = "cuDevicePrimaryCtxRetain failed for device " + std::to_string(device_);
      return;
    }
    retained_ = true;
    api.getCurrent(&previous_);
    if (api.setCurrent(context) != 0) {
      error_ = "cuCtxSetCurrent failed for device " + std::to_string(device_);
      return;
    }
    restore_ = true;
  }
  ~DeviceGuard() {
    const CudaContextApi &api = CudaContext();
    if (restore_) api.setCurrent(previous_);
    if (retained_) api.release(device_);
  }
  DeviceGuard(const DeviceGuard &) = delete;
  DeviceGuard &operator=(const DeviceGuard &) = delete;
  // Why the device could not be made current, "" when it was (or none was asked for).
  const std::string &error() const { return error_; }

 private:
  int device_;
  bool retained_ = false;
  bool restore_ = false;
  CUcontext_nccl_sys previous_ = nullptr;
  std::string error_;
};

}  // namespace baracuda::nccl
