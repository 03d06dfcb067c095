/**
 * cuda/depthwise-wgrad-row.cuh itself (with depthwise-wgrad.cuh's slices), compiled as host C++
 * and run block by block (cuda-block.test-helpers.ts), in f32 and f64: each slot's partial sums
 * equal wgradHost's (which slices of the batch and which segments it took) and their sum equals
 * dw straight from the definition in f64 (directDw), on shapes that cut rows into short segments,
 * pad W by 0, 1 or 2, stride and dilate D and H, cut a sample into several slices and cap the slots.
 * Skipped where no C++ compiler is found.
 */
import { ElementKind } from '@baracuda/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCudaHarness, PARTIALS_MAIN, runCudaHarness } from './cuda-block.test-helpers.js';
import { hostCompiler } from './cxx.test-helpers.js';
import { depthwiseLaunch } from './depthwise-launch.js';
import { type Case, desc, directDw, random } from './depthwise-wgrad.test-helpers.js';
import { wgradHost } from './depthwise-wgrad-host.js';

/** What the kernels need of depthwise.cu. */
const PRELUDE = `
typedef long long i64;
static inline float toAcc(float v) { return v; }
static inline double toAcc(double v) { return v; }
template <typename T, typename Acc>
static inline void store(T* out, i64 at, Acc acc, Acc alpha, Acc beta) {
  out[at] = (T)(alpha * acc + (beta != Acc(0) ? beta * out[at] : Acc(0)));
}
`;
/** argv: 4|8, ints.bin (the launch's 21 ints, then batch, threads, slots), x.bin, dy.bin, out.bin. */
const HARNESS = `
template <typename T> static std::vector<T> run(const int* q, const T* x, const T* dy) {
  const int channels = q[0], batch = q[21], threads = q[22], slots = q[23];
  std::vector<T> partial((size_t)slots * channels * 27, (T)1e30);
  runGrid((unsigned)channels, (unsigned)slots, threads, [&] {
    baracuda_depthwise::wgradRow<T, T>(x, dy, partial.data(), batch, channels, q[1], q[2], q[3],
        q[4], q[5], q[6], q[10], q[11], q[13], q[14], q[15], q[16], q[17], q[19], q[20]);
  });
  return partial;
}
${PARTIALS_MAIN}
`;

const cxx = hostCompiler();
let harness: string | undefined;

const relL2 = (got: ArrayLike<number>, want: ArrayLike<number>) => {
  let num = 0;
  let den = 0;
  for (let i = 0; i < want.length; i++) {
    num += (got[i]! - want[i]!) ** 2;
    den += want[i]! ** 2;
  }
  return Math.sqrt(num / den);
};

describe.skipIf(cxx === null)('cuda/depthwise-wgrad-row.cuh as host C++', () => {
  beforeAll(() => {
    harness = buildCudaHarness(
      cxx!,
      'wgradrow',
      PRELUDE,
      ['depthwise-wgrad.cuh', 'depthwise-wgrad-row.cuh'],
      HARNESS,
    );
  }, 120_000);

  const cases: [string, Case, { cap?: number; blocks?: number }?][] = [
    [
      'X3D-like, W 9 (a short last segment)',
      { c: 2, n: 2, in: [4, 5, 9], k: [3, 3, 3], pad: [1, 1, 1] },
    ],
    ['no padding along W, W 7', { c: 1, n: 1, in: [3, 6, 7], k: [3, 3, 3], pad: [1, 0, 0] }],
    ['padding 2 along W, uneven pads', { c: 1, n: 2, in: [3, 4, 6], k: [3, 3, 3], pad: [0, 2, 2] }],
    [
      'stride 2 and dilation 2 along D and H',
      {
        c: 2,
        n: 1,
        in: [7, 9, 5],
        k: [3, 3, 3],
        pad: [2, 1, 1],
        stride: [2, 2, 1],
        dil: [2, 2, 1],
      },
    ],
    [
      'a sample cut into 3 slices',
      { c: 1, n: 1, in: [8, 16, 96], k: [3, 3, 3], pad: [1, 1, 1] },
      { blocks: 6 },
    ],
    [
      'slots capped',
      { c: 2, n: 3, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] },
      { cap: 2 * 2 * 27 * 4 },
    ],
  ];
  it.each(cases)(
    '%s: partials as wgradHost, dw as the definition, in f32 and f64',
    (_name, t, opt = {}) => {
      for (const [element, bytes] of [
        [ElementKind.F32, 4],
        [ElementKind.F64, 8],
      ] as const) {
        const d = desc({ ...t, element });
        const launch = depthwiseLaunch(
          d,
          'bwFilter',
          { wgrad: { rowBlocks: opt.blocks } },
          opt.cap === undefined ? undefined : opt.cap * (bytes / 4),
        );
        expect(launch.kernel).toBe('wgradrow');
        if (opt.blocks !== undefined) expect(launch.ints[19]).toBe(3);
        if (opt.cap !== undefined) expect(launch.grid[1]).toBeLessThan(d.batch);
        const Arr = bytes === 4 ? Float32Array : Float64Array;
        const x = Arr.from(random(d.xElements, 21));
        const dy = Arr.from(random(d.yElements, 22));
        const ints = Int32Array.from([...launch.ints, d.batch, launch.block[0], launch.grid[1]]);
        const back = runCudaHarness(harness!, [String(bytes)], {
          'ints.bin': ints,
          'x.bin': x,
          'dy.bin': dy,
        });
        const got = new Arr(back);
        const host = wgradHost(launch, x, dy, new Float64Array(d.wElements), 1, 0);
        const tol = bytes === 4 ? 1e-5 : 1e-13;
        expect(got.length).toBe(host.partials.length);
        expect(relL2(got, host.partials)).toBeLessThan(tol);
        const count = d.wElements;
        const dw = new Float64Array(count);
        for (let s = 0; s < launch.grid[1]; s++) {
          for (let e = 0; e < count; e++) dw[e]! += got[s * count + e]!;
        }
        expect(relL2(dw, directDw(d, Float64Array.from(x), Float64Array.from(dy)))).toBeLessThan(
          tol,
        );
      }
    },
    60_000,
  );
});
