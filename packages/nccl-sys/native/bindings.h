// Every function the nccl-sys addon exports, by file. addon.cc registers them.
#pragma once

#include <napi.h>

namespace baracuda::nccl {

// addon.cc
Napi::Value Probe(const Napi::CallbackInfo &info);
Napi::Value NativeConstants(const Napi::CallbackInfo &info);

// comm.cc
Napi::Value GetVersion(const Napi::CallbackInfo &info);
Napi::Value GetUniqueId(const Napi::CallbackInfo &info);
Napi::Value CommInitRank(const Napi::CallbackInfo &info);
Napi::Value CommInitRankAsync(const Napi::CallbackInfo &info);
Napi::Value CommInitAll(const Napi::CallbackInfo &info);
Napi::Value CommDestroy(const Napi::CallbackInfo &info);
Napi::Value CommAbort(const Napi::CallbackInfo &info);
Napi::Value CommGetAsyncError(const Napi::CallbackInfo &info);
Napi::Value CommCount(const Napi::CallbackInfo &info);
Napi::Value CommCuDevice(const Napi::CallbackInfo &info);
Napi::Value CommUserRank(const Napi::CallbackInfo &info);
Napi::Value GetErrorString(const Napi::CallbackInfo &info);
Napi::Value GetLastError(const Napi::CallbackInfo &info);

// collectives.cc
Napi::Value AllReduce(const Napi::CallbackInfo &info);
Napi::Value Broadcast(const Napi::CallbackInfo &info);
Napi::Value ReduceScatter(const Napi::CallbackInfo &info);
Napi::Value AllGather(const Napi::CallbackInfo &info);
Napi::Value Send(const Napi::CallbackInfo &info);
Napi::Value Recv(const Napi::CallbackInfo &info);
Napi::Value GroupStart(const Napi::CallbackInfo &info);
Napi::Value GroupEnd(const Napi::CallbackInfo &info);

}  // namespace baracuda::nccl
