import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import {
  clvecWidth,
  depthwiseHost,
  depthwiseLaunch,
  depthwiseUnsupported,
  depthwiseUntuned,
} from './depthwise.js';
import { direct } from './depthwise-direct.test-helpers.js';
import { type Case, desc, maxAbsDiff, random } from './depthwise-wgrad.test-helpers.js';
import { Conv3dDescriptor } from './descriptor.js';

type Kernel = 'tiled' | 'gather' | 'gathercl' | 'clvec' | 'clmarch';
const NCDHW_CASES: [string, Case, Kernel, Kernel][] = [
  [
    '3×3×3 pad 1 (X3D)',
    { c: 3, n: 2, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
    'tiled',
    'tiled',
  ],
  [
    'planes wider and taller than one tile',
    { c: 2, in: [3, 37, 70], k: [3, 3, 3], pad: [1, 1, 1] },
    'tiled',
    'tiled',
  ],
  [
    'dilation 2, pad 2',
    { c: 2, in: [5, 9, 11], k: [3, 3, 3], pad: [2, 2, 2], dil: [2, 2, 2] },
    'tiled',
    'tiled',
  ],
  ['1×3×5, uneven pads', { c: 3, in: [4, 6, 9], k: [1, 3, 5], pad: [0, 1, 3] }, 'tiled', 'tiled'],
  [
    'output depths in chunks (the filter reach read twice at each cut)',
    { c: 1, in: [33, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
    'tiled',
    'tiled',
  ],
  [
    '5×3×3 with depth dilation 2: a reach of 9 (span 8 is too short: gathers)',
    { c: 2, in: [11, 4, 5], k: [5, 3, 3], pad: [4, 1, 1], dil: [2, 1, 1] },
    'gather',
    'gather',
  ],
  [
    '4×3×3 with depth dilation 2: a reach of 7 (span 8)',
    { c: 2, in: [17, 4, 5], k: [4, 3, 3], pad: [3, 1, 1], dil: [2, 1, 1] },
    'tiled',
    'tiled',
  ],
  [
    'padding past the filter reach in depth (empty slices before and after)',
    { c: 2, in: [4, 3, 3], k: [2, 3, 3], pad: [1, 1, 1] },
    'tiled',
    'tiled',
  ],
  [
    'pad larger than the window (backward-data gathers)',
    { c: 2, in: [3, 4, 5], k: [3, 3, 3], pad: [3, 1, 1] },
    'tiled',
    'gather',
  ],
  [
    'stride 2',
    { c: 4, in: [7, 8, 9], k: [3, 3, 3], pad: [1, 1, 1], stride: [2, 2, 2] },
    'gather',
    'gather',
  ],
  [
    'stride 2×1×2 with dilation',
    { c: 2, in: [9, 7, 10], k: [3, 2, 3], pad: [2, 0, 1], stride: [2, 1, 2], dil: [2, 1, 1] },
    'gather',
    'gather',
  ],
];
/**
 * Every case again in NDHWC: where NCDHW runs the tiled kernel with a reach in depth of 3 at most,
 * the channels-last kernel that marches in depth (clmarch), else the one that gathers channels
 * last with the filter in shared memory (clvec); and 500 channels of f64, whose 3×3×3 filter does
 * not fit in 48 KiB.
 */
const ndhwcKernel = (t: Case, ncdhw: Kernel): Kernel =>
  ncdhw === 'tiled' && (t.k[0] - 1) * (t.dil?.[0] ?? 1) <= 2 ? 'clmarch' : 'clvec';
const CASES: [string, Case, Kernel, Kernel][] = [
  ...NCDHW_CASES,
  ...NCDHW_CASES.map(([name, t, fw, bw]): [string, Case, Kernel, Kernel] => [
    `${name}, NDHWC`,
    { ...t, layout: 'ndhwc' },
    ndhwcKernel(t, fw),
    ndhwcKernel(t, bw),
  ]),
  [
    'NDHWC, a filter too big for shared memory',
    {
      c: 500,
      in: [3, 3, 4],
      k: [3, 3, 3],
      pad: [1, 1, 1],
      stride: [1, 2, 1],
      element: ElementKind.F64,
      layout: 'ndhwc',
    },
    'gathercl',
    'gathercl',
  ],
];

describe('depthwiseUnsupported', () => {
  it('takes NCDHW and NDHWC with groups = C_in = C_out, in any float element', () => {
    for (const element of [ElementKind.F32, ElementKind.F64, ElementKind.F16, ElementKind.Bf16]) {
      for (const layout of ['ncdhw', 'ndhwc'] as const) {
        const d = desc({ c: 4, in: [3, 3, 3], k: [3, 3, 3], element, layout });
        expect(depthwiseUnsupported(d, 'fw')).toBeNull();
        expect(depthwiseUnsupported(d, 'bwData')).toBeNull();
        expect(depthwiseUnsupported(d, 'bwFilter')).toBeNull();
      }
    }
  });
  it('names what it does not take', () => {
    const base = desc({ c: 4, in: [3, 3, 3], k: [3, 3, 3] });
    const grouped = Conv3dDescriptor.create({ ...base, cIn: 4, cOut: 8 }).withGroups(4);
    expect(depthwiseUnsupported(grouped, 'fw')).toBe(
      'groups=4 with 4→8 channels (they take groups = C_in = C_out)',
    );
    const dense = Conv3dDescriptor.create({ ...base, cIn: 1, cOut: 1 });
    expect(depthwiseUnsupported(dense, 'bwData')).toBe(
      'groups=1 with 1→1 channels (they take groups = C_in = C_out)',
    );
    // One slot of partial sums: 4 channels × 27 taps of f32.
    expect(depthwiseUnsupported(base.withLayout('ndhwc'), 'bwFilter', 431)).toBe(
      'a backward-filter needing 432 bytes of workspace at least (C × taps partial sums) with preference.maxWorkspaceBytes 431',
    );
    expect(depthwiseUnsupported(base, 'bwFilter', 432)).toBeNull();
    // A tap group a grid z: 16 × 65,535 taps at most.
    const huge = desc({ c: 2, in: [1, 1, 1], k: [1, 1024, 1025], pad: [0, 1023, 1024] });
    expect(depthwiseUnsupported(huge, 'bwFilter')).toBe(
      'a backward-filter of 1049600 taps (at most 1048560)',
    );
  });
});

/**
 * The old two-pass backward-filter's geometry (`wgrad`, `wgradcl`), worked out here from its rule: slices of a sample's
 * output plane while pass 1's grid is short of 2,048 blocks (each at least 4 positions a thread,
 * or a row of 8 threads in NDHWC), one slot of partial sums a slice, a block a tap group of 16.
 */
function expectWgradGeometry(d: Conv3dDescriptor, l: ReturnType<typeof depthwiseLaunch>): void {
  const taps = d.dFilt * d.hFilt * d.wFilt;
  const [oD, oH, oW] = d.outputDims();
  const plane = oD * oH * oW;
  const ncdhw = d.layout === 'ncdhw';
  const gridX = ncdhw ? d.cIn : Math.ceil(d.cIn / 32);
  const groups = Math.ceil(taps / 16);
  const want = Math.ceil(2048 / (gridX * groups));
  const most = Math.max(1, Math.floor(plane / (ncdhw ? 1024 : 32)));
  const len = Math.ceil(plane / Math.min(most, Math.max(1, Math.ceil(want / d.batch))));
  const chunks = Math.ceil(plane / len);
  const slots = Math.min(d.batch * chunks, 65535);
  const acc = d.element === ElementKind.F64 ? 8 : 4;
  expect(l).toMatchObject({
    kernel: ncdhw ? 'wgrad' : 'wgradcl',
    grid: [gridX, slots, groups],
    block: ncdhw ? [256, 1, 1] : [32, 8, 1],
    sharedBytes: 0,
    workspaceBytes: slots * d.cIn * taps * acc,
    reduce: {
      grid: [Math.ceil((d.cIn * taps) / 256), 1, 1],
      block: [256, 1, 1],
      slots,
      count: d.cIn * taps,
    },
  });
  expect(l.ints.slice(-2)).toEqual([chunks, len]);
}

describe('depthwiseLaunch', () => {
  it.each(CASES)('%s: computes every pass as defined', (_name, t, fwKernel, bwKernel) => {
    const d = desc(t);
    const x = random(d.xElements, 1);
    const w = random(d.wElements, 2);
    const dy = random(d.yElements, 3);
    const want = direct(d, x, w, dy);
    const fw = depthwiseLaunch(d, 'fw');
    const bw = depthwiseLaunch(d, 'bwData');
    expect([fw.kernel, bw.kernel]).toEqual([fwKernel, bwKernel]);
    const y = depthwiseHost(fw, x, w, new Float64Array(d.yElements).fill(Number.NaN), 1, 0);
    expect(maxAbsDiff(y, want.y)).toBeLessThan(1e-12);
    const dx = depthwiseHost(bw, dy, w, new Float64Array(d.xElements).fill(Number.NaN), 1, 0);
    expect(maxAbsDiff(dx, want.dx)).toBeLessThan(1e-12);
    // Backward-filter as chosen (NCDHW 3×3×3: `wgradrow`) and on the old pass 1.
    for (const bwf of [
      depthwiseLaunch(d, 'bwFilter'),
      depthwiseLaunch(d, 'bwFilter', { wgrad: { kernel: 'wgrad' } }),
    ]) {
      if (bwf.kernel !== 'wgradrow') expectWgradGeometry(d, bwf);
      const dw = depthwiseHost(bwf, x, dy, new Float64Array(d.wElements).fill(Number.NaN), 1, 0);
      expect(maxAbsDiff(dw, want.dw)).toBeLessThan(1e-12);
      const priorW = random(d.wElements, 5);
      const scaledW = depthwiseHost(bwf, x, dy, Float64Array.from(priorW), -1, 2);
      expect(
        maxAbsDiff(
          scaledW,
          want.dw.map((v, i) => -v + 2 * priorW[i]!),
        ),
      ).toBeLessThan(1e-12);
    }
    // alpha and beta: out = 2·conv + 0.5·out.
    const prior = random(d.yElements, 4);
    const scaled = depthwiseHost(fw, x, w, Float64Array.from(prior), 2, 0.5);
    expect(
      maxAbsDiff(
        scaled,
        want.y.map((v, i) => 2 * v + 0.5 * prior[i]!),
      ),
    ).toBeLessThan(1e-12);
  });

  it('lays the tiled grid over the output tiles, output depth chunks and planes', () => {
    const l = depthwiseLaunch(
      desc({ c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] }),
      'fw',
    );
    // X3D: 4 output rows a thread (one 32×32 tile per 28×28 plane), 1,536 planes: enough blocks
    // to leave the 16 output depths in one chunk.
    expect(l).toMatchObject({
      kernel: 'tiled',
      span: 3,
      grid: [1, 1, 1536],
      block: [32, 8, 1],
      planes: 1536,
    });
    expect(l.ints.slice(-4)).toEqual([0, 1, 16, 4]);
    // f32: 27 taps + two patches of (32 + 2) × (32 + 2) floats.
    expect(l.sharedBytes).toBe((27 + 2 * 34 * 34) * 4);
    // A deep volume of few planes splits its depths (2 planes, 64 depths: 8 chunks of 8).
    const deep = depthwiseLaunch(
      desc({ c: 2, in: [64, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] }),
      'fw',
    );
    expect(deep.grid).toEqual([1, 8, 2]);
    expect(deep.ints.slice(-2)).toEqual([8, 4]);
    // Short planes take fewer rows a thread: 9 rows → 2 (a 32×16 tile); a plane of 70 columns
    // takes 3 tiles across.
    const short = depthwiseLaunch(
      desc({ c: 2, in: [3, 9, 70], k: [3, 3, 3], pad: [1, 1, 1] }),
      'fw',
    );
    expect(short.grid.slice(0, 1)).toEqual([3]);
    expect(short.ints.slice(-3)).toEqual([3, 3, 2]);
    const f64 = depthwiseLaunch(
      desc({ c: 2, in: [4, 4, 4], k: [3, 3, 3], pad: [1, 1, 1], element: ElementKind.F64 }),
      'bwData',
    );
    expect(f64.sharedBytes).toBe((27 + 2 * 10 * 34) * 8);
    // A reach of 4 to 8 in depth takes the 8-deep kernel.
    const reach5 = depthwiseLaunch(
      desc({ c: 2, in: [6, 4, 4], k: [5, 1, 1], pad: [2, 0, 0] }),
      'fw',
    );
    expect([reach5.kernel, reach5.span]).toEqual(['tiled', 8]);
  });

  it('the tiled kernel loops over the planes past its grid (grid z of 65,535 at most)', () => {
    // The same launch with a grid of 2 planes at a time computes every one of 5.
    const d = desc({ c: 5, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] });
    const x = random(d.xElements, 7);
    const w = random(d.wElements, 8);
    const want = direct(d, x, w, random(d.yElements, 9));
    const l = depthwiseLaunch(d, 'fw');
    const strided = { ...l, grid: [l.grid[0], l.grid[1], 2] as [number, number, number] };
    const y = depthwiseHost(strided, x, w, new Float64Array(d.yElements).fill(Number.NaN), 1, 0);
    expect(maxAbsDiff(y, want.y)).toBeLessThan(1e-12);
    // And a chunk of one depth at a time, one row a thread, computes the same as the default.
    const chunked = depthwiseLaunch(d, 'fw', { chunk: 1, rows: 1 });
    expect([chunked.grid, chunked.ints.slice(-2)]).toEqual([
      [1, 3, 5],
      [1, 1],
    ]);
    expect(chunked.sharedBytes).toBe((27 + 2 * (8 + 2) * (32 + 2)) * 4);
    const y1 = depthwiseHost(chunked, x, w, new Float64Array(d.yElements).fill(Number.NaN), 1, 0);
    expect(maxAbsDiff(y1, want.y)).toBeLessThan(1e-12);
  });

  it('takes a chunk and rows a thread as given, an integer from 1 to 4 rows', () => {
    const d = desc({ c: 2, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] });
    const l = depthwiseLaunch(d, 'bwData', { chunk: 4, rows: 2 });
    expect([l.grid, l.ints.slice(-2)]).toEqual([
      [2, 4, 2],
      [4, 2],
    ]);
    expect(() => depthwiseLaunch(d, 'fw', { rows: 5 })).toThrow(
      'Expected an integer from 1 to 4 for tiled.rows but received 5',
    );
    expect(() => depthwiseLaunch(d, 'fw', { chunk: 0.5 })).toThrow(
      /for tiled.chunk but received 0.5/,
    );
  });

  it('takes fewer rows a thread for a wide filter, and gathers when no patch fits 1,536 elements', () => {
    // 1×7×7: 4 rows a thread would need (32 + 6) × (32 + 6) = 1,444 elements: fits.
    const k7 = depthwiseLaunch(
      desc({ c: 2, in: [2, 200, 200], k: [1, 7, 7], pad: [0, 3, 3] }),
      'fw',
    );
    expect([k7.kernel, k7.ints.at(-1), k7.sharedBytes]).toEqual([
      'tiled',
      4,
      (49 + 2 * 38 * 38) * 4,
    ]);
    // Dilation 3: (32 + 18) × (32 + 18) = 2,500 at 4 rows, (24 + 18) × 50 = 2,100 at 3,
    // (16 + 18) × 50 = 1,700 at 2, (8 + 18) × 50 = 1,300 at 1.
    const dil3 = desc({ c: 2, in: [2, 60, 60], k: [1, 7, 7], pad: [0, 9, 9], dil: [1, 3, 3] });
    expect(depthwiseLaunch(dil3, 'fw').ints.at(-1)).toBe(1);
    // Dilation 20: 32 + 120 columns; no rows fit.
    const wide = desc({
      c: 2,
      in: [2, 200, 200],
      k: [1, 7, 7],
      pad: [0, 60, 60],
      dil: [1, 20, 20],
    });
    expect(depthwiseLaunch(wide, 'fw').kernel).toBe('gather');
  });

  it('caps the gather grid and the tiled grid y/z at the launch limits', () => {
    const big = desc({ c: 70000, in: [1, 1, 1], k: [1, 1, 1] });
    expect(depthwiseLaunch(big, 'fw').grid).toEqual([1, 1, 65535]);
    // Backward-data with pad > d·(k−1) gathers over dx: 2^29 elements, 2^21 blocks of 256 → 2^20.
    const padded = desc({ c: 256, n: 16, in: [32, 64, 64], k: [3, 3, 3], pad: [3, 3, 3] });
    const launch = depthwiseLaunch(padded, 'bwData');
    expect(launch.kernel).toBe('gather');
    expect(launch.grid).toEqual([2 ** 20, 1, 1]);
  });
});

describe('depthwiseUntuned', () => {
  it('takes our kernels untuned but the NCDHW gather kernel (backward-filter too)', () => {
    const x3d = desc({ c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] });
    expect(depthwiseUntuned(depthwiseLaunch(x3d, 'fw'))).toBe(true);
    expect(depthwiseUntuned(depthwiseLaunch(x3d, 'bwData'))).toBe(true);
    expect(depthwiseUntuned(depthwiseLaunch(x3d.withLayout('ndhwc'), 'bwData'))).toBe(true);
    // cuDNN's heuristic engines took 2–51 ms for it (a cliff): ours, in every layout.
    expect(depthwiseUntuned(depthwiseLaunch(x3d, 'bwFilter'))).toBe(true);
    expect(depthwiseUntuned(depthwiseLaunch(x3d.withLayout('ndhwc'), 'bwFilter'))).toBe(true);
    const strided = desc({ c: 4, in: [7, 8, 9], k: [3, 3, 3], pad: [1, 1, 1], stride: [2, 2, 2] });
    expect(depthwiseUntuned(depthwiseLaunch(strided, 'fw'))).toBe(false);
  });
});

describe('clvecWidth', () => {
  it('takes the most channels a thread that divide C, up to 16 bytes a load', () => {
    expect([192, 12, 6, 3].map((c) => clvecWidth(c, 2))).toEqual([8, 4, 2, 1]);
    expect([192, 6, 7].map((c) => clvecWidth(c, 4))).toEqual([4, 2, 1]);
    expect([192, 7].map((c) => clvecWidth(c, 8))).toEqual([2, 1]);
    // X3D's layer in bf16: 8 channels a thread, 2.4 M threads, capped at 1,024 blocks.
    const x3d = depthwiseLaunch(
      desc({
        c: 192,
        n: 8,
        in: [16, 28, 28],
        k: [3, 3, 3],
        pad: [1, 1, 1],
        element: ElementKind.Bf16,
        layout: 'ndhwc',
      }),
      'bwData',
    );
    // Stride 1: the marching kernel, 8 × 28 × 28 columns × 24 groups of 8 channels = 150,528
    // threads, short of 2^19: two chunks of 8 depths (4 would read the reach twice too often).
    expect(x3d).toMatchObject({
      kernel: 'clmarch',
      grid: [1176, 1, 1],
      sharedBytes: 27 * 192 * 4,
    });
    // flip (backward-data), vec, chunks, len; its pads are d·(k − 1) − p.
    expect(x3d.ints.slice(-4)).toEqual([1, 8, 2, 8]);
    expect(x3d.ints.slice(13, 16)).toEqual([1, 1, 1]);
    const strided = depthwiseLaunch(
      desc({
        c: 192,
        n: 8,
        in: [16, 28, 28],
        k: [3, 3, 3],
        pad: [1, 1, 1],
        stride: [2, 2, 2],
        element: ElementKind.Bf16,
        layout: 'ndhwc',
      }),
      'bwData',
    );
    expect(strided).toMatchObject({ kernel: 'clvec', grid: [1024, 1, 1] });
    // The device check's A/B: the same layer on clvec.
    const gathering = depthwiseLaunch(
      desc({ c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1], layout: 'ndhwc' }),
      'fw',
      { march: false },
    );
    expect(gathering.kernel).toBe('clvec');
    expect(strided.ints.slice(-2)).toEqual([1, 8]);
  });
});
