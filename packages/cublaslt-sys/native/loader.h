// Finds and loads libcublasLt (.so.13, then .so.12) at first use, and resolves every symbol we
// call, once.
#pragma once

#include <string>
#include <vector>

#include "cublaslt_decls.h"

namespace baracuda::cublaslt {

/// One place the loader looked, and why it failed there ("" when it succeeded).
struct LoadAttempt {
  std::string path;
  std::string error;
};

/// Every function pointer we call, resolved once with dlsym; nullptr when the library lacks it.
struct Symbols {
#define BARACUDA_CUBLASLT_SYMBOL_FIELD(name, ret, params) PFN_##name name = nullptr;
  BARACUDA_CUBLASLT_FUNCTIONS(BARACUDA_CUBLASLT_SYMBOL_FIELD)
#undef BARACUDA_CUBLASLT_SYMBOL_FIELD
};

/// The outcome of the one load attempt this process makes.
struct LoadState {
  bool available = false;
  size_t version = 0;       // cublasLtGetVersion(): major*10000 + minor*100 + patch
  std::string libraryPath;  // the file really loaded (dladdr), "" when unavailable
  std::vector<LoadAttempt> tried;
  std::vector<std::string> missingSymbols;
  std::string reason;  // why cuBLASLt is unavailable, "" when available
  Symbols sym;
};

/// Loads cuBLASLt on the first call (thread-safe) and returns the outcome. Never throws.
const LoadState &EnsureLoaded();

}  // namespace baracuda::cublaslt
