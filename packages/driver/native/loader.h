// The one place libcuda is found, opened and its symbols resolved.
#pragma once

#include <string>
#include <vector>

#include "cuda_decls.h"

namespace baracuda {

/** One library the loader tried, and why it was rejected (empty error: accepted). */
struct SearchAttempt {
  std::string path;
  std::string error;
};

/** Every driver entry point, resolved once with dlsym; nullptr when the library lacks it. */
struct DriverApi {
#define BARACUDA_DECLARE_MEMBER(symbol, required) cu::PFN_##symbol symbol = nullptr;
  BARACUDA_CU_FUNCTIONS(BARACUDA_DECLARE_MEMBER)
#undef BARACUDA_DECLARE_MEMBER
  /** The pre-12.8 `cuEventElapsedTime`, used when `cuEventElapsedTime_v2` is absent. */
  cu::PFN_cuEventElapsedTime_v1 cuEventElapsedTime_v1 = nullptr;
};

/** What loading found. Immutable once `Driver()` has returned. */
struct DriverState {
  /** A library exporting the required symbols was opened. */
  bool loaded = false;
  /** cuInit(0) returned CUDA_SUCCESS. */
  bool initialized = false;
  /** The path (or soname) that was accepted. */
  std::string libraryPath;
  /** Value of BARACUDA_CUDA_DRIVER_LIBRARY at load time ("" when unset). */
  std::string overridePath;
  std::vector<SearchAttempt> searched;
  /** cuInit's result; -1 when it was never called. */
  int initResult = -1;
  /** cuDriverGetVersion, e.g. 12080; 0 when unknown. */
  int driverVersion = 0;
  /** cuDeviceGetCount after a successful cuInit. */
  int deviceCount = 0;
  DriverApi api;
};

/**
 * Opens libcuda and calls cuInit(0) on first call (thread-safe, once per
 * process); later calls return the same state. Never throws.
 */
const DriverState& Driver();

/** "CUDA_ERROR_OUT_OF_MEMORY", from cuGetErrorName when available. */
std::string ResultName(int result);
/** The driver's description of a CUresult, or "" when unavailable. */
std::string ResultString(int result);

}  // namespace baracuda
