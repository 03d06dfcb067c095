/*
 * A fake libcudnn.so.9 for CI, which has no cuDNN. The tests compile it with cc into a temporary
 * directory and point BARACUDA_CUDNN_LIBRARY at it. It exports a subset of the API with canned
 * behaviour and writes a text record of each call that cudnnGetLastErrorString returns, so the
 * tests can see exactly what the addon passed to C (element counts, typed-array bytes,
 * descriptor arrays). Not shipped in the addon; never loaded outside tests.
 *
 * Live counts: the fake counts the handles, tensor, filter and convolution descriptors and backend
 * descriptors alive, and exports them as fake_live_counts(), a JSON string; tests read it in-process
 * with fakeLiveCounts() of scripts/testing/build-fake.mjs (fakeCudnnLiveCounts() in
 * src/test-support.ts) to assert that destroying and disposing freed everything. Thread-safe.
 *
 * FAKE_CUDNN_ENGINES (read at each call) scripts the engine configs the heuristics offer, as
 * `ENGINE[:KNOB=VALUE[,KNOB=VALUE...]][@WORKSPACE_BYTES][!NOTE[,NOTE...]]` separated by `;`, e.g.
 * `0:2=1,4=0;0:2=3;28@4096!0`. An engine reports the numerical notes (cudnnBackendNumericalNote_t
 * values) of its first scripted config. Unset or empty, the graph API offers nothing (kernels then takes the
 * legacy fallback), as before the variable existed. Two more suffixes may follow (the suffixes
 * in any order): `~MS`, the milliseconds each execution of the config takes on the fake device (handed to the
 * fake libcuda's fake_cuda_spend_ms, so events recorded around the call see it; default 0), and
 * `?NOTE[,NOTE...]`, the behaviour notes (cudnnBackendBehaviorNote_t values) its engine reports,
 * e.g. `28~0.5;61~2.5?0`.
 *
 * FAKE_CUDNN_HEUR_MODE_<N> (read at each call), for a heuristic mode N (cudnnBackendHeurMode_t:
 * 1 B, 2 FALLBACK, 3 A), lists which of the scripted configs that mode offers, by their position
 * in FAKE_CUDNN_ENGINES, in its order (`2,0`); unset, a mode offers every config in order.
 *
 * FAKE_CUDNN_KNOB_INFO scripts the knob ranges engines report (CUDNN_ATTR_ENGINE_KNOB_INFO), as
 * `ENGINE:KNOB=MIN..MAX/STRIDE[,...]` separated by `;`, e.g. `0:2=0..5/1,4=0..1/1`. An engine
 * config the caller builds (an engine by global index, knob choices) finalizes when it equals a
 * scripted config (it then has that config's workspace) or when every choice lies in its engine's
 * scripted ranges; otherwise finalizing it returns CUDNN_STATUS_NOT_SUPPORTED.
 *
 * Built with -DFAKE_CUDNN_NO_BACKWARD, the fake lacks the ten legacy backward-data and
 * backward-filter functions, as a partial library would (tests of the missing-symbol error).
 *
 * FAKE_CUDNN_NO_FUSED=1 (read at each call): the heuristics offer nothing for an operation graph
 * of more than one operation (a fused epilogue), as cuDNN does for many problems.
 *
 * FAKE_CUDNN_EXECUTE_LOG (read at each call), when set, names a file to which each
 * cudnnBackendExecute appends a line: the variant pack's data pointers, in hex, then the ids of
 * the execution plan and the variant pack (`#N`), separated by spaces.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int status_t;
/* The log is per thread, as cuDNN's last-error string is: worker threads may call at once. */
static __thread char g_log[4096];
static int g_next_id = 1;
#define NEXT_ID() __atomic_fetch_add(&g_next_id, 1, __ATOMIC_RELAXED)

/* Live objects, so tests can assert that dispose freed everything: fake_live_counts() returns
   them as a JSON string (read in-process with fakeLiveCounts() of scripts/testing/build-fake.mjs). */
static long long live_handles, live_tensors, live_filters, live_convolutions, live_activations,
    live_backend;
#define LIVE_ADD(counter, n) __atomic_add_fetch(&(counter), (n), __ATOMIC_RELAXED)

const char *fake_live_counts(void) {
  static __thread char text[256];
  snprintf(text, sizeof text,
           "{\"handles\":%lld,\"tensors\":%lld,\"filters\":%lld,\"convolutions\":%lld,"
           "\"activations\":%lld,\"backendDescriptors\":%lld}",
           __atomic_load_n(&live_handles, __ATOMIC_RELAXED),
           __atomic_load_n(&live_tensors, __ATOMIC_RELAXED),
           __atomic_load_n(&live_filters, __ATOMIC_RELAXED),
           __atomic_load_n(&live_convolutions, __ATOMIC_RELAXED),
           __atomic_load_n(&live_activations, __ATOMIC_RELAXED),
           __atomic_load_n(&live_backend, __ATOMIC_RELAXED));
  return text;
}

static void log_call(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_log, sizeof g_log, format, args);
  va_end(args);
}

static void log_append(const char *format, ...) {
  size_t used = strlen(g_log);
  va_list args;
  va_start(args, format);
  vsnprintf(g_log + used, sizeof g_log - used, format, args);
  va_end(args);
}

typedef struct {
  int id;
  void *stream;
} handle_t;

#define MAX_CONFIGS 32
#define MAX_KNOBS 32

typedef struct {
  int64_t engine;
  int knobs;
  int knob_type[MAX_KNOBS];
  int64_t knob_value[MAX_KNOBS];
  int64_t workspace;
  int notes;
  int note[MAX_KNOBS];
  /* `~MS`: the milliseconds an execution takes; `?NOTE,...`: the engine's behaviour notes. */
  double ms;
  int behaviours;
  int behaviour[MAX_KNOBS];
} engine_config_t;

typedef struct {
  int id;
  int type;
  int filled_from;
  int attr_name;
  int attr_type;
  int64_t attr_count;
  unsigned char attr_bytes[512];
  /* The scripted config behind an engine config or engine descriptor the fake filled or
     finalized, or the config an execution plan was given (has_config). */
  engine_config_t config;
  int has_config;
  /* An engine given a global index, or an engine config given an engine (not yet finalized). */
  int built;
  int knob_type;
  int64_t knob_value;
  int has_knob;
  /* A knob info descriptor the fake filled. */
  int64_t info_min, info_max, info_stride;
  int has_info;
  /* A variant pack's data pointers (FAKE_CUDNN_EXECUTE_LOG). */
  uint64_t data_pointers[8];
  int64_t data_pointer_count;
  /* Operations of an operation graph, or of the graph a heuristics descriptor was given. */
  int64_t op_count;
  /* A heuristics descriptor's mode (-1 until set). */
  int heur_mode;
} backend_t;

typedef struct {
  int id;
  int data_type;
  int format;
  int nb_dims;
  int dims[8];
  int strides[8];
} tensor_t;

typedef struct {
  int id;
  int length;
  int pad[6], stride[6], dilation[6];
  int mode, compute_type, group_count, math_type, reorder_type;
} conv_t;

/* Numbers from packages/cudnn-sys/src/constants.ts. */
enum {
  TYPE_INT64 = 3,
  TYPE_KNOB_TYPE = 9,
  TYPE_NUMERICAL_NOTE = 11,
  TYPE_BEHAVIOR_NOTE = 19,
  TYPE_BACKEND_DESCRIPTOR = 15,
  BACKEND_ENGINE = 2,
  BACKEND_ENGINECFG = 3,
  BACKEND_ENGINEHEUR = 4,
  BACKEND_EXECUTION_PLAN = 5,
  BACKEND_KNOB_CHOICE = 7,
  BACKEND_KNOB_INFO = 8,
  ATTR_ENGINEHEUR_MODE = 200,
  ATTR_ENGINEHEUR_OPERATION_GRAPH = 201,
  ATTR_ENGINEHEUR_RESULTS = 202,
  ATTR_OPERATIONGRAPH_OPS = 801,
  ATTR_ENGINECFG_ENGINE = 300,
  ATTR_ENGINECFG_KNOB_CHOICES = 302,
  ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
  ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
  ATTR_KNOB_CHOICE_KNOB_TYPE = 600,
  ATTR_KNOB_CHOICE_KNOB_VALUE = 601,
  ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
  ATTR_KNOB_INFO_TYPE = 1200,
  ATTR_KNOB_INFO_MAXIMUM_VALUE = 1201,
  ATTR_KNOB_INFO_MINIMUM_VALUE = 1202,
  ATTR_KNOB_INFO_STRIDE = 1203,
  ATTR_ENGINE_GLOBAL_INDEX = 1301,
  ATTR_ENGINE_KNOB_INFO = 1302,
  ATTR_ENGINE_NUMERICAL_NOTE = 1303,
  ATTR_ENGINE_BEHAVIOR_NOTE = 1305,
};

/* Parsed at each call so a test can change the list between plans. Returns the number of
   configs (0 when the variable is unset or empty). */
static int scripted_engines(engine_config_t *out) {
  const char *p = getenv("FAKE_CUDNN_ENGINES");
  int n = 0;
  if (p == NULL) return 0;
  while (*p != '\0' && n < MAX_CONFIGS) {
    char *end;
    if (*p == ';') {
      ++p;
      continue;
    }
    engine_config_t *c = &out[n++];
    memset(c, 0, sizeof *c);
    c->engine = strtoll(p, &end, 10);
    p = end;
    if (*p == ':') {
      do {
        ++p;
        long long type = strtoll(p, &end, 10);
        if (*end != '=') break;
        long long value = strtoll(end + 1, &end, 10);
        if (c->knobs < MAX_KNOBS) {
          c->knob_type[c->knobs] = (int)type;
          c->knob_value[c->knobs] = value;
          ++c->knobs;
        }
        p = end;
      } while (*p == ',');
    }
    /* The suffixes, in any order. */
    for (;;) {
      if (*p == '@') {
        c->workspace = strtoll(p + 1, &end, 10);
        p = end;
      } else if (*p == '!' || *p == '?') {
        const int behaviour = *p == '?';
        do {
          ++p;
          long long note = strtoll(p, &end, 10);
          if (end == p) break;
          if (behaviour && c->behaviours < MAX_KNOBS) c->behaviour[c->behaviours++] = (int)note;
          if (!behaviour && c->notes < MAX_KNOBS) c->note[c->notes++] = (int)note;
          p = end;
        } while (*p == ',');
      } else if (*p == '~') {
        c->ms = strtod(p + 1, &end);
        p = end;
      } else {
        break;
      }
    }
    while (*p != '\0' && *p != ';') ++p; /* skip what does not parse */
  }
  return n;
}

typedef struct {
  int knob;
  int64_t min, max, stride;
} knob_range_t;

/* The scripted knob ranges of `engine` (FAKE_CUDNN_KNOB_INFO); returns how many. */
static int scripted_knob_info(int64_t engine, knob_range_t *out) {
  const char *p = getenv("FAKE_CUDNN_KNOB_INFO");
  int n = 0;
  if (p == NULL) return 0;
  while (*p != '\0') {
    char *end;
    if (*p == ';') {
      ++p;
      continue;
    }
    const long long e = strtoll(p, &end, 10);
    p = end;
    if (*p == ':') {
      do {
        ++p;
        knob_range_t r;
        r.knob = (int)strtoll(p, &end, 10);
        if (*end != '=') break;
        r.min = strtoll(end + 1, &end, 10);
        if (end[0] != '.' || end[1] != '.') break;
        r.max = strtoll(end + 2, &end, 10);
        if (*end != '/') break;
        r.stride = strtoll(end + 1, &end, 10);
        if (e == engine && n < MAX_KNOBS) out[n++] = r;
        p = end;
      } while (*p == ',');
    }
    while (*p != '\0' && *p != ';') ++p;
  }
  return n;
}

static int knows_engine(int64_t engine) {
  engine_config_t configs[MAX_CONFIGS];
  knob_range_t ranges[MAX_KNOBS];
  const int n = scripted_engines(configs);
  for (int i = 0; i < n; ++i)
    if (configs[i].engine == engine) return 1;
  return scripted_knob_info(engine, ranges) > 0;
}

static int knob_of(const engine_config_t *c, int type, int64_t *value) {
  for (int i = 0; i < c->knobs; ++i) {
    if (c->knob_type[i] == type) {
      *value = c->knob_value[i];
      return 1;
    }
  }
  return 0;
}

/* A built config is valid as a scripted config (taking its workspace) or within its engine's
   scripted knob ranges. */
static int validate_built(engine_config_t *c) {
  engine_config_t configs[MAX_CONFIGS];
  const int n = scripted_engines(configs);
  for (int i = 0; i < n; ++i) {
    const engine_config_t *s = &configs[i];
    if (s->engine != c->engine || s->knobs != c->knobs) continue;
    int same = 1;
    for (int k = 0; k < c->knobs && same; ++k) {
      int64_t v;
      same = knob_of(s, c->knob_type[k], &v) && v == c->knob_value[k];
    }
    if (same) {
      c->workspace = s->workspace;
      c->ms = s->ms;
      return 1;
    }
  }
  knob_range_t ranges[MAX_KNOBS];
  const int r = scripted_knob_info(c->engine, ranges);
  if (r == 0) return 0;
  for (int k = 0; k < c->knobs; ++k) {
    int ok = 0;
    for (int i = 0; i < r && !ok; ++i) {
      const knob_range_t *g = &ranges[i];
      const int64_t v = c->knob_value[k];
      ok = g->knob == c->knob_type[k] && v >= g->min && v <= g->max && g->stride > 0 &&
           (v - g->min) % g->stride == 0;
    }
    if (!ok) return 0;
  }
  c->workspace = 0;
  return 1;
}

size_t cudnnGetVersion(void) {
  const char *forced = getenv("FAKE_CUDNN_VERSION");
  return forced ? (size_t)strtoul(forced, NULL, 10) : 91400;
}
size_t cudnnGetCudartVersion(void) { return 13000; }
size_t cudnnGetMaxDeviceVersion(void) { return 1200; }

status_t cudnnGetProperty(int type, int *value) {
  const int values[3] = {9, 14, 0};
  if (type < 0 || type > 2 || value == NULL) return 2000;
  *value = values[type];
  return 0;
}

const char *cudnnGetErrorString(status_t status) {
  return status == 0 ? "CUDNN_STATUS_SUCCESS" : "FAKE_CUDNN_ERROR";
}

void cudnnGetLastErrorString(char *message, size_t max_size) {
  if (max_size == 0) return;
  strncpy(message, g_log, max_size - 1);
  message[max_size - 1] = '\0';
}

status_t cudnnCreate(void **out) {
  handle_t *handle = calloc(1, sizeof *handle);
  handle->id = NEXT_ID();
  *out = handle;
  LIVE_ADD(live_handles, 1);
  log_call("cudnnCreate #%d", handle->id);
  return 0;
}

status_t cudnnDestroy(void *p) {
  handle_t *handle = p;
  log_call("cudnnDestroy #%d", handle->id);
  free(handle);
  LIVE_ADD(live_handles, -1);
  return 0;
}

status_t cudnnSetStream(void *p, void *stream) {
  handle_t *handle = p;
  handle->stream = stream;
  log_call("cudnnSetStream #%d %p", handle->id, stream);
  return 0;
}

status_t cudnnGetStream(void *p, void **stream) {
  *stream = ((handle_t *)p)->stream;
  return 0;
}

/* ---- backend ---- */

status_t cudnnBackendCreateDescriptor(int type, void **out) {
  if (type == 999) return 2000; /* lets a test see a failed create */
  backend_t *desc = calloc(1, sizeof *desc);
  desc->id = NEXT_ID();
  desc->type = type;
  desc->heur_mode = -1;
  *out = desc;
  LIVE_ADD(live_backend, 1);
  log_call("cudnnBackendCreateDescriptor type=%d #%d", type, desc->id);
  return 0;
}

status_t cudnnBackendDestroyDescriptor(void *p) {
  backend_t *desc = p;
  log_call("cudnnBackendDestroyDescriptor #%d", desc->id);
  free(desc);
  LIVE_ADD(live_backend, -1);
  return 0;
}

status_t cudnnBackendFinalize(void *p) {
  backend_t *desc = p;
  log_call("cudnnBackendFinalize #%d", desc->id);
  if (desc->built && desc->type == BACKEND_ENGINE && !knows_engine(desc->config.engine))
    return 3000;
  if (desc->built && desc->type == BACKEND_ENGINECFG) {
    if (!validate_built(&desc->config)) return 3000;
    desc->built = 0;
    desc->has_config = 1;
  }
  return 0;
}

static size_t element_size(int type) {
  switch (type) {
    case 2: case 24: return 1;             /* BOOLEAN, CHAR */
    case 3: case 5: case 6: case 0: case 15: return 8; /* INT64 DOUBLE VOID_PTR HANDLE DESC */
    case 26: return 16;                    /* FRACTION */
    default: return 4;                     /* FLOAT, INT32, enums */
  }
}

status_t cudnnBackendSetAttribute(void *p, int name, int type, int64_t count, const void *data) {
  backend_t *desc = p;
  size_t bytes = (size_t)count * element_size(type);
  if (bytes > sizeof desc->attr_bytes) return 2006;
  log_call("set #%d name=%d type=%d count=%lld", desc->id, name, type, (long long)count);
  if (type == 15 || type == 0) {
    log_append(" ids=[");
    for (int64_t i = 0; i < count; ++i) {
      log_append(i ? ",#%d" : "#%d", *(const int *)((void *const *)data)[i]);
    }
    log_append("]");
  } else {
    log_append(" bytes=");
    for (size_t i = 0; i < bytes; ++i) log_append("%02x", ((const unsigned char *)data)[i]);
  }
  desc->attr_name = name;
  desc->attr_type = type;
  desc->attr_count = count;
  if (bytes) memcpy(desc->attr_bytes, data, bytes);
  if (name == ATTR_VARIANT_PACK_DATA_POINTERS && count <= 8) {
    memcpy(desc->data_pointers, data, bytes);
    desc->data_pointer_count = count;
  }
  /* Kept apart from the stored attribute, which the next set overwrites. */
  const backend_t *first = (type == 15 && count >= 1) ? ((backend_t *const *)data)[0] : NULL;
  if (name == ATTR_OPERATIONGRAPH_OPS) desc->op_count = count;
  if (name == ATTR_ENGINEHEUR_MODE && count == 1) desc->heur_mode = *(const int32_t *)data;
  if (name == ATTR_ENGINEHEUR_OPERATION_GRAPH && first) desc->op_count = first->op_count;
  if (desc->type == BACKEND_EXECUTION_PLAN && name == ATTR_EXECUTION_PLAN_ENGINE_CONFIG && first) {
    desc->config = first->config;
    desc->has_config = first->has_config;
  }
  if (desc->type == BACKEND_ENGINE && name == ATTR_ENGINE_GLOBAL_INDEX && type == TYPE_INT64) {
    memset(&desc->config, 0, sizeof desc->config);
    desc->config.engine = *(const int64_t *)data;
    desc->built = 1;
  }
  if (desc->type == BACKEND_KNOB_CHOICE && name == ATTR_KNOB_CHOICE_KNOB_TYPE &&
      type == TYPE_KNOB_TYPE) {
    desc->knob_type = *(const int32_t *)data;
    desc->has_knob = 1;
  }
  if (desc->type == BACKEND_KNOB_CHOICE && name == ATTR_KNOB_CHOICE_KNOB_VALUE &&
      type == TYPE_INT64) {
    desc->knob_value = *(const int64_t *)data;
    desc->has_knob = 1;
  }
  if (desc->type == BACKEND_ENGINECFG && name == ATTR_ENGINECFG_ENGINE && first) {
    memset(&desc->config, 0, sizeof desc->config);
    desc->config.engine = first->config.engine;
    desc->built = 1;
    desc->has_config = 0;
  }
  if (desc->type == BACKEND_ENGINECFG && name == ATTR_ENGINECFG_KNOB_CHOICES && type == 15) {
    desc->config.knobs = 0;
    for (int64_t i = 0; i < count && i < MAX_KNOBS; ++i) {
      const backend_t *choice = ((backend_t *const *)data)[i];
      desc->config.knob_type[i] = choice->knob_type;
      desc->config.knob_value[i] = choice->knob_value;
      desc->config.knobs = (int)i + 1;
    }
  }
  return 0;
}

/* The configs heuristic mode `mode` offers of the `n` scripted ones (FAKE_CUDNN_HEUR_MODE_<N>),
   moved to the front of `configs` in the mode's order; returns how many. */
static int offered_by_mode(int mode, engine_config_t *configs, int n) {
  char name[64];
  snprintf(name, sizeof name, "FAKE_CUDNN_HEUR_MODE_%d", mode);
  const char *p = getenv(name);
  if (p == NULL) return n;
  engine_config_t all[MAX_CONFIGS];
  memcpy(all, configs, sizeof(engine_config_t) * (size_t)n);
  int m = 0;
  while (*p != '\0' && m < MAX_CONFIGS) {
    char *end;
    const long i = strtol(p, &end, 10);
    if (end == p) break;
    if (i >= 0 && i < n) configs[m++] = all[i];
    p = *end == ',' ? end + 1 : end;
  }
  return m;
}

/* The scripted engine-API attributes. Returns -1 when the descriptor or attribute is not one of
   them (the stored attribute answers then), else the status. */
static status_t scripted_get(backend_t *desc, int name, int type, int64_t requested,
                             int64_t *count, void *data) {
  engine_config_t configs[MAX_CONFIGS];
  const int64_t room = data == NULL ? 0 : requested;
  const engine_config_t *c = desc->has_config ? &desc->config : NULL;
  if (desc->type == BACKEND_ENGINEHEUR && name == ATTR_ENGINEHEUR_RESULTS &&
      type == TYPE_BACKEND_DESCRIPTOR) {
    const char *no_fused = getenv("FAKE_CUDNN_NO_FUSED");
    const int fused_refused = no_fused != NULL && no_fused[0] == '1' && desc->op_count > 1;
    int n = fused_refused ? 0 : scripted_engines(configs);
    n = offered_by_mode(desc->heur_mode, configs, n);
    if (n == 0) return -1;
    *count = n;
    for (int64_t i = 0; i < room && i < n; ++i) {
      backend_t *out = ((backend_t **)data)[i];
      out->config = configs[i];
      out->has_config = 1;
      log_append(i ? ",#%d<-config%lld" : " filled=#%d<-config%lld", out->id, (long long)i);
    }
    return 0;
  }
  if (c == NULL) return -1;
  if (desc->type == BACKEND_ENGINECFG && name == ATTR_ENGINECFG_ENGINE &&
      type == TYPE_BACKEND_DESCRIPTOR) {
    *count = 1;
    if (room >= 1) {
      ((backend_t **)data)[0]->config = desc->config;
      ((backend_t **)data)[0]->has_config = 1;
    }
    return 0;
  }
  if (desc->type == BACKEND_ENGINE && name == ATTR_ENGINE_KNOB_INFO &&
      type == TYPE_BACKEND_DESCRIPTOR) {
    knob_range_t ranges[MAX_KNOBS];
    const int r = scripted_knob_info(c->engine, ranges);
    *count = r;
    for (int64_t i = 0; i < room && i < r; ++i) {
      backend_t *out = ((backend_t **)data)[i];
      out->knob_type = ranges[i].knob;
      out->info_min = ranges[i].min;
      out->info_max = ranges[i].max;
      out->info_stride = ranges[i].stride;
      out->has_info = 1;
    }
    return 0;
  }
  if (desc->type == BACKEND_ENGINECFG && name == ATTR_ENGINECFG_KNOB_CHOICES &&
      type == TYPE_BACKEND_DESCRIPTOR) {
    /* As cuDNN 9.14 and 9.19 do: asked for the count alone, they report no choices. */
    if (room == 0) {
      *count = 0;
      return 0;
    }
    *count = c->knobs;
    for (int64_t i = 0; i < room && i < c->knobs; ++i) {
      backend_t *out = ((backend_t **)data)[i];
      out->knob_type = c->knob_type[i];
      out->knob_value = c->knob_value[i];
      out->has_knob = 1;
      log_append(i ? ",#%d<-%d=%lld" : " filled=#%d<-%d=%lld", out->id, c->knob_type[i],
                 (long long)c->knob_value[i]);
    }
    return 0;
  }
  if (desc->type == BACKEND_ENGINE && name == ATTR_ENGINE_GLOBAL_INDEX && type == TYPE_INT64) {
    *count = 1;
    if (room >= 1) *(int64_t *)data = c->engine;
    return 0;
  }
  if (desc->type == BACKEND_ENGINE && name == ATTR_ENGINE_NUMERICAL_NOTE &&
      type == TYPE_NUMERICAL_NOTE) {
    engine_config_t configs[MAX_CONFIGS];
    const int n = scripted_engines(configs);
    *count = 0;
    for (int i = 0; i < n; ++i) {
      if (configs[i].engine != c->engine) continue;
      *count = configs[i].notes;
      for (int64_t k = 0; k < room && k < configs[i].notes; ++k) ((int32_t *)data)[k] = configs[i].note[k];
      break;
    }
    return 0;
  }
  if (desc->type == BACKEND_ENGINE && name == ATTR_ENGINE_BEHAVIOR_NOTE &&
      type == TYPE_BEHAVIOR_NOTE) {
    engine_config_t configs[MAX_CONFIGS];
    const int n = scripted_engines(configs);
    *count = 0;
    for (int i = 0; i < n; ++i) {
      if (configs[i].engine != c->engine) continue;
      *count = configs[i].behaviours;
      for (int64_t k = 0; k < room && k < configs[i].behaviours; ++k)
        ((int32_t *)data)[k] = configs[i].behaviour[k];
      break;
    }
    return 0;
  }
  if (desc->type == BACKEND_EXECUTION_PLAN && name == ATTR_EXECUTION_PLAN_WORKSPACE_SIZE &&
      type == TYPE_INT64) {
    *count = 1;
    if (room >= 1) *(int64_t *)data = c->workspace;
    return 0;
  }
  return -1;
}

static status_t scripted_knob_get(backend_t *desc, int name, int type, int64_t requested,
                                  int64_t *count, void *data) {
  const int64_t room = data == NULL ? 0 : requested;
  if (desc->type == BACKEND_KNOB_INFO && desc->has_info) {
    if (name == ATTR_KNOB_INFO_TYPE && type == TYPE_KNOB_TYPE) {
      *count = 1;
      if (room >= 1) *(int32_t *)data = desc->knob_type;
      return 0;
    }
    const int64_t value = name == ATTR_KNOB_INFO_MINIMUM_VALUE   ? desc->info_min
                          : name == ATTR_KNOB_INFO_MAXIMUM_VALUE ? desc->info_max
                                                                 : desc->info_stride;
    if (type == TYPE_INT64 && (name == ATTR_KNOB_INFO_MINIMUM_VALUE ||
                               name == ATTR_KNOB_INFO_MAXIMUM_VALUE || name == ATTR_KNOB_INFO_STRIDE)) {
      *count = 1;
      if (room >= 1) *(int64_t *)data = value;
      return 0;
    }
    return -1;
  }
  if (desc->type != BACKEND_KNOB_CHOICE || !desc->has_knob) return -1;
  if (name == ATTR_KNOB_CHOICE_KNOB_TYPE && type == TYPE_KNOB_TYPE) {
    *count = 1;
    if (room >= 1) *(int32_t *)data = desc->knob_type;
    return 0;
  }
  if (name == ATTR_KNOB_CHOICE_KNOB_VALUE && type == TYPE_INT64) {
    *count = 1;
    if (room >= 1) *(int64_t *)data = desc->knob_value;
    return 0;
  }
  return -1;
}

status_t cudnnBackendGetAttribute(void *p, int name, int type, int64_t requested, int64_t *count,
                                  void *data) {
  backend_t *desc = p;
  log_call("get #%d name=%d type=%d requested=%lld", desc->id, name, type, (long long)requested);
  status_t scripted = scripted_get(desc, name, type, requested, count, data);
  if (scripted < 0) scripted = scripted_knob_get(desc, name, type, requested, count, data);
  if (scripted >= 0) return scripted;
  if (desc->attr_name != name || desc->attr_type != type) return 2000;
  *count = desc->attr_count;
  int64_t n = requested < desc->attr_count ? requested : desc->attr_count;
  if (data == NULL) return 0;
  if (type == 15) {
    /* The real API fills caller-created descriptors; record which stored one filled each. */
    for (int64_t i = 0; i < n; ++i) {
      backend_t *out = ((backend_t **)data)[i];
      out->filled_from = *(int *)((void **)desc->attr_bytes)[i];
      log_append(i ? ",#%d<-#%d" : " filled=#%d<-#%d", out->id, out->filled_from);
    }
    return 0;
  }
  memcpy(data, desc->attr_bytes, (size_t)n * element_size(type));
  return 0;
}

/* The fake libcuda's fake_cuda_spend_ms (null when another libcuda is loaded): the scripted
   time of an execution goes into the elapsed time of events recorded around it. */
static void spend_ms(double ms) {
  static void (*spend)(double) = NULL;
  if (spend == NULL) {
    /* Looked up until found: the driver may load after the first execution. */
    const char *path = getenv("BARACUDA_CUDA_DRIVER_LIBRARY");
    void *lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (lib) {
      spend = (void (*)(double))dlsym(lib, "fake_cuda_spend_ms");
      dlclose(lib);
    }
  }
  if (spend) spend(ms);
}

status_t cudnnBackendExecute(void *handle, void *plan, void *pack) {
  const backend_t *vp = pack;
  const backend_t *ep = plan;
  if (ep->has_config && ep->config.ms > 0) spend_ms(ep->config.ms);
  log_call("cudnnBackendExecute #%d #%d #%d", ((handle_t *)handle)->id, ((backend_t *)plan)->id,
           vp->id);
  const char *path = getenv("FAKE_CUDNN_EXECUTE_LOG");
  FILE *f = (path && *path) ? fopen(path, "a") : NULL;
  if (f) {
    for (int64_t i = 0; i < vp->data_pointer_count; ++i) {
      fprintf(f, i ? " %llx" : "%llx", (unsigned long long)vp->data_pointers[i]);
    }
    fprintf(f, " #%d #%d\n", ((backend_t *)plan)->id, vp->id);
    fclose(f);
  }
  return 0;
}

/* ---- tensor and filter descriptors ---- */

static status_t create_tensor(void **out, const char *what) {
  tensor_t *t = calloc(1, sizeof *t);
  t->id = NEXT_ID();
  *out = t;
  log_call("%s #%d", what, t->id);
  return 0;
}

status_t cudnnCreateTensorDescriptor(void **out) {
  LIVE_ADD(live_tensors, 1);
  return create_tensor(out, "cudnnCreateTensorDescriptor");
}
status_t cudnnCreateFilterDescriptor(void **out) {
  LIVE_ADD(live_filters, 1);
  return create_tensor(out, "cudnnCreateFilterDescriptor");
}

status_t cudnnSetTensorNdDescriptor(void *p, int data_type, int nb_dims, const int *dims,
                                    const int *strides) {
  tensor_t *t = p;
  if (nb_dims < 1 || nb_dims > 8) return 2000;
  t->data_type = data_type;
  t->nb_dims = nb_dims;
  log_call("cudnnSetTensorNdDescriptor #%d type=%d dims=", t->id, data_type);
  for (int i = 0; i < nb_dims; ++i) {
    t->dims[i] = dims[i];
    t->strides[i] = strides[i];
    log_append(i ? "x%d" : "%d", dims[i]);
  }
  log_append(" strides=");
  for (int i = 0; i < nb_dims; ++i) log_append(i ? ",%d" : "%d", strides[i]);
  return 0;
}

status_t cudnnGetTensorNdDescriptor(const void *p, int requested, int *data_type, int *nb_dims,
                                    int *dims, int *strides) {
  const tensor_t *t = p;
  *data_type = t->data_type;
  *nb_dims = t->nb_dims;
  for (int i = 0; i < requested && i < t->nb_dims; ++i) {
    dims[i] = t->dims[i];
    strides[i] = t->strides[i];
  }
  return 0;
}

status_t cudnnTransformTensor(void *h, const void *alpha, const void *xd, const void *x,
                              const void *beta, const void *yd, void *y) {
  (void)h;
  log_call("cudnnTransformTensor alpha=%g x=#%d %p beta=%g y=#%d %p",
           (double)*(const float *)alpha, ((const tensor_t *)xd)->id, x,
           (double)*(const float *)beta, ((const tensor_t *)yd)->id, y);
  return 0;
}

status_t cudnnDestroyTensorDescriptor(void *p) {
  log_call("cudnnDestroyTensorDescriptor #%d", ((tensor_t *)p)->id);
  free(p);
  LIVE_ADD(live_tensors, -1);
  return 0;
}

status_t cudnnSetFilterNdDescriptor(void *p, int data_type, int format, int nb_dims,
                                    const int *dims) {
  tensor_t *t = p;
  if (nb_dims < 1 || nb_dims > 8) return 2000;
  t->data_type = data_type;
  t->format = format;
  t->nb_dims = nb_dims;
  for (int i = 0; i < nb_dims; ++i) t->dims[i] = dims[i];
  log_call("cudnnSetFilterNdDescriptor #%d", t->id);
  return 0;
}

status_t cudnnGetFilterNdDescriptor(const void *p, int requested, int *data_type, int *format,
                                    int *nb_dims, int *dims) {
  const tensor_t *t = p;
  *data_type = t->data_type;
  *format = t->format;
  *nb_dims = t->nb_dims;
  for (int i = 0; i < requested && i < t->nb_dims; ++i) dims[i] = t->dims[i];
  return 0;
}

status_t cudnnDestroyFilterDescriptor(void *p) {
  log_call("cudnnDestroyFilterDescriptor #%d", ((tensor_t *)p)->id);
  free(p);
  LIVE_ADD(live_filters, -1);
  return 0;
}

/* ---- convolution ---- */

status_t cudnnCreateConvolutionDescriptor(void **out) {
  conv_t *c = calloc(1, sizeof *c);
  c->id = NEXT_ID();
  c->group_count = 1;
  *out = c;
  LIVE_ADD(live_convolutions, 1);
  return 0;
}

status_t cudnnDestroyConvolutionDescriptor(void *p) {
  log_call("cudnnDestroyConvolutionDescriptor #%d", ((conv_t *)p)->id);
  free(p);
  LIVE_ADD(live_convolutions, -1);
  return 0;
}

status_t cudnnSetConvolutionNdDescriptor(void *p, int length, const int *pad, const int *stride,
                                         const int *dilation, int mode, int compute_type) {
  conv_t *c = p;
  if (length < 1 || length > 6) return 2000;
  c->length = length;
  for (int i = 0; i < length; ++i) {
    c->pad[i] = pad[i];
    c->stride[i] = stride[i];
    c->dilation[i] = dilation[i];
  }
  c->mode = mode;
  c->compute_type = compute_type;
  return 0;
}

status_t cudnnGetConvolutionNdDescriptor(const void *p, int requested, int *length, int *pad,
                                         int *stride, int *dilation, int *mode,
                                         int *compute_type) {
  const conv_t *c = p;
  *length = c->length;
  for (int i = 0; i < requested && i < c->length; ++i) {
    pad[i] = c->pad[i];
    stride[i] = c->stride[i];
    dilation[i] = c->dilation[i];
  }
  *mode = c->mode;
  *compute_type = c->compute_type;
  return 0;
}

status_t cudnnSetConvolutionGroupCount(void *p, int groups) {
  ((conv_t *)p)->group_count = groups;
  return 0;
}
status_t cudnnGetConvolutionGroupCount(void *p, int *groups) {
  *groups = ((conv_t *)p)->group_count;
  return 0;
}
status_t cudnnSetConvolutionMathType(void *p, int math) {
  ((conv_t *)p)->math_type = math;
  return 0;
}
status_t cudnnGetConvolutionMathType(void *p, int *math) {
  *math = ((conv_t *)p)->math_type;
  return 0;
}

status_t cudnnGetConvolutionNdForwardOutputDim(const void *pc, const void *px, const void *pw,
                                               int nb_dims, int *out) {
  const conv_t *c = pc;
  const tensor_t *x = px, *w = pw;
  if (nb_dims != x->nb_dims || nb_dims != c->length + 2) return 2000;
  out[0] = x->dims[0];
  out[1] = w->dims[0];
  for (int i = 2; i < nb_dims; ++i) {
    int k = (w->dims[i] - 1) * c->dilation[i - 2] + 1;
    out[i] = (x->dims[i] + 2 * c->pad[i - 2] - k) / c->stride[i - 2] + 1;
  }
  return 0;
}

typedef struct {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
} perf_t;

status_t cudnnGetConvolutionForwardAlgorithmMaxCount(void *handle, int *count) {
  (void)handle;
  *count = 8;
  return 0;
}

status_t cudnnGetConvolutionForwardAlgorithm_v7(void *h, const void *x, const void *w,
                                                const void *c, const void *y, int requested,
                                                int *returned, perf_t *perf) {
  (void)h; (void)x; (void)w; (void)c; (void)y;
  const perf_t canned[2] = {{1, 0, 0.5f, 1024, 1, 1, {0}}, {0, 0, 2.25f, 0, 0, 0, {0}}};
  int n = requested < 2 ? requested : 2;
  for (int i = 0; i < n; ++i) perf[i] = canned[i];
  *returned = n;
  return 0;
}

status_t cudnnGetConvolutionForwardWorkspaceSize(void *h, const void *x, const void *w,
                                                 const void *c, const void *y, int algo,
                                                 size_t *size) {
  /* cudnnConvolutionFwdAlgo_t: 0..7; cuDNN answers BAD_PARAM for anything else. */
  if (h == NULL || x == NULL || w == NULL || c == NULL || y == NULL || size == NULL || algo < 0 ||
      algo > 7) {
    return 2000;
  }
  *size = (size_t)4096 * (size_t)(algo + 1);
  return 0;
}

status_t cudnnConvolutionForward(void *h, const void *alpha, const void *xd, const void *x,
                                 const void *wd, const void *w, const void *cd, int algo,
                                 void *ws, size_t ws_size, const void *beta, const void *yd,
                                 void *y) {
  (void)h; (void)xd; (void)wd; (void)cd; (void)yd;
  log_call("cudnnConvolutionForward alpha=%g beta=%g x=%p w=%p algo=%d ws=%p wsSize=%zu y=%p",
           (double)*(const float *)alpha, (double)*(const float *)beta, x, w, algo, ws, ws_size, y);
  return 0;
}

/* ---- the rest of the legacy API the addon binds: argument checks as cuDNN makes them
   (CUDNN_STATUS_BAD_PARAM = 2000 for a null or unset descriptor, an out-of-range enum or count),
   canned answers, and a log record of each call. Device pointers are never dereferenced. ---- */

enum { BAD_PARAM = 2000 };

typedef struct {
  int id;
  int mode, nan_opt;
  double coef;
} activation_t;

status_t cudnnCreateActivationDescriptor(void **out) {
  if (out == NULL) return BAD_PARAM;
  activation_t *a = calloc(1, sizeof *a);
  a->id = NEXT_ID();
  *out = a;
  LIVE_ADD(live_activations, 1);
  log_call("cudnnCreateActivationDescriptor #%d", a->id);
  return 0;
}

status_t cudnnSetActivationDescriptor(void *p, int mode, int nan_opt, double coef) {
  activation_t *a = p;
  /* cudnnActivationMode_t: SIGMOID 0 .. SWISH 6; cudnnNanPropagation_t: 0 or 1. */
  if (a == NULL || mode < 0 || mode > 6 || nan_opt < 0 || nan_opt > 1) return BAD_PARAM;
  a->mode = mode;
  a->nan_opt = nan_opt;
  a->coef = coef;
  log_call("cudnnSetActivationDescriptor #%d mode=%d nan=%d coef=%g", a->id, mode, nan_opt, coef);
  return 0;
}

status_t cudnnGetActivationDescriptor(const void *p, int *mode, int *nan_opt, double *coef) {
  const activation_t *a = p;
  if (a == NULL || mode == NULL || nan_opt == NULL || coef == NULL) return BAD_PARAM;
  *mode = a->mode;
  *nan_opt = a->nan_opt;
  *coef = a->coef;
  return 0;
}

status_t cudnnDestroyActivationDescriptor(void *p) {
  if (p == NULL) return BAD_PARAM;
  log_call("cudnnDestroyActivationDescriptor #%d", ((activation_t *)p)->id);
  free(p);
  LIVE_ADD(live_activations, -1);
  return 0;
}

status_t cudnnSetTensorNdDescriptorEx(void *p, int format, int data_type, int nb_dims,
                                      const int *dims) {
  tensor_t *t = p;
  /* cudnnTensorFormat_t: NCHW 0, NHWC 1, NCHW_VECT_C 2; the Ex form takes 3 to 8 dims. */
  if (t == NULL || dims == NULL || format < 0 || format > 2 || nb_dims < 3 || nb_dims > 8) {
    return BAD_PARAM;
  }
  for (int i = 0; i < nb_dims; ++i) {
    if (dims[i] <= 0) return BAD_PARAM;
  }
  t->data_type = data_type;
  t->format = format;
  t->nb_dims = nb_dims;
  /* Packed strides: NCHW in dims order; NHWC with the channel (dims[1]) innermost. */
  long long stride = 1;
  if (format == 1) {
    t->strides[1] = 1;
    stride = dims[1];
    for (int i = nb_dims - 1; i >= 2; --i) {
      t->strides[i] = (int)stride;
      stride *= dims[i];
    }
    t->strides[0] = (int)stride;
  } else {
    for (int i = nb_dims - 1; i >= 0; --i) {
      t->strides[i] = (int)stride;
      stride *= dims[i];
    }
  }
  for (int i = 0; i < nb_dims; ++i) t->dims[i] = dims[i];
  log_call("cudnnSetTensorNdDescriptorEx #%d format=%d type=%d nbDims=%d", t->id, format,
           data_type, nb_dims);
  return 0;
}

static size_t data_type_size(int data_type) {
  switch (data_type) {
    case 1: /* DOUBLE */
    case 10: /* INT64 */
      return 8;
    case 2: /* HALF */
    case 9: /* BFLOAT16 */
      return 2;
    case 3: /* INT8 */
    case 6: /* UINT8 */
    case 11: /* BOOLEAN */
    case 12: /* FP8_E4M3 */
    case 13: /* FP8_E5M2 */
      return 1;
    default:
      return 4;
  }
}

status_t cudnnGetTensorSizeInBytes(const void *p, size_t *size) {
  const tensor_t *t = p;
  if (t == NULL || size == NULL || t->nb_dims == 0) return BAD_PARAM;
  /* The span the strides address: 1 + sum of (dim - 1) * stride elements. */
  size_t elements = 1;
  for (int i = 0; i < t->nb_dims; ++i) {
    elements += (size_t)(t->dims[i] - 1) * (size_t)t->strides[i];
  }
  *size = elements * data_type_size(t->data_type);
  return 0;
}

status_t cudnnSetConvolutionReorderType(void *p, int reorder) {
  /* cudnnReorderType_t: DEFAULT_REORDER 0, NO_REORDER 1. */
  if (p == NULL || reorder < 0 || reorder > 1) return BAD_PARAM;
  ((conv_t *)p)->reorder_type = reorder;
  return 0;
}

status_t cudnnGetConvolutionReorderType(void *p, int *reorder) {
  if (p == NULL || reorder == NULL) return BAD_PARAM;
  *reorder = ((conv_t *)p)->reorder_type;
  return 0;
}

/* What every algorithm query needs: a handle, descriptors, and room for at least one result. */
static int bad_query(const void *h, const void *a, const void *b, const void *c, const void *d,
                     int requested, const int *returned, const void *perf) {
  return h == NULL || a == NULL || b == NULL || c == NULL || d == NULL || requested < 1 ||
         returned == NULL || perf == NULL;
}

/* Two canned results, fastest first. */
static int canned_perf(int requested, int *returned, perf_t *perf) {
  const perf_t canned[2] = {{1, 0, 0.5f, 1024, 1, 0, {0}}, {0, 0, 2.25f, 0, 0, 0, {0}}};
  int n = requested < 2 ? requested : 2;
  for (int i = 0; i < n; ++i) perf[i] = canned[i];
  *returned = n;
  return 0;
}

status_t cudnnFindConvolutionForwardAlgorithmEx(void *h, const void *xd, const void *x,
                                                const void *wd, const void *w, const void *cd,
                                                const void *yd, void *y, int requested,
                                                int *returned, perf_t *perf, void *ws,
                                                size_t ws_size) {
  (void)x; (void)w; (void)y; (void)ws; (void)ws_size;
  if (bad_query(h, xd, wd, cd, yd, requested, returned, perf)) return BAD_PARAM;
  log_call("cudnnFindConvolutionForwardAlgorithmEx requested=%d", requested);
  return canned_perf(requested, returned, perf);
}

status_t cudnnConvolutionBiasActivationForward(
    void *h, const void *alpha1, const void *xd, const void *x, const void *wd, const void *w,
    const void *cd, int algo, void *ws, size_t ws_size, const void *alpha2, const void *zd,
    const void *z, const void *bd, const void *bias, const void *ad, const void *yd, void *y) {
  (void)ws; (void)ws_size; (void)z; (void)bias;
  if (h == NULL || alpha1 == NULL || alpha2 == NULL || xd == NULL || wd == NULL || cd == NULL ||
      zd == NULL || bd == NULL || ad == NULL || yd == NULL || algo < 0 || algo > 7) {
    return BAD_PARAM;
  }
  log_call("cudnnConvolutionBiasActivationForward alpha1=%g alpha2=%g x=%p w=%p algo=%d act=#%d y=%p",
           (double)*(const float *)alpha1, (double)*(const float *)alpha2, x, w, algo,
           ((const activation_t *)ad)->id, y);
  return 0;
}

#ifndef FAKE_CUDNN_NO_BACKWARD
/* Backward data (cudnnConvolutionBwdDataAlgo_t: 0..5) and backward filter (0..6). */
enum { BWD_DATA_ALGOS = 6, BWD_FILTER_ALGOS = 7 };

status_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(void *handle, int *count) {
  if (handle == NULL || count == NULL) return BAD_PARAM;
  *count = BWD_DATA_ALGOS;
  return 0;
}

status_t cudnnGetConvolutionBackwardDataAlgorithm_v7(void *h, const void *w, const void *dy,
                                                     const void *c, const void *dx,
                                                     int requested, int *returned, perf_t *perf) {
  if (bad_query(h, w, dy, c, dx, requested, returned, perf)) return BAD_PARAM;
  return canned_perf(requested, returned, perf);
}

status_t cudnnFindConvolutionBackwardDataAlgorithmEx(void *h, const void *wd, const void *w,
                                                     const void *dyd, const void *dy,
                                                     const void *cd, const void *dxd, void *dx,
                                                     int requested, int *returned, perf_t *perf,
                                                     void *ws, size_t ws_size) {
  (void)w; (void)dy; (void)dx; (void)ws; (void)ws_size;
  if (bad_query(h, wd, dyd, cd, dxd, requested, returned, perf)) return BAD_PARAM;
  log_call("cudnnFindConvolutionBackwardDataAlgorithmEx requested=%d", requested);
  return canned_perf(requested, returned, perf);
}

status_t cudnnGetConvolutionBackwardDataWorkspaceSize(void *h, const void *w, const void *dy,
                                                      const void *c, const void *dx, int algo,
                                                      size_t *size) {
  if (h == NULL || w == NULL || dy == NULL || c == NULL || dx == NULL || size == NULL ||
      algo < 0 || algo >= BWD_DATA_ALGOS) {
    return BAD_PARAM;
  }
  *size = (size_t)4096 * (size_t)(algo + 1);
  return 0;
}

status_t cudnnConvolutionBackwardData(void *h, const void *alpha, const void *wd, const void *w,
                                      const void *dyd, const void *dy, const void *cd, int algo,
                                      void *ws, size_t ws_size, const void *beta,
                                      const void *dxd, void *dx) {
  if (h == NULL || alpha == NULL || beta == NULL || wd == NULL || dyd == NULL || cd == NULL ||
      dxd == NULL || algo < 0 || algo >= BWD_DATA_ALGOS) {
    return BAD_PARAM;
  }
  log_call("cudnnConvolutionBackwardData alpha=%g beta=%g w=%p dy=%p algo=%d ws=%p wsSize=%zu dx=%p",
           (double)*(const float *)alpha, (double)*(const float *)beta, w, dy, algo, ws, ws_size,
           dx);
  return 0;
}

status_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(void *handle, int *count) {
  if (handle == NULL || count == NULL) return BAD_PARAM;
  *count = BWD_FILTER_ALGOS;
  return 0;
}

status_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(void *h, const void *x, const void *dy,
                                                       const void *c, const void *dw,
                                                       int requested, int *returned,
                                                       perf_t *perf) {
  if (bad_query(h, x, dy, c, dw, requested, returned, perf)) return BAD_PARAM;
  return canned_perf(requested, returned, perf);
}

status_t cudnnFindConvolutionBackwardFilterAlgorithmEx(void *h, const void *xd, const void *x,
                                                       const void *dyd, const void *dy,
                                                       const void *cd, const void *dwd, void *dw,
                                                       int requested, int *returned,
                                                       perf_t *perf, void *ws, size_t ws_size) {
  (void)x; (void)dy; (void)dw; (void)ws; (void)ws_size;
  if (bad_query(h, xd, dyd, cd, dwd, requested, returned, perf)) return BAD_PARAM;
  log_call("cudnnFindConvolutionBackwardFilterAlgorithmEx requested=%d", requested);
  return canned_perf(requested, returned, perf);
}

status_t cudnnGetConvolutionBackwardFilterWorkspaceSize(void *h, const void *x, const void *dy,
                                                        const void *c, const void *dw, int algo,
                                                        size_t *size) {
  if (h == NULL || x == NULL || dy == NULL || c == NULL || dw == NULL || size == NULL ||
      algo < 0 || algo >= BWD_FILTER_ALGOS) {
    return BAD_PARAM;
  }
  *size = (size_t)4096 * (size_t)(algo + 1);
  return 0;
}

status_t cudnnConvolutionBackwardFilter(void *h, const void *alpha, const void *xd, const void *x,
                                        const void *dyd, const void *dy, const void *cd, int algo,
                                        void *ws, size_t ws_size, const void *beta,
                                        const void *dwd, void *dw) {
  if (h == NULL || alpha == NULL || beta == NULL || xd == NULL || dyd == NULL || cd == NULL ||
      dwd == NULL || algo < 0 || algo >= BWD_FILTER_ALGOS) {
    return BAD_PARAM;
  }
  log_call("cudnnConvolutionBackwardFilter alpha=%g beta=%g x=%p dy=%p algo=%d ws=%p wsSize=%zu dw=%p",
           (double)*(const float *)alpha, (double)*(const float *)beta, x, dy, algo, ws, ws_size,
           dw);
  return 0;
}
#endif /* FAKE_CUDNN_NO_BACKWARD */
