// RecordWaitEvent (declared in waiter.h).
#include "waiter.h"

namespace baracuda::driver {

std::shared_ptr<EventState> RecordWaitEvent(Napi::Env env, const StreamState& stream) {
  Entry(env, &DriverApi::cuEventSynchronize, "cuEventSynchronize");  // the worker will need it
  CUevent event = nullptr;
  CU_CHECK(env, cuEventCreate, &event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
  auto state = std::make_shared<EventState>(stream.ordinal, stream.context, event, false);
  CU_CHECK(env, cuEventRecord, event, stream.stream);
  return state;
}

}  // namespace baracuda::driver
