// The one place libcuda is found, opened and its symbols resolved.
//
// Nothing here runs at require() time: Driver() is first called by the first
// API entry (or probe) that needs the driver.
#include "loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace baracuda {
namespace {

const char* const kOverrideVariable = "BARACUDA_CUDA_DRIVER_LIBRARY";

/**
 * Where we look for the driver, in order, when BARACUDA_CUDA_DRIVER_LIBRARY is
 * unset. When it is set, only that path is tried: an explicit choice that fails
 * must be reported, not silently replaced by some other libcuda.
 */
std::vector<std::string> DefaultCandidates() {
  return {
      // The soname the NVIDIA driver installs; the system loader searches
      // LD_LIBRARY_PATH, the ld.so cache and the default directories.
      "libcuda.so.1",
      // An unversioned development symlink, present on some installs.
      "libcuda.so",
      // Debian/Ubuntu multiarch location, in case the ld.so cache is stale.
      "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
      // RHEL/Fedora/SUSE location.
      "/usr/lib64/libcuda.so.1",
      // Where the NVIDIA container toolkit mounts the driver inside containers.
      "/usr/local/nvidia/lib64/libcuda.so.1",
      // WSL2: the Windows driver exposes libcuda here.
      "/usr/lib/wsl/lib/libcuda.so.1",
  };
}

std::string LastDlError() {
  const char* message = dlerror();
  return message ? std::string(message) : std::string("unknown dlopen error");
}

/** Opens one candidate and resolves every symbol; returns "" on success. */
std::string TryOpen(const std::string& path, DriverState& state) {
  dlerror();  // clear any stale message
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return LastDlError();

  DriverApi api;
  std::string missingRequired;
#define BARACUDA_RESOLVE(symbol, required)                                   \
  api.symbol = reinterpret_cast<cu::PFN_##symbol>(dlsym(handle, #symbol));   \
  if (api.symbol == nullptr && (required) && missingRequired.empty()) {      \
    missingRequired = #symbol;                                               \
  }
  BARACUDA_CU_FUNCTIONS(BARACUDA_RESOLVE)
#undef BARACUDA_RESOLVE
  api.cuEventElapsedTime_v1 =
      reinterpret_cast<cu::PFN_cuEventElapsedTime_v1>(dlsym(handle, "cuEventElapsedTime"));

  if (!missingRequired.empty()) {
    dlclose(handle);
    return "opened, but it does not export " + missingRequired + ", so it is not the CUDA driver";
  }
  state.api = api;
  return "";
}

DriverState LoadOnce() {
  DriverState state;
  const char* override = std::getenv(kOverrideVariable);
  std::vector<std::string> candidates;
  if (override != nullptr && override[0] != '\0') {
    state.overridePath = override;
    candidates.push_back(state.overridePath);
  } else {
    candidates = DefaultCandidates();
  }

  for (const std::string& path : candidates) {
    std::string error = TryOpen(path, state);
    if (error.empty()) {
      state.loaded = true;
      state.libraryPath = path;
      break;
    }
    state.searched.push_back({path, error});
  }
  if (!state.loaded) return state;

  int version = 0;
  if (state.api.cuDriverGetVersion(&version) == cu::CUDA_SUCCESS) state.driverVersion = version;
  state.initResult = state.api.cuInit(0);
  if (state.initResult == cu::CUDA_SUCCESS) {
    state.initialized = true;
    int count = 0;
    if (state.api.cuDeviceGetCount(&count) == cu::CUDA_SUCCESS) state.deviceCount = count;
  }
  return state;
}

}  // namespace

const DriverState& Driver() {
  static std::once_flag once;
  static DriverState* state = nullptr;  // never freed: the library stays loaded for the process
  std::call_once(once, [] { state = new DriverState(LoadOnce()); });
  return *state;
}

std::string ResultName(int result) {
  const DriverState& state = Driver();
  const char* name = nullptr;
  if (state.api.cuGetErrorName != nullptr &&
      state.api.cuGetErrorName(static_cast<cu::CUresult>(result), &name) == cu::CUDA_SUCCESS &&
      name != nullptr) {
    return name;
  }
  return "CUresult " + std::to_string(result);
}

std::string ResultString(int result) {
  const DriverState& state = Driver();
  const char* text = nullptr;
  if (state.api.cuGetErrorString != nullptr &&
      state.api.cuGetErrorString(static_cast<cu::CUresult>(result), &text) == cu::CUDA_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return "";
}

}  // namespace baracuda
