// Events: create, record, query, synchronize (blocking or on a worker), elapsed time.
#include "bindings.h"
#include "waiter.h"

namespace baracuda::driver {

Napi::Value EventCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  bool timing = ArgBool(info, 1, "timing");
  bool blockingSync = ArgBool(info, 2, "blockingSync");
  const DeviceContext& device = EnterDevice(env, ordinal);
  unsigned int flags = (timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) |
                       (blockingSync ? CU_EVENT_BLOCKING_SYNC : 0u);
  CUevent event = nullptr;
  CU_CHECK(env, cuEventCreate, &event, flags);
  return WrapHandle(env,
                    std::make_shared<EventState>(ordinal, device.context, event, timing));
}

Napi::Value EventRecord(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto event = Unwrap<EventState>(info, 0, "event");
  const auto stream = Unwrap<StreamState>(info, 1, "stream");
  RequireSameDevice(env, event->ordinal, stream->ordinal, "stream");
  EnterDevice(env, event->ordinal);
  CU_CHECK(env, cuEventRecord, event->event, stream->stream);
  return env.Undefined();
}

Napi::Value EventQuery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto event = Unwrap<EventState>(info, 0, "event");
  EnterDevice(env, event->ordinal);
  CUresult result = Entry(env, &DriverApi::cuEventQuery, "cuEventQuery")(event->event);
  if (result == CUDA_SUCCESS) return Napi::Boolean::New(env, true);
  if (result == CUDA_ERROR_NOT_READY) return Napi::Boolean::New(env, false);
  ThrowCuda(env, "cuEventQuery", result);
}

Napi::Value EventSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto event = Unwrap<EventState>(info, 0, "event");
  EnterDevice(env, event->ordinal);
  CU_CHECK(env, cuEventSynchronize, event->event);
  return env.Undefined();
}

Napi::Value EventSynchronizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<EventState> event = Unwrap<EventState>(info, 0, "event");
  EnterDevice(env, event->ordinal);
  Entry(env, &DriverApi::cuEventSynchronize, "cuEventSynchronize");
  auto waiter = std::make_unique<EventWaiter>(env, event);
  Napi::Promise promise = waiter->Promise();
  waiter.release()->Queue();  // queued, the worker deletes itself after settling
  return promise;
}

Napi::Value EventElapsedTime(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto start = Unwrap<EventState>(info, 0, "start");
  const auto end = Unwrap<EventState>(info, 1, "end");
  RequireSameDevice(env, start->ordinal, end->ordinal, "end");
  EnterDevice(env, start->ordinal);
  float milliseconds = 0;
  const DriverApi& api = Driver().api;
  if (api.cuEventElapsedTime_v2 != nullptr) {
    CU_CHECK(env, cuEventElapsedTime_v2, &milliseconds, start->event, end->event);
  } else {
    // Drivers before CUDA 12.8 export only the original symbol.
    CU_CHECK(env, cuEventElapsedTime_v1, &milliseconds, start->event, end->event);
  }
  return Napi::Number::New(env, milliseconds);
}

}  // namespace baracuda::driver
