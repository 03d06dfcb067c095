// Finds and loads libcudnn.so.9 at first use, and resolves every symbol we call, once.
#pragma once

#include <string>
#include <vector>

#include "cudnn_decls.h"

namespace baracuda::cudnn {

/// One place the loader looked, and why it failed there ("" when it succeeded).
struct LoadAttempt {
  std::string path;
  std::string error;
};

/// Every function pointer we call, resolved once with dlsym; nullptr when the library lacks it.
struct Symbols {
#define BARACUDA_CUDNN_SYMBOL_FIELD(name, ret, params) PFN_##name name = nullptr;
  BARACUDA_CUDNN_FUNCTIONS(BARACUDA_CUDNN_SYMBOL_FIELD)
#undef BARACUDA_CUDNN_SYMBOL_FIELD
};

/// The outcome of the one load attempt this process makes.
struct LoadState {
  bool available = false;
  size_t version = 0;        // cudnnGetVersion(): major*10000 + minor*100 + patch
  size_t cudartVersion = 0;  // cudnnGetCudartVersion()
  std::string libraryPath;   // the file really loaded (dladdr), "" when unavailable
  std::vector<LoadAttempt> tried;
  std::vector<LoadAttempt> preloaded;  // sibling libraries loaded ahead of a libcudnn.so.9 by path
  std::vector<std::string> missingSymbols;
  std::string reason;  // why cuDNN is unavailable, "" when available
  Symbols sym;
};

/// Loads cuDNN on the first call (thread-safe) and returns the outcome. Never throws.
const LoadState &EnsureLoaded();

}  // namespace baracuda::cudnn
