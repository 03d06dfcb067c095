/*
 * The fake libnccl's ranks of several processes (included by fake_nccl.c, never built alone).
 *
 * An id made with FAKE_NCCL_PROCESSES=1 set, or any id used by a process other than the one that
 * made it, joins through files: a directory named by the id's bytes under $TMPDIR (or /tmp), in
 * which every rank of every process writes what the others must read. Device pointers are host
 * addresses of one process (the fake libcuda), so nothing is shared but these files:
 *
 *   join.<rank>            "pid nranks": a rank joined (made by link(2): a second join fails);
 *                          kept until the directory goes
 *   left.<rank>            the rank destroyed or aborted its communicator
 *   c<seq>.<rank>          a copy of the rank's input to its seq-th collective, with its kind,
 *                          type, op, root and count (a mismatch is ncclInvalidUsage, as in-process)
 *   d<seq>.<rank>          the rank has read every input of collective seq (the last one to see
 *                          all d files removes the collective's files)
 *   p<from>.<to>.<seq>     the seq-th send from rank `from` to rank `to`
 *
 * Every file is written under a temporary name and renamed, so a reader never sees half of one.
 * A call returns at once after writing its file; the rank's own process computes its result
 * (from every rank's copy, with the same arithmetic as in-process) when it next calls into the
 * communicator, so ncclCommGetAsyncError answers ncclInProgress until the inputs are all there.
 * A peer whose process is gone (kill(pid, 0) fails) or that left before writing an input this
 * rank waits for is ncclRemoteError. ncclCommInitRank waits for every rank's join file, at most
 * FAKE_NCCL_INIT_TIMEOUT_MS (default 60000), then answers ncclSystemError.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

struct pending {
  int is_recv, kind, type, op, root, peer;
  size_t count;
  long long seq;
  void *recv;
  struct pending *next;
};

struct shared {
  char dir[PATH_MAX];
  int nranks, rank, joined;
  pid_t pids[MAX_RANKS];
  long long posted, sends[MAX_RANKS], recvs[MAX_RANKS];
  struct pending *head, *tail;
  result_t error;
};

struct header { int32_t kind, type, op, root; uint64_t count, bytes; };

static int shared_wanted(const unique_id_t *id) {
  if (strstr(id->internal, " processes") != NULL) return 1;
  int pid = -1;
  if (sscanf(id->internal, "FAKENCCL pid=%d", &pid) != 1) return 0;
  return pid != (int)getpid();
}

static void shared_path(const struct shared *s, char *out, const char *format, long long a,
                        long long b, long long c) {
  char name[96];
  snprintf(name, sizeof name, format, a, b, c);
  snprintf(out, PATH_MAX, "%s/%s", s->dir, name);
}

/* Writes header + data to `path` atomically (temporary file, then rename). */
static int write_file(const char *path, const struct header *h, const void *data, int exclusive) {
  char partial[PATH_MAX + 32];
  snprintf(partial, sizeof partial, "%s.%d.tmp", path, (int)getpid());
  FILE *f = fopen(partial, "wb");
  if (!f) return -1;
  int ok = fwrite(h, sizeof *h, 1, f) == 1;
  if (ok && h->bytes > 0) ok = fwrite(data, 1, h->bytes, f) == h->bytes;
  ok = fclose(f) == 0 && ok;
  if (ok) ok = exclusive ? link(partial, path) == 0 : rename(partial, path) == 0;
  if (exclusive || !ok) unlink(partial);
  return ok ? 0 : -1;
}

/* Reads `path`'s header and, when `data` is given, its bytes (malloc'd). 1 read, 0 absent. */
static int read_file(const char *path, struct header *h, void **data) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  int ok = fread(h, sizeof *h, 1, f) == 1;
  if (ok && data) {
    *data = malloc(h->bytes ? h->bytes : 1);
    ok = h->bytes == 0 || fread(*data, 1, h->bytes, f) == h->bytes;
  }
  fclose(f);
  return ok ? 1 : 0;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Reads every join file; 1 when all ranks joined (their pids known), -1 on a mismatch. */
static int shared_join_state(struct shared *s) {
  if (s->joined) return 1;
  for (int r = 0; r < s->nranks; ++r) {
    char path[PATH_MAX];
    shared_path(s, path, "join.%lld", r, 0, 0);
    struct header h;
    if (!read_file(path, &h, NULL)) return 0;
    if ((int)h.count != s->nranks) {
      snprintf(last_error, sizeof last_error, "fake: nranks %d differs from rank %d's %d",
               s->nranks, r, (int)h.count);
      return -1;
    }
    s->pids[r] = (pid_t)h.root;
  }
  s->joined = 1;
  return 1;
}

/* Whether rank r can no longer write what this rank waits for. */
static int peer_gone(const struct shared *s, int r) {
  char path[PATH_MAX];
  shared_path(s, path, "left.%lld", r, 0, 0);
  if (exists(path)) return 1;
  return s->pids[r] > 0 && kill(s->pids[r], 0) != 0 && errno == ESRCH;
}

static void fail_remote(struct shared *s, int r, const char *what) {
  s->error = REMOTE_ERROR;
  snprintf(last_error, sizeof last_error, "fake: rank %d is gone before %s", r, what);
}

/* The head recv: 1 completed (popped), 0 still waiting. */
static int progress_recv(struct shared *s, struct pending *p) {
  char path[PATH_MAX];
  shared_path(s, path, "p%lld.%lld.%lld", p->peer, s->rank, p->seq);
  struct header h;
  void *data = NULL;
  if (!read_file(path, &h, &data)) {
    if (peer_gone(s, p->peer)) fail_remote(s, p->peer, "its send");
    return 0;
  }
  if ((int)h.type != p->type || h.count != p->count) s->error = INVALID_USAGE;
  else if (h.bytes > 0) memcpy(p->recv, data, h.bytes);
  free(data);
  unlink(path);
  return 1;
}

/* The head collective: 1 completed, 0 still waiting for an input. */
static int progress_collective(struct shared *s, struct pending *p) {
  char path[PATH_MAX];
  struct header h[MAX_RANKS];
  void *data[MAX_RANKS] = {0};
  for (int r = 0; r < s->nranks; ++r) {
    shared_path(s, path, "c%lld.%lld", p->seq, r, 0);
    if (!exists(path)) {
      if (peer_gone(s, r)) fail_remote(s, r, "its part of a collective");
      return 0;
    }
  }
  int match = 1, complete = 1;
  for (int r = 0; r < s->nranks; ++r) {
    shared_path(s, path, "c%lld.%lld", p->seq, r, 0);
    if (!read_file(path, &h[r], &data[r])) complete = 0;
    else if (h[r].kind != p->kind || h[r].type != p->type || h[r].op != p->op ||
             h[r].root != p->root || h[r].count != p->count) match = 0;
  }
  if (!complete) s->error = SYSTEM_ERROR;
  else if (!match) s->error = INVALID_USAGE;
  else {
    const void *sources[MAX_RANKS];
    for (int r = 0; r < s->nranks; ++r) sources[r] = data[r];
    const struct call mine = {p->kind, p->type, p->op, p->root, p->count, NULL, p->recv};
    compute_rank(&mine, sources, s->nranks, s->rank);
  }
  for (int r = 0; r < s->nranks; ++r) free(data[r]);
  shared_path(s, path, "d%lld.%lld", p->seq, s->rank, 0);
  const struct header done = {0, 0, 0, 0, 0, 0};
  write_file(path, &done, NULL, 0);
  for (int r = 0; r < s->nranks; ++r) {
    shared_path(s, path, "d%lld.%lld", p->seq, r, 0);
    if (!exists(path)) return 1;
  }
  for (int r = 0; r < s->nranks; ++r) {
    shared_path(s, path, "c%lld.%lld", p->seq, r, 0);
    unlink(path);
    shared_path(s, path, "d%lld.%lld", p->seq, r, 0);
    unlink(path);
  }
  return 1;
}

/* Completes what this rank can, in order. Call with the lock held. */
static void shared_progress(struct shared *s) {
  if (s->error != SUCCESS) return;
  const int joined = shared_join_state(s);
  if (joined < 0) s->error = INVALID_USAGE;
  if (joined != 1) return;
  while (s->head && s->error == SUCCESS) {
    struct pending *p = s->head;
    if (!(p->is_recv ? progress_recv(s, p) : progress_collective(s, p))) return;
    s->head = p->next;
    if (!s->head) s->tail = NULL;
    free(p);
  }
}

static void shared_queue(struct shared *s, struct pending p) {
  struct pending *entry = malloc(sizeof *entry);
  *entry = p;
  entry->next = NULL;
  if (s->tail) s->tail->next = entry;
  else s->head = entry;
  s->tail = entry;
}

static result_t shared_init(struct comm **out, int nranks, const unique_id_t *id, int rank) {
  uint64_t hash = 1469598103934665603ull; /* FNV-1a of the id's bytes */
  for (size_t i = 0; i < sizeof id->internal; ++i) {
    hash = (hash ^ (unsigned char)id->internal[i]) * 1099511628211ull;
  }
  const char *tmp = getenv("TMPDIR");
  struct shared *s = calloc(1, sizeof *s);
  snprintf(s->dir, sizeof s->dir, "%s/fake-nccl-%d-%016llx", tmp && *tmp ? tmp : "/tmp",
           (int)getuid(), (unsigned long long)hash);
  s->nranks = nranks;
  s->rank = rank;
  if (mkdir(s->dir, 0700) != 0 && errno != EEXIST) {
    snprintf(last_error, sizeof last_error, "fake: cannot make %s", s->dir);
    free(s);
    return SYSTEM_ERROR;
  }
  char path[PATH_MAX];
  shared_path(s, path, "join.%lld", rank, 0, 0);
  const struct header me = {0, 0, 0, (int32_t)getpid(), (uint64_t)nranks, 0};
  if (write_file(path, &me, NULL, 1) != 0) {
    snprintf(last_error, sizeof last_error, "fake: rank %d joined twice", rank);
    free(s);
    return INVALID_USAGE;
  }
  const int limit_ms = env_int("FAKE_NCCL_INIT_TIMEOUT_MS", 60000);
  int state = 0;
  for (int waited = 0; group_depth == 0; waited += 2) {
    state = shared_join_state(s);
    if (state != 0) break;
    if (waited >= limit_ms) {
      snprintf(last_error, sizeof last_error, "fake: not every rank joined within %d ms", limit_ms);
      unlink(path);
      free(s);
      return SYSTEM_ERROR;
    }
    const struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
  }
  if (state < 0) {
    unlink(path);
    free(s);
    return INVALID_USAGE;
  }
  struct comm *comm = calloc(1, sizeof *comm);
  comm->rank = rank;
  comm->device = rank;
  comm->shared = s;
  pthread_mutex_lock(&lock);
  ++live_comms;
  pthread_mutex_unlock(&lock);
  *out = comm;
  return SUCCESS;
}

static result_t shared_enqueue(struct comm *comm, struct call call) {
  struct shared *s = comm->shared;
  if (call.kind == K_BROADCAST && (call.root < 0 || call.root >= s->nranks)) {
    snprintf(last_error, sizeof last_error, "fake: invalid root %d", call.root);
    return INVALID_ARGUMENT;
  }
  if (fails(comm)) {
    snprintf(last_error, sizeof last_error, "fake: rank %d was told to fail (FAKE_NCCL_FAIL_RANK)", comm->rank);
    return SYSTEM_ERROR;
  }
  const size_t esize = type_size[call.type];
  size_t bytes = call.kind == K_REDUCESCATTER ? call.count * s->nranks * esize : call.count * esize;
  if (call.kind == K_BROADCAST && call.root != comm->rank) bytes = 0;
  pthread_mutex_lock(&lock);
  char path[PATH_MAX];
  shared_path(s, path, "c%lld.%lld", s->posted, s->rank, 0);
  const struct header h = {call.kind, call.type, call.op, call.root, call.count, bytes};
  if (write_file(path, &h, call.send, 0) != 0) {
    pthread_mutex_unlock(&lock);
    snprintf(last_error, sizeof last_error, "fake: cannot write %s", path);
    return SYSTEM_ERROR;
  }
  shared_queue(s, (struct pending){0, call.kind, call.type, call.op, call.root, 0, call.count,
                                   s->posted, call.recv, NULL});
  ++s->posted;
  shared_progress(s);
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

static int shared_ranks(const struct comm *comm) { return comm->shared->nranks; }

__attribute__((unused)) static result_t shared_p2p(struct comm *comm, int is_send, const void *send, void *recv,
                           size_t count, int type, int peer) {
  struct shared *s = comm->shared;
  if (peer < 0 || peer >= s->nranks) {
    snprintf(last_error, sizeof last_error, "fake: invalid peer %d", peer);
    return INVALID_ARGUMENT;
  }
  if (fails(comm)) {
    snprintf(last_error, sizeof last_error, "fake: rank %d was told to fail (FAKE_NCCL_FAIL_RANK)", comm->rank);
    return SYSTEM_ERROR;
  }
  pthread_mutex_lock(&lock);
  result_t result = SUCCESS;
  if (is_send) {
    char path[PATH_MAX];
    shared_path(s, path, "p%lld.%lld.%lld", s->rank, peer, s->sends[peer]++);
    const struct header h = {0, type, 0, 0, count, count * type_size[type]};
    if (write_file(path, &h, send, 0) != 0) result = SYSTEM_ERROR;
  } else {
    shared_queue(s, (struct pending){1, 0, type, 0, 0, peer, count, s->recvs[peer]++, recv, NULL});
  }
  shared_progress(s);
  pthread_mutex_unlock(&lock);
  return result;
}

static result_t shared_async_error(struct comm *comm) {
  struct shared *s = comm->shared;
  shared_progress(s);
  if (s->error != SUCCESS) return s->error;
  return s->head || !s->joined ? IN_PROGRESS : SUCCESS;
}

/* Leaves the clique: marks it, and the last rank out (every other one left or its process gone)
   removes the directory. Join files stay until then: a rank still reading them to finish its
   own init must find every one, even of a rank that already left. */
static void shared_leave(struct comm *comm) {
  struct shared *s = comm->shared;
  char path[PATH_MAX];
  shared_path(s, path, "left.%lld", s->rank, 0, 0);
  const struct header h = {0, 0, 0, 0, 0, 0};
  write_file(path, &h, NULL, 0);
  int others = !s->joined;
  for (int r = 0; r < s->nranks && !others; ++r) {
    if (r != s->rank && !peer_gone(s, r)) others = 1;
  }
  if (!others) {
    DIR *dir = opendir(s->dir);
    for (struct dirent *e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
      unlink(path);
    }
    if (dir) closedir(dir);
    rmdir(s->dir);
  }
  while (s->head) {
    struct pending *p = s->head;
    s->head = p->next;
    free(p);
  }
  free(s);
  free(comm);
  --live_comms;
}
