/**
 * cuda/depthwise-wgrad-tile.cuh itself, compiled as host C++ and run block by block
 * (cuda-block.test-helpers.ts), equals wgradTilePartials bit for bit in f32 and f64: the staging,
 * each thread's positions and their order, the butterfly and the warps in order. Skipped where no
 * C++ compiler is found.
 */
import { ElementKind } from '@baracuda/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCudaHarness, PARTIALS_MAIN, runCudaHarness } from './cuda-block.test-helpers.js';
import { hostCompiler } from './cxx.test-helpers.js';
import { depthwiseLaunch } from './depthwise-launch.js';
import { type Case, desc, random } from './depthwise-wgrad.test-helpers.js';
import { wgradTilePartials } from './depthwise-wgrad-tile-host.js';

/** What the kernel needs of depthwise.cu and its dynamic shared memory. */
const PRELUDE = `
typedef long long i64;
constexpr int kWgradThreads = 256;
static inline float toAcc(float v) { return v; }
static inline double toAcc(double v) { return v; }
alignas(16) unsigned char smemBytes[49152];
`;
/** argv: 4|8, ints.bin (the launch's 21 ints, then batch, threads, slots), x.bin, dy.bin, out.bin. */
const HARNESS = `
template <typename T> static std::vector<T> run(const int* q, const T* x, const T* dy) {
  const int channels = q[0], batch = q[21], threads = q[22], slots = q[23];
  const int taps = q[7] * q[8] * q[9];
  std::vector<T> partial((size_t)slots * channels * taps);
  runGrid((unsigned)channels, (unsigned)slots, threads, [&] {
    baracuda_depthwise::wgradTile<T, T>(x, dy, partial.data(), batch, channels, q[1], q[2], q[3],
        q[4], q[5], q[6], q[7], q[8], q[9], q[13], q[14], q[15], q[16], q[17], q[18], q[19], q[20]);
  });
  return partial;
}
${PARTIALS_MAIN}
`;

const cxx = hostCompiler();
let harness: string | undefined;

describe.skipIf(cxx === null)('cuda/depthwise-wgrad-tile.cuh as host C++', () => {
  beforeAll(() => {
    harness = buildCudaHarness(cxx!, 'wgradtile', PRELUDE, ['depthwise-wgrad-tile.cuh'], HARNESS);
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
          { wgrad: { kernel: 'wgradtile' } },
          cap === undefined ? undefined : cap * (bytes / 4),
        );
        expect(launch.kernel).toBe('wgradtile');
        const Arr = bytes === 4 ? Float32Array : Float64Array;
        const x = Arr.from(random(d.xElements, 11));
        const dy = Arr.from(random(d.yElements, 12));
        const ints = Int32Array.from([...launch.ints, d.batch, launch.block[0], launch.grid[1]]);
        const back = runCudaHarness(harness!, [String(bytes)], {
          'ints.bin': ints,
          'x.bin': x,
          'dy.bin': dy,
        });
        const got = new Arr(back);
        const want = wgradTilePartials(launch, x, dy, bytes === 4 ? Math.fround : (v) => v);
        expect(got.length).toBe(want.length);
        expect(Array.from(got)).toEqual(Array.from(want));
      }
    },
    60_000,
  );
});
