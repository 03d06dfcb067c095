/*
 * A tiny Node-API addon for tests: reads the live-object counts a C fake
 * (packages/driver/test/fake-libcuda.c, packages/cudnn-sys/native/testing/fake_cudnn.c)
 * exports as `const char* fake_live_counts(void)` (a JSON string), from the copy
 * of the fake this process has already loaded. Built by build-fake.mjs; never shipped.
 */
#include <dlfcn.h>
#include <node_api.h>

/* liveCounts(path): the fake's counts as a JSON string, or null when `path` is
   not loaded in this process or exports no counts. Never throws. */
static napi_value LiveCounts(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value result = NULL;
  char path[4096];
  size_t length = 0;
  napi_get_null(env, &result);
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return result;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &length) != napi_ok) return result;
  if (length == 0 || length >= sizeof path - 1) return result;
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return result;
  const char* (*counts)(void) = (const char* (*)(void))dlsym(handle, "fake_live_counts");
  if (counts) napi_create_string_utf8(env, counts(), NAPI_AUTO_LENGTH, &result);
  dlclose(handle);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "liveCounts", NAPI_AUTO_LENGTH, LiveCounts, NULL, &fn) == napi_ok) {
    napi_set_named_property(env, exports, "liveCounts", fn);
  }
  return exports;
}
