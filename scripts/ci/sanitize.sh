#!/usr/bin/env bash
# The sanitizer job: the native addons (and the C fakes) built with
# AddressSanitizer and UndefinedBehaviorSanitizer, the native packages' tests
# and the worker stress run under them, and zero reports required.
#
#   bash scripts/ci/sanitize.sh [COMMAND ...]
#
# Each extra argument is one more shell command run in the same environment
# after the built-in ones, e.g. the bad-input corpus (what .ci/run does; run its
# CLI directly, not through turbo, which passes only BARACUDA_* variables on):
#   bash scripts/ci/sanitize.sh 'node packages/corpus/dist/cli.js'
# The environment it sets up (export it yourself to run anything else this way):
#   LD_PRELOAD        libasan + libubsan: node itself is not instrumented, so the
#                     runtimes must be loaded before anything else
#   ASAN_OPTIONS      detect_leaks=0 (see below), reports written to $SANITIZE_LOGS
#   UBSAN_OPTIONS     halt on the first report, with a stack trace, to $SANITIZE_LOGS
#   BARACUDA_ADDON_DIR the sanitized baracuda_driver.node, baracuda_cudnn.node, baracuda_nccl.node and baracuda_cublaslt.node
#   BARACUDA_SANITIZE=1 the fakes (scripts/testing/build-fake.mjs) get the same flags
# Leak detection is off because node does not free what it allocates for the
# process lifetime (V8's isolate and heap pages, its own static tables, and our
# loaders' once-per-process state): LeakSanitizer would report those at every
# exit. What dispose() must free is asserted by the tests through the fakes'
# live counts instead.
#
# Needs the normal build first (scripts/bootstrap): it reuses node_modules and
# the packages' dist/. Builds into packages/*/build-sanitize, never touching
# build/. Prints the time it took.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
export PATH="$PWD/.tools/node_modules/.bin:$PATH"

asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
if [ ! -e "$asan" ] || [ ! -e "$ubsan" ]; then
  echo "== installing the sanitizer runtimes"
  apt-get update -qq && apt-get install -y -qq libasan8 libubsan1 >/dev/null
  asan=$(gcc -print-file-name=libasan.so)
  ubsan=$(gcc -print-file-name=libubsan.so)
fi
# Resolve the linker scripts/symlinks to the real shared objects.
asan=$(readlink -f "$asan")
ubsan=$(readlink -f "$ubsan")

addons="$PWD/build-sanitize"
rm -rf "$addons"
mkdir -p "$addons"
for pkg in driver cudnn-sys nccl-sys cublaslt-sys; do
  echo "== building @baracuda/$pkg with ASan + UBSan"
  (cd "packages/$pkg" && pnpm exec cmake-js compile --out build-sanitize --CDBARACUDA_SANITIZE=ON >/dev/null)
done
cp packages/driver/build-sanitize/Release/baracuda_driver.node "$addons/"
cp packages/cudnn-sys/build-sanitize/Release/baracuda_cudnn.node "$addons/"
cp packages/nccl-sys/build-sanitize/Release/baracuda_nccl.node "$addons/"
cp packages/cublaslt-sys/build-sanitize/Release/baracuda_cublaslt.node "$addons/"
# Prove the flags reached the compiler and the linker: instrumented code calls
# __asan_*/__ubsan_* and the addons need the runtimes.
for addon in "$addons"/*.node; do
  asan_calls=$(nm -D --undefined-only "$addon" | grep -c '__asan_report' || true)
  ubsan_calls=$(nm -D --undefined-only "$addon" | grep -c '__ubsan_handle' || true)
  # Captured, not piped into `grep -q`: with pipefail its early exit can fail the pipeline.
  needed=$(readelf -d "$addon")
  if [ "$asan_calls" -eq 0 ] || [ "$ubsan_calls" -eq 0 ] || [[ "$needed" != *libasan* ]]; then
    echo "$addon is not instrumented (asan calls $asan_calls, ubsan calls $ubsan_calls)"
    exit 1
  fi
  echo "   $(basename "$addon"): $asan_calls __asan_report* and $ubsan_calls __ubsan_handle* imports"
done

export SANITIZE_LOGS="$addons/logs"
mkdir -p "$SANITIZE_LOGS"
export LD_PRELOAD="$asan:$ubsan"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=86:log_path=$SANITIZE_LOGS/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87:log_path=$SANITIZE_LOGS/ubsan"
export BARACUDA_ADDON_DIR="$addons"
export BARACUDA_SANITIZE=1

status=0
run() {
  echo "== (sanitized) $*"
  if ! bash -c "$*"; then status=1; fi
}
# driver, cudnn-sys, nccl-sys, cublaslt-sys and collectives, as one vitest run.
run 'pnpm exec vitest run --config scripts/ci/vitest.native.config.ts'
run 'node scripts/testing/worker-stress.mjs terminate both 100'
run 'node scripts/testing/worker-stress.mjs concurrent both 3'
for extra in "$@"; do run "$extra"; done

unset LD_PRELOAD
reports=$(find "$SANITIZE_LOGS" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
  echo "== sanitizer reports: $reports"
  for file in "$SANITIZE_LOGS"/*; do
    echo "--- $file"
    head -60 "$file"
  done
  status=1
fi
echo "== sanitizer job: $((SECONDS - started)) s, $reports reports, status $status"
exit "$status"
