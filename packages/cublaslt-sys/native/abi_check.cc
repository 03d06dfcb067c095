// Compile-only proof that native/cublaslt_decls.h matches the real <cublasLt.h>: every constant
// has the header's value, the algorithm and heuristic-result structs have its sizes and offsets,
// and every function pointer type has the header's arity and parameter sizes. Built by
// scripts/abi-check.sh (g++ -fsyntax-only); never part of the addon.
#include <cublasLt.h>

#include <cstddef>
#include <type_traits>

// Our declarations live in a namespace of their own so both can be seen at once.
namespace ours {
#include "cublaslt_decls.h"
}  // namespace ours

static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(ours::cublasLtMatmulAlgo_t), "algo size");
static_assert(sizeof(cublasLtMatmulAlgo_t) == BARACUDA_CUBLASLT_ALGO_BYTES, "algo bytes");
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) ==
                  sizeof(ours::cublasLtMatmulHeuristicResult_t),
              "heuristic result size");
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize) ==
                  offsetof(ours::cublasLtMatmulHeuristicResult_t, workspaceSize),
              "workspaceSize offset");
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, state) ==
                  offsetof(ours::cublasLtMatmulHeuristicResult_t, state),
              "state offset");
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, wavesCount) ==
                  offsetof(ours::cublasLtMatmulHeuristicResult_t, wavesCount),
              "wavesCount offset");
static_assert(sizeof(cublasStatus_t) == sizeof(ours::cublasStatus_t), "cublasStatus_t size");
static_assert(sizeof(cublasComputeType_t) == sizeof(ours::cublasComputeType_t), "compute type");
static_assert(sizeof(cudaDataType_t) == sizeof(ours::cudaDataType_t), "cudaDataType_t size");

#define BARACUDA_CHECK_CONSTANT(name, value) \
  static_assert(static_cast<long long>(::name) == (value), #name);
BARACUDA_CUBLASLT_CONSTANTS(BARACUDA_CHECK_CONSTANT)
#undef BARACUDA_CHECK_CONSTANT

// Same arity, and each parameter the same size and kind (pointers to pointers, enums as ints):
// the calling convention is what must agree, not the nominal types of two declarations.
template <typename A, typename B>
struct SameAbi : std::false_type {};
template <typename RA, typename... A, typename RB, typename... B>
struct SameAbi<RA (*)(A...), RB (*)(B...)> {
  static constexpr bool value = sizeof...(A) == sizeof...(B) && sizeof(RA) == sizeof(RB) &&
                                ((sizeof(A) == sizeof(B) &&
                                  std::is_pointer_v<A> == std::is_pointer_v<B>) && ...);
};

#define BARACUDA_CHECK_FUNCTION(name, ret, params) \
  static_assert(SameAbi<decltype(&::name), ours::PFN_##name>::value, #name " prototype");
BARACUDA_CUBLASLT_FUNCTIONS(BARACUDA_CHECK_FUNCTION)
#undef BARACUDA_CHECK_FUNCTION

int main() { return 0; }
