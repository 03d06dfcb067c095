// Proves native/cudnn_decls.h against the real <cudnn.h>. Compile-only: every check is a
// static_assert, so a translation unit that compiles is a passing check.
//
//   g++ -std=c++17 -fsyntax-only -Inative -I/usr/include/x86_64-linux-gnu \
//       -I/usr/local/cuda/include native/abi_check.cc
//
// (scripts/abi-check.sh runs exactly this; CMake does it with -DBARACUDA_CUDNN_ABI_CHECK=ON.)
#include <cudnn.h>

#include <cstddef>
#include <type_traits>

#define BARACUDA_CUDNN_TYPES_FROM_HEADER 1
#include "cudnn_decls.h"

#if !defined(CUDNN_MAJOR) || CUDNN_MAJOR != 9
#error "baracuda declares the cuDNN 9 API; this <cudnn.h> is not cuDNN 9"
#endif

namespace bc = baracuda::cudnn;

// 1. Every prototype, written with the header's own types, is the header's prototype.
#define BARACUDA_CHECK_FUNCTION(name, ret, params)                      \
  static_assert(std::is_same_v<decltype(&::name), bc::PFN_##name>, \
                "the prototype of " #name " in cudnn_decls.h differs from <cudnn.h>");
BARACUDA_CUDNN_FUNCTIONS(BARACUDA_CHECK_FUNCTION)

// 2. Our own types (what the addon really compiles against) match the header's in size and
// alignment, so a value of ours passes through the C calling convention as the header's would.
#define BARACUDA_CHECK_TYPE(T)                                                     \
  static_assert(sizeof(bc::own::T) == sizeof(::T), "size of " #T " differs");     \
  static_assert(alignof(bc::own::T) == alignof(::T), "alignment of " #T " differs");
BARACUDA_CUDNN_OWN_TYPES(BARACUDA_CHECK_TYPE)

// C enums whose values fit in an int are integers of 4 bytes; ours are 4-byte ints.
static_assert(sizeof(::cudnnStatus_t) == sizeof(int), "cudnnStatus_t is not 4 bytes");

// 3. The perf-result structs have the header's layout, field by field.
#define BARACUDA_CHECK_FIELD(T, field)                                          \
  static_assert(offsetof(bc::own::T, field) == offsetof(::T, field),           \
                "offset of " #T "::" #field " differs");                       \
  static_assert(sizeof(bc::own::T::field) == sizeof(::T::field), "size of " #T "::" #field " differs");
#define BARACUDA_CHECK_PERF(T)          \
  BARACUDA_CHECK_FIELD(T, algo)         \
  BARACUDA_CHECK_FIELD(T, status)       \
  BARACUDA_CHECK_FIELD(T, time)         \
  BARACUDA_CHECK_FIELD(T, memory)       \
  BARACUDA_CHECK_FIELD(T, determinism)  \
  BARACUDA_CHECK_FIELD(T, mathType)     \
  BARACUDA_CHECK_FIELD(T, reserved)
BARACUDA_CHECK_PERF(cudnnConvolutionFwdAlgoPerf_t)
BARACUDA_CHECK_PERF(cudnnConvolutionBwdDataAlgoPerf_t)
BARACUDA_CHECK_PERF(cudnnConvolutionBwdFilterAlgoPerf_t)

// 4. Handle, descriptor and stream pointer types are the header's types.
static_assert(std::is_same_v<bc::cudnnHandle_t, ::cudnnHandle_t>, "cudnnHandle_t differs");
static_assert(std::is_same_v<bc::cudnnTensorDescriptor_t, ::cudnnTensorDescriptor_t>,
              "cudnnTensorDescriptor_t differs");
static_assert(std::is_same_v<bc::cudnnFilterDescriptor_t, ::cudnnFilterDescriptor_t>,
              "cudnnFilterDescriptor_t differs");
static_assert(std::is_same_v<bc::cudnnConvolutionDescriptor_t, ::cudnnConvolutionDescriptor_t>,
              "cudnnConvolutionDescriptor_t differs");
static_assert(std::is_same_v<bc::cudnnActivationDescriptor_t, ::cudnnActivationDescriptor_t>,
              "cudnnActivationDescriptor_t differs");
static_assert(std::is_same_v<bc::cudnnBackendDescriptor_t, ::cudnnBackendDescriptor_t>,
              "cudnnBackendDescriptor_t differs");
static_assert(std::is_same_v<bc::cudaStream_t, ::cudaStream_t>, "cudaStream_t differs");

// 5. Every constant has the header's value.
#define BARACUDA_CHECK_CONSTANT(name, value)                                    \
  static_assert(static_cast<long long>(::name) == (value) && bc::k::name == (value), \
                #name " in cudnn_decls.h differs from <cudnn.h>");
BARACUDA_CUDNN_CONSTANTS(BARACUDA_CHECK_CONSTANT)
#if CUDNN_VERSION >= 90700
BARACUDA_CUDNN_CONSTANTS_SINCE_90700(BARACUDA_CHECK_CONSTANT)
#endif
#if CUDNN_VERSION >= 91100
BARACUDA_CUDNN_CONSTANTS_SINCE_91100(BARACUDA_CHECK_CONSTANT)
#endif
#if CUDNN_VERSION >= 91400
BARACUDA_CUDNN_CONSTANTS_SINCE_91400(BARACUDA_CHECK_CONSTANT)
#endif
#if CUDNN_VERSION >= 91800
BARACUDA_CUDNN_CONSTANTS_SINCE_91800(BARACUDA_CHECK_CONSTANT)
#endif
static_assert(bc::kCudnnDimMax == CUDNN_DIM_MAX, "CUDNN_DIM_MAX differs");
