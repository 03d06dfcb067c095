// Kernels of our own: modules, functions, launches with a packed parameter buffer.
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

/**
 * moduleLoadData(ordinal, image: Uint8Array): loads a PTX, cubin or fatbin
 * image into the device's primary context. The image is copied with a NUL
 * byte after it: cuModuleLoadData reads PTX as a C string, and a cubin or
 * fatbin carries its own size, so the extra byte is harmless there.
 */
Napi::Value ModuleLoadData(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  HostView image = ArgUint8Array(info, 1, "image");
  if (image.length == 0) ThrowRange(env, "image must not be empty");
  std::string terminated(reinterpret_cast<const char*>(image.data), image.length);
  const DeviceContext& device = EnterDevice(env, ordinal);
  CUmodule module = nullptr;
  CUresult result =
      Entry(env, &DriverApi::cuModuleLoadData, "cuModuleLoadData")(&module, terminated.c_str());
  if (result != CUDA_SUCCESS) {
    ThrowCudaWithDetail(env, "cuModuleLoadData", result,
                        "loading a " + std::to_string(image.length) +
                            "-byte module image on device " + std::to_string(ordinal));
  }
  return WrapHandle(env, std::make_shared<ModuleState>(ordinal, device.context, module));
}

/** moduleGetFunction(module, name): the kernel `name` (cuModuleGetFunction). */
Napi::Value ModuleGetFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto module = Unwrap<ModuleState>(info, 0, "module");
  if (!info[1].IsString()) ThrowType(env, "Expected a string for name");
  std::string name = info[1].As<Napi::String>().Utf8Value();
  if (name.empty()) ThrowRange(env, "name must not be empty");
  if (name.find('\0') != std::string::npos) {
    ThrowRange(env, "name must not contain a NUL character");
  }
  EnterDevice(env, module->ordinal);
  CUfunction function = nullptr;
  CUresult result = Entry(env, &DriverApi::cuModuleGetFunction, "cuModuleGetFunction")(
      &function, module->module, name.c_str());
  if (result != CUDA_SUCCESS) {
    std::string detail = "no kernel named \"" + name + "\" in this module";
    if (result == CUDA_ERROR_NOT_FOUND) {
      detail += " (a C++ kernel's name is mangled unless it is declared extern \"C\")";
    }
    ThrowCudaWithDetail(env, "cuModuleGetFunction", result, detail);
  }
  return WrapHandle(env, std::make_shared<FunctionState>(std::weak_ptr<ModuleState>(module),
                                                         module->context, function, name));
}

/**
 * launchKernel(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes,
 * stream: bigint, params: Uint8Array). The hot path: no allocation of ours,
 * and the context is made current only when it is not already (one
 * thread-local read otherwise). `params` is the packed argument buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER); the driver copies it before returning.
 */
Napi::Value LaunchKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto function = Unwrap<FunctionState>(info, 0, "fn");
  unsigned int gridX = static_cast<unsigned int>(ArgUint32(info, 1, "gridX"));
  unsigned int gridY = static_cast<unsigned int>(ArgUint32(info, 2, "gridY"));
  unsigned int gridZ = static_cast<unsigned int>(ArgUint32(info, 3, "gridZ"));
  unsigned int blockX = static_cast<unsigned int>(ArgUint32(info, 4, "blockX"));
  unsigned int blockY = static_cast<unsigned int>(ArgUint32(info, 5, "blockY"));
  unsigned int blockZ = static_cast<unsigned int>(ArgUint32(info, 6, "blockZ"));
  unsigned int shared = static_cast<unsigned int>(ArgUint32(info, 7, "sharedBytes"));
  uint64_t stream = ArgBigUint64(info, 8, "stream");
  HostView params = ArgUint8Array(info, 9, "params");
  std::shared_ptr<ModuleState> module = function->module.lock();
  if (!module) ThrowType(env, "The Module of the KernelFunction passed as fn has been unloaded");

  CUcontext current = nullptr;
  CU_CHECK(env, cuCtxGetCurrent, &current);
  if (current != function->context) CU_CHECK(env, cuCtxSetCurrent, function->context);

  size_t paramBytes = params.length;
  void* extra[] = {
      reinterpret_cast<void*>(kCuLaunchParamBufferPointer), params.data,
      reinterpret_cast<void*>(kCuLaunchParamBufferSize), &paramBytes,
      reinterpret_cast<void*>(kCuLaunchParamEnd),
  };
  PFN_cuLaunchKernel launch = Entry(env, &DriverApi::cuLaunchKernel, "cuLaunchKernel");
  CUresult result = launch(function->function, gridX, gridY, gridZ, blockX, blockY, blockZ, shared,
                           reinterpret_cast<CUstream>(stream), nullptr, extra);
  if (result != CUDA_SUCCESS) {
    ThrowCudaWithDetail(
        env, "cuLaunchKernel", result,
        "launching " + function->name + " with grid [" + std::to_string(gridX) + ", " +
            std::to_string(gridY) + ", " + std::to_string(gridZ) + "], block [" +
            std::to_string(blockX) + ", " + std::to_string(blockY) + ", " + std::to_string(blockZ) +
            "], " + std::to_string(shared) + " shared bytes and " + std::to_string(paramBytes) +
            " parameter bytes");
  }
  module->launched = true;
  return env.Undefined();
}

}  // namespace baracuda::driver
