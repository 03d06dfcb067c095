// Our own declarations of the NCCL 2 C API we call, written from NVIDIA's documentation
// (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html), never copied from nccl.h.
// native/abi_check.cc proves them against the real <nccl.h> where one is installed
// (scripts/abi-check.sh).
#pragma once

#include <cstddef>

extern "C" {

struct ncclComm;
typedef struct ncclComm *ncclComm_t;
typedef struct CUstream_st *cudaStream_t;

// The opaque 128-byte id one rank makes (ncclGetUniqueId) and every rank passes to ncclCommInitRank.
#define BARACUDA_NCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[BARACUDA_NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
} ncclResult_t;

typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4,
} ncclRedOp_t;

typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
} ncclDataType_t;

}  // extern "C"

// The constants we mirror, checked by abi_check.cc: X(name, value).
#define BARACUDA_NCCL_CONSTANTS(X)                                                        \
  X(ncclSuccess, 0) X(ncclUnhandledCudaError, 1) X(ncclSystemError, 2)                   \
  X(ncclInternalError, 3) X(ncclInvalidArgument, 4) X(ncclInvalidUsage, 5)               \
  X(ncclRemoteError, 6) X(ncclInProgress, 7) X(ncclSum, 0) X(ncclProd, 1) X(ncclMax, 2)  \
  X(ncclMin, 3) X(ncclAvg, 4) X(ncclInt8, 0) X(ncclUint8, 1) X(ncclInt32, 2)             \
  X(ncclUint32, 3) X(ncclInt64, 4) X(ncclUint64, 5) X(ncclFloat16, 6) X(ncclFloat32, 7)  \
  X(ncclFloat64, 8) X(ncclBfloat16, 9)

// Every function we call: X(name, return type, parameter list).
#define BARACUDA_NCCL_FUNCTIONS(X)                                                           \
  X(ncclGetVersion, ncclResult_t, (int *version))                                            \
  X(ncclGetUniqueId, ncclResult_t, (ncclUniqueId * uniqueId))                                \
  X(ncclCommInitRank, ncclResult_t,                                                          \
    (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank))                          \
  X(ncclCommInitAll, ncclResult_t, (ncclComm_t * comm, int ndev, const int *devlist))        \
  X(ncclCommDestroy, ncclResult_t, (ncclComm_t comm))                                        \
  X(ncclCommAbort, ncclResult_t, (ncclComm_t comm))                                          \
  X(ncclCommGetAsyncError, ncclResult_t, (ncclComm_t comm, ncclResult_t * asyncError))       \
  X(ncclCommCount, ncclResult_t, (const ncclComm_t comm, int *count))                        \
  X(ncclCommCuDevice, ncclResult_t, (const ncclComm_t comm, int *device))                    \
  X(ncclCommUserRank, ncclResult_t, (const ncclComm_t comm, int *rank))                      \
  X(ncclAllReduce, ncclResult_t,                                                             \
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,            \
     ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))                                  \
  X(ncclBroadcast, ncclResult_t,                                                             \
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,  \
     ncclComm_t comm, cudaStream_t stream))                                                  \
  X(ncclReduceScatter, ncclResult_t,                                                         \
    (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,        \
     ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))                                  \
  X(ncclAllGather, ncclResult_t,                                                             \
    (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,        \
     ncclComm_t comm, cudaStream_t stream))                                                  \
  X(ncclSend, ncclResult_t,                                                                  \
    (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, \
     cudaStream_t stream))                                                                   \
  X(ncclRecv, ncclResult_t,                                                                  \
    (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,       \
     cudaStream_t stream))                                                                   \
  X(ncclGroupStart, ncclResult_t, ())                                                        \
  X(ncclGroupEnd, ncclResult_t, ())                                                          \
  X(ncclGetErrorString, const char *, (ncclResult_t result))                                 \
  X(ncclGetLastError, const char *, (ncclComm_t comm))

#define BARACUDA_NCCL_PFN(name, ret, params) using PFN_##name = ret(*) params;
BARACUDA_NCCL_FUNCTIONS(BARACUDA_NCCL_PFN)
#undef BARACUDA_NCCL_PFN

// The three libcuda calls that make a device's primary context current on the calling thread
// before ncclCommInitRank (NCCL takes the current device; see loader.cc).
typedef int CUresult_nccl_sys;
typedef struct CUctx_st *CUcontext_nccl_sys;
using PFN_cuDevicePrimaryCtxRetain_nccl = CUresult_nccl_sys (*)(CUcontext_nccl_sys *, int);
using PFN_cuDevicePrimaryCtxRelease_nccl = CUresult_nccl_sys (*)(int);
using PFN_cuCtxGetCurrent_nccl = CUresult_nccl_sys (*)(CUcontext_nccl_sys *);
using PFN_cuCtxSetCurrent_nccl = CUresult_nccl_sys (*)(CUcontext_nccl_sys);
