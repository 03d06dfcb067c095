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
 *   FAKE_CUDA_NO_MODULES     build time: an older driver without cuModuleLoadData,
 *                            cuModuleUnload, cuModuleGetFunction and cuLaunchKernel
 *   FAKE_CUDA_NO_LAUNCH      build time: modules load, but cuLaunchKernel is missing
 *   FAKE_CUDA_EVENT_LOG      a file to which each cuEventCreate appends its flags, a line each
 *   FAKE_CUDA_LAUNCH_MS      milliseconds each kernel launched between two events' records adds
 *                            to their elapsed time (default 0; negative makes the runs that launch
 *                            a kernel time faster than those that do not)
 * fake_cuda_spend_ms(ms)     exported for the other fakes: work of `ms` milliseconds enqueued now
 *                            (the fake libcudnn's scripted engine times), which the elapsed time of
 *                            two events recorded around it includes
 *
 * Modules and kernels: cuModuleLoadData reads the image as a C string (as the
 * driver reads PTX) and keeps a copy; cuModuleGetFunction finds ".entry NAME"
 * in it (CUDA_ERROR_NOT_FOUND otherwise); an image starting with
 * FAKE_INVALID_PTX or FAKE_UNSUPPORTED_PTX fails the way the driver does.
 * cuLaunchKernel checks the `extra` array and the current context, then "runs"
 * a few kernels by name on the host, so tests read results back through
 * device memory like real kernel output. Each takes a u64 device pointer
 * `out` as its first parameter:
 *   fake_record  writes the launch as the driver saw it (see struct launch_record)
 *   fake_image   writes the module image: u64 byte count (with the NUL), then the bytes
 *   fake_iota    writes u32 i to out[i] for every thread i of a 1-D launch
 *   fake_fail    returns CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
 * Any other entry launches successfully and does nothing.
 *
 * Device memory is checked as a real driver checks it: every device pointer a
 * call dereferences (copies, memsets, the writing kernels' `out`) must lie,
 * with its whole range, inside a live allocation; otherwise the call returns
 * CUDA_ERROR_INVALID_VALUE (the kernels: CUDA_ERROR_ILLEGAL_ADDRESS) and
 * touches nothing. Frees of unknown pointers return CUDA_ERROR_INVALID_VALUE.
 *
 * Live counts: the fake counts what is alive (device allocations and their
 * bytes, page-locked host allocations, streams, events, modules, functions,
 * retained primary contexts) and exports them as `fake_live_counts()`, a JSON
 * string. Tests read it in-process with `fakeLiveCounts()` from
 * scripts/testing/build-fake.mjs (a tiny Node-API reader, see there), e.g. to
 * assert that dispose() freed everything. Thread-safe: workers share it.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define FAKE_TOTAL_MEMORY (1ull << 30)
#define FAKE_DRIVER_VERSION 12080

static unsigned long long allocated = 0;

/* Live objects, under `lock` (worker threads call in at the same time). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  long long allocations, hostAllocations, streams, events, modules, functions, contexts;
} live;
#define LIVE_ADD(field, n)        \
  do {                            \
    pthread_mutex_lock(&lock);    \
    live.field += (n);            \
    pthread_mutex_unlock(&lock);  \
  } while (0)

/* The JSON of the live counts; the string stays valid until the calling thread's next call. */
const char* fake_live_counts(void) {
  static __thread char text[512];
  pthread_mutex_lock(&lock);
  snprintf(text, sizeof text,
           "{\"allocations\":%lld,\"allocatedBytes\":%llu,\"hostAllocations\":%lld,"
           "\"streams\":%lld,\"events\":%lld,\"modules\":%lld,\"functions\":%lld,"
           "\"contexts\":%lld}",
           live.allocations, allocated, live.hostAllocations, live.streams, live.events,
           live.modules, live.functions, live.contexts);
  pthread_mutex_unlock(&lock);
  return text;
}

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
    case 201: *name = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 222: *name = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; return 0;
    case 400: *name = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 600: *name = "CUDA_ERROR_NOT_READY"; return 0;
    case 700: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
    case 701: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return 0;
    default: *name = 0; return 1;
  }
}
CUresult cuGetErrorString(CUresult error, const char** text) {
  switch (error) {
    case 2: *text = "out of memory"; return 0;
    case 100: *text = "no CUDA-capable device is detected"; return 0;
    case 218: *text = "a PTX JIT compilation failed"; return 0;
    case 222: *text = "the provided PTX was compiled with an unsupported toolchain."; return 0;
    case 500: *text = "named symbol not found"; return 0;
    case 701: *text = "too many resources requested for launch"; return 0;
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
static unsigned long long set_current_calls = 0;
CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  (void)device;
  *context = &context_token;
  LIVE_ADD(contexts, 1);
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  LIVE_ADD(contexts, -1);
  return 0;
}
CUresult cuCtxSetCurrent(void* context) {
  __atomic_fetch_add(&set_current_calls, 1, __ATOMIC_RELAXED);
  current = context;
  return 0;
}
CUresult cuCtxGetCurrent(void** context) { *context = current; return 0; }
CUresult cuCtxSynchronize(void) { return current ? 0 : 201; }

CUresult cuStreamCreate(void** stream, unsigned int flags) {
  (void)flags;
  *stream = malloc(16);
  if (!*stream) return 2;
  LIVE_ADD(streams, 1);
  return 0;
}
CUresult cuStreamDestroy_v2(void* stream) {
  if (!stream) return 400;
  free(stream);
  LIVE_ADD(streams, -1);
  return 0;
}
CUresult cuStreamSynchronize(void* stream) { (void)stream; return 0; }
CUresult cuStreamQuery(void* stream) { (void)stream; return 0; }
CUresult cuStreamWaitEvent(void* stream, void* event, unsigned int flags) {
  (void)stream; (void)event; (void)flags;
  return 0;
}
/* Kernels launched so far (cuLaunchKernel), which an event notes when recorded. */
static unsigned long long launches = 0;
/* Microseconds of work the other fakes enqueued so far (fake_cuda_spend_ms). */
static long long spent_us = 0;
/* An event: how often it was recorded, and `launches` and `spent_us` at its last record. */
struct fake_event {
  int records;
  unsigned long long launches;
  long long spent_us;
};

void fake_cuda_spend_ms(double ms) {
  __atomic_fetch_add(&spent_us, (long long)(ms * 1000.0), __ATOMIC_RELAXED);
}

CUresult cuEventCreate(void** event, unsigned int flags) {
  const char* path = getenv("FAKE_CUDA_EVENT_LOG");
  FILE* log = (path && *path) ? fopen(path, "a") : NULL;
  if (log) {
    fprintf(log, "%u\n", flags);
    fclose(log);
  }
  *event = calloc(1, sizeof(struct fake_event));
  if (!*event) return 2;
  LIVE_ADD(events, 1);
  return 0;
}
CUresult cuEventDestroy_v2(void* event) {
  if (!event) return 400;
  free(event);
  LIVE_ADD(events, -1);
  return 0;
}
CUresult cuEventRecord(void* event, void* stream) {
  (void)stream;
  struct fake_event* e = event;
  e->records += 1;
  e->launches = __atomic_load_n(&launches, __ATOMIC_RELAXED);
  e->spent_us = __atomic_load_n(&spent_us, __ATOMIC_RELAXED);
  return 0;
}
CUresult cuEventQuery(void* event) { (void)event; return 0; }
CUresult cuEventSynchronize(void* event) { (void)event; return 0; }
CUresult cuEventElapsedTime_v2(float* ms, void* start, void* end) {
  const struct fake_event* s = start;
  const struct fake_event* e = end;
  const char* per_launch = getenv("FAKE_CUDA_LAUNCH_MS");
  double launched = (double)(e->launches - s->launches);
  *ms = (float)((e->records - s->records) * 0.5 +
                (per_launch && *per_launch ? launched * atof(per_launch) : 0.0) +
                (double)(e->spent_us - s->spent_us) / 1000.0);
  return 0;
}

/* The live device allocations, newest first, under `lock`. "Device memory" is
   host memory, but only pointers inside one of these are ever dereferenced. */
struct fake_allocation {
  unsigned char* data;
  size_t bytes;
  struct fake_allocation* next;
};
static struct fake_allocation* allocations = 0;

static CUresult fake_alloc(CUdeviceptr* pointer, size_t bytes) {
  if (!pointer || bytes == 0) return 1;
  pthread_mutex_lock(&lock);
  if (allocated + bytes > FAKE_TOTAL_MEMORY) {
    pthread_mutex_unlock(&lock);
    return 2;
  }
  struct fake_allocation* entry = malloc(sizeof *entry);
  unsigned char* data = malloc(bytes);
  if (!entry || !data) {
    free(entry);
    free(data);
    pthread_mutex_unlock(&lock);
    return 2;
  }
  entry->data = data;
  entry->bytes = bytes;
  entry->next = allocations;
  allocations = entry;
  allocated += bytes;
  live.allocations++;
  pthread_mutex_unlock(&lock);
  *pointer = (CUdeviceptr)(uintptr_t)data;
  return 0;
}

static CUresult fake_free(CUdeviceptr pointer) {
  pthread_mutex_lock(&lock);
  for (struct fake_allocation** at = &allocations; *at; at = &(*at)->next) {
    struct fake_allocation* entry = *at;
    if ((CUdeviceptr)(uintptr_t)entry->data == pointer) {
      *at = entry->next;
      allocated -= entry->bytes;
      live.allocations--;
      pthread_mutex_unlock(&lock);
      free(entry->data);
      free(entry);
      return 0;
    }
  }
  pthread_mutex_unlock(&lock);
  return 1; /* CUDA_ERROR_INVALID_VALUE: not an allocation of ours */
}

/* The host address behind [pointer, pointer + bytes) when all of it lies in one
   live allocation; NULL otherwise. A range of 0 bytes still needs a valid start. */
static unsigned char* device_range(CUdeviceptr pointer, size_t bytes) {
  unsigned char* found = 0;
  pthread_mutex_lock(&lock);
  for (struct fake_allocation* entry = allocations; entry; entry = entry->next) {
    CUdeviceptr base = (CUdeviceptr)(uintptr_t)entry->data;
    if (pointer >= base && pointer - base <= entry->bytes && bytes <= entry->bytes - (pointer - base)) {
      found = entry->data + (pointer - base);
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return found;
}

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) { return fake_alloc(pointer, bytes); }
CUresult cuMemFree_v2(CUdeviceptr pointer) { return fake_free(pointer); }
CUresult cuMemAllocAsync(CUdeviceptr* pointer, size_t bytes, void* stream) {
  (void)stream;
  return fake_alloc(pointer, bytes);
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, void* stream) { (void)stream; return fake_free(pointer); }
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  pthread_mutex_lock(&lock);
  *free_bytes = FAKE_TOTAL_MEMORY - allocated;
  pthread_mutex_unlock(&lock);
  *total = FAKE_TOTAL_MEMORY;
  return 0;
}
CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  (void)flags;
  if (!pointer || bytes == 0) return 1;
  *pointer = malloc(bytes);
  if (!*pointer) return 2;
  LIVE_ADD(hostAllocations, 1);
  return 0;
}
CUresult cuMemFreeHost(void* pointer) {
  if (!pointer) return 1;
  free(pointer);
  LIVE_ADD(hostAllocations, -1);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  unsigned char* to = device_range(dst, n);
  if (!to || (n > 0 && !src)) return 1;
  memcpy(to, src, n);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  unsigned char* from = device_range(src, n);
  if (!from || (n > 0 && !dst)) return 1;
  memcpy(dst, from, n);
  return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  unsigned char* to = device_range(dst, n);
  unsigned char* from = device_range(src, n);
  if (!to || !from) return 1;
  memmove(to, from, n);
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* s) { (void)s; return cuMemcpyHtoD_v2(dst, src, n); }
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* s) { (void)s; return cuMemcpyDtoH_v2(dst, src, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void* s) { (void)s; return cuMemcpyDtoD_v2(dst, src, n); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void* s) {
  (void)s;
  unsigned char* to = device_range(dst, n);
  if (!to) return 1;
  memset(to, v, n);
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, void* s) {
  (void)s;
  unsigned char* to = n > SIZE_MAX / 2 ? 0 : device_range(dst, 2 * n);
  if (!to) return 1;
  for (size_t i = 0; i < n; ++i) memcpy(to + 2 * i, &v, 2);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, void* s) {
  (void)s;
  unsigned char* to = n > SIZE_MAX / 4 ? 0 : device_range(dst, 4 * n);
  if (!to) return 1;
  for (size_t i = 0; i < n; ++i) memcpy(to + 4 * i, &v, 4);
  return 0;
}
#ifndef FAKE_CUDA_NO_MODULES
#define FAKE_MODULE_MAGIC 0x6d6f64756c65ull
#define FAKE_FUNCTION_MAGIC 0x66756e6374ull
struct fake_function {
  unsigned long long magic;
  struct fake_module* module;
  struct fake_function* next;
  char name[128];
};
struct fake_module {
  unsigned long long magic;
  char* image; /* a copy, read as a C string */
  size_t length;
  struct fake_function* functions;
};
static int live_modules = 0;

CUresult cuModuleLoadData(void** module, const void* image) {
  if (!module || !image) return 1;
  if (!current) return 201;
  const char* text = (const char*)image;
  if (strncmp(text, "FAKE_INVALID_PTX", 16) == 0) return 218;
  if (strncmp(text, "FAKE_UNSUPPORTED_PTX", 20) == 0) return 222;
  struct fake_module* loaded = calloc(1, sizeof *loaded);
  loaded->magic = FAKE_MODULE_MAGIC;
  loaded->length = strlen(text);
  loaded->image = malloc(loaded->length + 1);
  memcpy(loaded->image, text, loaded->length + 1);
  pthread_mutex_lock(&lock);
  live_modules++;
  live.modules++;
  pthread_mutex_unlock(&lock);
  *module = loaded;
  return 0;
}
CUresult cuModuleUnload(void* module) {
  struct fake_module* loaded = module;
  if (!loaded || loaded->magic != FAKE_MODULE_MAGIC) return 400;
  if (!current) return 201;
  struct fake_function* fn = loaded->functions;
  long long functions = 0;
  while (fn) {
    struct fake_function* next = fn->next;
    fn->magic = 0;
    free(fn);
    fn = next;
    functions++;
  }
  loaded->magic = 0;
  free(loaded->image);
  free(loaded);
  pthread_mutex_lock(&lock);
  live_modules--;
  live.modules--;
  live.functions -= functions;
  pthread_mutex_unlock(&lock);
  return 0;
}
static int is_identifier(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}
CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
  struct fake_module* loaded = module;
  if (!function || !name || !loaded || loaded->magic != FAKE_MODULE_MAGIC) return 400;
  if (!current) return 201;
  size_t length = strlen(name);
  if (length == 0 || length >= sizeof(((struct fake_function*)0)->name)) return 500;
  for (const char* at = strstr(loaded->image, ".entry "); at; at = strstr(at + 1, ".entry ")) {
    const char* start = at + 7;
    while (*start == ' ') start++;
    if (strncmp(start, name, length) == 0 && !is_identifier(start[length])) {
      struct fake_function* fn = calloc(1, sizeof *fn);
      fn->magic = FAKE_FUNCTION_MAGIC;
      fn->module = loaded;
      memcpy(fn->name, name, length + 1);
      pthread_mutex_lock(&lock);
      fn->next = loaded->functions;
      loaded->functions = fn;
      live.functions++;
      pthread_mutex_unlock(&lock);
      *function = fn;
      return 0;
    }
  }
  return 500;
}

#ifndef FAKE_CUDA_NO_LAUNCH
/* What fake_record writes to `out`, little-endian, 64 bytes then the params. */
struct launch_record {
  unsigned int grid[3];
  unsigned int block[3];
  unsigned int shared_bytes;
  unsigned int live_modules;
  unsigned long long stream;
  unsigned long long param_bytes;
  unsigned long long set_current_calls;
  unsigned long long extra_length; /* entries in `extra` up to and including CU_LAUNCH_PARAM_END */
};

CUresult cuLaunchKernel(void* function, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        void* stream, void** kernel_params, void** extra) {
  struct fake_function* fn = function;
  if (!fn || fn->magic != FAKE_FUNCTION_MAGIC) return 400;
  if (!current) return 201;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return 1;
  /* We only speak the packed-buffer form: kernelParams NULL and
     {BUFFER_POINTER, p, BUFFER_SIZE, &size, END} in `extra`. */
  if (kernel_params != 0 || extra == 0) return 1;
  if (extra[0] != (void*)0x01 || extra[2] != (void*)0x02 || extra[4] != (void*)0x00) return 1;
  const unsigned char* params = extra[1];
  size_t param_bytes = *(const size_t*)extra[3];
  if (param_bytes > 0 && !params) return 1;
  const char* name = fn->name;
  if (strcmp(name, "fake_fail") == 0) return 701;
  __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED);
  int writes = strcmp(name, "fake_record") == 0 || strcmp(name, "fake_image") == 0 ||
               strcmp(name, "fake_iota") == 0;
  if (!writes) return 0;
  if (param_bytes < 8) return 1;
  CUdeviceptr out_pointer;
  memcpy(&out_pointer, params, 8);
  size_t needed;
  if (strcmp(name, "fake_record") == 0) {
    needed = sizeof(struct launch_record) + param_bytes;
  } else if (strcmp(name, "fake_image") == 0) {
    needed = 8 + fn->module->length + 1;
  } else {
    needed = 4 * (size_t)gx * (size_t)bx;
  }
  /* A kernel writing outside device memory faults: CUDA_ERROR_ILLEGAL_ADDRESS. */
  unsigned char* out = device_range(out_pointer, needed);
  if (!out) return 700;
  if (strcmp(name, "fake_record") == 0) {
    struct launch_record record = {{gx, gy, gz}, {bx, by, bz}, shared, (unsigned int)live_modules,
                                   (unsigned long long)(uintptr_t)stream, param_bytes,
                                   set_current_calls, 5};
    memcpy(out, &record, sizeof record);
    memcpy(out + sizeof record, params, param_bytes);
  } else if (strcmp(name, "fake_image") == 0) {
    unsigned long long length = fn->module->length + 1;
    memcpy(out, &length, 8);
    memcpy(out + 8, fn->module->image, length);
  } else {
    unsigned int threads = gx * bx;
    for (unsigned int i = 0; i < threads; ++i) memcpy(out + 4 * (size_t)i, &i, 4);
  }
  return 0;
}
#endif
#endif
#endif
