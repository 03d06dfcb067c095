// Finds and loads libnccl.so.2 at first use, and resolves every symbol we call, once.
#pragma once

#include <string>
#include <vector>

#include "nccl_decls.h"

namespace baracuda::nccl {

/// One place the loader looked, and why it failed there ("" when it succeeded).
struct LoadAttempt {
  std::string path;
  std::string error;
};

/// Every function pointer we call, resolved once with dlsym; nullptr when the library lacks it.
struct Symbols {
#define BARACUDA_NCCL_SYMBOL_FIELD(name, ret, params) PFN_##name name = nullptr;
  BARACUDA_NCCL_FUNCTIONS(BARACUDA_NCCL_SYMBOL_FIELD)
#undef BARACUDA_NCCL_SYMBOL_FIELD
};

/// The outcome of the one load attempt this process makes.
struct LoadState {
  bool available = false;
  int version = 0;          // ncclGetVersion(): major*10000 + minor*100 + patch (NCCL >= 2.9)
  std::string libraryPath;  // the file really loaded (dladdr), "" when unavailable
  std::vector<LoadAttempt> tried;
  std::vector<std::string> missingSymbols;
  std::string reason;  // why NCCL is unavailable, "" when available
  Symbols sym;
};

/// Loads NCCL on the first call (thread-safe) and returns the outcome. Never throws.
const LoadState &EnsureLoaded();

/// libcuda's primary-context calls (for ncclCommInitRank on a chosen device), resolved from the
/// libcuda.so.1 already in the process (the driver addon's) or loaded by soname. Never throws.
struct CudaContextApi {
  PFN_cuDevicePrimaryCtxRetain_nccl retain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_nccl release = nullptr;
  PFN_cuCtxGetCurrent_nccl getCurrent = nullptr;
  PFN_cuCtxSetCurrent_nccl setCurrent = nullptr;
  std::string reason;  // "" when all four resolved
};
const CudaContextApi &CudaContext();

}  // namespace baracuda::nccl
