// @baracuda/driver native addon: a thin, defensive layer over the CUDA driver
// API. The TypeScript layer (src/) validates arguments and turns the errors
// thrown here into the typed errors of @baracuda/types; this file still checks
// everything it is given, so a wrong call from JS is a TypeError/RangeError,
// never a crash.
//
// Errors from CUDA calls are thrown as JS Errors carrying `cudaCall`,
// `cudaResult`, `cudaResultName` and `cudaResultString`; when the driver is not
// loaded, an Error with `driverNotLoaded: true` (translateNativeError in
// src/driver.ts maps both to the typed errors of @baracuda/types).
//
// Handles are JS externals, type-tagged per kind, each owning a Box that holds
// a shared_ptr to the native state. Destroying from JS resets the Box; the
// state itself (and the CUDA object) goes away when the last owner lets go:
// a stream outlives the buffers allocated on it, a buffer outlives the async
// copies that use it. State destructors run on the main thread, never touch JS
// and never throw.
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cuda_decls.h"
#include "loader.h"

namespace baracuda {
namespace {

using namespace cu;

// Result objects are filled with data properties defined in place (napi_define_properties), never
// assigned: an assignment runs a setter that user code may have put on Object.prototype or
// Array.prototype, which would run JavaScript in the middle of a binding (and could swallow the
// value). Defining runs no JavaScript.
template <typename V>
void Put(const Napi::Object& object, const char *key, const V &value) {
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      key, Napi::Value::From(object.Env(), value), napi_default_jsproperty));
}
template <typename V>
void PutIndex(const Napi::Object& object, uint32_t index, const V &value) {
  Napi::Env env = object.Env();
  object.DefineProperty(Napi::PropertyDescriptor::Value(
      Napi::String::New(env, std::to_string(index)), Napi::Value::From(env, value),
      napi_default_jsproperty));
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

[[noreturn]] void ThrowCuda(Napi::Env env, const char* call, int result) {
  std::string name = ResultName(result);
  std::string text = ResultString(result);
  Napi::Error error = Napi::Error::New(env, std::string("`") + call + "` failed: " + name);
  Put(error.Value(), "cudaCall", Napi::String::New(env, call));
  Put(error.Value(), "cudaResult", Napi::Number::New(env, result));
  Put(error.Value(), "cudaResultName", Napi::String::New(env, name));
  Put(error.Value(), "cudaResultString", Napi::String::New(env, text));
  throw error;
}

Napi::Error MakeCudaError(Napi::Env env, const char* call, int result) {
  std::string name = ResultName(result);
  Napi::Error error = Napi::Error::New(env, std::string("`") + call + "` failed: " + name);
  Put(error.Value(), "cudaCall", Napi::String::New(env, call));
  Put(error.Value(), "cudaResult", Napi::Number::New(env, result));
  Put(error.Value(), "cudaResultName", Napi::String::New(env, name));
  Put(error.Value(), "cudaResultString", Napi::String::New(env, ResultString(result)));
  return error;
}

[[noreturn]] void ThrowType(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

[[noreturn]] void ThrowRange(Napi::Env env, const std::string& message) {
  throw Napi::RangeError::New(env, message);
}

/** The loaded driver, or a thrown error saying why there is none. */
const DriverState& RequireDriver(Napi::Env env) {
  const DriverState& driver = Driver();
  if (!driver.loaded) {
    Napi::Error error = Napi::Error::New(env, "The CUDA driver library (libcuda.so.1) is not loaded");
    Put(error.Value(), "driverNotLoaded", Napi::Boolean::New(env, true));
    throw error;
  }
  if (!driver.initialized) ThrowCuda(env, "cuInit", driver.initResult);
  return driver;
}

/** The resolved entry point, or a thrown CUDA_ERROR_NOT_FOUND naming the missing symbol. */
template <typename Fn>
Fn Entry(Napi::Env env, Fn DriverApi::*member, const char* symbol) {
  Fn fn = Driver().api.*member;
  if (fn == nullptr) {
    Napi::Error error = Napi::Error::New(
        env, std::string("The CUDA driver at ") + Driver().libraryPath + " does not export " +
                 symbol + "; update the NVIDIA driver");
    Put(error.Value(), "cudaCall", Napi::String::New(env, symbol));
    Put(error.Value(), "cudaResult", Napi::Number::New(env, CUDA_ERROR_NOT_FOUND));
    Put(error.Value(), "cudaResultName", Napi::String::New(env, "CUDA_ERROR_NOT_FOUND"));
    Put(error.Value(), "cudaResultString",
              Napi::String::New(env, std::string("symbol ") + symbol + " not found in libcuda"));
    throw error;
  }
  return fn;
}

// Calls a driver function and throws a CUDA error unless it returns CUDA_SUCCESS.
#define CU_CHECK(env, fn, ...)                                            \
  do {                                                                    \
    CUresult cu_check_result_ = Entry(env, &DriverApi::fn, #fn)(__VA_ARGS__); \
    if (cu_check_result_ != CUDA_SUCCESS) ThrowCuda(env, #fn, cu_check_result_); \
  } while (0)

// ---------------------------------------------------------------------------
// Argument parsing: no coercion, ever.
// ---------------------------------------------------------------------------

double ArgNumber(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsNumber()) ThrowType(info.Env(), std::string("Expected a number for ") + name);
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number) {
    ThrowType(info.Env(), std::string("Expected an integer for ") + name);
  }
  return number;
}

int ArgInt(const Napi::CallbackInfo& info, size_t index, const char* name, int min, int max) {
  double number = ArgNumber(info, index, name);
  if (number < min || number > max) {
    ThrowRange(info.Env(), std::string(name) + " is out of range [" + std::to_string(min) + ", " +
                               std::to_string(max) + "]");
  }
  return static_cast<int>(number);
}

constexpr double kMaxSafeInteger = 9007199254740991.0;

size_t ArgSize(const Napi::CallbackInfo& info, size_t index, const char* name) {
  double number = ArgNumber(info, index, name);
  if (number < 0 || number > kMaxSafeInteger) {
    ThrowRange(info.Env(), std::string(name) + " must be a non-negative safe integer");
  }
  return static_cast<size_t>(number);
}

uint64_t ArgUint32(const Napi::CallbackInfo& info, size_t index, const char* name) {
  double number = ArgNumber(info, index, name);
  if (number < 0 || number > 4294967295.0) {
    ThrowRange(info.Env(), std::string(name) + " is out of range [0, 4294967295]");
  }
  return static_cast<uint64_t>(number);
}

uint64_t ArgBigUint64(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsBigInt()) ThrowType(info.Env(), std::string("Expected a bigint for ") + name);
  bool lossless = false;
  uint64_t result = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) ThrowRange(info.Env(), std::string(name) + " does not fit in 64 bits");
  return result;
}

bool ArgBool(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsBoolean()) ThrowType(info.Env(), std::string("Expected a boolean for ") + name);
  return value.As<Napi::Boolean>().Value();
}

/** Host bytes of a TypedArray or DataView. */
struct HostView {
  uint8_t* data;
  size_t length;
};

HostView ArgHostView(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  napi_env env = info.Env();
  void* data = nullptr;
  size_t length = 0;
  // Raw Node-API on purpose: napi_get_*_info reads the view without running JS
  // and works for views over a SharedArrayBuffer too (Napi::DataView's
  // ArrayBuffer() does not).
  napi_status status = napi_invalid_arg;
  if (value.IsTypedArray()) {
    napi_typedarray_type type;
    size_t elements = 0;
    status = napi_get_typedarray_info(env, value, &type, &elements, &data, nullptr, nullptr);
    if (status == napi_ok) length = value.As<Napi::TypedArray>().ByteLength();
  } else if (value.IsDataView()) {
    status = napi_get_dataview_info(env, value, &length, &data, nullptr, nullptr);
  } else {
    ThrowType(info.Env(), std::string("Expected a TypedArray or DataView for ") + name);
  }
  if (status != napi_ok) {
    ThrowType(info.Env(), std::string("Could not read the memory of ") + name);
  }
  if (data == nullptr && length > 0) {
    ThrowType(info.Env(), std::string(name) + " is backed by a detached ArrayBuffer");
  }
  return HostView{static_cast<uint8_t*>(data), length};
}

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

struct DeviceContext {
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool memoryPools = false;
};

// Primary contexts, retained for the process lifetime and shared by every worker (a CUDA context
// belongs to the process). Never destroyed: nothing runs at static destruction while a worker or
// a thread-pool wait may still be running.
std::mutex& contextsMutex = *new std::mutex();
std::map<int, DeviceContext>& contexts = *new std::map<int, DeviceContext>();

/**
 * Retains the device's primary context on first use and makes it current on
 * the calling thread, so cuDNN (runtime API) and our allocations share it.
 */
const DeviceContext& EnterDevice(Napi::Env env, int ordinal) {
  const DriverState& driver = RequireDriver(env);
  if (ordinal < 0 || ordinal >= driver.deviceCount) {
    ThrowRange(env, "Device ordinal " + std::to_string(ordinal) + " is out of range: " +
                        std::to_string(driver.deviceCount) + " CUDA device(s) present");
  }
  std::lock_guard<std::mutex> lock(contextsMutex);
  auto found = contexts.find(ordinal);
  if (found == contexts.end()) {
    DeviceContext entry;
    CU_CHECK(env, cuDeviceGet, &entry.device, ordinal);
    CU_CHECK(env, cuDevicePrimaryCtxRetain, &entry.context, entry.device);
    int pools = 0;
    if (driver.api.cuDeviceGetAttribute != nullptr &&
        driver.api.cuMemAllocAsync != nullptr && driver.api.cuMemFreeAsync != nullptr &&
        driver.api.cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                        entry.device) == CUDA_SUCCESS) {
      entry.memoryPools = pools != 0;
    }
    found = contexts.emplace(ordinal, entry).first;
  }
  CU_CHECK(env, cuCtxSetCurrent, found->second.context);
  return found->second;
}

/**
 * Makes `context` current for a destructor's cleanup call and restores the
 * previous one afterwards, so a finalizer never changes what JS code (or cuDNN)
 * sees as current. Ignores every error: this is a safety net.
 */
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext context) {
    const DriverApi& api = Driver().api;
    if (api.cuCtxGetCurrent != nullptr) api.cuCtxGetCurrent(&previous_);
    if (api.cuCtxSetCurrent != nullptr && previous_ != context) {
      api.cuCtxSetCurrent(context);
      restore_ = true;
    }
  }
  ~ScopedContext() {
    if (restore_) Driver().api.cuCtxSetCurrent(previous_);
  }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool restore_ = false;
};

// ---------------------------------------------------------------------------
// Native states
// ---------------------------------------------------------------------------

// The states own CUDA objects: never copied, built in place by make_shared,
// destroyed exactly once.
struct StreamState {
  int ordinal;
  CUcontext context;
  CUstream stream;
  StreamState(int ordinal_, CUcontext context_, CUstream stream_)
      : ordinal(ordinal_), context(context_), stream(stream_) {}
  StreamState(const StreamState&) = delete;
  StreamState& operator=(const StreamState&) = delete;
  ~StreamState() {
    // cuStreamDestroy returns at once; the driver releases the stream after
    // the work already queued on it completes.
    ScopedContext scope(context);
    if (Driver().api.cuStreamDestroy_v2 != nullptr) Driver().api.cuStreamDestroy_v2(stream);
  }
};

struct EventState {
  int ordinal;
  CUcontext context;
  CUevent event;
  bool timing;
  EventState(int ordinal_, CUcontext context_, CUevent event_, bool timing_)
      : ordinal(ordinal_), context(context_), event(event_), timing(timing_) {}
  EventState(const EventState&) = delete;
  EventState& operator=(const EventState&) = delete;
  ~EventState() {
    ScopedContext scope(context);
    if (Driver().api.cuEventDestroy_v2 != nullptr) Driver().api.cuEventDestroy_v2(event);
  }
};

struct Allocation {
  int ordinal;
  CUcontext context;
  CUdeviceptr pointer;
  size_t byteLength;
  /** Set for stream-ordered allocations: freed with cuMemFreeAsync on this stream. */
  std::shared_ptr<StreamState> stream;
  Allocation(int ordinal_, CUcontext context_, CUdeviceptr pointer_, size_t byteLength_,
             std::shared_ptr<StreamState> stream_)
      : ordinal(ordinal_),
        context(context_),
        pointer(pointer_),
        byteLength(byteLength_),
        stream(std::move(stream_)) {}
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() {
    ScopedContext scope(context);
    const DriverApi& api = Driver().api;
    if (stream) {
      // Stream order: the free runs after everything already queued on the
      // allocation's stream.
      if (api.cuMemFreeAsync != nullptr) api.cuMemFreeAsync(pointer, stream->stream);
    } else if (api.cuMemFree_v2 != nullptr) {
      // cuMemFree does not return the memory while the device may still use it:
      // it synchronizes with the device first.
      api.cuMemFree_v2(pointer);
    }
  }
};

struct PinnedState {
  CUcontext context;
  void* pointer;
  size_t byteLength;
  /** The key of this memory's entry in PinnedRegistry (the ArrayBuffer's finalizer hint). */
  uint64_t id = 0;
  PinnedState(CUcontext context_, void* pointer_, size_t byteLength_)
      : context(context_), pointer(pointer_), byteLength(byteLength_) {}
  PinnedState(const PinnedState&) = delete;
  PinnedState& operator=(const PinnedState&) = delete;
  ~PinnedState() {
    ScopedContext scope(context);
    if (Driver().api.cuMemFreeHost != nullptr) Driver().api.cuMemFreeHost(pointer);
  }
};

/**
 * The ArrayBuffers' share of page-locked memory, by a unique id. The id, not a
 * pointer, is the external ArrayBuffer's finalizer hint: whichever of the
 * finalizer (now, later or never: Node runs it itself when it refuses the
 * buffer), hostFree or a failed creation removes the entry first drops the
 * reference, and the others find nothing. No ownership is ever released twice.
 * Process-wide behind a mutex (workers share it); never destroyed, so nothing
 * runs at static destruction.
 */
class PinnedRegistry {
 public:
  static uint64_t Add(std::shared_ptr<PinnedState> state) {
    Registry& registry = Get();
    std::lock_guard<std::mutex> lock(registry.mutex);
    uint64_t id = ++registry.nextId;
    state->id = id;
    registry.entries.emplace(id, std::move(state));
    return id;
  }

  /** Drops the entry's reference (if it is still there); its byte length, or 0. */
  static size_t Remove(uint64_t id) {
    std::shared_ptr<PinnedState> released;  // freed outside the lock
    {
      Registry& registry = Get();
      std::lock_guard<std::mutex> lock(registry.mutex);
      auto found = registry.entries.find(id);
      if (found == registry.entries.end()) return 0;
      released = std::move(found->second);
      registry.entries.erase(found);
    }
    return released->byteLength;
  }

  /** The live page-locked memory holding [data, data + length), or null. */
  static std::shared_ptr<PinnedState> Containing(const void* data, size_t length) {
    Registry& registry = Get();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto address = reinterpret_cast<uintptr_t>(data);
    for (const auto& entry : registry.entries) {
      auto base = reinterpret_cast<uintptr_t>(entry.second->pointer);
      if (address >= base && length <= entry.second->byteLength &&
          address - base <= entry.second->byteLength - length) {
        return entry.second;
      }
    }
    return nullptr;
  }

 private:
  struct Registry {
    std::mutex mutex;
    uint64_t nextId = 0;
    std::map<uint64_t, std::shared_ptr<PinnedState>> entries;
  };
  static Registry& Get() {
    static Registry* registry = new Registry();
    return *registry;
  }
};

/** The external ArrayBuffer's finalizer: no JS, never throws. */
void FinalizePinnedBuffer(napi_env /*env*/, void* /*data*/, void* hint) {
  PinnedRegistry::Remove(reinterpret_cast<uint64_t>(hint));
}

/**
 * A loaded module. Unloading waits for the device first when the module has
 * launched anything: cuModuleUnload while one of its kernels may still run is
 * undefined behaviour, and the driver does not wait by itself.
 */
struct ModuleState {
  int ordinal;
  CUcontext context;
  CUmodule module;
  /** Set by the first launch of one of its functions. */
  bool launched = false;
  ModuleState(int ordinal_, CUcontext context_, CUmodule module_)
      : ordinal(ordinal_), context(context_), module(module_) {}
  ModuleState(const ModuleState&) = delete;
  ModuleState& operator=(const ModuleState&) = delete;
  ~ModuleState() {
    ScopedContext scope(context);
    const DriverApi& api = Driver().api;
    if (launched && api.cuCtxSynchronize != nullptr) api.cuCtxSynchronize();
    if (api.cuModuleUnload != nullptr) api.cuModuleUnload(module);
  }
};

/**
 * A kernel of a module. It does not keep the module loaded: unloading the
 * module (moduleUnload, or the GC reaching it) makes its functions unusable,
 * and the native layer refuses them rather than launching a dangling CUfunction.
 * The TypeScript KernelFunction holds its Module, so the GC never unloads a
 * module whose functions are still reachable.
 */
struct FunctionState {
  std::weak_ptr<ModuleState> module;
  CUcontext context;
  CUfunction function;
  std::string name;
  FunctionState(std::weak_ptr<ModuleState> module_, CUcontext context_, CUfunction function_,
                std::string name_)
      : module(std::move(module_)),
        context(context_),
        function(function_),
        name(std::move(name_)) {}
  FunctionState(const FunctionState&) = delete;
  FunctionState& operator=(const FunctionState&) = delete;
};

// ---------------------------------------------------------------------------
// Type-tagged handles
// ---------------------------------------------------------------------------

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
std::shared_ptr<StreamState> OptionalStream(const Napi::CallbackInfo& info, size_t index,
                                            const char* name) {
  if (info[index].IsNull() || info[index].IsUndefined()) return nullptr;
  return Unwrap<StreamState>(info, index, name);
}

Napi::BigInt PointerToBigInt(Napi::Env env, uint64_t value) {
  return Napi::BigInt::New(env, value);
}

void RequireSameDevice(Napi::Env env, int a, int b, const char* what) {
  if (a != b) {
    ThrowRange(env, std::string(what) + " belongs to device " + std::to_string(b) +
                        ", not device " + std::to_string(a));
  }
}

/** Range check inside an allocation: [offset, offset + length) ⊆ [0, byteLength). */
void RequireInside(Napi::Env env, const Allocation& allocation, size_t offset, size_t length) {
  if (offset > allocation.byteLength || length > allocation.byteLength - offset) {
    ThrowRange(env, "Range [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                        ") lies outside the " + std::to_string(allocation.byteLength) +
                        "-byte allocation");
  }
}

// ---------------------------------------------------------------------------
// Waiting off the main thread
// ---------------------------------------------------------------------------

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
std::shared_ptr<EventState> RecordWaitEvent(Napi::Env env, const StreamState& stream) {
  Entry(env, &DriverApi::cuEventSynchronize, "cuEventSynchronize");  // the worker will need it
  CUevent event = nullptr;
  CU_CHECK(env, cuEventCreate, &event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
  auto state = std::make_shared<EventState>(stream.ordinal, stream.context, event, false);
  CU_CHECK(env, cuEventRecord, event, stream.stream);
  return state;
}

// ---------------------------------------------------------------------------
// Probe
// ---------------------------------------------------------------------------

Napi::Value DriverStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DriverState& driver = Driver();
  Napi::Object result = Napi::Object::New(env);
  Put(result, "loaded", driver.loaded);
  Put(result, "initialized", driver.initialized);
  Put(result, "libraryPath", driver.loaded ? Napi::Value(Napi::String::New(env, driver.libraryPath))
                                          : env.Null());
  Put(result, "overridePath", driver.overridePath.empty()
                                 ? env.Null()
                                 : Napi::Value(Napi::String::New(env, driver.overridePath)));
  Napi::Array searched = Napi::Array::New(env, driver.searched.size());
  for (size_t i = 0; i < driver.searched.size(); ++i) {
    Napi::Object attempt = Napi::Object::New(env);
    Put(attempt, "path", driver.searched[i].path);
    Put(attempt, "error", driver.searched[i].error);
    PutIndex(searched, static_cast<uint32_t>(i), attempt);
  }
  Put(result, "searched", searched);
  Put(result, "initResult", driver.initResult);
  Put(result, "initResultName", driver.loaded && driver.initResult >= 0
                                   ? Napi::Value(Napi::String::New(env, ResultName(driver.initResult)))
                                   : env.Null());
  Put(result, "initResultString",
             driver.loaded && driver.initResult >= 0
                 ? Napi::Value(Napi::String::New(env, ResultString(driver.initResult)))
                 : env.Null());
  Put(result, "driverVersion", driver.driverVersion);
  Put(result, "deviceCount", driver.deviceCount);
  return result;
}

// ---------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), RequireDriver(info.Env()).deviceCount);
}

Napi::Value DeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  const DeviceContext& device = EnterDevice(env, ordinal);
  char name[256] = {0};
  CU_CHECK(env, cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), device.device);
  int major = 0, minor = 0, sms = 0;
  CU_CHECK(env, cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
           device.device);
  CU_CHECK(env, cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
           device.device);
  CU_CHECK(env, cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
           device.device);
  size_t total = 0;
  CU_CHECK(env, cuDeviceTotalMem_v2, &total, device.device);
  Napi::Object result = Napi::Object::New(env);
  Put(result, "name", std::string(name));
  Put(result, "major", major);
  Put(result, "minor", minor);
  Put(result, "smCount", sms);
  Put(result, "totalMemory", static_cast<double>(total));
  Put(result, "memoryPoolsSupported", device.memoryPools);
  return result;
}

Napi::Value DeviceMemoryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  size_t free = 0, total = 0;
  CU_CHECK(env, cuMemGetInfo_v2, &free, &total);
  Napi::Object result = Napi::Object::New(env);
  Put(result, "free", static_cast<double>(free));
  Put(result, "total", static_cast<double>(total));
  return result;
}

Napi::Value DeviceSynchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  CU_CHECK(env, cuCtxSynchronize);
  return env.Undefined();
}

Napi::Value DeviceMakeCurrent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DeviceContext& device = EnterDevice(env, ArgInt(info, 0, "ordinal", 0, 1 << 20));
  return PointerToBigInt(env, reinterpret_cast<uint64_t>(device.context));
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

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

template <typename State>
Napi::Value DestroyHandle(const Napi::CallbackInfo& info) {
  // Idempotent: a second destroy of the same handle is a no-op.
  Box<State>* box = UnwrapBox<State>(info, 0, "handle");
  box->state.reset();
  return info.Env().Undefined();
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Device memory
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Page-locked host memory
// ---------------------------------------------------------------------------

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
  if (info[1].IsArrayBuffer()) {
    Napi::ArrayBuffer buffer = info[1].As<Napi::ArrayBuffer>();
    if (!buffer.IsDetached() && buffer.Data() == box->state->pointer) buffer.Detach();
  }
  std::shared_ptr<PinnedState> state = std::move(box->state);
  PinnedRegistry::Remove(state->id);
  return env.Undefined();
}

// ---------------------------------------------------------------------------
// Kernels: modules, functions, launches
// ---------------------------------------------------------------------------

/** The bytes of a Uint8Array (nothing else: no coercion from other views). */
HostView ArgUint8Array(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    ThrowType(info.Env(), std::string("Expected a Uint8Array for ") + name);
  }
  return ArgHostView(info, index, name);
}

/**
 * A CUDA error whose description (`cudaResultString`) carries what we were
 * doing, e.g. which kernel name was not found.
 */
[[noreturn]] void ThrowCudaWithDetail(Napi::Env env, const char* call, int result,
                                      const std::string& detail) {
  Napi::Error error = MakeCudaError(env, call, result);
  std::string text = ResultString(result);
  Put(error.Value(), "cudaResultString",
            Napi::String::New(env, text.empty() ? detail : text + "; " + detail));
  throw error;
}

/**
 * moduleLoadData(ordinal, image: Uint8Array): loads a PTX, cubin or fatbin
 * image into the device's primary context. The image is copied with a NUL
 * byte after it: cuModuleLoadData reads PTX as a C string, and a cubin or
 * fatbin carries its own size, so the extra byte is harmless there.
 */
Napi::Value ModuleLoadData(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int ordinal = ArgInt(info, 0, "ordinal", 0, 1 << 20);
  HostView image = ArgUint8Array(info, 1, "image");
  if (image.length == 0) ThrowRange(env, "image must not be empty");
  std::string terminated(reinterpret_cast<const char*>(image.data), image.length);
  const DeviceContext& device = EnterDevice(env, ordinal);
  CUmodule module = nullptr;
  CUresult result =
      Entry(env, &DriverApi::cuModuleLoadData, "cuModuleLoadData")(&module, terminated.c_str());
  if (result != CUDA_SUCCESS) {
    ThrowCudaWithDetail(env, "cuModuleLoadData", result,
                        "loading a " + std::to_string(image.length) +
                            "-byte module image on device " + std::to_string(ordinal));
  }
  return WrapHandle(env, std::make_shared<ModuleState>(ordinal, device.context, module));
}

/** moduleGetFunction(module, name): the kernel `name` (cuModuleGetFunction). */
Napi::Value ModuleGetFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto module = Unwrap<ModuleState>(info, 0, "module");
  if (!info[1].IsString()) ThrowType(env, "Expected a string for name");
  std::string name = info[1].As<Napi::String>().Utf8Value();
  if (name.empty()) ThrowRange(env, "name must not be empty");
  if (name.find('\0') != std::string::npos) {
    ThrowRange(env, "name must not contain a NUL character");
  }
  EnterDevice(env, module->ordinal);
  CUfunction function = nullptr;
  CUresult result = Entry(env, &DriverApi::cuModuleGetFunction, "cuModuleGetFunction")(
      &function, module->module, name.c_str());
  if (result != CUDA_SUCCESS) {
    std::string detail = "no kernel named \"" + name + "\" in this module";
    if (result == CUDA_ERROR_NOT_FOUND) {
      detail += " (a C++ kernel's name is mangled unless it is declared extern \"C\")";
    }
    ThrowCudaWithDetail(env, "cuModuleGetFunction", result, detail);
  }
  return WrapHandle(env, std::make_shared<FunctionState>(std::weak_ptr<ModuleState>(module),
                                                         module->context, function, name));
}

/**
 * launchKernel(fn, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes,
 * stream: bigint, params: Uint8Array). The hot path: no allocation of ours,
 * and the context is made current only when it is not already (one
 * thread-local read otherwise). `params` is the packed argument buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER); the driver copies it before returning.
 */
Napi::Value LaunchKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto function = Unwrap<FunctionState>(info, 0, "fn");
  unsigned int gridX = static_cast<unsigned int>(ArgUint32(info, 1, "gridX"));
  unsigned int gridY = static_cast<unsigned int>(ArgUint32(info, 2, "gridY"));
  unsigned int gridZ = static_cast<unsigned int>(ArgUint32(info, 3, "gridZ"));
  unsigned int blockX = static_cast<unsigned int>(ArgUint32(info, 4, "blockX"));
  unsigned int blockY = static_cast<unsigned int>(ArgUint32(info, 5, "blockY"));
  unsigned int blockZ = static_cast<unsigned int>(ArgUint32(info, 6, "blockZ"));
  unsigned int shared = static_cast<unsigned int>(ArgUint32(info, 7, "sharedBytes"));
  uint64_t stream = ArgBigUint64(info, 8, "stream");
  HostView params = ArgUint8Array(info, 9, "params");
  std::shared_ptr<ModuleState> module = function->module.lock();
  if (!module) ThrowType(env, "The Module of the KernelFunction passed as fn has been unloaded");

  CUcontext current = nullptr;
  CU_CHECK(env, cuCtxGetCurrent, &current);
  if (current != function->context) CU_CHECK(env, cuCtxSetCurrent, function->context);

  size_t paramBytes = params.length;
  void* extra[] = {
      reinterpret_cast<void*>(kCuLaunchParamBufferPointer), params.data,
      reinterpret_cast<void*>(kCuLaunchParamBufferSize), &paramBytes,
      reinterpret_cast<void*>(kCuLaunchParamEnd),
  };
  PFN_cuLaunchKernel launch = Entry(env, &DriverApi::cuLaunchKernel, "cuLaunchKernel");
  CUresult result = launch(function->function, gridX, gridY, gridZ, blockX, blockY, blockZ, shared,
                           reinterpret_cast<CUstream>(stream), nullptr, extra);
  if (result != CUDA_SUCCESS) {
    ThrowCudaWithDetail(
        env, "cuLaunchKernel", result,
        "launching " + function->name + " with grid [" + std::to_string(gridX) + ", " +
            std::to_string(gridY) + ", " + std::to_string(gridZ) + "], block [" +
            std::to_string(blockX) + ", " + std::to_string(blockY) + ", " + std::to_string(blockZ) +
            "], " + std::to_string(shared) + " shared bytes and " + std::to_string(paramBytes) +
            " parameter bytes");
  }
  module->launched = true;
  return env.Undefined();
}

// ---------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // Nothing here touches libcuda: it is opened by the first call that needs it.
  exports.Set("driverStatus", Napi::Function::New(env, DriverStatus, "driverStatus"));
  exports.Set("deviceCount", Napi::Function::New(env, DeviceCount, "deviceCount"));
  exports.Set("deviceInfo", Napi::Function::New(env, DeviceInfo, "deviceInfo"));
  exports.Set("deviceMemoryInfo", Napi::Function::New(env, DeviceMemoryInfo, "deviceMemoryInfo"));
  exports.Set("deviceSynchronize",
              Napi::Function::New(env, DeviceSynchronize, "deviceSynchronize"));
  exports.Set("deviceMakeCurrent",
              Napi::Function::New(env, DeviceMakeCurrent, "deviceMakeCurrent"));
  exports.Set("streamCreate", Napi::Function::New(env, StreamCreate, "streamCreate"));
  exports.Set("streamRaw", Napi::Function::New(env, StreamRaw, "streamRaw"));
  exports.Set("streamQuery", Napi::Function::New(env, StreamQuery, "streamQuery"));
  exports.Set("streamSynchronize",
              Napi::Function::New(env, StreamSynchronize, "streamSynchronize"));
  exports.Set("streamSynchronizeAsync",
              Napi::Function::New(env, StreamSynchronizeAsync, "streamSynchronizeAsync"));
  exports.Set("streamWaitEvent", Napi::Function::New(env, StreamWaitEvent, "streamWaitEvent"));
  exports.Set("streamDestroy",
              Napi::Function::New(env, DestroyHandle<StreamState>, "streamDestroy"));
  exports.Set("eventCreate", Napi::Function::New(env, EventCreate, "eventCreate"));
  exports.Set("eventRecord", Napi::Function::New(env, EventRecord, "eventRecord"));
  exports.Set("eventQuery", Napi::Function::New(env, EventQuery, "eventQuery"));
  exports.Set("eventSynchronize", Napi::Function::New(env, EventSynchronize, "eventSynchronize"));
  exports.Set("eventSynchronizeAsync",
              Napi::Function::New(env, EventSynchronizeAsync, "eventSynchronizeAsync"));
  exports.Set("eventElapsedTime", Napi::Function::New(env, EventElapsedTime, "eventElapsedTime"));
  exports.Set("eventDestroy", Napi::Function::New(env, DestroyHandle<EventState>, "eventDestroy"));
  exports.Set("memAlloc", Napi::Function::New(env, MemAlloc, "memAlloc"));
  exports.Set("memFree", Napi::Function::New(env, DestroyHandle<Allocation>, "memFree"));
  exports.Set("memcpyHtoD", Napi::Function::New(env, MemcpyHtoD, "memcpyHtoD"));
  exports.Set("memcpyDtoH", Napi::Function::New(env, MemcpyDtoH, "memcpyDtoH"));
  exports.Set("memcpyHtoDAsync", Napi::Function::New(env, MemcpyHtoDAsync, "memcpyHtoDAsync"));
  exports.Set("memcpyDtoHAsync", Napi::Function::New(env, MemcpyDtoHAsync, "memcpyDtoHAsync"));
  exports.Set("memcpyDtoD", Napi::Function::New(env, MemcpyDtoD, "memcpyDtoD"));
  exports.Set("memset", Napi::Function::New(env, Memset, "memset"));
  exports.Set("hostAlloc", Napi::Function::New(env, HostAlloc, "hostAlloc"));
  exports.Set("hostFree", Napi::Function::New(env, HostFree, "hostFree"));
  exports.Set("moduleLoadData", Napi::Function::New(env, ModuleLoadData, "moduleLoadData"));
  exports.Set("moduleGetFunction",
              Napi::Function::New(env, ModuleGetFunction, "moduleGetFunction"));
  exports.Set("moduleUnload",
              Napi::Function::New(env, DestroyHandle<ModuleState>, "moduleUnload"));
  exports.Set("launchKernel", Napi::Function::New(env, LaunchKernel, "launchKernel"));
  return exports;
}

}  // namespace
}  // namespace baracuda

Napi::Object InitBaracudaDriver(Napi::Env env, Napi::Object exports) {
  return baracuda::Init(env, exports);
}

NODE_API_MODULE(baracuda_driver, InitBaracudaDriver)
