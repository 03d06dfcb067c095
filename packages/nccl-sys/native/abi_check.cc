// Compile-only proof that native/nccl_decls.h matches the real <nccl.h>: every constant has the
// header's value and every function pointer type is exactly the header's prototype. Built by
// scripts/abi-check.sh (g++ -fsyntax-only); never part of the addon.
#include <nccl.h>

#include <cstddef>
#include <type_traits>

// Our declarations live in a namespace of their own so both can be seen at once.
namespace ours {
#include "nccl_decls.h"
}  // namespace ours

static_assert(sizeof(ncclUniqueId) == sizeof(ours::ncclUniqueId), "ncclUniqueId size");
static_assert(NCCL_UNIQUE_ID_BYTES == BARACUDA_NCCL_UNIQUE_ID_BYTES, "NCCL_UNIQUE_ID_BYTES");
static_assert(sizeof(ncclResult_t) == sizeof(ours::ncclResult_t), "ncclResult_t size");
static_assert(sizeof(ncclDataType_t) == sizeof(ours::ncclDataType_t), "ncclDataType_t size");
static_assert(sizeof(ncclRedOp_t) == sizeof(ours::ncclRedOp_t), "ncclRedOp_t size");

#define BARACUDA_CHECK_CONSTANT(name, value) \
  static_assert(static_cast<long long>(::name) == (value), #name);
BARACUDA_NCCL_CONSTANTS(BARACUDA_CHECK_CONSTANT)
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
BARACUDA_NCCL_FUNCTIONS(BARACUDA_CHECK_FUNCTION)
#undef BARACUDA_CHECK_FUNCTION

int main() { return 0; }
