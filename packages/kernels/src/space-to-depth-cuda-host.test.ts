/**
 * cuda/space-to-depth.cu itself, compiled as host C++ (a shim for the CUDA built-ins, our own
 * stand-ins for the f16/bf16 conversions) and run on the parameters SpaceToDepthKernels packs,
 * equals the host emulation bit for bit: the index arithmetic of both kernels, the 32-bit path
 * (fast division) and the 64-bit one, the gather's 1-4 elements per thread, the grid-stride
 * loop, the uncovered modes. (The real f16/bf16 intrinsics and the GPU
 * itself are the device check's: scripts/s2d-device-check.mjs.) Skipped where no C++ compiler
 * is found.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ElementKind, f32ToBf16Bits, f32ToF16Bits } from '@baracuda/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { SLURP } from './cuda-block.test-helpers.js';
import { buildHostHarness, hostCompiler } from './cxx.test-helpers.js';
import { fakeDevice, fakeStream } from './fake-cudnn.test-helpers.js';
import { fastDivisor } from './fast-division.js';
import { foldProblem } from './fold-problem.test-helpers.js';
import { type RecordedLaunch, recordingLoader } from './ptx.test-helpers.js';
import { InverseMode, type OperandTransform, patchRoute, stemRoute } from './space-to-depth.js';
import { gatherHost, inverseHost } from './space-to-depth-host.js';
import { SpaceToDepthKernels } from './space-to-depth-kernels.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const SHIM = `
#include <cstdint>
#include <cstring>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
struct Dim3 { unsigned x, y, z; };
static Dim3 blockIdx, blockDim, threadIdx, gridDim;
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline long long __double_as_longlong(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
static inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
`;
const FP16 = `
#pragma once
struct __half { unsigned short b; };
static inline __half __ushort_as_half(unsigned short v) { return __half{v}; }
static inline unsigned short __half_as_ushort(__half h) { return h.b; }
static inline float __half2float(__half h) { _Float16 f; std::memcpy(&f, &h.b, 2); return (float)f; }
static inline __half __float2half_rn(float x) { _Float16 f = (_Float16)x; __half h; std::memcpy(&h.b, &f, 2); return h; }
`;
const BF16 = `
#pragma once
struct __nv_bfloat16 { unsigned short b; };
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16{v}; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.b; }
static inline float __bfloat162float(__nv_bfloat16 h) { unsigned u = (unsigned)h.b << 16; float f; std::memcpy(&f, &u, 4); return f; }
static inline __nv_bfloat16 __float2bfloat16_rn(float x) {
  unsigned u; std::memcpy(&u, &x, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return __nv_bfloat16{(unsigned short)(u >> 16)};
}
`;
/**
 * argv: gather|inverse, element bytes, threads, params.bin, in.bin, out.bin (read, then written),
 * then \`wide\` to run the 64-bit path (plain division) on a map of any size; or vector, element
 * bytes ·100 + vector bytes, then as gather's; or
 * divide, records.bin (u32 n, d, magic low, magic high each), quotients.bin (written).
 */
const HARNESS = `
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "space-to-depth.cu"
${SLURP}
template <typename T> static void wide(bool gather, std::vector<char>& p, std::vector<char>& in,
                                       std::vector<char>& out) {
  if (gather) {
    GatherMap m; std::memcpy(&m, p.data(), sizeof m);
    baracuda_s2d::gather<T, unsigned long long, long long>((const T*)in.data(), (T*)out.data(), m);
  } else {
    InverseMap m; std::memcpy(&m, p.data(), sizeof m);
    baracuda_s2d::inverse<T, unsigned long long>((const T*)in.data(), (T*)out.data(), m);
  }
}
template <typename T> static void run(bool gather, unsigned threads, std::vector<char>& p,
                                      std::vector<char>& in, std::vector<char>& out, bool big) {
  blockDim.x = threads; gridDim.x = 1; blockIdx.x = 0;
  for (threadIdx.x = 0; threadIdx.x < threads; threadIdx.x++) {
    if (big) {
      wide<T>(gather, p, in, out);
    } else if (gather) {
      GatherMap m; std::memcpy(&m, p.data(), sizeof m);
      if (sizeof(T) == 2) baracuda_s2d_gather_b16((const unsigned short*)in.data(), (unsigned short*)out.data(), m);
      if (sizeof(T) == 4) baracuda_s2d_gather_b32((const unsigned*)in.data(), (unsigned*)out.data(), m);
      if (sizeof(T) == 8) baracuda_s2d_gather_b64((const unsigned long long*)in.data(), (unsigned long long*)out.data(), m);
    } else {
      InverseMap m; std::memcpy(&m, p.data(), sizeof m);
      if (sizeof(T) == 2) baracuda_s2d_inverse_b16((const unsigned short*)in.data(), (unsigned short*)out.data(), m);
      if (sizeof(T) == 4) baracuda_s2d_inverse_b32((const unsigned*)in.data(), (unsigned*)out.data(), m);
      if (sizeof(T) == 8) baracuda_s2d_inverse_b64((const unsigned long long*)in.data(), (unsigned long long*)out.data(), m);
    }
  }
}
template <typename T, typename VT> static void vec(unsigned threads, std::vector<char>& p,
                                                 std::vector<char>& in, std::vector<char>& out, bool big) {
  VecGatherMap m; std::memcpy(&m, p.data(), sizeof m);
  blockDim.x = threads; gridDim.x = 1; blockIdx.x = 0;
  for (threadIdx.x = 0; threadIdx.x < threads; threadIdx.x++) {
    if (big) baracuda_s2d::gatherVector<T, VT, unsigned long long>((const T*)in.data(), (T*)out.data(), m);
    else baracuda_s2d::gatherVector<T, VT, unsigned>((const T*)in.data(), (T*)out.data(), m);
  }
}
static void vector(int code, unsigned threads, std::vector<char>& p, std::vector<char>& in,
                   std::vector<char>& out, bool big) {
  if (code == 204) vec<unsigned short, unsigned>(threads, p, in, out, big);
  if (code == 208) vec<unsigned short, uint2>(threads, p, in, out, big);
  if (code == 216) vec<unsigned short, uint4>(threads, p, in, out, big);
  if (code == 408) vec<unsigned, uint2>(threads, p, in, out, big);
  if (code == 416) vec<unsigned, uint4>(threads, p, in, out, big);
  if (code == 816) vec<unsigned long long, uint4>(threads, p, in, out, big);
}
static int divide(const char* records, const char* quotients) {
  std::vector<char> r = slurp(records);
  std::vector<unsigned> q(r.size() / 16);
  for (size_t k = 0; k < q.size(); k++) {
    unsigned v[4]; std::memcpy(v, r.data() + 16 * k, 16);
    q[k] = baracuda_s2d::quotient(v[0], v[1], (unsigned long long)v[3] << 32 | v[2]);
  }
  std::FILE* f = std::fopen(quotients, "wb");
  std::fwrite(q.data(), 4, q.size(), f);
  std::fclose(f);
  return 0;
}
int main(int argc, char** argv) {
  if (argv[1][0] == 'd') return divide(argv[2], argv[3]);
  bool gather = argv[1][0] == 'g';
  bool big = argc > 7 && argv[7][0] == 'w';
  int bytes = std::atoi(argv[2]);
  unsigned threads = (unsigned)std::atoi(argv[3]);
  std::vector<char> p = slurp(argv[4]), in = slurp(argv[5]), out = slurp(argv[6]);
  if (argv[1][0] == 'v') vector(bytes, threads, p, in, out, big);
  else if (bytes == 2) run<unsigned short>(gather, threads, p, in, out, big);
  else if (bytes == 4) run<unsigned>(gather, threads, p, in, out, big);
  else if (bytes == 8) run<unsigned long long>(gather, threads, p, in, out, big);
  std::FILE* f = std::fopen(argv[6], "wb");
  std::fwrite(out.data(), 1, out.size(), f);
  std::fclose(f);
  return 0;
}
`;

/** The harness built (a compile error of cuda/space-to-depth.cu fails the tests, never skips). */
function buildHarness(cxx: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-s2d-host-'));
  writeFileSync(join(dir, 'shim.h'), SHIM);
  writeFileSync(join(dir, 'cuda_fp16.h'), FP16);
  writeFileSync(join(dir, 'cuda_bf16.h'), BF16);
  writeFileSync(join(dir, 'harness.cpp'), HARNESS);
  return buildHostHarness(cxx, join(dir, 'harness.cpp'), [
    '-include',
    join(dir, 'shim.h'),
    `-I${dir}`,
    `-I${join(root, 'cuda')}`,
  ]);
}

const cxx = hostCompiler();
let harness: string | undefined;

const ARRAYS = { 2: Uint16Array, 4: Float32Array, 8: Float64Array } as const;
const KIND = { 2: ElementKind.Bf16, 4: ElementKind.F32, 8: ElementKind.F64 } as const;
let seed = 7;
function random(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
}
function values(bytes: 2 | 4 | 8, n: number, half: 'f16' | 'bf16' = 'bf16') {
  const a = new ARRAYS[bytes](n);
  for (let i = 0; i < n; i++) {
    const v = random() * 4;
    a[i] =
      bytes === 2
        ? half === 'f16'
          ? f32ToF16Bits(v)
          : f32ToBf16Bits(v)
        : bytes === 4
          ? Math.fround(v)
          : v;
  }
  return a;
}

/** The harness on the parameters the loader recorded (pointers stripped); out as it leaves. */
function runHarness(
  kind: 'gather' | 'inverse' | 'vector',
  bytes: 2 | 4 | 8,
  threads: number,
  params: Uint8Array,
  input: ArrayBufferView,
  output: ArrayBufferView,
  path: 'narrow' | 'wide' = 'narrow',
  vectorBytes = 0,
) {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-s2d-run-'));
  const file = (name: string, v: ArrayBufferView) => {
    writeFileSync(join(dir, name), new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    return join(dir, name);
  };
  const out = file('out.bin', output);
  execFileSync(harness!, [
    kind,
    String(kind === 'vector' ? bytes * 100 + vectorBytes : bytes),
    String(threads),
    file('params.bin', params.subarray(16)),
    file('in.bin', input),
    out,
    path,
  ]);
  const back = readFileSync(out);
  return new ARRAYS[bytes](back.buffer.slice(back.byteOffset, back.byteOffset + back.byteLength));
}

/** The harness's quotients of `pairs` [n, d] with our magic numbers (the kernels' quotient()). */
function harnessQuotients(pairs: readonly (readonly [number, number])[]): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-s2d-div-'));
  const records = new Uint32Array(pairs.length * 4);
  pairs.forEach(([n, d], k) => {
    const magic = fastDivisor(d);
    records.set([n, d, Number(magic & 0xffffffffn), Number(magic >> 32n)], 4 * k);
  });
  writeFileSync(join(dir, 'records.bin'), records);
  execFileSync(harness!, ['divide', join(dir, 'records.bin'), join(dir, 'q.bin')]);
  const back = readFileSync(join(dir, 'q.bin'));
  return Array.from(
    new Uint32Array(back.buffer.slice(back.byteOffset, back.byteOffset + back.byteLength)),
  );
}

/**
 * A recorded launch run on the harness: the element kernels by their kind, a vector gather
 * (`…_b16_v8`) by its element and vector bytes.
 */
function runLaunch(
  launch: RecordedLaunch,
  bytes: 2 | 4 | 8,
  threads: number,
  input: ArrayBufferView,
  output: ArrayBufferView,
  path: 'narrow' | 'wide',
) {
  const v = /_v(\d+)$/.exec(launch.name);
  const kind = v !== null ? 'vector' : launch.name.includes('gather') ? 'gather' : 'inverse';
  return runHarness(kind, bytes, threads, launch.params, input, output, path, Number(v?.[1] ?? 0));
}

describe.skipIf(cxx === null)(
  'cuda/space-to-depth.cu as host C++ equals the emulation (skipped where no C++ compiler is found)',
  () => {
    beforeAll(() => {
      harness = buildHarness(cxx!);
    }, 120_000);
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      const routes = [
        ['patch 2×4×4', patchRoute(foldProblem(layout, [2, 4, 4], [2, 4, 4], [0, 0, 0]))!],
        // Blocks of 1 (d = 1 has no magic number) and a batch of 1 (a dim of 1).
        [
          'patch 1×3×5 batch 1',
          patchRoute(foldProblem(layout, [1, 3, 5], [1, 3, 5], [0, 0, 0], 1))!,
        ],
        ['stem 5×3×4 pad 2,1,0', stemRoute(foldProblem(layout, [5, 3, 4], [2, 2, 2], [2, 1, 0]))!],
        // Covered exactly, 4 channels: every transform moves in vectors (of each width).
        [
          'patch 2×4×4 of 4×8×16, 4 channels',
          patchRoute(foldProblem(layout, [2, 4, 4], [2, 4, 4], [0, 0, 0], 2, 4, [4, 8, 16]))!,
        ],
      ] as const;
      for (const [name, route] of routes) {
        const vectors = name.includes('4 channels');
        it(`${name} ${layout}: every transform, element size and uncovered mode`, () => {
          const transforms: OperandTransform[] = route.w === null ? [route.x] : [route.x, route.w];
          for (const t of transforms) {
            const count = t.inverse.total;
            for (const bytes of [2, 4, 8] as const) {
              const { loader, launches } = recordingLoader();
              SpaceToDepthKernels.resetForTests();
              const kernels = SpaceToDepthKernels.forDevice(fakeDevice, loader);
              if (kernels instanceof Error) throw kernels;
              const src = values(bytes, count);
              const poison = new ARRAYS[bytes](t.elements).fill(bytes === 2 ? 0xffff : Number.NaN);
              const want = gatherHost(src, new ARRAYS[bytes](t.elements), t.gather);
              // 1-4 elements per thread: the odometer's carries through every dim, a last
              // thread with fewer than perThread left, the grid-stride step of 7·perThread.
              for (const per of [1, 2, 3, 4]) {
                kernels.gather(fakeStream, 0n, 0n, t.gather, bytes, per);
                const params = launches.at(-1)!.params;
                for (const path of ['narrow', 'wide'] as const) {
                  const got = runHarness('gather', bytes, 7, params, src, poison, path);
                  expect(Array.from(got), `gather ${path} ${per}/thread`).toEqual(Array.from(want));
                }
              }
              // The default launch: in vectors where the map allows it (gather-vector.ts).
              kernels.gather(fakeStream, 0n, 0n, t.gather, bytes);
              const auto = launches.at(-1)!;
              if (vectors) expect(auto.name, 'in vectors').toMatch(/_v\d+$/);
              for (const path of ['narrow', 'wide'] as const) {
                const got = runLaunch(auto, bytes, 7, src, poison, path);
                expect(Array.from(got), `${auto.name} ${path}`).toEqual(Array.from(want));
              }
              for (const [mode, beta] of [
                [InverseMode.Zero, 0],
                [InverseMode.Keep, 1],
                [InverseMode.Scale, 0.3],
              ] as const) {
                const from = values(bytes, t.elements);
                const prior = values(bytes, count);
                const ref = inverseHost(from, prior.slice(), t.inverse, mode, beta, KIND[bytes]);
                // The element kernel, then the default (a vector gather where it covers all).
                for (const vector of [false, true]) {
                  kernels.inverse(
                    fakeStream,
                    0n,
                    0n,
                    t.inverse,
                    mode,
                    beta,
                    KIND[bytes],
                    bytes,
                    vector,
                  );
                  const launch = launches.at(-1)!;
                  if (!vector) expect(launch.name).toMatch(/_inverse_b\d+$/);
                  if (vector && vectors) expect(launch.name, 'in vectors').toMatch(/_v\d+$/);
                  for (const path of ['narrow', 'wide'] as const) {
                    const back = runLaunch(launch, bytes, 5, from, prior.slice(), path);
                    const what = `${launch.name} mode ${mode} ${path}`;
                    expect(Array.from(back), what).toEqual(Array.from(ref));
                  }
                }
              }
            }
          }
          SpaceToDepthKernels.resetForTests();
        });
      }
    }

    it("divides exactly with the host's magic numbers (the kernels' quotient(), every edge)", () => {
      const pairs: [number, number][] = [];
      const MAX = 2 ** 31 - 1;
      const divisors = [...Array.from({ length: 4096 }, (_, i) => i + 1), 65_535, 65_536, 65_537];
      for (let k = 13; k <= 30; k++) divisors.push(2 ** k - 1, 2 ** k, 2 ** k + 1);
      divisors.push(1_000_000_007, MAX - 1, MAX);
      for (const d of divisors) {
        const top = Math.floor(MAX / d) * d;
        for (const n of [0, d - 1, d, d + 1, 5 * d - 1, 5 * d, top - 1, top, MAX]) {
          if (n >= 0 && n <= MAX) pairs.push([n, d]);
        }
      }
      const want = pairs.map(([n, d]) => Math.floor(n / d));
      expect(harnessQuotients(pairs)).toEqual(want);
    });
  },
);
