// Handles: JS externals, type-tagged per kind, each owning a Box that holds a
// shared_ptr to the native state (see states.h). Unwrap returns an owning
// reference, so a state outlives the binding that uses it.
#pragma once

#include <memory>
#include <string>

#include "states.h"

namespace baracuda::driver {

template <typename State>
struct Box {
  std::shared_ptr<State> state;
};

template <typename State>
struct HandleTraits;

template <>
struct HandleTraits<StreamState> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000001ULL};
  static constexpr const char* name = "Stream";
};
template <>
struct HandleTraits<EventState> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000002ULL};
  static constexpr const char* name = "Event";
};
template <>
struct HandleTraits<Allocation> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000003ULL};
  static constexpr const char* name = "DeviceBuffer";
};
template <>
struct HandleTraits<PinnedState> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000004ULL};
  static constexpr const char* name = "PinnedHostBuffer";
};
template <>
struct HandleTraits<ModuleState> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000005ULL};
  static constexpr const char* name = "Module";
};
template <>
struct HandleTraits<FunctionState> {
  static constexpr napi_type_tag tag = {0x6261726163756461ULL, 0x0000000000000006ULL};
  static constexpr const char* name = "KernelFunction";
};

template <typename State>
Napi::Value WrapHandle(Napi::Env env, std::shared_ptr<State> state) {
  auto box = std::make_unique<Box<State>>(Box<State>{std::move(state)});
  // The finalizer only drops a reference: it never touches JS and never throws. The external
  // owns the box once it exists (not before: a failed creation leaves it to us).
  Napi::External<Box<State>> external = Napi::External<Box<State>>::New(
      env, box.get(), [](Napi::Env, Box<State>* finalized) { delete finalized; });
  box.release();
  external.TypeTag(&HandleTraits<State>::tag);
  return external;
}

template <typename State>
Box<State>* UnwrapBox(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  const char* kind = HandleTraits<State>::name;
  if (!value.IsExternal()) {
    ThrowType(info.Env(), std::string("Expected a native ") + kind + " handle for " + name);
  }
  Napi::External<Box<State>> external = value.As<Napi::External<Box<State>>>();
  if (!external.CheckTypeTag(&HandleTraits<State>::tag)) {
    ThrowType(info.Env(), std::string("Expected a native ") + kind + " handle for " + name +
                              " but received a foreign object");
  }
  return external.Data();
}

/**
 * The live state behind a handle, as an owning reference: the state stays alive
 * until the binding returns even if something destroys the handle meanwhile.
 * Bindings convert every other argument first and unwrap handles last (see
 * docs/ARCHITECTURE.md, native addon conventions); the copy makes that order a
 * safety margin rather than the only guarantee.
 */
template <typename State>
std::shared_ptr<State> Unwrap(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Box<State>* box = UnwrapBox<State>(info, index, name);
  if (!box->state) {
    ThrowType(info.Env(),
              std::string(HandleTraits<State>::name) + " passed as " + name + " has been destroyed");
  }
  return box->state;
}

/** `null` → no stream (the legacy default stream); otherwise a live Stream handle. */
inline std::shared_ptr<StreamState> OptionalStream(const Napi::CallbackInfo& info, size_t index,
                                            const char* name) {
  if (info[index].IsNull() || info[index].IsUndefined()) return nullptr;
  return Unwrap<StreamState>(info, index, name);
}

inline Napi::BigInt PointerToBigInt(Napi::Env env, uint64_t value) {
  return Napi::BigInt::New(env, value);
}

inline void RequireSameDevice(Napi::Env env, int a, int b, const char* what) {
  if (a != b) {
    ThrowRange(env, std::string(what) + " belongs to device " + std::to_string(b) +
                        ", not device " + std::to_string(a));
  }
}

/** Range check inside an allocation: [offset, offset + length) ⊆ [0, byteLength). */
inline void RequireInside(Napi::Env env, const Allocation& allocation, size_t offset, size_t length) {
  if (offset > allocation.byteLength || length > allocation.byteLength - offset) {
    ThrowRange(env, "Range [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                        ") lies outside the " + std::to_string(allocation.byteLength) +
                        "-byte allocation");
  }
}

template <typename State>
Napi::Value DestroyHandle(const Napi::CallbackInfo& info) {
  // Idempotent: a second destroy of the same handle is a no-op.
  Box<State>* box = UnwrapBox<State>(info, 0, "handle");
  box->state.reset();
  return info.Env().Undefined();
}

}  // namespace baracuda::driver
