// The probe and devices: driverStatus, deviceCount, deviceInfo, deviceMemoryInfo,
// deviceSynchronize, deviceMakeCurrent.
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

Napi::Value DriverStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DriverState& driver = Driver();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "loaded", driver.loaded);
  Put(result, "initialized", driver.initialized);
  Put(result, "libraryPath", driver.loaded ? Napi::Value(Napi::String::New(env, driver.libraryPath))
                                          : env.Null());
  Put(result, "overridePath", driver.overridePath.empty()
                                 ? env.Null()
                                 : Napi::Value(Napi::String::New(env, driver.overridePath)));
  Napi::Array searched = Napi::Array::New(env, driver.searched.size());
  for (size_t i = 0; i < driver.searched.size(); ++i) {
    Napi::Object attempt = Napi::Object::New(env);
    Put(attempt, "path", driver.searched[i].path);
    Put(attempt, "error", driver.searched[i].error);
    PutIndex(searched, static_cast<uint32_t>(i), attempt);
  }
  Put(result, "searched", searched);
  Put(result, "initResult", driver.initResult);
  Put(result, "initResultName", driver.loaded && driver.initResult >= 0
                                   ? Napi::Value(Napi::String::New(env, ResultName(driver.initResult)))
                                   : env.Null());
  Put(result, "initResultString",
             driver.loaded && driver.initResult >= 0
                 ? Napi::Value(Napi::String::New(env, ResultString(driver.initResult)))
                 : env.Null());
  Put(result, "driverVersion", driver.driverVersion);
  Put(result, "deviceCount", driver.deviceCount);
  return result;
}

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), RequireDriver(info.Env()).deviceCount);
}

Napi::Value DeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  const DeviceContext& device = EnterDevice(env, ordinal);
  char name[256] = {0};
  CU_CHECK(env, cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), device.device);
  int major = 0, minor = 0, sms = 0;
  CU_CHECK(env, cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
           device.device);
  CU_CHECK(env, cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
           device.device);
  CU_CHECK(env, cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
           device.device);
  size_t total = 0;
  CU_CHECK(env, cuDeviceTotalMem_v2, &total, device.device);
  Napi::Object result = Napi::Object::New(env);
  Put(result, "name", std::string(name));
  Put(result, "major", major);
  Put(result, "minor", minor);
  Put(result, "smCount", sms);
  Put(result, "totalMemory", static_cast<double>(total));
  Put(result, "memoryPoolsSupported", device.memoryPools);
  return result;
}

Napi::Value DeviceMemoryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  size_t free = 0, total = 0;
  CU_CHECK(env, cuMemGetInfo_v2, &free, &total);
  Napi::Object result = Napi::Object::New(env);
  Put(result, "free", static_cast<double>(free));
  Put(result, "total", static_cast<double>(total));
  return result;
}

Napi::Value DeviceSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  CU_CHECK(env, cuCtxSynchronize);
  return env.Undefined();
}

Napi::Value DeviceMakeCurrent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DeviceContext& device = EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  return PointerToBigInt(env, reinterpret_cast<uint64_t>(device.context));
}

}  // namespace baracuda::driver
