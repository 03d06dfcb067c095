// Every function the driver addon exports, by file. addon.cc registers them.
#pragma once

#include <napi.h>

#include "handles.h"

namespace baracuda::driver {

// devices.cc
Napi::Value DriverStatus(const Napi::CallbackInfo& info);
Napi::Value DeviceCount(const Napi::CallbackInfo& info);
Napi::Value DeviceInfo(const Napi::CallbackInfo& info);
Napi::Value DeviceMemoryInfo(const Napi::CallbackInfo& info);
Napi::Value DeviceSynchronize(const Napi::CallbackInfo& info);
Napi::Value DeviceMakeCurrent(const Napi::CallbackInfo& info);

// streams.cc
Napi::Value StreamCreate(const Napi::CallbackInfo& info);
Napi::Value StreamRaw(const Napi::CallbackInfo& info);
Napi::Value StreamQuery(const Napi::CallbackInfo& info);
Napi::Value StreamSynchronize(const Napi::CallbackInfo& info);
Napi::Value StreamSynchronizeAsync(const Napi::CallbackInfo& info);
Napi::Value StreamWaitEvent(const Napi::CallbackInfo& info);

// events.cc
Napi::Value EventCreate(const Napi::CallbackInfo& info);
Napi::Value EventRecord(const Napi::CallbackInfo& info);
Napi::Value EventQuery(const Napi::CallbackInfo& info);
Napi::Value EventSynchronize(const Napi::CallbackInfo& info);
Napi::Value EventSynchronizeAsync(const Napi::CallbackInfo& info);
Napi::Value EventElapsedTime(const Napi::CallbackInfo& info);

// memory.cc
Napi::Value MemAlloc(const Napi::CallbackInfo& info);
Napi::Value MemcpyHtoD(const Napi::CallbackInfo& info);
Napi::Value MemcpyDtoH(const Napi::CallbackInfo& info);
Napi::Value MemcpyHtoDAsync(const Napi::CallbackInfo& info);
Napi::Value MemcpyDtoHAsync(const Napi::CallbackInfo& info);
Napi::Value MemcpyDtoD(const Napi::CallbackInfo& info);
Napi::Value Memset(const Napi::CallbackInfo& info);

// pinned.cc
Napi::Value HostAlloc(const Napi::CallbackInfo& info);
Napi::Value HostFree(const Napi::CallbackInfo& info);

// kernels.cc
Napi::Value ModuleLoadData(const Napi::CallbackInfo& info);
Napi::Value ModuleGetFunction(const Napi::CallbackInfo& info);
Napi::Value LaunchKernel(const Napi::CallbackInfo& info);

}  // namespace baracuda::driver
