// The native state behind each handle kind. Each owns one CUDA object, is
// built in place by make_shared, destroyed exactly once, on the JS thread,
// and its destructor never touches JS and never throws.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "context.h"

namespace baracuda::driver {

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
inline void FinalizePinnedBuffer(napi_env /*env*/, void* /*data*/, void* hint) {
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

}  // namespace baracuda::driver
