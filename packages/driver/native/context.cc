// Primary contexts: retained on first use, made current before every call.
#include "context.h"

#include <map>
#include <mutex>

namespace baracuda::driver {

// Primary contexts, retained for the process lifetime and shared by every worker (a CUDA context
// belongs to the process). Never destroyed: nothing runs at static destruction while a worker or
// a thread-pool wait may still be running.
namespace {
std::mutex& contextsMutex = *new std::mutex();
std::map<int, DeviceContext>& contexts = *new std::map<int, DeviceContext>();
}  // namespace

const DeviceContext& EnterDevice(Napi::Env env, int ordinal) {
  const DriverState& driver = RequireDriver(env);
  if (ordinal < 0 || ordinal >= driver.deviceCount) {
    ThrowRange(env, "Device ordinal " + std::to_string(ordinal) + " is out of range: " +
                        std::to_string(driver.deviceCount) + " CUDA device(s) present");
  }
  std::lock_guard<std::mutex> lock(contextsMutex);
  auto found = contexts.find(ordinal);
  if (found == contexts.end()) {
    DeviceContext entry;
    CU_CHECK(env, cuDeviceGet, &entry.device, ordinal);
    CU_CHECK(env, cuDevicePrimaryCtxRetain, &entry.context, entry.device);
    int pools = 0;
    if (driver.api.cuDeviceGetAttribute != nullptr &&
        driver.api.cuMemAllocAsync != nullptr && driver.api.cuMemFreeAsync != nullptr &&
        driver.api.cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                        entry.device) == CUDA_SUCCESS) {
      entry.memoryPools = pools != 0;
    }
    found = contexts.emplace(ordinal, entry).first;
  }
  CU_CHECK(env, cuCtxSetCurrent, found->second.context);
  return found->second;
}

}  // namespace baracuda::driver
