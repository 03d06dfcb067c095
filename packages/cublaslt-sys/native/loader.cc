#include "loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace baracuda::cublaslt {
namespace {

// Newest first: CUDA 13's library, then CUDA 12's (the same C API for everything we call).
constexpr const char *kSonames[] = {"libcublasLt.so.13", "libcublasLt.so.12"};
// cuBLASLt 12.0 or newer (cublasLtGetVersion() = major*10000 + minor*100 + patch).
constexpr size_t kMinVersion = 120000;
constexpr size_t kMaxVersion = 140000;

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

// Opens one candidate and checks that it is cuBLASLt 12 or 13. Returns the handle or nullptr,
// and records the attempt either way.
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
  auto getVersion = reinterpret_cast<PFN_cublasLtGetVersion>(dlsym(handle, "cublasLtGetVersion"));
  if (!getVersion) {
    state.tried.push_back({candidate, "loaded, but it does not export cublasLtGetVersion, so it "
                                      "is not cuBLASLt: " + DlError()});
    dlclose(handle);
    return nullptr;
  }
  const size_t version = getVersion();
  if (version < kMinVersion || version >= kMaxVersion) {
    state.tried.push_back({candidate, "loaded cuBLASLt version " + std::to_string(version) +
                                          ", but baracuda needs cuBLASLt 12 or 13 "
                                          "(120000..139999)"});
    dlclose(handle);
    return nullptr;
  }
  state.tried.push_back({candidate, ""});
  state.version = version;
  return handle;
}

// The Python prefixes whose site-packages may hold NVIDIA's wheels (PyTorch installs them).
std::vector<std::string> SitePackagePatterns() {
  std::vector<std::string> patterns;
  if (const auto venv = Env("VIRTUAL_ENV"); !venv.empty()) {
    patterns.push_back(venv + "/lib/python3*/site-packages");
  }
  const auto conda = Env("CONDA_PREFIX");
  if (!conda.empty()) patterns.push_back(conda + "/lib/python3*/site-packages");
  patterns.push_back("/usr/local/lib/python3*/dist-packages");
  patterns.push_back("/usr/local/lib/python3*/site-packages");
  patterns.push_back("/usr/lib/python3/dist-packages");
  if (const auto home = Env("HOME"); !home.empty()) {
    patterns.push_back(home + "/.local/lib/python3*/site-packages");
  }
  patterns.push_back("/opt/*/lib/python3*/site-packages");
  patterns.push_back("/opt/*/.venv/lib/python3*/site-packages");
  return patterns;
}

void AddMatches(const std::string &pattern, std::vector<std::string> &paths) {
  const auto matches = Glob(pattern);
  if (matches.empty()) {
    paths.push_back(pattern);  // listed so the error shows where we looked
  } else {
    paths.insert(paths.end(), matches.begin(), matches.end());
  }
}

// The ordered list of places to look for `soname` after the system loader.
std::vector<std::string> WellKnownPaths(const std::string &soname) {
  std::vector<std::string> paths;
  // The CUDA toolkit (and versioned installs beside it) and the distribution's directories.
  for (const char *dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/local/cuda/targets/sbsa-linux/lib"}) {
    paths.push_back(std::string(dir) + "/" + soname);
  }
  AddMatches("/usr/local/cuda-*/lib64/" + soname, paths);
  for (const char *dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64"}) {
    paths.push_back(std::string(dir) + "/" + soname);
  }
  if (const auto conda = Env("CONDA_PREFIX"); !conda.empty()) {
    paths.push_back(conda + "/lib/" + soname);
  }
  // NVIDIA's wheels: CUDA 13's one-directory layout (nvidia/cu13/lib) and the per-library one of
  // nvidia-cublas-cu12 / -cu13 (nvidia/cublas/lib).
  for (const auto &site : SitePackagePatterns()) {
    AddMatches(site + "/nvidia/cu13/lib/" + soname, paths);
    AddMatches(site + "/nvidia/cublas/lib/" + soname, paths);
  }
  return paths;
}

void ResolveSymbols(void *handle, LoadState &state) {
#define BARACUDA_CUBLASLT_RESOLVE(name, ret, params)                     \
  state.sym.name = reinterpret_cast<PFN_##name>(dlsym(handle, #name)); \
  if (!state.sym.name) state.missingSymbols.emplace_back(#name);
  BARACUDA_CUBLASLT_FUNCTIONS(BARACUDA_CUBLASLT_RESOLVE)
#undef BARACUDA_CUBLASLT_RESOLVE
}

void *OpenOverride(const std::string &override, LoadState &state) {
  std::string dir = override;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!IsDirectory(dir)) return TryOpen(override, true, state);
  for (const char *soname : kSonames) {
    if (void *handle = TryOpen(dir + "/" + soname, true, state)) return handle;
  }
  return nullptr;
}

LoadState Load() {
  LoadState state;
  void *handle = nullptr;
  // 1. BARACUDA_CUBLASLT_LIBRARY: an explicit path to the library, or a directory holding it.
  //    When set it is the only candidate: a silent fallback would hide the mismatch it controls.
  const auto override = Env("BARACUDA_CUBLASLT_LIBRARY");
  if (!override.empty()) {
    handle = OpenOverride(override, state);
    if (!handle) state.reason = "BARACUDA_CUBLASLT_LIBRARY=" + override + " did not load cuBLASLt";
  } else {
    // 2. Each soname through the system loader (LD_LIBRARY_PATH, the ld.so cache), then 3. the
    //    well-known places it does not search, the pip wheels' among them; .so.13 before .so.12.
    std::set<std::string> seen;
    for (const char *soname : kSonames) {
      handle = TryOpen(soname, false, state);
      if (handle) break;
      for (const auto &path : WellKnownPaths(soname)) {
        if (!seen.insert(path).second) continue;
        handle = TryOpen(path, true, state);
        if (handle) break;
      }
      if (handle) break;
    }
    if (!handle) state.reason = "libcublasLt.so.13 or libcublasLt.so.12 (cuBLASLt) was not found";
  }
  if (!handle) return state;

  ResolveSymbols(handle, state);
  state.available = true;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(state.sym.cublasLtGetVersion), &info) && info.dli_fname) {
    state.libraryPath = info.dli_fname;
  } else {
    state.libraryPath = state.tried.back().path;
  }
  // The library stays loaded for the life of the process: objects still alive at exit are
  // destroyed through it.
  return state;
}

}  // namespace

const LoadState &EnsureLoaded() {
  static std::once_flag once;
  static LoadState *state = nullptr;
  std::call_once(once, [] { state = new LoadState(Load()); });
  return *state;
}

}  // namespace baracuda::cublaslt
