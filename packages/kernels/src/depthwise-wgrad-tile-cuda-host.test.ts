/**
 * cuda/depthwise-wgrad-tile.cuh itself, compiled as host C++ and run block by block (one host
 * thread per CUDA thread; __syncthreads a barrier of the block, __shfl_xor_sync an exchange
 * through it), equals wgradTilePartials bit for bit in f32 and f64: the staging, each thread's
 * positions and their order, the butterfly and the warps in order. Compiled without fused
 * multiply-adds, which the GPU's build uses (its last bits are the device check's, against f64).
 * Skipped where no C++ compiler is found.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ElementKind } from '@baracuda/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { hostCompiler } from './cxx.test-helpers.js';
import { depthwiseLaunch } from './depthwise-launch.js';
import { type Case, desc, random } from './depthwise-wgrad.test-helpers.js';
import { wgradTilePartials } from './depthwise-wgrad-tile-host.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The CUDA built-ins the kernel uses, for a block run as host threads. */
const SHIM = `
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
struct Dim3 { unsigned x, y, z; };
static Dim3 blockIdx, blockDim, gridDim;
static thread_local Dim3 threadIdx;
// A reusable barrier of the block's threads (C++17: std::barrier is C++20's).
struct Barrier {
  std::mutex m;
  std::condition_variable cv;
  int count, waiting = 0;
  unsigned long long phase = 0;
  explicit Barrier(int n) : count(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m);
    const unsigned long long mine = phase;
    if (++waiting == count) {
      waiting = 0;
      phase++;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return phase != mine; });
    }
  }
};
static Barrier* blockBarrier;
static double exchange[1024];
static inline void __syncthreads() { blockBarrier->arrive_and_wait(); }
template <typename V> static V __shfl_xor_sync(unsigned, V v, int m) {
  exchange[threadIdx.x] = (double)v;
  blockBarrier->arrive_and_wait();
  const V r = (V)exchange[threadIdx.x ^ m];
  blockBarrier->arrive_and_wait();
  return r;
}
using std::min;
namespace baracuda_depthwise {
typedef long long i64;
constexpr int kWgradThreads = 256;
static inline float toAcc(float v) { return v; }
static inline double toAcc(double v) { return v; }
alignas(16) unsigned char smemBytes[49152];
}
`;
/** argv: 4|8, ints.bin (the launch's 21 ints, then batch, threads, slots), x.bin, dy.bin, out.bin. */
const HARNESS = `
static std::vector<char> slurp(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  std::vector<char> v;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) v.insert(v.end(), buf, buf + n);
  std::fclose(f);
  return v;
}
template <typename T> static std::vector<T> run(const int* q, const T* x, const T* dy) {
  const int channels = q[0], batch = q[21], threads = q[22], slots = q[23];
  const int taps = q[7] * q[8] * q[9];
  std::vector<T> partial((size_t)slots * channels * taps);
  gridDim = {(unsigned)channels, (unsigned)slots, 1};
  blockDim = {(unsigned)threads, 1, 1};
  for (unsigned c = 0; c < (unsigned)channels; c++) {
    for (unsigned y = 0; y < (unsigned)slots; y++) {
      blockIdx = {c, y, 0};
      Barrier bar(threads);
      blockBarrier = &bar;
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
          threadIdx = {(unsigned)t, 0, 0};
          baracuda_depthwise::wgradTile<T, T>(x, dy, partial.data(), batch, channels, q[1], q[2],
              q[3], q[4], q[5], q[6], q[7], q[8], q[9], q[13], q[14], q[15], q[16], q[17], q[18],
              q[19], q[20]);
        });
      }
      for (auto& th : pool) th.join();
    }
  }
  return partial;
}
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

const cxx = hostCompiler();
let harness: string | undefined;

/** The harness over the kernel's own source (a compile error fails the tests, never skips). */
function build(cxx: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-wgradtile-host-'));
  // Dynamic shared memory is the shim's array: `extern __shared__` becomes a plain extern.
  const kernel = readFileSync(join(root, 'cuda', 'depthwise-wgrad-tile.cuh'), 'utf8').replace(
    'extern __shared__',
    'extern',
  );
  const source = `${SHIM}\nnamespace baracuda_depthwise {\n${kernel}\n}\n${HARNESS}`;
  writeFileSync(join(dir, 'harness.cpp'), source);
  const exe = join(dir, 'harness');
  execFileSync(
    cxx,
    [
      '-std=c++17',
      '-O1',
      '-ffp-contract=off',
      '-Wno-unknown-pragmas',
      '-pthread',
      '-o',
      exe,
      join(dir, 'harness.cpp'),
    ],
    { stdio: 'pipe' },
  );
  return exe;
}

describe.skipIf(cxx === null)('cuda/depthwise-wgrad-tile.cuh as host C++', () => {
  beforeAll(() => {
    harness = build(cxx!);
  }, 120_000);

  const cases: [string, Case, number?][] = [
    ['X3D-like, odd sizes', { c: 2, n: 1, in: [4, 7, 9], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'dilation, uneven pads',
      { c: 1, n: 2, in: [4, 8, 9], k: [2, 3, 2], pad: [1, 2, 0], dil: [2, 2, 3] },
    ],
    ['batch 1, a 1×1×1 filter', { c: 2, n: 1, in: [3, 5, 6], k: [1, 1, 1] }],
    ['a plane past one round', { c: 1, n: 1, in: [2, 18, 19], k: [3, 3, 3], pad: [1, 1, 1] }],
    ['slots capped', { c: 2, n: 3, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] }, 2 * 2 * 27 * 4],
  ];
  it.each(cases)(
    '%s: equals wgradTilePartials bit for bit in f32 and f64',
    (_name, t, cap) => {
      for (const [element, bytes] of [
        [ElementKind.F32, 4],
        [ElementKind.F64, 8],
      ] as const) {
        const d = desc({ ...t, element });
        const launch = depthwiseLaunch(
          d,
          'bwFilter',
          { wgradTile: true },
          cap === undefined ? undefined : cap * (bytes / 4),
        );
        expect(launch.kernel).toBe('wgradtile');
        const Arr = bytes === 4 ? Float32Array : Float64Array;
        const x = Arr.from(random(d.xElements, 11));
        const dy = Arr.from(random(d.yElements, 12));
        const dir = mkdtempSync(join(tmpdir(), 'baracuda-wgradtile-run-'));
        const file = (name: string, v: ArrayBufferView) => {
          writeFileSync(join(dir, name), new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
          return join(dir, name);
        };
        const ints = Int32Array.from([...launch.ints, d.batch, launch.block[0], launch.grid[1]]);
        const out = join(dir, 'out.bin');
        execFileSync(harness!, [
          String(bytes),
          file('ints.bin', ints),
          file('x.bin', x),
          file('dy.bin', dy),
          out,
        ]);
        const back = readFileSync(out);
        const got = new Arr(back.buffer.slice(back.byteOffset, back.byteOffset + back.byteLength));
        const want = wgradTilePartials(launch, x, dy, bytes === 4 ? Math.fround : (v) => v);
        expect(got.length).toBe(want.length);
        expect(Array.from(got)).toEqual(Array.from(want));
      }
    },
    60_000,
  );
});
