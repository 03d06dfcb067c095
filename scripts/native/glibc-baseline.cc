// Keeps a prebuilt addon within the GLIBC_2.28 baseline (RHEL 8, Ubuntu 20.04+, Debian 10+,
// Amazon Linux 2023) although it is linked on Debian 12 (glibc 2.36) against a static libstdc++
// built there. Compiled into the addon only for prebuilt packages (BARACUDA_GLIBC_BASELINE=ON);
// a build from source on the user's machine links against that machine's own glibc and needs none
// of this. scripts/native/check-glibc.sh proves the result with objdump.
//
// Three kinds of symbol are above 2.28:
// 1. Symbols that moved into libc.so.6 in 2.34 (dl*, pthread_once, __pthread_key_create) or got
//    a new version (stat in 2.33): every reference is redirected with -Wl,--wrap=NAME to
//    __wrap_NAME below, which calls the old version, pinned with .symver. libc.so.6 still exports
//    the old versions, and on an old glibc libdl.so.2 / libpthread.so.0 define them (both are
//    DT_NEEDED, see glibc-baseline.cmake).
// 2. Symbols that only exist since 2.32/2.36 and that static libstdc++ reaches for
//    (__libc_single_threaded, arc4random): defined here, hidden, so the linker binds to them.
// 3. _dl_find_object (2.35), used by a static libgcc unwinder: avoided by linking libgcc_s
//    dynamically (every glibc system has it), see the CMakeLists.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>

#if defined(__x86_64__)
#define BARACUDA_GLIBC_BASE "GLIBC_2.2.5"
#define BARACUDA_STAT_VER 1
#elif defined(__aarch64__)
#define BARACUDA_GLIBC_BASE "GLIBC_2.17"
#define BARACUDA_STAT_VER 0
#else
#error "glibc-baseline.cc knows the base glibc symbol version of x86_64 and aarch64 only"
#endif

#define BARACUDA_HIDDEN __attribute__((visibility("hidden")))
#define BARACUDA_PIN(local, name) __asm__(".symver " #local "," #name "@" BARACUDA_GLIBC_BASE)

struct stat;
struct Dl_info;
struct pthread_once_storage;

extern "C" {
void *baracuda_old_dlopen(const char *file, int mode);
void *baracuda_old_dlsym(void *handle, const char *name);
int baracuda_old_dlclose(void *handle);
char *baracuda_old_dlerror(void);
int baracuda_old_dladdr(const void *address, Dl_info *info);
int baracuda_old_pthread_once(int *control, void (*init)(void));
int baracuda_old_pthread_key_create(unsigned int *key, void (*destructor)(void *));
int baracuda_old_xstat(int version, const char *path, struct stat *buffer);
}
BARACUDA_PIN(baracuda_old_dlopen, dlopen);
BARACUDA_PIN(baracuda_old_dlsym, dlsym);
BARACUDA_PIN(baracuda_old_dlclose, dlclose);
BARACUDA_PIN(baracuda_old_dlerror, dlerror);
BARACUDA_PIN(baracuda_old_dladdr, dladdr);
BARACUDA_PIN(baracuda_old_pthread_once, pthread_once);
BARACUDA_PIN(baracuda_old_pthread_key_create, __pthread_key_create);
BARACUDA_PIN(baracuda_old_xstat, __xstat);

extern "C" {
BARACUDA_HIDDEN void *__wrap_dlopen(const char *file, int mode) {
  return baracuda_old_dlopen(file, mode);
}
BARACUDA_HIDDEN void *__wrap_dlsym(void *handle, const char *name) {
  return baracuda_old_dlsym(handle, name);
}
BARACUDA_HIDDEN int __wrap_dlclose(void *handle) { return baracuda_old_dlclose(handle); }
BARACUDA_HIDDEN char *__wrap_dlerror(void) { return baracuda_old_dlerror(); }
BARACUDA_HIDDEN int __wrap_dladdr(const void *address, Dl_info *info) {
  return baracuda_old_dladdr(address, info);
}
BARACUDA_HIDDEN int __wrap_pthread_once(int *control, void (*init)(void)) {
  return baracuda_old_pthread_once(control, init);
}
BARACUDA_HIDDEN int __wrap___pthread_key_create(unsigned int *key, void (*destructor)(void *)) {
  return baracuda_old_pthread_key_create(key, destructor);
}
// Before 2.33, <sys/stat.h> turned stat() into this call.
BARACUDA_HIDDEN int __wrap_stat(const char *path, struct stat *buffer) {
  return baracuda_old_xstat(BARACUDA_STAT_VER, path, buffer);
}

// 0: "the process may have threads", so libstdc++ always takes its atomic paths (Node has threads).
BARACUDA_HIDDEN char __libc_single_threaded = 0;

// Reached only through std::random_device, which the addons do not use; kept correct anyway:
// getentropy (2.25) and then /dev/urandom.
BARACUDA_HIDDEN uint32_t arc4random(void) {
  uint32_t value = 0;
  if (getentropy(&value, sizeof value) == 0) return value;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t got;
    do got = read(fd, &value, sizeof value);
    while (got < 0 && errno == EINTR);
    close(fd);
  }
  return value;
}
}
