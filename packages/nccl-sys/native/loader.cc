#include "loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace baracuda::nccl {
namespace {

constexpr const char *kSoname = "libnccl.so.2";

std::string DlError() {
  const char *message = dlerror();
  return message ? message : "unknown dlopen error";
}

bool IsDirectory(const std::string &path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool IsFile(const std::string &path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && !S_ISDIR(info.st_mode);
}

std::string Env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

std::vector<std::string> Glob(const std::string &pattern) {
  std::vector<std::string> paths;
  glob_t matches{};
  if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
  return paths;
}

// Opens one candidate and checks that it is NCCL 2. Returns the handle or nullptr, and records
// the attempt either way.
void *TryOpen(const std::string &candidate, bool byPath, LoadState &state) {
  if (byPath && !IsFile(candidate)) {
    state.tried.push_back({candidate, "no such file"});
    return nullptr;
  }
  dlerror();
  void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    state.tried.push_back({candidate, DlError()});
    return nullptr;
  }
  dlerror();
  auto getVersion = reinterpret_cast<PFN_ncclGetVersion>(dlsym(handle, "ncclGetVersion"));
  if (!getVersion) {
    state.tried.push_back({candidate, "loaded, but it does not export ncclGetVersion, so it is "
                                      "not NCCL: " + DlError()});
    dlclose(handle);
    return nullptr;
  }
  int version = 0;
  const ncclResult_t result = getVersion(&version);
  // NCCL 2.9 and later encode major*10000 + minor*100 + patch; older ones major*1000 + ...,
  // which baracuda does not support (no ncclAvg before 2.10, no bfloat16 before 2.10).
  if (result != ncclSuccess || version < 21000 || version >= 30000) {
    state.tried.push_back({candidate, "loaded NCCL version " + std::to_string(version) +
                                          ", but baracuda needs NCCL 2.10 or newer (21000..29999)"});
    dlclose(handle);
    return nullptr;
  }
  state.tried.push_back({candidate, ""});
  state.version = version;
  return handle;
}

// The ordered list of places to look after the environment override and the system loader.
std::vector<std::string> WellKnownPaths() {
  std::vector<std::string> paths;
  // Distribution and CUDA toolkit directories (apt's libnccl2 installs into
  // /usr/lib/x86_64-linux-gnu; the NVIDIA tarball is often copied into the CUDA toolkit).
  for (const char *dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/lib/x86_64-linux-gnu", "/usr/lib64"}) {
    paths.push_back(std::string(dir) + "/" + kSoname);
  }
  // A conda environment's own lib directory (conda-forge's nccl package).
  const auto conda = Env("CONDA_PREFIX");
  if (!conda.empty()) paths.push_back(conda + "/lib/" + kSoname);
  // The nvidia-nccl-cu12/cu13 Python wheels (also what PyTorch installs):
  // <site-packages>/nvidia/nccl/lib/libnccl.so.2, under the Python prefixes cudnn-sys searches.
  const std::string wheel = "/nvidia/nccl/lib/" + std::string(kSoname);
  std::vector<std::string> sitePatterns;
  if (const auto venv = Env("VIRTUAL_ENV"); !venv.empty()) {
    sitePatterns.push_back(venv + "/lib/python3*/site-packages");
  }
  if (!conda.empty()) sitePatterns.push_back(conda + "/lib/python3*/site-packages");
  sitePatterns.push_back("/usr/local/lib/python3*/dist-packages");
  sitePatterns.push_back("/usr/local/lib/python3*/site-packages");
  sitePatterns.push_back("/usr/lib/python3/dist-packages");
  if (const auto home = Env("HOME"); !home.empty()) {
    sitePatterns.push_back(home + "/.local/lib/python3*/site-packages");
  }
  sitePatterns.push_back("/opt/*/lib/python3*/site-packages");
  sitePatterns.push_back("/opt/*/.venv/lib/python3*/site-packages");
  for (const auto &pattern : sitePatterns) {
    const auto matches = Glob(pattern + wheel);
    if (matches.empty()) {
      paths.push_back(pattern + wheel);  // listed so the error shows where we looked
    } else {
      paths.insert(paths.end(), matches.begin(), matches.end());
    }
  }
  return paths;
}

void ResolveSymbols(void *handle, LoadState &state) {
#define BARACUDA_NCCL_RESOLVE(name, ret, params)                         \
  state.sym.name = reinterpret_cast<PFN_##name>(dlsym(handle, #name)); \
  if (!state.sym.name) state.missingSymbols.emplace_back(#name);
  BARACUDA_NCCL_FUNCTIONS(BARACUDA_NCCL_RESOLVE)
#undef BARACUDA_NCCL_RESOLVE
}

LoadState Load() {
  LoadState state;
  void *handle = nullptr;
  // 1. BARACUDA_NCCL_LIBRARY: an explicit path to libnccl.so.2, or a directory holding it. When
  //    set it is the only candidate: a silent fallback would hide the mismatch it controls.
  const auto override = Env("BARACUDA_NCCL_LIBRARY");
  if (!override.empty()) {
    std::string dir = override;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    const auto path = IsDirectory(dir) ? dir + "/" + kSoname : override;
    handle = TryOpen(path, true, state);
    if (!handle) state.reason = "BARACUDA_NCCL_LIBRARY=" + override + " did not load NCCL 2";
  } else {
    // 2. The soname through the system loader (LD_LIBRARY_PATH, the ld.so cache), as cudnn-sys
    //    does; 3. the well-known places it does not search, a pip wheel's among them.
    handle = TryOpen(kSoname, false, state);
    if (!handle) {
      std::set<std::string> seen;
      for (const auto &path : WellKnownPaths()) {
        if (!seen.insert(path).second) continue;
        handle = TryOpen(path, true, state);
        if (handle) break;
      }
    }
    if (!handle) state.reason = "libnccl.so.2 (NCCL 2) was not found";
  }
  if (!handle) return state;

  ResolveSymbols(handle, state);
  state.available = true;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(state.sym.ncclGetVersion), &info) && info.dli_fname) {
    state.libraryPath = info.dli_fname;
  } else {
    state.libraryPath = state.tried.back().path;
  }
  // The library stays loaded for the life of the process: communicators still alive at exit are
  // destroyed through it.
  return state;
}

CudaContextApi LoadCudaContext() {
  CudaContextApi api;
  // The driver addon has loaded libcuda already (BARACUDA_CUDA_DRIVER_LIBRARY or the system's); take
  // that copy: the primary context must be the one its streams and buffers live in.
  void *handle = nullptr;
  const auto override = Env("BARACUDA_CUDA_DRIVER_LIBRARY");
  if (!override.empty()) {
    std::string path = override;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (IsDirectory(path)) path += "/libcuda.so.1";
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    api.reason = "libcuda.so.1 could not be loaded: " + DlError();
    return api;
  }
  api.retain = reinterpret_cast<PFN_cuDevicePrimaryCtxRetain_nccl>(
      dlsym(handle, "cuDevicePrimaryCtxRetain"));
  api.release = reinterpret_cast<PFN_cuDevicePrimaryCtxRelease_nccl>(
      dlsym(handle, "cuDevicePrimaryCtxRelease_v2"));
  api.getCurrent = reinterpret_cast<PFN_cuCtxGetCurrent_nccl>(dlsym(handle, "cuCtxGetCurrent"));
  api.setCurrent = reinterpret_cast<PFN_cuCtxSetCurrent_nccl>(dlsym(handle, "cuCtxSetCurrent"));
  if (!api.retain || !api.release || !api.getCurrent || !api.setCurrent) {
    api.reason = "libcuda.so.1 lacks cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease_v2, "
                 "cuCtxGetCurrent or cuCtxSetCurrent";
  }
  return api;
}

}  // namespace

const LoadState &EnsureLoaded() {
  static std::once_flag once;
  static LoadState *state = nullptr;
  std::call_once(once, [] { state = new LoadState(Load()); });
  return *state;
}

const CudaContextApi &CudaContext() {
  static std::once_flag once;
  static CudaContextApi *api = nullptr;
  std::call_once(once, [] { api = new CudaContextApi(LoadCudaContext()); });
  return *api;
}

}  // namespace baracuda::nccl
