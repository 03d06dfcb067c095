/**
 * Our CUDA kernel sources compiled as host C++ and run block by block, for the tests that check a
 * kernel itself without a GPU: one host thread per CUDA thread, __syncthreads a barrier of the
 * block, __shfl_xor_sync an exchange through it. Compiled without fused multiply-adds (the GPU's
 * build uses them; its last bits are the device check's, against f64).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHostHarness } from './cxx.test-helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** C++ that reads a whole file into a vector of bytes (needs <cstdio> and <vector>). */
export const SLURP = `
static std::vector<char> slurp(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  std::vector<char> v;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) v.insert(v.end(), buf, buf + n);
  std::fclose(f);
  return v;
}
`;

/**
 * A harness's main for a pass-1 kernel's partial sums: argv 4|8, ints.bin, x.bin, dy.bin, out.bin;
 * it calls the harness's run<float> or run<double>(ints, x, dy) and writes what it returns.
 */
export const PARTIALS_MAIN = `
int main(int argc, char** argv) {
  const int bytes = std::atoi(argv[1]);
  std::vector<char> q = slurp(argv[2]), x = slurp(argv[3]), dy = slurp(argv[4]);
  const int* ints = (const int*)q.data();
  std::FILE* f = std::fopen(argv[5], "wb");
  if (bytes == 4) {
    auto p = run<float>(ints, (const float*)x.data(), (const float*)dy.data());
    std::fwrite(p.data(), 4, p.size(), f);
  } else {
    auto p = run<double>(ints, (const double*)x.data(), (const double*)dy.data());
    std::fwrite(p.data(), 8, p.size(), f);
  }
  std::fclose(f);
  return 0;
}
`;

/**
 * The CUDA built-ins a kernel uses, for a block run on one host thread (C++17): each CUDA thread is
 * a fiber (ucontext) run in turn until it reaches __syncthreads or returns, so a block of 256
 * threads costs context switches, not 256 OS threads woken at every barrier. A barrier that some
 * threads reach while others return (divergent __syncthreads, undefined on the GPU) aborts.
 */
const SHIM = `
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ucontext.h>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
struct Dim3 { unsigned x, y, z; };
// volatile: the scheduler changes it between a fiber's reads, behind the compiler's back.
struct VolatileDim3 { volatile unsigned x, y, z; };
static Dim3 blockIdx, blockDim, gridDim;
static VolatileDim3 threadIdx;
struct int4 { int x, y, z, w; };
static inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
struct Fiber { ucontext_t ctx; bool done; };
static ucontext_t scheduler;
static Fiber* volatile running;
static std::function<void()>* fiberBody;
static void fiberMain() {
  (*fiberBody)();
  running->done = true;  // then uc_link: back to the scheduler
}
static inline void __syncthreads() { swapcontext((ucontext_t*)&running->ctx, &scheduler); }
static double exchange[1024];
template <typename V> static V __shfl_xor_sync(unsigned, V v, int m) {
  exchange[threadIdx.x] = (double)v;
  __syncthreads();
  const V r = (V)exchange[threadIdx.x ^ m];
  __syncthreads();
  return r;
}
using std::min;
// Run body() as block (x, y, 0) of a grid (gx, gy, 1) of \`threads\` threads, block by block.
template <typename F> static void runGrid(unsigned gx, unsigned gy, int threads, F body) {
  constexpr size_t STACK = 128 * 1024;
  gridDim = {gx, gy, 1};
  blockDim = {(unsigned)threads, 1, 1};
  std::function<void()> fn = body;
  fiberBody = &fn;
  std::unique_ptr<char[]> stacks(new char[STACK * threads]);
  std::vector<Fiber> fibers(threads);
  for (unsigned x = 0; x < gx; x++) {
    for (unsigned y = 0; y < gy; y++) {
      blockIdx = {x, y, 0};
      for (int t = 0; t < threads; t++) {
        Fiber& f = fibers[t];
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = stacks.get() + STACK * t;
        f.ctx.uc_stack.ss_size = STACK;
        f.ctx.uc_link = &scheduler;
        f.done = false;
        makecontext(&f.ctx, fiberMain, 0);
      }
      for (;;) {
        int waiting = 0, returned = 0;
        for (int t = 0; t < threads; t++) {
          if (fibers[t].done) continue;
          running = &fibers[t];
          threadIdx.x = (unsigned)t;
          threadIdx.y = 0;
          threadIdx.z = 0;
          swapcontext(&scheduler, &fibers[t].ctx);
          if (fibers[t].done) returned++; else waiting++;
        }
        if (waiting == 0) break;
        if (returned != 0) {
          std::fprintf(stderr, "divergent __syncthreads: %d threads wait, %d returned\\n", waiting, returned);
          std::abort();
        }
      }
    }
  }
}
${SLURP}`;

/**
 * An executable of the shim, then \`prelude\` and the kernel sources (paths under cuda/) inside
 * namespace baracuda_depthwise, then \`harness\` (its main). Dynamic shared memory is the
 * prelude's array: \`extern __shared__\` becomes a plain extern. A compile error throws.
 */
export function buildCudaHarness(
  cxx: string,
  name: string,
  prelude: string,
  sources: readonly string[],
  harness: string,
): string {
  const dir = mkdtempSync(join(tmpdir(), `baracuda-${name}-host-`));
  const kernels = sources
    .map((s) => readFileSync(join(root, 'cuda', s), 'utf8').replace('extern __shared__', 'extern'))
    .join('\n');
  const source = `${SHIM}\nnamespace baracuda_depthwise {\n${prelude}\n${kernels}\n}\n${harness}`;
  writeFileSync(join(dir, 'harness.cpp'), source);
  return buildHostHarness(cxx, join(dir, 'harness.cpp'), ['-ffp-contract=off']);
}

/** Runs a harness on binary files of the given views; returns a copy of what it wrote to out.bin. */
export function runCudaHarness(
  exe: string,
  head: readonly string[],
  views: Record<string, ArrayBufferView>,
): ArrayBuffer {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-harness-run-'));
  const files = Object.entries(views).map(([name, v]) => {
    writeFileSync(join(dir, name), new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    return join(dir, name);
  });
  const out = join(dir, 'out.bin');
  execFileSync(exe, [...head, ...files, out]);
  const back = readFileSync(out);
  return new Uint8Array(back).buffer;
}
