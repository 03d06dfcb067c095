// Page-locked host memory exposed as external ArrayBuffers (see PinnedRegistry).
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

Napi::Value HostAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  size_t byteLength = ArgSize(info, 1, "byteLength");
  if (byteLength == 0) ThrowRange(env, "byteLength must be positive");
  const DeviceContext& device = EnterDevice(env, ordinal);
  void* pointer = nullptr;
  CU_CHECK(env, cuMemHostAlloc, &pointer, byteLength, kCuMemHostAllocPortable);
  auto state = std::make_shared<PinnedState>(device.context, pointer, byteLength);
  // The ArrayBuffer owns a reference too (its registry entry): the memory is
  // freed when hostFree or the GC has dropped both it and the handle.
  uint64_t id = PinnedRegistry::Add(state);
  napi_value buffer = nullptr;
  napi_status status = napi_create_external_arraybuffer(
      env, pointer, byteLength, FinalizePinnedBuffer, reinterpret_cast<void*>(id), &buffer);
  if (status != napi_ok) {
    // Node may already have run the finalizer (it does when it refuses a
    // buffer over its maximum length): removing is idempotent either way.
    PinnedRegistry::Remove(id);
    // Node leaves its own plain Error (ERR_BUFFER_TOO_LARGE) pending: replace it
    // with the RangeError of this addon's contract.
    napi_value pending = nullptr;
    napi_get_and_clear_last_exception(env, &pending);
    ThrowRange(env, "byteLength " + std::to_string(byteLength) +
                        " is more than this Node.js can expose as one ArrayBuffer");
  }
  // No napi_adjust_external_memory: V8 already counts an external ArrayBuffer's
  // bytes as external memory from creation until it is detached or collected
  // (measured: adjusting too made it count the pinned bytes twice).
  Napi::Object result = Napi::Object::New(env);
  Put(result, "handle", WrapHandle(env, state));
  Put(result, "buffer", Napi::Value(env, buffer));
  return result;
}

/**
 * hostFree(handle, buffer): frees the memory now (unless an async copy still
 * uses it: then when that completes) and detaches `buffer`, so every view over
 * it becomes zero-length. Idempotent.
 */
Napi::Value HostFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Box<PinnedState>* box = UnwrapBox<PinnedState>(info, 0, "handle");
  if (!box->state) return env.Undefined();
  bool detached = false;
  if (info[1].IsArrayBuffer()) {
    Napi::ArrayBuffer buffer = info[1].As<Napi::ArrayBuffer>();
    if (!buffer.IsDetached() && buffer.Data() == box->state->pointer) {
      buffer.Detach();
      detached = true;
    }
  }
  std::shared_ptr<PinnedState> state = std::move(box->state);
  // The ArrayBuffer's reference goes only with the ArrayBuffer detached: given any other buffer,
  // JS can still reach the memory, and the ArrayBuffer's finalizer drops the reference later.
  if (detached) PinnedRegistry::Remove(state->id);
  return env.Undefined();
}

}  // namespace baracuda::driver
