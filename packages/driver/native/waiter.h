// Waiting for the device off the main thread: a libuv worker sleeps on an
// event, then a promise settles on the JS thread.
#pragma once

#include <memory>

#include "handles.h"

namespace baracuda::driver {

/**
 * Waits for an event on a libuv worker thread, then settles a promise on the
 * main thread. It keeps alive everything the queued work touches: the event,
 * the allocation, the stream and the host array.
 */
class EventWaiter : public Napi::AsyncWorker {
 public:
  EventWaiter(Napi::Env env, std::shared_ptr<EventState> event)
      : Napi::AsyncWorker(env, "baracuda.eventWait"),
        deferred_(Napi::Promise::Deferred::New(env)),
        event_(std::move(event)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }
  void KeepAlive(std::shared_ptr<Allocation> allocation) { allocation_ = std::move(allocation); }
  void KeepAlive(std::shared_ptr<StreamState> stream) { stream_ = std::move(stream); }
  /** Page-locked memory the copy reads or writes: a dispose() meanwhile does not free it. */
  void KeepAlive(std::shared_ptr<PinnedState> pinned) { pinned_ = std::move(pinned); }
  void KeepHostAlive(Napi::Value host) {
    if (host.IsObject()) host_ = Napi::Persistent(host.As<Napi::Object>());
  }

 protected:
  void Execute() override {
    const DriverApi& api = Driver().api;
    // The worker thread has no current context until we set one.
    result_ = api.cuCtxSetCurrent(event_->context);
    if (result_ != CUDA_SUCCESS) {
      call_ = "cuCtxSetCurrent";
      return;
    }
    result_ = api.cuEventSynchronize(event_->event);
    call_ = "cuEventSynchronize";
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    if (result_ == CUDA_SUCCESS) {
      deferred_.Resolve(env.Undefined());
    } else {
      deferred_.Reject(MakeCudaError(env, call_, result_).Value());
    }
    if (!host_.IsEmpty()) host_.Reset();
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<EventState> event_;
  std::shared_ptr<Allocation> allocation_;
  std::shared_ptr<StreamState> stream_;
  std::shared_ptr<PinnedState> pinned_;
  Napi::ObjectReference host_;
  int result_ = CUDA_SUCCESS;
  const char* call_ = "cuEventSynchronize";
};

/** A one-shot event recorded on `stream` that a worker thread sleeps on (no spinning). */
std::shared_ptr<EventState> RecordWaitEvent(Napi::Env env, const StreamState& stream);

}  // namespace baracuda::driver
