// Device memory: allocation, copies (blocking and stream-ordered), memset.
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  size_t byteLength = ArgSize(info, 1, "byteLength");
  if (byteLength == 0) ThrowRange(env, "byteLength must be positive");
  std::shared_ptr<StreamState> stream = OptionalStream(info, 2, "stream");
  if (stream) RequireSameDevice(env, ordinal, stream->ordinal, "stream");
  const DeviceContext& device = EnterDevice(env, ordinal);
  CUdeviceptr pointer = 0;
  bool streamOrdered = stream && device.memoryPools;
  if (streamOrdered) {
    CU_CHECK(env, cuMemAllocAsync, &pointer, byteLength, stream->stream);
  } else {
    // No stream, or a device without memory pools: a plain allocation.
    CU_CHECK(env, cuMemAlloc_v2, &pointer, byteLength);
  }
  auto allocation = std::make_shared<Allocation>(ordinal, device.context, pointer, byteLength,
                                                 streamOrdered ? stream : nullptr);
  Napi::Object result = Napi::Object::New(env);
  Put(result, "handle", WrapHandle(env, allocation));
  Put(result, "pointer", PointerToBigInt(env, pointer));
  Put(result, "streamOrdered", streamOrdered);
  return result;
}

Napi::Value MemcpyHtoD(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto allocation = Unwrap<Allocation>(info, 0, "buffer");
  size_t offset = ArgSize(info, 1, "byteOffset");
  HostView host = ArgHostView(info, 2, "src");
  RequireInside(env, *allocation, offset, host.length);
  EnterDevice(env, allocation->ordinal);
  if (host.length > 0) {
    CU_CHECK(env, cuMemcpyHtoD_v2, allocation->pointer + offset, host.data, host.length);
  }
  return env.Undefined();
}

Napi::Value MemcpyDtoH(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto allocation = Unwrap<Allocation>(info, 0, "buffer");
  size_t offset = ArgSize(info, 1, "byteOffset");
  HostView host = ArgHostView(info, 2, "dst");
  RequireInside(env, *allocation, offset, host.length);
  EnterDevice(env, allocation->ordinal);
  if (host.length > 0) {
    CU_CHECK(env, cuMemcpyDtoH_v2, host.data, allocation->pointer + offset, host.length);
  }
  return env.Undefined();
}

namespace {

/** Enqueues a copy on the stream, records an event, resolves when the event completes. */
Napi::Value MemcpyAsync(const Napi::CallbackInfo& info, bool toDevice) {
  Napi::Env env = info.Env();
  std::shared_ptr<Allocation> allocation = Unwrap<Allocation>(info, 0, "buffer");
  size_t offset = ArgSize(info, 1, "byteOffset");
  HostView host = ArgHostView(info, 2, toDevice ? "src" : "dst");
  std::shared_ptr<StreamState> stream = Unwrap<StreamState>(info, 3, "stream");
  RequireSameDevice(env, allocation->ordinal, stream->ordinal, "stream");
  RequireInside(env, *allocation, offset, host.length);
  EnterDevice(env, allocation->ordinal);
  if (host.length > 0) {
    if (toDevice) {
      CU_CHECK(env, cuMemcpyHtoDAsync_v2, allocation->pointer + offset, host.data, host.length,
               stream->stream);
    } else {
      CU_CHECK(env, cuMemcpyDtoHAsync_v2, host.data, allocation->pointer + offset, host.length,
               stream->stream);
    }
  }
  auto waiter = std::make_unique<EventWaiter>(env, RecordWaitEvent(env, *stream));
  waiter->KeepAlive(allocation);
  waiter->KeepAlive(stream);
  waiter->KeepHostAlive(info[2]);
  if (host.length > 0) waiter->KeepAlive(PinnedRegistry::Containing(host.data, host.length));
  Napi::Promise promise = waiter->Promise();
  waiter.release()->Queue();  // queued, the worker deletes itself after settling
  return promise;
}

}  // namespace

Napi::Value MemcpyHtoDAsync(const Napi::CallbackInfo& info) { return MemcpyAsync(info, true); }
Napi::Value MemcpyDtoHAsync(const Napi::CallbackInfo& info) { return MemcpyAsync(info, false); }

/**
 * memcpyDtoD(dst, dstOffset, srcPointer, byteLength, stream | null).
 * Without a stream it runs on the legacy default stream and waits for it, so
 * the copy is complete when the call returns.
 */
Napi::Value MemcpyDtoD(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto allocation = Unwrap<Allocation>(info, 0, "dst");
  size_t offset = ArgSize(info, 1, "dstOffset");
  uint64_t source = ArgBigUint64(info, 2, "srcPointer");
  size_t length = ArgSize(info, 3, "byteLength");
  std::shared_ptr<StreamState> stream = OptionalStream(info, 4, "stream");
  if (stream) RequireSameDevice(env, allocation->ordinal, stream->ordinal, "stream");
  RequireInside(env, *allocation, offset, length);
  if (source == 0 && length > 0) ThrowRange(env, "srcPointer is the null device pointer");
  EnterDevice(env, allocation->ordinal);
  if (length == 0) return env.Undefined();
  CUstream raw = stream ? stream->stream : nullptr;
  CU_CHECK(env, cuMemcpyDtoDAsync_v2, allocation->pointer + offset, source, length, raw);
  if (!stream) CU_CHECK(env, cuStreamSynchronize, nullptr);
  return env.Undefined();
}

/**
 * memset(buffer, offset, width 1|2|4, value, count, stream | null): sets
 * `count` elements of `width` bytes. Without a stream it waits for completion.
 */
Napi::Value Memset(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto allocation = Unwrap<Allocation>(info, 0, "buffer");
  size_t offset = ArgSize(info, 1, "byteOffset");
  int width = ArgInt(info, 2, "width", 1, 4);
  uint64_t value = ArgUint32(info, 3, "value");
  size_t count = ArgSize(info, 4, "count");
  std::shared_ptr<StreamState> stream = OptionalStream(info, 5, "stream");
  if (width != 1 && width != 2 && width != 4) ThrowRange(env, "width must be 1, 2 or 4");
  if ((width == 1 && value > 0xff) || (width == 2 && value > 0xffff)) {
    ThrowRange(env, "value does not fit in " + std::to_string(width) + " byte(s)");
  }
  if (count > SIZE_MAX / 4) ThrowRange(env, "count is too large");
  if (stream) RequireSameDevice(env, allocation->ordinal, stream->ordinal, "stream");
  RequireInside(env, *allocation, offset, count * static_cast<size_t>(width));
  if ((allocation->pointer + offset) % static_cast<uint64_t>(width) != 0) {
    ThrowRange(env, "byteOffset is not aligned to " + std::to_string(width) + " bytes");
  }
  EnterDevice(env, allocation->ordinal);
  if (count == 0) return env.Undefined();
  CUdeviceptr target = allocation->pointer + offset;
  CUstream raw = stream ? stream->stream : nullptr;
  switch (width) {
    case 1:
      CU_CHECK(env, cuMemsetD8Async, target, static_cast<unsigned char>(value), count, raw);
      break;
    case 2:
      CU_CHECK(env, cuMemsetD16Async, target, static_cast<unsigned short>(value), count, raw);
      break;
    default:
      CU_CHECK(env, cuMemsetD32Async, target, static_cast<unsigned int>(value), count, raw);
      break;
  }
  // cuMemset* on device memory is asynchronous to the host even without a
  // stream; the Sync forms promise completion.
  if (!stream) CU_CHECK(env, cuStreamSynchronize, nullptr);
  return env.Undefined();
}

}  // namespace baracuda::driver
