// Our own declarations of the CUDA driver API calls baracuda makes.
//
// No NVIDIA header is needed to build the addon: we declare exactly what we
// call, as function-pointer types that the loader fills with dlsym. Each
// typedef names the *versioned* ABI symbol the real <cuda.h> maps the public
// name to (cuMemAlloc -> cuMemAlloc_v2, ...), because that is the symbol we
// dlsym. native/abi_check.cc static_asserts every type and constant here
// against the real header whenever it is present at build time.
//
// Reference: https://docs.nvidia.com/cuda/cuda-driver-api/index.html
#pragma once

#include <cstddef>
#include <cstdint>

// Opaque handle structs keep the real header's (global) names, so a handle
// type here is the very same C++ type as the real one. Declaring an
// incomplete struct twice is harmless when abi_check.cc includes both headers.
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace baracuda::cu {

// The real header spells these as C enums without a fixed underlying type;
// we give ours an explicit `int` so the ABI is pinned, and abi_check.cc proves
// size and values match.
enum CUresult : int {};
enum CUdevice_attribute : int {};

using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = ::CUctx_st*;
using CUstream = ::CUstream_st*;
using CUevent = ::CUevent_st*;
using CUmodule = ::CUmod_st*;
using CUfunction = ::CUfunc_st*;

// ---- CUresult values we branch on ----
constexpr CUresult CUDA_SUCCESS = static_cast<CUresult>(0);
constexpr CUresult CUDA_ERROR_INVALID_VALUE = static_cast<CUresult>(1);
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = static_cast<CUresult>(2);
constexpr CUresult CUDA_ERROR_NO_DEVICE = static_cast<CUresult>(100);
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = static_cast<CUresult>(201);
constexpr CUresult CUDA_ERROR_NOT_FOUND = static_cast<CUresult>(500);
constexpr CUresult CUDA_ERROR_NOT_READY = static_cast<CUresult>(600);
constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = static_cast<CUresult>(801);

// ---- Device attributes (cuDeviceGetAttribute) ----
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT =
    static_cast<CUdevice_attribute>(16);
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR =
    static_cast<CUdevice_attribute>(75);
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR =
    static_cast<CUdevice_attribute>(76);
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED =
    static_cast<CUdevice_attribute>(115);

// ---- Flags ----
constexpr unsigned int CU_STREAM_DEFAULT = 0x0;
constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned int CU_EVENT_DEFAULT = 0x0;
constexpr unsigned int CU_EVENT_BLOCKING_SYNC = 0x1;
constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;
// cuda.h spells this one as a macro, so ours carries a different name.
constexpr unsigned int kCuMemHostAllocPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE
// cuLaunchKernel's `extra` markers. cuda.h spells them as macros casting an
// integer to void* (not constant expressions), so we keep the integers and
// cast at the call; abi_check.cc compares them with the *_AS_INT macros.
constexpr std::uintptr_t kCuLaunchParamEnd = 0x00;            // CU_LAUNCH_PARAM_END
constexpr std::uintptr_t kCuLaunchParamBufferPointer = 0x01;  // CU_LAUNCH_PARAM_BUFFER_POINTER
constexpr std::uintptr_t kCuLaunchParamBufferSize = 0x02;     // CU_LAUNCH_PARAM_BUFFER_SIZE

// ---- Function types, one per symbol we resolve ----
// Each comment names the exact exported symbol.

// cuGetErrorName / cuGetErrorString
using PFN_cuGetErrorName = CUresult (*)(CUresult error, const char** pStr);
using PFN_cuGetErrorString = CUresult (*)(CUresult error, const char** pStr);
// cuInit / cuDriverGetVersion
using PFN_cuInit = CUresult (*)(unsigned int Flags);
using PFN_cuDriverGetVersion = CUresult (*)(int* driverVersion);
// Devices
using PFN_cuDeviceGet = CUresult (*)(CUdevice* device, int ordinal);
using PFN_cuDeviceGetCount = CUresult (*)(int* count);
using PFN_cuDeviceGetName = CUresult (*)(char* name, int len, CUdevice dev);
using PFN_cuDeviceGetAttribute = CUresult (*)(int* pi, CUdevice_attribute attrib, CUdevice dev);
// cuDeviceTotalMem_v2
using PFN_cuDeviceTotalMem_v2 = CUresult (*)(size_t* bytes, CUdevice dev);
// Primary context: cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease_v2
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext* pctx, CUdevice dev);
using PFN_cuDevicePrimaryCtxRelease_v2 = CUresult (*)(CUdevice dev);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuCtxGetCurrent = CUresult (*)(CUcontext* pctx);
using PFN_cuCtxSynchronize = CUresult (*)();
// Streams: cuStreamCreate, cuStreamDestroy_v2, ...
using PFN_cuStreamCreate = CUresult (*)(CUstream* phStream, unsigned int Flags);
using PFN_cuStreamDestroy_v2 = CUresult (*)(CUstream hStream);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream hStream);
using PFN_cuStreamQuery = CUresult (*)(CUstream hStream);
using PFN_cuStreamWaitEvent = CUresult (*)(CUstream hStream, CUevent hEvent, unsigned int Flags);
// Events: cuEventCreate, cuEventDestroy_v2, cuEventElapsedTime_v2 (CUDA 12.8+),
// with the original cuEventElapsedTime as a fallback for older drivers.
using PFN_cuEventCreate = CUresult (*)(CUevent* phEvent, unsigned int Flags);
using PFN_cuEventDestroy_v2 = CUresult (*)(CUevent hEvent);
using PFN_cuEventRecord = CUresult (*)(CUevent hEvent, CUstream hStream);
using PFN_cuEventQuery = CUresult (*)(CUevent hEvent);
using PFN_cuEventSynchronize = CUresult (*)(CUevent hEvent);
using PFN_cuEventElapsedTime_v2 = CUresult (*)(float* pMilliseconds, CUevent hStart, CUevent hEnd);
using PFN_cuEventElapsedTime_v1 = CUresult (*)(float* pMilliseconds, CUevent hStart, CUevent hEnd);
// Memory: cuMemAlloc_v2, cuMemFree_v2, cuMemGetInfo_v2, cuMemAllocAsync, cuMemFreeAsync
using PFN_cuMemAlloc_v2 = CUresult (*)(CUdeviceptr* dptr, size_t bytesize);
using PFN_cuMemFree_v2 = CUresult (*)(CUdeviceptr dptr);
using PFN_cuMemGetInfo_v2 = CUresult (*)(size_t* free, size_t* total);
using PFN_cuMemAllocAsync = CUresult (*)(CUdeviceptr* dptr, size_t bytesize, CUstream hStream);
using PFN_cuMemFreeAsync = CUresult (*)(CUdeviceptr dptr, CUstream hStream);
// Page-locked host memory: cuMemHostAlloc, cuMemFreeHost
using PFN_cuMemHostAlloc = CUresult (*)(void** pp, size_t bytesize, unsigned int Flags);
using PFN_cuMemFreeHost = CUresult (*)(void* p);
// Copies: cuMemcpy{HtoD,DtoH,DtoD}_v2 and their *Async_v2 forms
using PFN_cuMemcpyHtoD_v2 = CUresult (*)(CUdeviceptr dstDevice, const void* srcHost,
                                         size_t ByteCount);
using PFN_cuMemcpyDtoH_v2 = CUresult (*)(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount);
using PFN_cuMemcpyDtoD_v2 = CUresult (*)(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount);
using PFN_cuMemcpyHtoDAsync_v2 = CUresult (*)(CUdeviceptr dstDevice, const void* srcHost,
                                              size_t ByteCount, CUstream hStream);
using PFN_cuMemcpyDtoHAsync_v2 = CUresult (*)(void* dstHost, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream);
using PFN_cuMemcpyDtoDAsync_v2 = CUresult (*)(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream);
// Memset: cuMemsetD{8,16,32}_v2 and cuMemsetD{8,16,32}Async
using PFN_cuMemsetD8_v2 = CUresult (*)(CUdeviceptr dstDevice, unsigned char uc, size_t N);
using PFN_cuMemsetD16_v2 = CUresult (*)(CUdeviceptr dstDevice, unsigned short us, size_t N);
using PFN_cuMemsetD32_v2 = CUresult (*)(CUdeviceptr dstDevice, unsigned int ui, size_t N);
using PFN_cuMemsetD8Async = CUresult (*)(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                         CUstream hStream);
using PFN_cuMemsetD16Async = CUresult (*)(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                          CUstream hStream);
using PFN_cuMemsetD32Async = CUresult (*)(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                          CUstream hStream);
// Modules and kernels: cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel
// https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html
// https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html
using PFN_cuModuleLoadData = CUresult (*)(CUmodule* module, const void* image);
using PFN_cuModuleUnload = CUresult (*)(CUmodule hmod);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction* hfunc, CUmodule hmod, const char* name);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction f, unsigned int gridDimX,
                                        unsigned int gridDimY, unsigned int gridDimZ,
                                        unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                                        CUstream hStream, void** kernelParams, void** extra);

// Every symbol the loader resolves, in one list: X(symbol, required).
// `required` symbols must be exported for a library to count as libcuda at
// all (libz has none of them); the others are resolved at the same time and a
// missing one is reported when first called (an old driver).
// cuEventElapsedTime (the pre-12.8 symbol) is resolved separately as a
// fallback for cuEventElapsedTime_v2; see loader.cc.
#define BARACUDA_CU_FUNCTIONS(X)   \
  X(cuInit, true)                  \
  X(cuDriverGetVersion, true)      \
  X(cuDeviceGetCount, true)        \
  X(cuGetErrorName, false)         \
  X(cuGetErrorString, false)       \
  X(cuDeviceGet, false)            \
  X(cuDeviceGetName, false)        \
  X(cuDeviceGetAttribute, false)   \
  X(cuDeviceTotalMem_v2, false)    \
  X(cuDevicePrimaryCtxRetain, false) \
  X(cuDevicePrimaryCtxRelease_v2, false) \
  X(cuCtxSetCurrent, false)        \
  X(cuCtxGetCurrent, false)        \
  X(cuCtxSynchronize, false)       \
  X(cuStreamCreate, false)         \
  X(cuStreamDestroy_v2, false)     \
  X(cuStreamSynchronize, false)    \
  X(cuStreamQuery, false)          \
  X(cuStreamWaitEvent, false)      \
  X(cuEventCreate, false)          \
  X(cuEventDestroy_v2, false)      \
  X(cuEventRecord, false)          \
  X(cuEventQuery, false)           \
  X(cuEventSynchronize, false)     \
  X(cuEventElapsedTime_v2, false)  \
  X(cuMemAlloc_v2, false)          \
  X(cuMemFree_v2, false)           \
  X(cuMemGetInfo_v2, false)        \
  X(cuMemAllocAsync, false)        \
  X(cuMemFreeAsync, false)         \
  X(cuMemHostAlloc, false)         \
  X(cuMemFreeHost, false)          \
  X(cuMemcpyHtoD_v2, false)        \
  X(cuMemcpyDtoH_v2, false)        \
  X(cuMemcpyDtoD_v2, false)        \
  X(cuMemcpyHtoDAsync_v2, false)   \
  X(cuMemcpyDtoHAsync_v2, false)   \
  X(cuMemcpyDtoDAsync_v2, false)   \
  X(cuMemsetD8_v2, false)          \
  X(cuMemsetD16_v2, false)         \
  X(cuMemsetD32_v2, false)         \
  X(cuMemsetD8Async, false)        \
  X(cuMemsetD16Async, false)       \
  X(cuMemsetD32Async, false)       \
  X(cuModuleLoadData, false)       \
  X(cuModuleUnload, false)         \
  X(cuModuleGetFunction, false)    \
  X(cuLaunchKernel, false)

}  // namespace baracuda::cu
