/*
 * A stand-in for libcuda.so.1, for tests on machines without a GPU.
 * Device memory is host memory; streams and events complete at once.
 * It speaks the same C ABI as the real driver for the calls @baracuda/driver
 * makes (see native/cuda_decls.h), which lets CI exercise the addon, the
 * loader and the TypeScript layer end to end.
 *
 * Knobs (read when called):
 *   FAKE_CUDA_DEVICE_COUNT   devices reported (default 1)
 *   FAKE_CUDA_INIT_RESULT    what cuInit returns (default 0)
 *   FAKE_CUDA_MINIMAL        when set at build time (-DFAKE_CUDA_MINIMAL), only
 *                            cuInit, cuDriverGetVersion and cuDeviceGetCount exist
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define FAKE_TOTAL_MEMORY (1ull << 30)
#define FAKE_DRIVER_VERSION 12080

static unsigned long long allocated = 0;

static int env_int(const char* name, int fallback) {
  const char* value = getenv(name);
  return value && *value ? atoi(value) : fallback;
}

CUresult cuInit(unsigned int flags) { return flags != 0 ? 1 : env_int("FAKE_CUDA_INIT_RESULT", 0); }
CUresult cuDriverGetVersion(int* version) {
  *version = FAKE_DRIVER_VERSION;
  return 0;
}
CUresult cuDeviceGetCount(int* count) {
  *count = env_int("FAKE_CUDA_DEVICE_COUNT", 1);
  return 0;
}

#ifndef FAKE_CUDA_MINIMAL
CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 600: *name = "CUDA_ERROR_NOT_READY"; return 0;
    default: *name = 0; return 1;
  }
}
CUresult cuGetErrorString(CUresult error, const char** text) {
  switch (error) {
    case 2: *text = "out of memory"; return 0;
    case 100: *text = "no CUDA-capable device is detected"; return 0;
    default: *text = "fake error"; return 0;
  }
}
static int valid_device(int ordinal) { return ordinal >= 0 && ordinal < env_int("FAKE_CUDA_DEVICE_COUNT", 1); }
CUresult cuDeviceGet(int* device, int ordinal) {
  if (!valid_device(ordinal)) return 101;
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char* name, int length, int device) {
  (void)device;
  strncpy(name, "Fake CUDA Device", (size_t)length);
  return 0;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  (void)device;
  switch (attribute) {
    case 16: *value = 7; return 0;     /* SM count */
    case 75: *value = 8; return 0;     /* cc major */
    case 76: *value = 6; return 0;     /* cc minor */
    case 115: *value = env_int("FAKE_CUDA_POOLS", 1); return 0;
    default: return 1;
  }
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int device) {
  (void)device;
  *bytes = FAKE_TOTAL_MEMORY;
  return 0;
}
static int context_token = 42;
static __thread void* current = 0;
CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  (void)device;
  *context = &context_token;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { (void)device; return 0; }
CUresult cuCtxSetCurrent(void* context) { current = context; return 0; }
CUresult cuCtxGetCurrent(void** context) { *context = current; return 0; }
CUresult cuCtxSynchronize(void) { return current ? 0 : 201; }

CUresult cuStreamCreate(void** stream, unsigned int flags) {
  (void)flags;
  *stream = malloc(16);
  return 0;
}
CUresult cuStreamDestroy_v2(void* stream) { free(stream); return 0; }
CUresult cuStreamSynchronize(void* stream) { (void)stream; return 0; }
CUresult cuStreamQuery(void* stream) { (void)stream; return 0; }
CUresult cuStreamWaitEvent(void* stream, void* event, unsigned int flags) {
  (void)stream; (void)event; (void)flags;
  return 0;
}
CUresult cuEventCreate(void** event, unsigned int flags) {
  (void)flags;
  *event = calloc(1, 16);
  return 0;
}
CUresult cuEventDestroy_v2(void* event) { free(event); return 0; }
CUresult cuEventRecord(void* event, void* stream) { (void)stream; ((int*)event)[0] += 1; return 0; }
CUresult cuEventQuery(void* event) { (void)event; return 0; }
CUresult cuEventSynchronize(void* event) { (void)event; return 0; }
CUresult cuEventElapsedTime_v2(float* ms, void* start, void* end) {
  *ms = (float)(((int*)end)[0] - ((int*)start)[0]) * 0.5f;
  return 0;
}

/* Each allocation carries its size in a header so frees can be counted. */
static CUresult fake_alloc(CUdeviceptr* pointer, size_t bytes) {
  if (bytes == 0) return 1;
  if (allocated + bytes > FAKE_TOTAL_MEMORY) return 2;
  unsigned char* block = malloc(bytes + 256);
  if (!block) return 2;
  memcpy(block, &bytes, sizeof bytes);
  allocated += bytes;
  *pointer = (CUdeviceptr)(uintptr_t)(block + 256);
  return 0;
}
static CUresult fake_free(CUdeviceptr pointer) {
  unsigned char* block = (unsigned char*)(uintptr_t)pointer - 256;
  size_t bytes;
  memcpy(&bytes, block, sizeof bytes);
  allocated -= bytes;
  free(block);
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) { return fake_alloc(pointer, bytes); }
CUresult cuMemFree_v2(CUdeviceptr pointer) { return fake_free(pointer); }
CUresult cuMemAllocAsync(CUdeviceptr* pointer, size_t bytes, void* stream) {
  (void)stream;
  return fake_alloc(pointer, bytes);
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, void* stream) { (void)stream; return fake_free(pointer); }
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  *free_bytes = FAKE_TOTAL_MEMORY - allocated;
  *total = FAKE_TOTAL_MEMORY;
  return 0;
}
CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  (void)flags;
  *pointer = malloc(bytes);
  return *pointer ? 0 : 2;
}
CUresult cuMemFreeHost(void* pointer) { free(pointer); return 0; }

#define DEV(p) ((void*)(uintptr_t)(p))
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) { memcpy(DEV(dst), src, n); return 0; }
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) { memcpy(dst, DEV(src), n); return 0; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { memmove(DEV(dst), DEV(src), n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* s) { (void)s; return cuMemcpyHtoD_v2(dst, src, n); }
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* s) { (void)s; return cuMemcpyDtoH_v2(dst, src, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void* s) { (void)s; return cuMemcpyDtoD_v2(dst, src, n); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void* s) { (void)s; memset(DEV(dst), v, n); return 0; }
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, void* s) {
  (void)s;
  for (size_t i = 0; i < n; ++i) memcpy((unsigned char*)DEV(dst) + 2 * i, &v, 2);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, void* s) {
  (void)s;
  for (size_t i = 0; i < n; ++i) memcpy((unsigned char*)DEV(dst) + 4 * i, &v, 4);
  return 0;
}
#endif
