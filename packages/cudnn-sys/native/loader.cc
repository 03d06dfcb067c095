#include "loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace baracuda::cudnn {
namespace {

constexpr const char *kSoname = "libcudnn.so.9";

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

std::string DirName(const std::string &path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
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

// Before a libcudnn.so.9 chosen by path is opened, load what it will load later by soname.
//
// Why: cuDNN 9's libcudnn.so.9 is a shim that dlopens its sub-libraries (libcudnn_graph.so.9,
// libcudnn_cnn.so.9, ...) by soname at first use, and those load cuBLASLt and NVRTC the same way.
// When our copy sits in a directory the system loader does not search (a pip wheel), those
// sonames would resolve to whatever cuDNN is on the loader path instead (the device machine has
// a system 9.14 beside PyTorch's 9.19), mixing two versions in one process. The dynamic loader
// reuses a library already loaded under the same soname, so loading the siblings first, by full
// path, pins every soname to our directory. Failures here are recorded, never fatal: the shim
// reports a missing sub-library itself when it needs one.
void PreloadSiblings(const std::string &cudnnDir, LoadState &state) {
  std::vector<std::string> order;
  // Dependencies from sibling wheels, e.g. <site-packages>/nvidia/cublas/lib/libcublasLt.so.13,
  // <site-packages>/nvidia/cuda_nvrtc/lib/libnvrtc.so.13, or the single-wheel CUDA 13 layout
  // <site-packages>/nvidia/cu13/lib. Only the libraries cuDNN loads are taken, leaves first, and
  // only for the wheel layout: a system directory's neighbours are the system loader's business.
  const std::string wheelSuffix = "/nvidia/cudnn/lib";
  const bool isWheel = cudnnDir.size() > wheelSuffix.size() &&
                       cudnnDir.compare(cudnnDir.size() - wheelSuffix.size(), wheelSuffix.size(),
                                        wheelSuffix) == 0;
  if (isWheel) {
    const std::string wheelRoot = cudnnDir + "/../..";
    for (const char *stem :
         {"libnvJitLink", "libnvrtc-builtins", "libnvrtc", "libcublasLt", "libcublas"}) {
      for (const auto &path : Glob(wheelRoot + "/*/lib/" + stem + ".so.*")) order.push_back(path);
    }
  }
  // cuDNN's own sub-libraries from the same directory, graph first (the others need it).
  for (const char *name :
       {"libcudnn_graph.so.9", "libcudnn_engines_precompiled.so.9",
        "libcudnn_engines_runtime_compiled.so.9", "libcudnn_heuristic.so.9", "libcudnn_ops.so.9",
        "libcudnn_cnn.so.9", "libcudnn_adv.so.9"}) {
    const std::string path = cudnnDir + "/" + name;
    if (IsFile(path)) order.push_back(path);
  }
  std::set<std::string> seen;
  for (const auto &path : order) {
    if (!seen.insert(path).second) continue;
    dlerror();
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    state.preloaded.push_back({path, handle ? "" : DlError()});
  }
}

// Opens one candidate and checks that it is cuDNN 9. Returns the dlopen handle or nullptr, and
// records the attempt either way.
void *TryOpen(const std::string &candidate, bool byPath, LoadState &state) {
  if (byPath) {
    if (!IsFile(candidate)) {
      state.tried.push_back({candidate, "no such file"});
      return nullptr;
    }
    PreloadSiblings(DirName(candidate), state);
  }
  dlerror();
  void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    state.tried.push_back({candidate, DlError()});
    return nullptr;
  }
  dlerror();
  auto getVersion = reinterpret_cast<PFN_cudnnGetVersion>(dlsym(handle, "cudnnGetVersion"));
  if (!getVersion) {
    state.tried.push_back({candidate, "loaded, but it does not export cudnnGetVersion, so it is "
                                      "not cuDNN: " + DlError()});
    dlclose(handle);
    return nullptr;
  }
  const size_t version = getVersion();
  if (version / 10000 != 9) {
    state.tried.push_back({candidate, "loaded cuDNN version " + std::to_string(version) +
                                          ", but baracuda needs cuDNN 9 (90000..99999)"});
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
  // CUDA toolkit and distribution library directories (apt's libcudnn9-cuda-12/13 installs into
  // /usr/lib/x86_64-linux-gnu; the NVIDIA tarball is often copied into the CUDA toolkit).
  for (const char *dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/lib/x86_64-linux-gnu", "/usr/lib64"}) {
    paths.push_back(std::string(dir) + "/" + kSoname);
  }
  // An unpacked cuDNN tarball pointed to by CUDNN_PATH (the convention of NVIDIA's samples).
  if (const auto cudnnPath = Env("CUDNN_PATH"); !cudnnPath.empty()) {
    paths.push_back(cudnnPath + "/lib/" + kSoname);
    paths.push_back(cudnnPath + "/lib64/" + kSoname);
  }
  // A conda environment's own lib directory (conda-forge's cudnn package).
  const auto conda = Env("CONDA_PREFIX");
  if (!conda.empty()) paths.push_back(conda + "/lib/" + kSoname);
  // The nvidia-cudnn-cu12/cu13 Python wheels (also what PyTorch installs):
  // <site-packages>/nvidia/cudnn/lib/libcudnn.so.9, under the usual Python prefixes.
  const std::string wheel = "/nvidia/cudnn/lib/" + std::string(kSoname);
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
#define BARACUDA_CUDNN_RESOLVE(name, ret, params)                                   \
  state.sym.name = reinterpret_cast<PFN_##name>(dlsym(handle, #name));            \
  if (!state.sym.name) state.missingSymbols.emplace_back(#name);
  BARACUDA_CUDNN_FUNCTIONS(BARACUDA_CUDNN_RESOLVE)
#undef BARACUDA_CUDNN_RESOLVE
}

LoadState Load() {
  LoadState state;
  void *handle = nullptr;
  // 1. BARACUDA_CUDNN_LIBRARY: an explicit path to libcudnn.so.9, or a directory holding it.
  //    When set it is the only candidate: an explicit choice that silently fell back to another
  //    copy would hide the very mismatch the variable is there to control.
  const auto override = Env("BARACUDA_CUDNN_LIBRARY");
  if (!override.empty()) {
    std::string dir = override;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    const auto path = IsDirectory(dir) ? dir + "/" + kSoname : override;
    handle = TryOpen(path, true, state);
    if (!handle) {
      state.reason = "BARACUDA_CUDNN_LIBRARY=" + override + " did not load cuDNN 9";
    }
  } else {
    // 2. The soname through the system loader: LD_LIBRARY_PATH, the ld.so cache (ldconfig) and
    //    the default directories, i.e. wherever the system package put it.
    handle = TryOpen(kSoname, false, state);
    // 3. Well-known places the system loader does not search.
    if (!handle) {
      std::set<std::string> seen;
      for (const auto &path : WellKnownPaths()) {
        if (!seen.insert(path).second) continue;
        handle = TryOpen(path, true, state);
        if (handle) break;
      }
    }
    if (!handle) state.reason = "libcudnn.so.9 (cuDNN 9) was not found";
  }
  if (!handle) return state;

  ResolveSymbols(handle, state);
  state.available = true;
  state.cudartVersion = state.sym.cudnnGetCudartVersion ? state.sym.cudnnGetCudartVersion() : 0;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(state.sym.cudnnGetVersion), &info) && info.dli_fname) {
    state.libraryPath = info.dli_fname;
  } else {
    state.libraryPath = state.tried.back().path;
  }
  // The library stays loaded for the life of the process: descriptors and handles still alive
  // at exit are destroyed through it.
  return state;
}

}  // namespace

const LoadState &EnsureLoaded() {
  static std::once_flag once;
  static LoadState *state = nullptr;
  std::call_once(once, [] { state = new LoadState(Load()); });
  return *state;
}

}  // namespace baracuda::cudnn
