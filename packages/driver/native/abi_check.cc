// Compile-time proof that native/cuda_decls.h matches the real <cuda.h>.
//
// Built only when CMake finds cuda.h (option BARACUDA_ABI_CHECK); the addon
// target depends on it, so a mismatch fails the normal build. Nothing here
// ends up in the addon.
//
// Functions: for each symbol we dlsym, take our function-pointer type, replace
// each of our enum stand-ins with the real enum, and require the result to be
// exactly the type of `&::<symbol>` in the real header. We compare against the
// versioned symbol (`::cuMemAlloc_v2`), which is what we resolve at run time.
#include <cuda.h>

#include <type_traits>

#include "cuda_decls.h"

namespace {

namespace ours = baracuda::cu;

// Maps one of our types to the real header's type.
template <typename T>
struct Real {
  using type = T;
};
template <>
struct Real<ours::CUresult> {
  using type = ::CUresult;
};
template <>
struct Real<ours::CUdevice_attribute> {
  using type = ::CUdevice_attribute;
};
template <typename T>
struct Real<T*> {
  using type = typename Real<T>::type*;
};
template <typename T>
struct Real<const T> {
  using type = const typename Real<T>::type;
};
template <typename R, typename... A>
struct Real<R (*)(A...)> {
  using type = typename Real<R>::type (*)(typename Real<A>::type...);
};

// Our enum stand-ins must be passed exactly like the real enums.
static_assert(sizeof(ours::CUresult) == sizeof(::CUresult), "CUresult size");
static_assert(alignof(ours::CUresult) == alignof(::CUresult), "CUresult alignment");
static_assert(sizeof(ours::CUdevice_attribute) == sizeof(::CUdevice_attribute),
              "CUdevice_attribute size");

// Plain typedefs must be the very same types.
static_assert(std::is_same_v<ours::CUdevice, ::CUdevice>, "CUdevice");
static_assert(std::is_same_v<ours::CUdeviceptr, ::CUdeviceptr>, "CUdeviceptr");
static_assert(std::is_same_v<ours::CUcontext, ::CUcontext>, "CUcontext");
static_assert(std::is_same_v<ours::CUstream, ::CUstream>, "CUstream");
static_assert(std::is_same_v<ours::CUevent, ::CUevent>, "CUevent");
static_assert(std::is_same_v<ours::CUmodule, ::CUmodule>, "CUmodule");
static_assert(std::is_same_v<ours::CUfunction, ::CUfunction>, "CUfunction");

#define BARACUDA_CHECK_FUNCTION(symbol, required)                                        \
  static_assert(std::is_same_v<decltype(&::symbol), Real<ours::PFN_##symbol>::type>,     \
                "native/cuda_decls.h: PFN_" #symbol " does not match ::" #symbol " in cuda.h");
BARACUDA_CU_FUNCTIONS(BARACUDA_CHECK_FUNCTION)
#undef BARACUDA_CHECK_FUNCTION

// The pre-12.8 cuEventElapsedTime fallback has the same prototype as _v2
// (the real header no longer declares it under its own name).
static_assert(std::is_same_v<ours::PFN_cuEventElapsedTime_v1, ours::PFN_cuEventElapsedTime_v2>,
              "cuEventElapsedTime fallback prototype");

#define BARACUDA_CHECK_CONSTANT(name)                                              \
  static_assert(static_cast<long long>(ours::name) == static_cast<long long>(::name), \
                "native/cuda_decls.h: " #name " differs from cuda.h");
BARACUDA_CHECK_CONSTANT(CUDA_SUCCESS)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_INVALID_VALUE)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_OUT_OF_MEMORY)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_NO_DEVICE)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_INVALID_CONTEXT)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_NOT_FOUND)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_NOT_READY)
BARACUDA_CHECK_CONSTANT(CUDA_ERROR_NOT_SUPPORTED)
BARACUDA_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
BARACUDA_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
BARACUDA_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
BARACUDA_CHECK_CONSTANT(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
BARACUDA_CHECK_CONSTANT(CU_STREAM_DEFAULT)
BARACUDA_CHECK_CONSTANT(CU_STREAM_NON_BLOCKING)
BARACUDA_CHECK_CONSTANT(CU_EVENT_DEFAULT)
BARACUDA_CHECK_CONSTANT(CU_EVENT_BLOCKING_SYNC)
BARACUDA_CHECK_CONSTANT(CU_EVENT_DISABLE_TIMING)
#undef BARACUDA_CHECK_CONSTANT
static_assert(ours::kCuMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE,
              "native/cuda_decls.h: CU_MEMHOSTALLOC_PORTABLE differs from cuda.h");
static_assert(ours::kCuLaunchParamEnd == CU_LAUNCH_PARAM_END_AS_INT,
              "native/cuda_decls.h: CU_LAUNCH_PARAM_END differs from cuda.h");
static_assert(ours::kCuLaunchParamBufferPointer == CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT,
              "native/cuda_decls.h: CU_LAUNCH_PARAM_BUFFER_POINTER differs from cuda.h");
static_assert(ours::kCuLaunchParamBufferSize == CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT,
              "native/cuda_decls.h: CU_LAUNCH_PARAM_BUFFER_SIZE differs from cuda.h");

}  // namespace
