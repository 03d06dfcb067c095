/*
 * A fake libcublasLt.so.13 for CI, which has no GPU and no cuBLAS. The tests compile it with cc
 * and point BARACUDA_CUBLASLT_LIBRARY at it. It runs every matrix product on the host, over the
 * fake libcuda's "device memory" (packages/driver/test/fake-libcuda.c hands out host addresses as
 * device pointers, so a pointer from a DeviceBuffer is dereferenced here directly).
 *
 * The product: D = alpha·op(A)·op(B) + beta·C for f32, f16, bf16 (read as f32) and f64 matrices,
 * column- or row-major, strided batches. Accumulation is in f32 (f64 for CUBLAS_COMPUTE_64F), one
 * term at a time in ascending k, never fused (fp-contract off), then alpha·acc (+ beta·C when beta
 * is not 0: C is not read then), rounded once to D's type (round to nearest even), so a host
 * emulation can match it bit for bit. CUBLAS_COMPUTE_32F_FAST_TF32 computes like CUBLAS_COMPUTE_32F
 * here; the compute type of the last call is recorded so tests can see what was asked for.
 *
 * fake_live_counts() (a JSON string, read with fakeLiveCounts() of scripts/testing/build-fake.mjs)
 * reports the handles, descriptors, layouts and preferences alive, the matmuls run, and the last
 * matmul's compute type, transposes, m, n, k, batch and workspace bytes.
 *
 * Environment (read at each call): FAKE_CUBLASLT_VERSION (cublasLtGetVersion's answer, default
 * 130100); FAKE_CUBLASLT_NO_ALGO=1 (the heuristic finds nothing: CUBLAS_STATUS_NOT_SUPPORTED);
 * FAKE_CUBLASLT_WORKSPACE (bytes the heuristic's algorithm needs, default 0; above the
 * preference's maximum the heuristic finds nothing). An algorithm needs its pointers aligned as the
 * preference's least CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES (default 16 here): a matmul with a
 * pointer aligned less returns CUBLAS_STATUS_NOT_SUPPORTED. Built with -DFAKE_CUBLASLT_PARTIAL it lacks
 * cublasLtMatmulAlgoGetHeuristic, as a partial library would (the missing-symbol tests).
 */
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

enum { OK = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14 };
enum { COMPUTE_32F = 68, COMPUTE_32F_PEDANTIC = 69, COMPUTE_64F = 70, COMPUTE_64F_PEDANTIC = 71,
       COMPUTE_32F_FAST_TF32 = 77 };
enum { MAGIC_HANDLE = 0x4c54484e, MAGIC_DESC = 0x4c544453, MAGIC_LAYOUT = 0x4c544c59,
       MAGIC_PREF = 0x4c545046 };

typedef struct { int magic; } handle_t;
typedef struct {
  int magic, compute, scale, pointerMode, transa, transb, epilogue;
} desc_t;
typedef struct {
  int magic, type, order, batch;
  uint64_t rows, cols;
  int64_t ld, stride;
} layout_t;
typedef struct {
  int magic;
  uint64_t maxWorkspace;
  uint32_t minAlignment[4]; /* A, B, C, D */
} pref_t;
typedef struct { uint64_t data[8]; } algo_t;
typedef struct {
  algo_t algo;
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
} heuristic_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long live_handles, live_descs, live_layouts, live_prefs, matmuls;
static int last_compute, last_transa, last_transb, last_batch;
static long long last_m, last_n, last_k, last_workspace;

const char *fake_live_counts(void) {
  static __thread char text[512];
  pthread_mutex_lock(&lock);
  snprintf(text, sizeof text,
           "{\"handles\":%lld,\"matmulDescs\":%lld,\"layouts\":%lld,\"preferences\":%lld,"
           "\"matmuls\":%lld,\"lastComputeType\":%d,\"lastTransa\":%d,\"lastTransb\":%d,"
           "\"lastM\":%lld,\"lastN\":%lld,\"lastK\":%lld,\"lastBatch\":%d,\"lastWorkspace\":%lld}",
           live_handles, live_descs, live_layouts, live_prefs, matmuls, last_compute, last_transa,
           last_transb, last_m, last_n, last_k, last_batch, last_workspace);
  pthread_mutex_unlock(&lock);
  return text;
}

static void count(long long *counter, int delta) {
  pthread_mutex_lock(&lock);
  *counter += delta;
  pthread_mutex_unlock(&lock);
}

static long env_long(const char *name, long fallback) {
  const char *value = getenv(name);
  return value && *value ? strtol(value, NULL, 10) : fallback;
}

size_t cublasLtGetVersion(void) { return (size_t)env_long("FAKE_CUBLASLT_VERSION", 130100); }

const char *cublasLtGetStatusString(int status) {
  switch (status) {
    case OK: return "fake: success";
    case NOT_INITIALIZED: return "fake: not initialized";
    case INVALID_VALUE: return "fake: invalid value";
    case NOT_SUPPORTED: return "fake: not supported";
    default: return "fake: unknown status";
  }
}

int cublasLtCreate(void **out) {
  if (!out) return INVALID_VALUE;
  handle_t *h = calloc(1, sizeof *h);
  if (!h) return 3;
  h->magic = MAGIC_HANDLE;
  count(&live_handles, 1);
  *out = h;
  return OK;
}

int cublasLtDestroy(void *p) {
  handle_t *h = p;
  if (!h || h->magic != MAGIC_HANDLE) return NOT_INITIALIZED;
  h->magic = 0;
  free(h);
  count(&live_handles, -1);
  return OK;
}

static int float_type(int t) { return t == R_32F || t == R_64F || t == R_16F || t == R_16BF; }

int cublasLtMatmulDescCreate(void **out, int compute, int scale) {
  if (!out || (scale != R_32F && scale != R_64F)) return INVALID_VALUE;
  if (compute != COMPUTE_32F && compute != COMPUTE_32F_PEDANTIC && compute != COMPUTE_64F &&
      compute != COMPUTE_64F_PEDANTIC && compute != COMPUTE_32F_FAST_TF32) {
    return INVALID_VALUE;
  }
  desc_t *d = calloc(1, sizeof *d);
  if (!d) return 3;
  d->magic = MAGIC_DESC;
  d->compute = compute;
  d->scale = scale;
  d->epilogue = 1;
  count(&live_descs, 1);
  *out = d;
  return OK;
}

static int read_int32(const void *buf, size_t size, int *value) {
  if (!buf || size != sizeof(int32_t)) return INVALID_VALUE;
  memcpy(value, buf, sizeof(int32_t));
  return OK;
}

int cublasLtMatmulDescSetAttribute(void *p, int attr, const void *buf, size_t size) {
  desc_t *d = p;
  if (!d || d->magic != MAGIC_DESC) return INVALID_VALUE;
  int value = 0;
  switch (attr) {
    case 0: return read_int32(buf, size, &d->compute);
    case 1: return read_int32(buf, size, &d->scale);
    case 2: return read_int32(buf, size, &d->pointerMode);
    case 3:
    case 4:
      if (read_int32(buf, size, &value) != OK || value < 0 || value > 1) return INVALID_VALUE;
      *(attr == 3 ? &d->transa : &d->transb) = value;
      return OK;
    case 7:
      if (read_int32(buf, size, &value) != OK || value != 1) return NOT_SUPPORTED;
      d->epilogue = value;
      return OK;
    default: return INVALID_VALUE;
  }
}

int cublasLtMatmulDescDestroy(void *p) {
  desc_t *d = p;
  if (!d || d->magic != MAGIC_DESC) return NOT_INITIALIZED;
  d->magic = 0;
  free(d);
  count(&live_descs, -1);
  return OK;
}

int cublasLtMatrixLayoutCreate(void **out, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  if (!out || !float_type(type)) return INVALID_VALUE;
  layout_t *l = calloc(1, sizeof *l);
  if (!l) return 3;
  l->magic = MAGIC_LAYOUT;
  l->type = type;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
  l->batch = 1;
  count(&live_layouts, 1);
  *out = l;
  return OK;
}

int cublasLtMatrixLayoutSetAttribute(void *p, int attr, const void *buf, size_t size) {
  layout_t *l = p;
  if (!l || l->magic != MAGIC_LAYOUT || !buf) return INVALID_VALUE;
  switch (attr) {
    case 0: return read_int32(buf, size, &l->type);
    case 1:
      if (read_int32(buf, size, &l->order) != OK || l->order < 0 || l->order > 1) {
        return INVALID_VALUE;
      }
      return OK;
    case 5:
      if (read_int32(buf, size, &l->batch) != OK || l->batch < 1) return INVALID_VALUE;
      return OK;
    case 6:
      if (size != sizeof(int64_t)) return INVALID_VALUE;
      memcpy(&l->stride, buf, sizeof l->stride);
      return OK;
    default: return INVALID_VALUE;
  }
}

int cublasLtMatrixLayoutDestroy(void *p) {
  layout_t *l = p;
  if (!l || l->magic != MAGIC_LAYOUT) return NOT_INITIALIZED;
  l->magic = 0;
  free(l);
  count(&live_layouts, -1);
  return OK;
}

int cublasLtMatmulPreferenceCreate(void **out) {
  if (!out) return INVALID_VALUE;
  pref_t *pr = calloc(1, sizeof *pr);
  if (!pr) return 3;
  pr->magic = MAGIC_PREF;
  /* The fake's default is 16 bytes, not cuBLASLt's 256: its device memory is malloc'd. */
  for (int i = 0; i < 4; ++i) pr->minAlignment[i] = 16;
  count(&live_prefs, 1);
  *out = pr;
  return OK;
}

int cublasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t size) {
  pref_t *pr = p;
  if (!pr || pr->magic != MAGIC_PREF || !buf) return INVALID_VALUE;
  if (attr == 1 && size == sizeof(uint64_t)) {
    memcpy(&pr->maxWorkspace, buf, sizeof pr->maxWorkspace);
    return OK;
  }
  if (attr >= 5 && attr <= 8 && size == sizeof(uint32_t)) {
    memcpy(&pr->minAlignment[attr - 5], buf, sizeof(uint32_t));
    return OK;
  }
  return attr == 0 && size == sizeof(uint32_t) ? OK : INVALID_VALUE;
}

int cublasLtMatmulPreferenceDestroy(void *p) {
  pref_t *pr = p;
  if (!pr || pr->magic != MAGIC_PREF) return NOT_INITIALIZED;
  pr->magic = 0;
  free(pr);
  count(&live_prefs, -1);
  return OK;
}

/* The problem's m, n, k when the four layouts agree with the descriptor; -1 otherwise. */
static int shape(const desc_t *d, const layout_t *a, const layout_t *b, const layout_t *c,
                 const layout_t *dd, long long *m, long long *n, long long *k) {
  if (!d || d->magic != MAGIC_DESC) return -1;
  const layout_t *all[4] = {a, b, c, dd};
  for (int i = 0; i < 4; ++i) {
    if (!all[i] || all[i]->magic != MAGIC_LAYOUT) return -1;
    const layout_t *l = all[i];
    const uint64_t minor = l->order == 0 ? l->rows : l->cols;
    if (l->ld < 1 || (uint64_t)l->ld < minor) return -1;
  }
  *m = (long long)(d->transa ? a->cols : a->rows);
  *k = (long long)(d->transa ? a->rows : a->cols);
  const long long kb = (long long)(d->transb ? b->cols : b->rows);
  *n = (long long)(d->transb ? b->rows : b->cols);
  if (kb != *k || (long long)c->rows != *m || (long long)c->cols != *n) return -1;
  if (dd->rows != c->rows || dd->cols != c->cols || dd->type != c->type) return -1;
  if (a->batch != dd->batch || b->batch != dd->batch || c->batch != dd->batch) return -1;
  return 0;
}

#ifndef FAKE_CUBLASLT_PARTIAL
int cublasLtMatmulAlgoGetHeuristic(void *handle, void *op, void *a, void *b, void *c, void *d,
                                   void *pref, int requested, heuristic_t *results,
                                   int *returned) {
  handle_t *h = handle;
  pref_t *pr = pref;
  long long m, n, k;
  if (!returned || !results || requested < 1) return INVALID_VALUE;
  *returned = 0;
  if (!h || h->magic != MAGIC_HANDLE) return NOT_INITIALIZED;
  if (!pr || pr->magic != MAGIC_PREF || shape(op, a, b, c, d, &m, &n, &k) != 0) {
    return INVALID_VALUE;
  }
  const long need = env_long("FAKE_CUBLASLT_WORKSPACE", 0);
  if (env_long("FAKE_CUBLASLT_NO_ALGO", 0) == 1 || (uint64_t)need > pr->maxWorkspace) {
    return NOT_SUPPORTED;
  }
  memset(&results[0], 0, sizeof results[0]);
  results[0].algo.data[0] = 0x66616b65616c676full; /* "fakealgo" */
  results[0].algo.data[1] = (uint64_t)need;
  /* The alignment the algorithm needs of every pointer: the least the preference allows. */
  uint32_t align = pr->minAlignment[0];
  for (int i = 1; i < 4; ++i) align = pr->minAlignment[i] < align ? pr->minAlignment[i] : align;
  results[0].algo.data[2] = align ? align : 1;
  results[0].workspaceSize = (size_t)need;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return OK;
}
#endif

static float half_to_float(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = (float)man * 5.9604644775390625e-08f; /* exact: man units of 2^-24 */
  } else if (exp == 31) {
    v = man ? NAN : INFINITY;
  } else {
    const uint32_t bits = ((uint32_t)(exp - 15 + 127) << 23) | ((uint32_t)man << 13);
    memcpy(&v, &bits, sizeof v);
  }
  return sign ? -v : v;
}

static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000;
  const uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0));
  if (abs >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* rounds past 65504 */
  if (abs < 0x38800000) {                                  /* subnormal or zero */
    const float scaled = (f < 0 ? -f : f) * 16777216.0f;   /* exact: units of 2^-24 */
    const float rounded = (scaled + 12582912.0f) - 12582912.0f; /* to nearest even */
    return (uint16_t)(sign | (uint32_t)rounded);
  }
  const uint32_t mant = abs & 0x7fffff;
  uint32_t exp = (abs >> 23) - 112;
  uint32_t half = (exp << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;
  return (uint16_t)(sign | half);
}

static float bf16_to_float(uint16_t b) {
  const uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return (uint16_t)((x + rounding) >> 16);
}

static double load(const void *base, int type, int64_t index) {
  switch (type) {
    case R_32F: return ((const float *)base)[index];
    case R_64F: return ((const double *)base)[index];
    case R_16F: return half_to_float(((const uint16_t *)base)[index]);
    default: return bf16_to_float(((const uint16_t *)base)[index]);
  }
}

static void store(void *base, int type, int64_t index, double value) {
  switch (type) {
    case R_32F: ((float *)base)[index] = (float)value; break;
    case R_64F: ((double *)base)[index] = value; break;
    case R_16F: ((uint16_t *)base)[index] = float_to_half((float)value); break;
    default: ((uint16_t *)base)[index] = float_to_bf16((float)value); break;
  }
}

static int64_t at(const layout_t *l, int64_t row, int64_t col) {
  return l->order == 0 ? row + col * l->ld : row * l->ld + col;
}

int cublasLtMatmul(void *handle, void *op, const void *alpha, const void *A, void *a,
                   const void *B, void *b, const void *beta, const void *C, void *c, void *D,
                   void *dd, const algo_t *algo, void *workspace, size_t workspaceBytes,
                   void *stream) {
  (void)stream;
  (void)workspace;
  handle_t *h = handle;
  const desc_t *d = op;
  const layout_t *la = a, *lb = b, *lc = c, *ld = dd;
  long long m, n, k;
  if (!h || h->magic != MAGIC_HANDLE) return NOT_INITIALIZED;
  if (!alpha || !beta || shape(d, la, lb, lc, ld, &m, &n, &k) != 0) return INVALID_VALUE;
  if (algo && workspaceBytes < algo->data[1]) return INVALID_VALUE;
  if (algo && algo->data[2] > 1) {
    const uint64_t mask = algo->data[2] - 1;
    if (((uintptr_t)A | (uintptr_t)B | (uintptr_t)D) & mask) return NOT_SUPPORTED;
  }
  if (!D || (m * n > 0 && (!A || !B))) return INVALID_VALUE;
  const int wide = d->compute == COMPUTE_64F || d->compute == COMPUTE_64F_PEDANTIC;
  double alpha64, beta64;
  float alpha32, beta32;
  if (d->scale == R_64F) {
    memcpy(&alpha64, alpha, sizeof alpha64);
    memcpy(&beta64, beta, sizeof beta64);
  } else {
    memcpy(&alpha32, alpha, sizeof alpha32);
    memcpy(&beta32, beta, sizeof beta32);
    alpha64 = alpha32;
    beta64 = beta32;
  }
  if (beta64 != 0 && !C) return INVALID_VALUE;
  for (int batch = 0; batch < ld->batch; ++batch) {
    for (long long i = 0; i < m; ++i) {
      for (long long j = 0; j < n; ++j) {
        double out;
        if (wide) {
          double acc = 0;
          for (long long p = 0; p < k; ++p) {
            const double x = load(A, la->type, batch * la->stride +
                                                   (d->transa ? at(la, p, i) : at(la, i, p)));
            const double y = load(B, lb->type, batch * lb->stride +
                                                   (d->transb ? at(lb, j, p) : at(lb, p, j)));
            acc = acc + x * y;
          }
          out = alpha64 * acc;
          if (beta64 != 0) out = out + beta64 * load(C, lc->type, batch * lc->stride + at(lc, i, j));
        } else {
          float acc = 0;
          for (long long p = 0; p < k; ++p) {
            const float x = (float)load(A, la->type, batch * la->stride +
                                                         (d->transa ? at(la, p, i) : at(la, i, p)));
            const float y = (float)load(B, lb->type, batch * lb->stride +
                                                         (d->transb ? at(lb, j, p) : at(lb, p, j)));
            const float term = x * y;
            acc = acc + term;
          }
          float t = (float)alpha64 * acc;
          if (beta64 != 0) {
            const float cv = (float)load(C, lc->type, batch * lc->stride + at(lc, i, j));
            const float scaled = (float)beta64 * cv;
            t = t + scaled;
          }
          out = t;
        }
        store(D, ld->type, batch * ld->stride + at(ld, i, j), out);
      }
    }
  }
  pthread_mutex_lock(&lock);
  matmuls++;
  last_compute = d->compute;
  last_transa = d->transa;
  last_transb = d->transb;
  last_m = m;
  last_n = n;
  last_k = k;
  last_batch = ld->batch;
  last_workspace = (long long)workspaceBytes;
  pthread_mutex_unlock(&lock);
  return OK;
}
