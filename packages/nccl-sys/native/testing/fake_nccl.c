/*
 * A stand-in for libnccl.so.2, for tests on machines without GPUs. It speaks the C ABI of the
 * calls @baracuda/nccl-sys binds (native/nccl_decls.h) and runs the collectives on host memory:
 * with the fake libcuda (packages/driver/test/fake-libcuda.c) a device pointer is a host address,
 * so every rank's buffers are plain memory of this one process.
 *
 * Ranks and cliques: ncclCommInitAll makes one clique of N communicators (rank i on devlist[i]);
 * ncclCommInitRank joins the clique named by the 128-byte unique id (a process-wide table), and
 * blocks until all nranks joined, as NCCL does, unless called between ncclGroupStart/End. Ranks
 * of several processes (an id used by a process other than the one that made it, or made with
 * FAKE_NCCL_PROCESSES=1) meet through files instead: see fake_nccl_processes.c. The device of an
 * InitRank communicator is its rank (the fake cannot ask the driver for the current context's
 * device).
 *
 * Execution: a call returns at once and completes when every rank has made its matching call
 * (the k-th collective of each rank, in order; a send when its recv is posted), whatever the
 * group nesting; nothing ever blocks. While a communicator has work that has not completed,
 * ncclCommGetAsyncError answers ncclInProgress (a real blocking communicator answers
 * ncclSuccess and its stream stays busy; the fake's streams complete at once, so this is how
 * the safe layer sees a collective that waits for a peer). Mismatched calls (another kind,
 * count, type or op at the same position) set ncclInvalidUsage as every rank's async error.
 * Aborting or destroying a communicator with work outstanding in its clique sets ncclRemoteError
 * on the others (a peer that went away).
 *
 * Knobs (read when called):
 *   FAKE_NCCL_VERSION       what ncclGetVersion reports (default 22703, i.e. 2.27.3)
 *   FAKE_NCCL_FAIL_RANK     calls that enqueue work on this rank return ncclSystemError (a rank
 *                           that fails; its peers then wait for it forever)
 *   FAKE_NCCL_INIT_RESULT   what ncclCommInitAll / ncclCommInitRank return instead of working
 *   FAKE_NCCL_PROCESSES     1: ncclGetUniqueId makes an id whose ranks meet through files even
 *                           in the process that made it (one rank per process, this one included)
 *   FAKE_NCCL_INIT_TIMEOUT_MS  how long a rank of several processes waits for the others to join
 *   FAKE_NCCL_NO_P2P        build time (-DFAKE_NCCL_NO_P2P): no ncclSend / ncclRecv (an old or
 *                           partial library)
 *
 * Live counts: fake_live_counts() returns {"comms":n,"cliques":n,"pending":n} as JSON (read with
 * fakeLiveCounts() of scripts/testing/build-fake.mjs). Thread-safe: one mutex guards everything.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef enum { SUCCESS = 0, SYSTEM_ERROR = 2, INVALID_ARGUMENT = 4, INVALID_USAGE = 5,
               REMOTE_ERROR = 6, IN_PROGRESS = 7 } result_t;
typedef struct { char internal[128]; } unique_id_t;

enum { K_ALLREDUCE = 1, K_BROADCAST, K_REDUCESCATTER, K_ALLGATHER };
enum { T_I8, T_U8, T_I32, T_U32, T_I64, T_U64, T_F16, T_F32, T_F64, T_BF16, T_COUNT };
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_AVG, OP_COUNT };
#define MAX_RANKS 16
#define MAX_SLOTS 256

struct call { int kind, type, op, root; size_t count; const void *send; void *recv; };
struct p2p { struct comm *from, *to; int type; size_t count; const void *send; void *recv;
             struct p2p *next; int is_send; };

struct clique {
  unique_id_t id;
  int nranks, joined, refs;
  struct comm *ranks[MAX_RANKS];
  long long done;                  /* collectives completed, in order */
  struct call slots[MAX_SLOTS][MAX_RANKS];
  unsigned char posted[MAX_SLOTS][MAX_RANKS];
  struct p2p *p2p;                 /* unmatched sends and recvs */
  result_t error;
  struct clique *next;
};

struct shared; /* a rank of several processes (fake_nccl_processes.c) */

struct comm {
  struct clique *clique;
  struct shared *shared;           /* set instead of clique for a rank of several processes */
  int rank, device;
  long long submitted;             /* collectives this rank has enqueued */
  int p2p_pending;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t joined_cond = PTHREAD_COND_INITIALIZER;
static struct clique *cliques = NULL;
static long long live_comms = 0, live_cliques = 0;
static __thread int group_depth = 0;
static __thread char last_error[256] = "";
static unsigned long long id_counter = 0;

static const size_t type_size[T_COUNT] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};

static int env_int(const char *name, int fallback) {
  const char *value = getenv(name);
  return value && *value ? atoi(value) : fallback;
}

const char *fake_live_counts(void) {
  static __thread char text[128];
  long long pending = 0;
  pthread_mutex_lock(&lock);
  for (struct clique *c = cliques; c; c = c->next) {
    for (int r = 0; r < c->nranks; ++r) {
      if (c->ranks[r]) pending += c->ranks[r]->submitted - c->done + c->ranks[r]->p2p_pending;
    }
  }
  snprintf(text, sizeof text, "{\"comms\":%lld,\"cliques\":%lld,\"pending\":%lld}", live_comms,
           live_cliques, pending);
  pthread_mutex_unlock(&lock);
  return text;
}

/* ---- element conversion: every kind is read into a double or an integer, and written back ---- */
static double pow2(int e) {
  double p = 1;
  for (; e > 0; --e) p *= 2;
  for (; e < 0; ++e) p /= 2;
  return p;
}
static double half_to_double(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value;
  if (exponent == 0) value = mantissa * pow2(-24);
  else if (exponent == 31) value = mantissa ? 0.0 / 0.0 : 1.0 / 0.0;
  else value = (mantissa + 1024) * pow2(exponent - 25);
  return sign ? -value : value;
}
static uint16_t double_to_half(double v) {
  /* round to nearest even through float's bits */
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int exponent = (int)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31) return (uint16_t)(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10) return (uint16_t)sign;
    mantissa |= 0x800000;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return (uint16_t)(sign | half);
}
static double bf16_to_double(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t double_to_bf16(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

static int is_float(int type) { return type == T_F16 || type == T_F32 || type == T_F64 || type == T_BF16; }

static double read_f(const void *base, size_t i, int type) {
  const unsigned char *p = (const unsigned char *)base + i * type_size[type];
  switch (type) {
    case T_F16: { uint16_t h; memcpy(&h, p, 2); return half_to_double(h); }
    case T_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16_to_double(h); }
    case T_F32: { float f; memcpy(&f, p, 4); return f; }
    default: { double d; memcpy(&d, p, 8); return d; }
  }
}
static void write_f(void *base, size_t i, int type, double v) {
  unsigned char *p = (unsigned char *)base + i * type_size[type];
  switch (type) {
    case T_F16: { uint16_t h = double_to_half(v); memcpy(p, &h, 2); break; }
    case T_BF16: { uint16_t h = double_to_bf16(v); memcpy(p, &h, 2); break; }
    case T_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    default: memcpy(p, &v, 8);
  }
}
static int is_signed(int type) { return type == T_I8 || type == T_I32 || type == T_I64; }
static uint64_t read_i(const void *base, size_t i, int type) {
  const unsigned char *p = (const unsigned char *)base + i * type_size[type];
  switch (type) {
    case T_I8: return (uint64_t)(int64_t) * (const int8_t *)p;
    case T_U8: return *p;
    case T_I32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    case T_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}
static void write_i(void *base, size_t i, int type, uint64_t v) {
  unsigned char *p = (unsigned char *)base + i * type_size[type];
  memcpy(p, &v, type_size[type]); /* little-endian: the low bytes */
}

/* The reduction of element i over every rank's `sources`, written to dst[j]. */
static void reduce_element(const void *const *sources, int n, size_t i, int type, int op,
                           void *dst, size_t j) {
  if (is_float(type)) {
    double acc = read_f(sources[0], i, type);
    for (int r = 1; r < n; ++r) {
      const double v = read_f(sources[r], i, type);
      if (op == OP_SUM || op == OP_AVG) acc += v;
      else if (op == OP_PROD) acc *= v;
      else if (op == OP_MAX) acc = v > acc ? v : acc;
      else acc = v < acc ? v : acc;
    }
    if (op == OP_AVG) acc /= n;
    write_f(dst, j, type, acc);
    return;
  }
  uint64_t acc = read_i(sources[0], i, type);
  for (int r = 1; r < n; ++r) {
    const uint64_t v = read_i(sources[r], i, type);
    if (op == OP_SUM || op == OP_AVG) acc += v;
    else if (op == OP_PROD) acc *= v;
    else if (is_signed(type)) {
      if (op == OP_MAX) acc = (int64_t)v > (int64_t)acc ? v : acc;
      else acc = (int64_t)v < (int64_t)acc ? v : acc;
    } else if (op == OP_MAX) acc = v > acc ? v : acc;
    else acc = v < acc ? v : acc;
  }
  if (op == OP_AVG) acc = is_signed(type) ? (uint64_t)((int64_t)acc / n) : acc / (uint64_t)n;
  write_i(dst, j, type, acc);
}

/* Runs collective slot k of clique c: every rank's call is there and they match. Results go
   through a scratch copy first so in-place calls (send == recv) read the inputs intact. */
/* Rank r's result of collective `call` (kind, type, op, root, count; recv is rank r's) from
   every rank's input, `sources` (n of them). */
static void compute_rank(const struct call *call, const void *const *sources, int n, int r) {
  const size_t esize = type_size[call->type], count = call->count;
  if (count == 0) return; /* nothing to move: the buffers may be null */
  switch (call->kind) {
    case K_ALLREDUCE:
      for (size_t i = 0; i < count; ++i) reduce_element(sources, n, i, call->type, call->op, call->recv, i);
      break;
    case K_BROADCAST:
      memcpy(call->recv, sources[call->root], count * esize);
      break;
    case K_REDUCESCATTER:
      for (size_t i = 0; i < count; ++i)
        reduce_element(sources, n, (size_t)r * count + i, call->type, call->op, call->recv, i);
      break;
    case K_ALLGATHER:
      for (int s = 0; s < n; ++s)
        memcpy((unsigned char *)call->recv + (size_t)s * count * esize, sources[s], count * esize);
      break;
  }
}

static void execute(struct clique *c, struct call *calls) {
  const int n = c->nranks;
  const struct call *first = &calls[0];
  const size_t esize = type_size[first->type], count = first->count;
  if (count == 0) return; /* nothing to move: the buffers may be null */
  const void *sources[MAX_RANKS];
  void *copies[MAX_RANKS];
  size_t in_bytes = first->kind == K_REDUCESCATTER ? count * n * esize : count * esize;
  for (int r = 0; r < n; ++r) {
    copies[r] = malloc(in_bytes ? in_bytes : 1);
    memcpy(copies[r], calls[r].send, in_bytes);
    sources[r] = copies[r];
  }
  for (int r = 0; r < n; ++r) compute_rank(&calls[r], sources, n, r);
  for (int r = 0; r < n; ++r) free(copies[r]);
}

static void run_ready(struct clique *c) {
  for (;;) {
    const int slot = (int)(c->done % MAX_SLOTS);
    for (int r = 0; r < c->nranks; ++r) {
      if (!c->posted[slot][r]) return;
    }
    struct call *calls = c->slots[slot];
    int match = 1;
    for (int r = 1; r < c->nranks; ++r) {
      if (calls[r].kind != calls[0].kind || calls[r].type != calls[0].type ||
          calls[r].count != calls[0].count || calls[r].op != calls[0].op ||
          calls[r].root != calls[0].root) match = 0;
    }
    if (match && c->error == SUCCESS) execute(c, calls);
    else if (!match) c->error = INVALID_USAGE;
    memset(c->posted[slot], 0, sizeof c->posted[slot]);
    ++c->done;
  }
}

static int fails(const struct comm *comm) { return env_int("FAKE_NCCL_FAIL_RANK", -1) == comm->rank; }

#include "fake_nccl_processes.c"

static result_t enqueue(struct comm *comm, struct call call) {
  if (!comm) return INVALID_ARGUMENT;
  if (call.type < 0 || call.type >= T_COUNT) { snprintf(last_error, sizeof last_error, "fake: invalid datatype %d", call.type); return INVALID_ARGUMENT; }
  if (call.op < 0 || call.op >= OP_COUNT) { snprintf(last_error, sizeof last_error, "fake: invalid op %d", call.op); return INVALID_ARGUMENT; }
  if (comm->shared) return shared_enqueue(comm, call);
  pthread_mutex_lock(&lock);
  struct clique *c = comm->clique;
  if (call.kind == K_BROADCAST && (call.root < 0 || call.root >= c->nranks)) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: invalid root %d", call.root);
    return INVALID_ARGUMENT;
  }
  if (fails(comm)) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: rank %d was told to fail (FAKE_NCCL_FAIL_RANK)", comm->rank);
    return SYSTEM_ERROR;
  }
  if (comm->submitted - c->done >= MAX_SLOTS) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: more than %d collectives outstanding", MAX_SLOTS);
    return INVALID_USAGE;
  }
  const int slot = (int)(comm->submitted % MAX_SLOTS);
  c->slots[slot][comm->rank] = call;
  c->posted[slot][comm->rank] = 1;
  ++comm->submitted;
  run_ready(c);
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

/* ---- the API ---- */
result_t ncclGetVersion(int *version) {
  if (!version) return INVALID_ARGUMENT;
  *version = env_int("FAKE_NCCL_VERSION", 22703);
  return SUCCESS;
}

result_t ncclGetUniqueId(unique_id_t *id) {
  if (!id) return INVALID_ARGUMENT;
  memset(id, 0, sizeof *id);
  pthread_mutex_lock(&lock);
  const unsigned long long serial = ++id_counter;
  pthread_mutex_unlock(&lock);
  snprintf(id->internal, sizeof id->internal, "FAKENCCL pid=%d serial=%llu t=%lld%s", (int)getpid(),
           serial, (long long)time(NULL), env_int("FAKE_NCCL_PROCESSES", 0) ? " processes" : "");
  return SUCCESS;
}

static struct clique *new_clique(const unique_id_t *id, int nranks) {
  struct clique *c = calloc(1, sizeof *c);
  if (id) c->id = *id;
  c->nranks = nranks;
  c->next = cliques;
  cliques = c;
  ++live_cliques;
  return c;
}

static struct comm *new_comm(struct clique *c, int rank, int device) {
  struct comm *comm = calloc(1, sizeof *comm);
  comm->clique = c;
  comm->rank = rank;
  comm->device = device;
  comm->submitted = c->done;
  c->ranks[rank] = comm;
  ++c->joined;
  ++c->refs;
  ++live_comms;
  return comm;
}

result_t ncclCommInitAll(struct comm **comms, int ndev, const int *devlist) {
  if (!comms || ndev < 1 || ndev > MAX_RANKS) return INVALID_ARGUMENT;
  const int forced = env_int("FAKE_NCCL_INIT_RESULT", 0);
  if (forced) return (result_t)forced;
  pthread_mutex_lock(&lock);
  struct clique *c = new_clique(NULL, ndev);
  for (int i = 0; i < ndev; ++i) comms[i] = new_comm(c, i, devlist ? devlist[i] : i);
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

result_t ncclCommInitRank(struct comm **out, int nranks, unique_id_t id, int rank) {
  if (!out || nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks) {
    snprintf(last_error, sizeof last_error, "fake: invalid rank %d of %d", rank, nranks);
    return INVALID_ARGUMENT;
  }
  if (strncmp(id.internal, "FAKENCCL ", 9) != 0) {
    snprintf(last_error, sizeof last_error, "fake: not a unique id from ncclGetUniqueId");
    return INVALID_ARGUMENT;
  }
  const int forced = env_int("FAKE_NCCL_INIT_RESULT", 0);
  if (forced) return (result_t)forced;
  if (shared_wanted(&id)) return shared_init(out, nranks, &id, rank);
  pthread_mutex_lock(&lock);
  struct clique *c = cliques;
  while (c && (c->joined >= c->nranks || memcmp(&c->id, &id, sizeof id) != 0)) c = c->next;
  if (c && c->nranks != nranks) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: nranks %d differs from the clique's %d", nranks, c->nranks);
    return INVALID_USAGE;
  }
  if (c && c->ranks[rank]) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: rank %d joined twice", rank);
    return INVALID_USAGE;
  }
  if (!c) c = new_clique(&id, nranks);
  struct comm *comm = new_comm(c, rank, rank);
  pthread_cond_broadcast(&joined_cond);
  if (group_depth == 0) {
    while (c->joined < c->nranks) pthread_cond_wait(&joined_cond, &lock);
  }
  pthread_mutex_unlock(&lock);
  *out = comm;
  return SUCCESS;
}

static void leave(struct comm *comm) {
  struct clique *c = comm->clique;
  /* Work outstanding anywhere in the clique can never complete now. */
  int outstanding = comm->p2p_pending > 0;
  for (int r = 0; r < c->nranks; ++r) {
    if (c->ranks[r] && c->ranks[r]->submitted > c->done) outstanding = 1;
  }
  if (outstanding && c->error == SUCCESS) c->error = REMOTE_ERROR;
  for (struct p2p **link = &c->p2p; *link;) {
    struct p2p *entry = *link;
    if (entry->from == comm || entry->to == comm) {
      *link = entry->next;
      if (entry->from != comm && entry->from) --entry->from->p2p_pending;
      if (entry->to != comm && entry->to) --entry->to->p2p_pending;
      free(entry);
    } else {
      link = &entry->next;
    }
  }
  c->ranks[comm->rank] = NULL;
  --live_comms;
  free(comm);
  if (--c->refs == 0) {
    for (struct clique **link = &cliques; *link; link = &(*link)->next) {
      if (*link == c) { *link = c->next; break; }
    }
    --live_cliques;
    free(c);
  }
}

result_t ncclCommDestroy(struct comm *comm) {
  if (!comm) return INVALID_ARGUMENT;
  pthread_mutex_lock(&lock);
  if (comm->shared) shared_leave(comm);
  else leave(comm);
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

result_t ncclCommAbort(struct comm *comm) { return ncclCommDestroy(comm); }

result_t ncclCommGetAsyncError(struct comm *comm, result_t *error) {
  if (!comm || !error) return INVALID_ARGUMENT;
  pthread_mutex_lock(&lock);
  if (comm->shared) {
    *error = shared_async_error(comm);
    pthread_mutex_unlock(&lock);
    return SUCCESS;
  }
  const struct clique *c = comm->clique;
  if (c->error != SUCCESS) *error = c->error;
  else if (comm->submitted > c->done || comm->p2p_pending > 0 || c->joined < c->nranks) *error = IN_PROGRESS;
  else *error = SUCCESS;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

result_t ncclCommCount(const struct comm *comm, int *count) {
  if (!comm || !count) return INVALID_ARGUMENT;
  *count = comm->shared ? shared_ranks(comm) : comm->clique->nranks;
  return SUCCESS;
}
result_t ncclCommCuDevice(const struct comm *comm, int *device) {
  if (!comm || !device) return INVALID_ARGUMENT;
  *device = comm->device;
  return SUCCESS;
}
result_t ncclCommUserRank(const struct comm *comm, int *rank) {
  if (!comm || !rank) return INVALID_ARGUMENT;
  *rank = comm->rank;
  return SUCCESS;
}

result_t ncclAllReduce(const void *send, void *recv, size_t count, int type, int op,
                       struct comm *comm, void *stream) {
  (void)stream;
  return enqueue(comm, (struct call){K_ALLREDUCE, type, op, 0, count, send, recv});
}
result_t ncclBroadcast(const void *send, void *recv, size_t count, int type, int root,
                       struct comm *comm, void *stream) {
  (void)stream;
  return enqueue(comm, (struct call){K_BROADCAST, type, 0, root, count, send, recv});
}
result_t ncclReduceScatter(const void *send, void *recv, size_t count, int type, int op,
                           struct comm *comm, void *stream) {
  (void)stream;
  return enqueue(comm, (struct call){K_REDUCESCATTER, type, op, 0, count, send, recv});
}
result_t ncclAllGather(const void *send, void *recv, size_t count, int type, struct comm *comm,
                       void *stream) {
  (void)stream;
  return enqueue(comm, (struct call){K_ALLGATHER, type, 0, 0, count, send, recv});
}

#ifndef FAKE_NCCL_NO_P2P
/* A send or recv: matched with the first opposite entry of the same pair, or queued. */
static result_t post_p2p(struct comm *comm, int is_send, const void *send, void *recv,
                         size_t count, int type, int peer) {
  if (!comm) return INVALID_ARGUMENT;
  if (type < 0 || type >= T_COUNT) return INVALID_ARGUMENT;
  if (comm->shared) return shared_p2p(comm, is_send, send, recv, count, type, peer);
  pthread_mutex_lock(&lock);
  struct clique *c = comm->clique;
  if (peer < 0 || peer >= c->nranks || !c->ranks[peer]) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: invalid peer %d", peer);
    return INVALID_ARGUMENT;
  }
  if (fails(comm)) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: rank %d was told to fail (FAKE_NCCL_FAIL_RANK)", comm->rank);
    return SYSTEM_ERROR;
  }
  struct comm *from = is_send ? comm : c->ranks[peer], *to = is_send ? c->ranks[peer] : comm;
  for (struct p2p **link = &c->p2p; *link; link = &(*link)->next) {
    struct p2p *entry = *link;
    if (entry->is_send != is_send && entry->from == from && entry->to == to) {
      if (entry->count != count || entry->type != type) c->error = INVALID_USAGE;
      else if (count > 0) memcpy(is_send ? entry->recv : recv, is_send ? send : entry->send, count * type_size[type]);
      --(is_send ? to : from)->p2p_pending;
      *link = entry->next;
      free(entry);
      pthread_mutex_unlock(&lock);
      return SUCCESS;
    }
  }
  struct p2p *entry = calloc(1, sizeof *entry);
  *entry = (struct p2p){from, to, type, count, send, recv, NULL, is_send};
  struct p2p **tail = &c->p2p;
  while (*tail) tail = &(*tail)->next;
  *tail = entry;
  ++comm->p2p_pending;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
result_t ncclSend(const void *send, size_t count, int type, int peer, struct comm *comm, void *stream) {
  (void)stream;
  return post_p2p(comm, 1, send, NULL, count, type, peer);
}
result_t ncclRecv(void *recv, size_t count, int type, int peer, struct comm *comm, void *stream) {
  (void)stream;
  return post_p2p(comm, 0, NULL, recv, count, type, peer);
}
#endif

result_t ncclGroupStart(void) {
  ++group_depth;
  return SUCCESS;
}
result_t ncclGroupEnd(void) {
  if (group_depth == 0) return INVALID_USAGE;
  --group_depth;
  return SUCCESS;
}

const char *ncclGetErrorString(result_t result) {
  switch ((int)result) {
    case 0: return "fake: no error";
    case 1: return "fake: unhandled cuda error";
    case 2: return "fake: unhandled system error";
    case 3: return "fake: internal error";
    case 4: return "fake: invalid argument";
    case 5: return "fake: invalid usage";
    case 6: return "fake: remote process exited or there was a network error";
    case 7: return "fake: NCCL operation in progress";
    default: return "fake: unknown result code";
  }
}

const char *ncclGetLastError(struct comm *comm) {
  (void)comm;
  return last_error;
}
