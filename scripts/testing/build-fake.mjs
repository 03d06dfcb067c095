/**
 * The one place test-only C is compiled: the C fakes that stand in for libcuda,
 * libcudnn, libnccl and libcublasLt (packages/driver/test/fake-libcuda.c,
 * packages/cudnn-sys/native/testing/fake_cudnn.c,
 * packages/nccl-sys/native/testing/fake_nccl.c,
 * packages/cublaslt-sys/native/testing/fake_cublaslt.c) and the reader of their live
 * counts. Every package's tests build them through here, with the same flags.
 *
 * - Outputs are cached by content (source bytes + flags) in a private
 *   directory (mode 0700, owned by this user, never a link), and written under
 *   a temporary name then renamed, so test files running in parallel share one
 *   build and never load a half-written library.
 * - BARACUDA_SANITIZE=1 (set by scripts/ci/sanitize.sh) adds
 *   -fsanitize=address,undefined, so the fakes are checked along with the addons.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The C fakes, by name. */
export const FAKE_SOURCES = Object.freeze({
  libcuda: join(REPO_ROOT, 'packages', 'driver', 'test', 'fake-libcuda.c'),
  cudnn: join(REPO_ROOT, 'packages', 'cudnn-sys', 'native', 'testing', 'fake_cudnn.c'),
  nccl: join(REPO_ROOT, 'packages', 'nccl-sys', 'native', 'testing', 'fake_nccl.c'),
  cublaslt: join(REPO_ROOT, 'packages', 'cublaslt-sys', 'native', 'testing', 'fake_cublaslt.c'),
});

/** The fake libnccl's second file: ranks of several processes (#included by fake_nccl.c). */
const NCCL_PROCESSES = join(dirname(FAKE_SOURCES.nccl), 'fake_nccl_processes.c');

function sanitizerFlags() {
  return process.env.BARACUDA_SANITIZE === '1'
    ? ['-fsanitize=address,undefined', '-fno-omit-frame-pointer', '-fno-sanitize-recover=all']
    : [];
}

function cacheDirectory() {
  const dir = join(tmpdir(), `baracuda-test-native-${userInfo().uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== userInfo().uid || (stat.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private directory of this user; remove it`);
  }
  return dir;
}

/**
 * Compiles `source` into a shared library named `fileName` (e.g. `libcuda.so.1`)
 * and returns its path. `defines` become -D flags, `includeDirs` -I flags.
 * `included` lists the files `source` #includes that are not headers of the system (their bytes
 * are part of the cache key too).
 * Throws when there is no C compiler (callers that can skip catch it).
 */
export function buildSharedLibrary({
  source,
  fileName,
  defines = [],
  includeDirs = [],
  included = [],
}) {
  const flags = [
    '-shared',
    '-fPIC',
    '-O1',
    '-pthread',
    ...sanitizerFlags(),
    ...defines.map((define) => `-D${define}`),
    ...includeDirs.map((dir) => `-I${dir}`),
  ];
  const hash = createHash('sha256').update(readFileSync(source));
  for (const file of included) hash.update(readFileSync(file));
  const key = hash.update(JSON.stringify(flags)).digest('hex').slice(0, 20);
  const dir = join(cacheDirectory(), key);
  const output = join(dir, fileName);
  if (existsSync(output)) return output;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = join(dir, `.${fileName}.${process.pid}.${Date.now()}.tmp`);
  execFileSync('cc', [...flags, '-o', partial, source, '-ldl'], { stdio: 'pipe' });
  renameSync(partial, output);
  return output;
}

/** The fake libcuda.so.1 (see its header for the build-time variants). */
export function buildFakeLibcudaLibrary({
  minimal = false,
  noModules = false,
  noLaunch = false,
} = {}) {
  const defines = [];
  if (minimal) defines.push('FAKE_CUDA_MINIMAL');
  if (noModules) defines.push('FAKE_CUDA_NO_MODULES');
  if (noLaunch) defines.push('FAKE_CUDA_NO_LAUNCH');
  return buildSharedLibrary({ source: FAKE_SOURCES.libcuda, fileName: 'libcuda.so.1', defines });
}

/**
 * The fake libcudnn.so.9. `noBackward` leaves out the legacy backward-data and backward-filter
 * functions, as a partial library would (see the fake's header).
 */
export function buildFakeCudnnLibrary({ noBackward = false } = {}) {
  const defines = noBackward ? ['FAKE_CUDNN_NO_BACKWARD'] : [];
  return buildSharedLibrary({ source: FAKE_SOURCES.cudnn, fileName: 'libcudnn.so.9', defines });
}

/**
 * The fake libnccl.so.2. `noP2p` leaves out ncclSend and ncclRecv, as an old or partial library
 * would (see the fake's header).
 */
export function buildFakeNcclLibrary({ noP2p = false } = {}) {
  const defines = noP2p ? ['FAKE_NCCL_NO_P2P'] : [];
  return buildSharedLibrary({
    source: FAKE_SOURCES.nccl,
    fileName: 'libnccl.so.2',
    defines,
    included: [NCCL_PROCESSES],
  });
}

/**
 * The fake libcublasLt.so.13. `partial` leaves out cublasLtMatmulAlgoGetHeuristic, as a partial
 * library would (see the fake's header).
 */
export function buildFakeCublasLtLibrary({ partial = false } = {}) {
  const defines = partial ? ['FAKE_CUBLASLT_PARTIAL'] : [];
  return buildSharedLibrary({
    source: FAKE_SOURCES.cublaslt,
    fileName: 'libcublasLt.so.13',
    defines,
  });
}

function nodeApiIncludeDir() {
  const candidates = [];
  try {
    const fromDriver = createRequire(join(REPO_ROOT, 'packages', 'driver', 'package.json'));
    const cmakeJs = createRequire(fromDriver.resolve('cmake-js/package.json'));
    candidates.push(join(dirname(cmakeJs.resolve('node-api-headers/package.json')), 'include'));
  } catch {
    // no node-api-headers: fall back to the headers installed with node
  }
  candidates.push(join(dirname(process.execPath), '..', 'include', 'node'));
  const found = candidates.find((dir) => existsSync(join(dir, 'node_api.h')));
  if (!found) throw new Error(`node_api.h not found in ${candidates.join(', ')}`);
  return found;
}

let reader;

/**
 * The live-object counts of the fake at `libraryPath`, as loaded in this
 * process (e.g. `{allocations: 0, streams: 0, ...}` for libcuda, `{handles: 0,
 * ...}` for cuDNN); null when that library is not loaded here.
 */
export function fakeLiveCounts(libraryPath) {
  if (!reader) {
    const path = buildSharedLibrary({
      source: join(REPO_ROOT, 'scripts', 'testing', 'fake-counts.c'),
      fileName: 'fake_counts.node',
      includeDirs: [nodeApiIncludeDir()],
    });
    reader = createRequire(import.meta.url)(path);
  }
  const text = reader.liveCounts(libraryPath);
  return text === null ? null : JSON.parse(text);
}
