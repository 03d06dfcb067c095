// @baracuda/driver native addon: a thin, defensive layer over the CUDA driver
// API. The TypeScript layer (src/) validates arguments and turns the errors
// thrown here into the typed errors of @baracuda/types; this file still checks
// everything it is given, so a wrong call from JS is a TypeError/RangeError,
// never a crash.
//
// Errors from CUDA calls are thrown as JS Errors carrying `cudaCall`,
// `cudaResult`, `cudaResultName` and `cudaResultString`; when the driver is not
// loaded, an Error with `driverNotLoaded: true` (translateNativeError in
// src/driver.ts maps both to the typed errors of @baracuda/types).
//
// Handles are JS externals, type-tagged per kind, each owning a Box that holds
// a shared_ptr to the native state. Destroying from JS resets the Box; the
// state itself (and the CUDA object) goes away when the last owner lets go:
// a stream outlives the buffers allocated on it, a buffer outlives the async
// copies that use it. State destructors run on the main thread, never touch JS
// and never throw.
//
// This file registers the exports; the bindings live in one file per family
// (devices.cc, streams.cc, events.cc, memory.cc, pinned.cc, kernels.cc) over
// the shared support.h, context.h, states.h, handles.h and waiter.h.
#include "bindings.h"

namespace baracuda::driver {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // Nothing here touches libcuda: it is opened by the first call that needs it.
  exports.Set("driverStatus", Napi::Function::New(env, DriverStatus, "driverStatus"));
  exports.Set("deviceCount", Napi::Function::New(env, DeviceCount, "deviceCount"));
  exports.Set("deviceInfo", Napi::Function::New(env, DeviceInfo, "deviceInfo"));
  exports.Set("deviceMemoryInfo", Napi::Function::New(env, DeviceMemoryInfo, "deviceMemoryInfo"));
  exports.Set("deviceSynchronize",
              Napi::Function::New(env, DeviceSynchronize, "deviceSynchronize"));
  exports.Set("deviceMakeCurrent",
              Napi::Function::New(env, DeviceMakeCurrent, "deviceMakeCurrent"));
  exports.Set("streamCreate", Napi::Function::New(env, StreamCreate, "streamCreate"));
  exports.Set("streamRaw", Napi::Function::New(env, StreamRaw, "streamRaw"));
  exports.Set("streamQuery", Napi::Function::New(env, StreamQuery, "streamQuery"));
  exports.Set("streamSynchronize",
              Napi::Function::New(env, StreamSynchronize, "streamSynchronize"));
  exports.Set("streamSynchronizeAsync",
              Napi::Function::New(env, StreamSynchronizeAsync, "streamSynchronizeAsync"));
  exports.Set("streamWaitEvent", Napi::Function::New(env, StreamWaitEvent, "streamWaitEvent"));
  exports.Set("streamDestroy",
              Napi::Function::New(env, DestroyHandle<StreamState>, "streamDestroy"));
  exports.Set("eventCreate", Napi::Function::New(env, EventCreate, "eventCreate"));
  exports.Set("eventRecord", Napi::Function::New(env, EventRecord, "eventRecord"));
  exports.Set("eventQuery", Napi::Function::New(env, EventQuery, "eventQuery"));
  exports.Set("eventSynchronize", Napi::Function::New(env, EventSynchronize, "eventSynchronize"));
  exports.Set("eventSynchronizeAsync",
              Napi::Function::New(env, EventSynchronizeAsync, "eventSynchronizeAsync"));
  exports.Set("eventElapsedTime", Napi::Function::New(env, EventElapsedTime, "eventElapsedTime"));
  exports.Set("eventDestroy", Napi::Function::New(env, DestroyHandle<EventState>, "eventDestroy"));
  exports.Set("memAlloc", Napi::Function::New(env, MemAlloc, "memAlloc"));
  exports.Set("memFree", Napi::Function::New(env, DestroyHandle<Allocation>, "memFree"));
  exports.Set("memcpyHtoD", Napi::Function::New(env, MemcpyHtoD, "memcpyHtoD"));
  exports.Set("memcpyDtoH", Napi::Function::New(env, MemcpyDtoH, "memcpyDtoH"));
  exports.Set("memcpyHtoDAsync", Napi::Function::New(env, MemcpyHtoDAsync, "memcpyHtoDAsync"));
  exports.Set("memcpyDtoHAsync", Napi::Function::New(env, MemcpyDtoHAsync, "memcpyDtoHAsync"));
  exports.Set("memcpyDtoD", Napi::Function::New(env, MemcpyDtoD, "memcpyDtoD"));
  exports.Set("memset", Napi::Function::New(env, Memset, "memset"));
  exports.Set("hostAlloc", Napi::Function::New(env, HostAlloc, "hostAlloc"));
  exports.Set("hostFree", Napi::Function::New(env, HostFree, "hostFree"));
  exports.Set("moduleLoadData", Napi::Function::New(env, ModuleLoadData, "moduleLoadData"));
  exports.Set("moduleGetFunction",
              Napi::Function::New(env, ModuleGetFunction, "moduleGetFunction"));
  exports.Set("moduleUnload",
              Napi::Function::New(env, DestroyHandle<ModuleState>, "moduleUnload"));
  exports.Set("launchKernel", Napi::Function::New(env, LaunchKernel, "launchKernel"));
  return exports;
}

}  // namespace baracuda::driver

Napi::Object InitBaracudaDriver(Napi::Env env, Napi::Object exports) {
  return baracuda::driver::Init(env, exports);
}

NODE_API_MODULE(baracuda_driver, InitBaracudaDriver)
