// Version, unique id, communicator lifetime and queries, and the error strings.
#include <cstring>
#include <vector>

#include "bindings.h"
#include "device_guard.h"
#include "support.h"

namespace baracuda::nccl {
namespace {

// The optional trailing cudaDevice of the init calls: undefined (the thread's current device) or
// a device ordinal.
int DeviceArg(Napi::Env env, const Napi::Value &value) {
  if (value.IsUndefined()) return -1;
  const int device = Int32Arg(env, value, "cudaDevice", "a device ordinal (an int32 >= 0)");
  if (device < 0) ThrowType(env, "cudaDevice", "a device ordinal (an int32 >= 0)", value);
  return device;
}

class InitRankWorker : public Napi::AsyncWorker {
 public:
  InitRankWorker(Napi::Env env, PFN_ncclCommInitRank fn, int nranks, ncclUniqueId id, int rank,
                 int device)
      : Napi::AsyncWorker(env, "ncclCommInitRank"),
        deferred_(Napi::Promise::Deferred::New(env)),
        fn_(fn), nranks_(nranks), id_(id), rank_(rank), device_(device) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    DeviceGuard guard(device_);
    if (!guard.error().empty()) {
      guardError_ = guard.error();
      return;
    }
    status_ = fn_(&comm_, nranks_, id_, rank_);
  }
  void OnOK() override {
    Napi::Env env = Env();
    if (!guardError_.empty()) {
      deferred_.Reject(Napi::Error::New(env, guardError_).Value());
      return;
    }
    Napi::Object result = Result(env, status_);
    Put(result, "comm", status_ == ncclSuccess ? WrapComm(env, comm_) : env.Null());
    deferred_.Resolve(result);
  }
  void OnError(const Napi::Error &error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  PFN_ncclCommInitRank fn_;
  int nranks_;
  ncclUniqueId id_;
  int rank_;
  int device_;
  ncclComm_t comm_ = nullptr;
  ncclResult_t status_ = ncclInternalError;
  std::string guardError_;
};

template <typename Query>
Napi::Value IntQuery(const Napi::CallbackInfo &info, Query fn, const char *outName) {
  Napi::Env env = info.Env();
  CommArg comm(env, info[0], "comm");
  int value = 0;
  Napi::Object result = Result(env, fn(comm.get(), &value));
  Put(result, outName, value);
  return result;
}

}  // namespace

Napi::Value GetVersion(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclGetVersion);
  int version = 0;
  Napi::Object result = Result(env, fn(&version));
  Put(result, "version", version);
  return result;
}

Napi::Value GetUniqueId(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclGetUniqueId);
  ncclUniqueId id{};
  const ncclResult_t status = fn(&id);
  Napi::Object result = Result(env, status);
  Napi::Uint8Array bytes = Napi::Uint8Array::New(env, sizeof id.internal);
  std::memcpy(bytes.Data(), id.internal, sizeof id.internal);
  Put(result, "uniqueId", bytes);
  return result;
}

// Blocks the calling thread until every rank has joined (NCCL's own semantics); the safe layer
// uses ncclCommInitRankAsync instead, except between ncclGroupStart and ncclGroupEnd.
Napi::Value CommInitRank(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommInitRank);
  const int nranks = Int32Arg(env, info[0], "nranks");
  const ncclUniqueId id = UniqueIdArg(env, info[1], "commId");
  const int rank = Int32Arg(env, info[2], "rank");
  const int device = DeviceArg(env, info[3]);
  ncclComm_t comm = nullptr;
  ncclResult_t status;
  {
    DeviceGuard guard(device);
    if (!guard.error().empty()) throw Napi::Error::New(env, guard.error());
    status = fn(&comm, nranks, id, rank);
  }
  Napi::Object result = Result(env, status);
  Put(result, "comm", status == ncclSuccess ? WrapComm(env, comm) : env.Null());
  return result;
}

// ncclCommInitRank on a libuv worker thread: resolves {status, comm}, never blocks the loop.
Napi::Value CommInitRankAsync(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommInitRank);
  const int nranks = Int32Arg(env, info[0], "nranks");
  const ncclUniqueId id = UniqueIdArg(env, info[1], "commId");
  const int rank = Int32Arg(env, info[2], "rank");
  const int device = DeviceArg(env, info[3]);
  auto *worker = new InitRankWorker(env, fn, nranks, id, rank, device);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value CommInitAll(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommInitAll);
  constexpr const char *what = "an Int32Array of device ordinals";
  if (!info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    ThrowType(env, "devlist", what, info[0]);
  }
  Napi::Int32Array list = info[0].As<Napi::Int32Array>();
  std::vector<int> devices(list.Data(), list.Data() + list.ElementLength());
  if (devices.empty()) ThrowType(env, "devlist", "a non-empty Int32Array of device ordinals", info[0]);
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  const ncclResult_t status = fn(comms.data(), static_cast<int>(devices.size()), devices.data());
  Napi::Object result = Result(env, status);
  Napi::Array wrapped = Napi::Array::New(env, status == ncclSuccess ? comms.size() : 0);
  if (status == ncclSuccess) {
    for (size_t i = 0; i < comms.size(); ++i) {
      wrapped.DefineProperty(Napi::PropertyDescriptor::Value(
          Napi::String::New(env, std::to_string(i)), WrapComm(env, comms[i]),
          napi_default_jsproperty));
    }
  }
  Put(result, "comms", wrapped);
  return result;
}

Napi::Value CommDestroy(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommDestroy);
  CommArg comm(env, info[0], "comm");
  NcclComm *native = comm.native();
  const ncclResult_t status = fn(native->comm());
  native->MarkDestroyed();  // gone (or unusable) whatever the status: never handed to NCCL again
  return Status(env, status);
}

Napi::Value CommAbort(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommAbort);
  CommArg comm(env, info[0], "comm");
  NcclComm *native = comm.native();
  const ncclResult_t status = fn(native->comm());
  native->MarkDestroyed();
  return Status(env, status);
}

Napi::Value CommGetAsyncError(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclCommGetAsyncError);
  CommArg comm(env, info[0], "comm");
  ncclResult_t asyncError = ncclSuccess;
  Napi::Object result = Result(env, fn(comm.get(), &asyncError));
  Put(result, "asyncError", Status(env, asyncError));
  return result;
}

Napi::Value CommCount(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return IntQuery(info, NCCL_FN(ncclCommCount), "count");
}

Napi::Value CommCuDevice(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return IntQuery(info, NCCL_FN(ncclCommCuDevice), "device");
}

Napi::Value CommUserRank(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return IntQuery(info, NCCL_FN(ncclCommUserRank), "rank");
}

Napi::Value GetErrorString(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclGetErrorString);
  const auto result = static_cast<ncclResult_t>(Int32Arg(env, info[0], "result", "an ncclResult_t"));
  const char *text = fn(result);
  return Napi::String::New(env, text ? text : "");
}

// comm may be null: NCCL then reports the thread's last error.
Napi::Value GetLastError(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclGetLastError);
  if (info[0].IsNull() || info[0].IsUndefined()) {
    const char *text = fn(nullptr);
    return Napi::String::New(env, text ? text : "");
  }
  CommArg comm(env, info[0], "comm");
  const char *text = fn(comm.get());
  return Napi::String::New(env, text ? text : "");
}

}  // namespace baracuda::nccl
