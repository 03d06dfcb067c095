// Collectives, point-to-point and group calls: each enqueues on `stream` (a CUstream as a bigint,
// what @baracuda/driver's Stream#raw gives) and returns the ncclResult_t.
#include "bindings.h"
#include "support.h"

namespace baracuda::nccl {
namespace {

ncclDataType_t DataTypeArg(Napi::Env env, const Napi::Value &value) {
  return static_cast<ncclDataType_t>(Int32Arg(env, value, "datatype", "an ncclDataType_t"));
}
ncclRedOp_t OpArg(Napi::Env env, const Napi::Value &value) {
  return static_cast<ncclRedOp_t>(Int32Arg(env, value, "op", "an ncclRedOp_t"));
}
cudaStream_t StreamArg(Napi::Env env, const Napi::Value &value) {
  return static_cast<cudaStream_t>(PointerArg(env, value, "stream"));
}

}  // namespace

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallreduce
Napi::Value AllReduce(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclAllReduce);
  const void *send = PointerArg(env, info[0], "sendbuff");
  void *recv = PointerArg(env, info[1], "recvbuff");
  const size_t count = SizeArg(env, info[2], "count");
  const auto datatype = DataTypeArg(env, info[3]);
  const auto op = OpArg(env, info[4]);
  CommArg comm(env, info[5], "comm");
  cudaStream_t stream = StreamArg(env, info[6]);
  return Status(env, fn(send, recv, count, datatype, op, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclbroadcast
Napi::Value Broadcast(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclBroadcast);
  const void *send = PointerArg(env, info[0], "sendbuff");
  void *recv = PointerArg(env, info[1], "recvbuff");
  const size_t count = SizeArg(env, info[2], "count");
  const auto datatype = DataTypeArg(env, info[3]);
  const int root = Int32Arg(env, info[4], "root");
  CommArg comm(env, info[5], "comm");
  cudaStream_t stream = StreamArg(env, info[6]);
  return Status(env, fn(send, recv, count, datatype, root, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreducescatter
Napi::Value ReduceScatter(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclReduceScatter);
  const void *send = PointerArg(env, info[0], "sendbuff");
  void *recv = PointerArg(env, info[1], "recvbuff");
  const size_t count = SizeArg(env, info[2], "recvcount");
  const auto datatype = DataTypeArg(env, info[3]);
  const auto op = OpArg(env, info[4]);
  CommArg comm(env, info[5], "comm");
  cudaStream_t stream = StreamArg(env, info[6]);
  return Status(env, fn(send, recv, count, datatype, op, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallgather
Napi::Value AllGather(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclAllGather);
  const void *send = PointerArg(env, info[0], "sendbuff");
  void *recv = PointerArg(env, info[1], "recvbuff");
  const size_t count = SizeArg(env, info[2], "sendcount");
  const auto datatype = DataTypeArg(env, info[3]);
  CommArg comm(env, info[4], "comm");
  cudaStream_t stream = StreamArg(env, info[5]);
  return Status(env, fn(send, recv, count, datatype, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclsend
Napi::Value Send(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclSend);
  const void *send = PointerArg(env, info[0], "sendbuff");
  const size_t count = SizeArg(env, info[1], "count");
  const auto datatype = DataTypeArg(env, info[2]);
  const int peer = Int32Arg(env, info[3], "peer");
  CommArg comm(env, info[4], "comm");
  cudaStream_t stream = StreamArg(env, info[5]);
  return Status(env, fn(send, count, datatype, peer, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclrecv
Napi::Value Recv(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  auto fn = NCCL_FN(ncclRecv);
  void *recv = PointerArg(env, info[0], "recvbuff");
  const size_t count = SizeArg(env, info[1], "count");
  const auto datatype = DataTypeArg(env, info[2]);
  const int peer = Int32Arg(env, info[3], "peer");
  CommArg comm(env, info[4], "comm");
  cudaStream_t stream = StreamArg(env, info[5]);
  return Status(env, fn(recv, count, datatype, peer, comm.get(), stream));
}

// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html
Napi::Value GroupStart(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Status(env, NCCL_FN(ncclGroupStart)());
}

Napi::Value GroupEnd(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return Status(env, NCCL_FN(ncclGroupEnd)());
}

}  // namespace baracuda::nccl
