// Streams: create, query, synchronize (blocking or on a worker), wait on events.
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

Napi::Value StreamCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  bool nonBlocking = ArgBool(info, 1, "nonBlocking");
  const DeviceContext& device = EnterDevice(env, ordinal);
  CUstream stream = nullptr;
  CU_CHECK(env, cuStreamCreate, &stream, nonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT);
  return WrapHandle(env, std::make_shared<StreamState>(ordinal, device.context, stream));
}

Napi::Value StreamRaw(const Napi::CallbackInfo& info) {
  const auto stream = Unwrap<StreamState>(info, 0, "stream");
  return PointerToBigInt(info.Env(), reinterpret_cast<uint64_t>(stream->stream));
}

Napi::Value StreamQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto stream = Unwrap<StreamState>(info, 0, "stream");
  EnterDevice(env, stream->ordinal);
  CUresult result = Entry(env, &DriverApi::cuStreamQuery, "cuStreamQuery")(stream->stream);
  if (result == CUDA_SUCCESS) return Napi::Boolean::New(env, true);
  if (result == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(env, false);
  ThrowCuda(env, "cuStreamQuery", result);
}

Napi::Value StreamSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto stream = Unwrap<StreamState>(info, 0, "stream");
  EnterDevice(env, stream->ordinal);
  CU_CHECK(env, cuStreamSynchronize, stream->stream);
  return env.Undefined();
}

Napi::Value StreamSynchronizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<StreamState> stream = Unwrap<StreamState>(info, 0, "stream");
  EnterDevice(env, stream->ordinal);
  auto waiter = std::make_unique<EventWaiter>(env, RecordWaitEvent(env, *stream));
  waiter->KeepAlive(stream);
  Napi::Promise promise = waiter->Promise();
  waiter.release()->Queue();  // queued, the worker deletes itself after settling
  return promise;
}

Napi::Value StreamWaitEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto stream = Unwrap<StreamState>(info, 0, "stream");
  const auto event = Unwrap<EventState>(info, 1, "event");
  EnterDevice(env, stream->ordinal);
  CU_CHECK(env, cuStreamWaitEvent, stream->stream, event->event, 0u);
  return env.Undefined();
}

}  // namespace baracuda::driver
