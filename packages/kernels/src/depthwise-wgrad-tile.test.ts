/**
 * The tiled NCDHW backward-filter pass 1 (`wgradtile`): which shapes it takes (the rest keep
 * `wgrad`), its geometry, and its host emulation in the kernel's order (wgradTilePartials) against
 * dw straight from the definition in f64.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { depthwiseLaunch } from './depthwise-launch.js';
import { type Case, desc, directDw, maxAbsDiff, random } from './depthwise-wgrad.test-helpers.js';
import { wgradHost } from './depthwise-wgrad-host.js';
import { wgradTilePartials } from './depthwise-wgrad-tile-host.js';

/** The tiled pass 1 is opt-in (slower than `wgrad` on the H200, run 75). */
const TILE = { wgrad: { kernel: 'wgradtile' } } as const;

const x3d: Case = { c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] };

describe('the tiled backward-filter launch', () => {
  it("X3D's layer: 2 slices of 8 depths a sample, 4 rounds of 224 threads over the 28×28 plane", () => {
    const f32 = depthwiseLaunch(desc(x3d), 'bwFilter', TILE);
    expect(f32).toMatchObject({ kernel: 'wgradtile', grid: [192, 16, 1], block: [224, 1, 1] });
    // 3 staged input slices of 30×30, in f32.
    expect(f32.sharedBytes).toBe(3 * 30 * 30 * 4);
    expect(f32.ints.slice(-2)).toEqual([2, 8]);
    expect(f32.workspaceBytes).toBe(16 * 192 * 27 * 4);
    expect(f32.reduce).toEqual({ grid: [21, 1, 1], block: [256, 1, 1], slots: 16, count: 5184 });
    for (const element of [ElementKind.F16, ElementKind.Bf16]) {
      expect(depthwiseLaunch(desc({ ...x3d, element }), 'bwFilter', TILE)).toMatchObject({
        kernel: 'wgradtile',
        sharedBytes: f32.sharedBytes,
      });
    }
    const f64 = depthwiseLaunch(desc({ ...x3d, element: ElementKind.F64 }), 'bwFilter', TILE);
    expect([f64.kernel, f64.sharedBytes, f64.workspaceBytes]).toEqual([
      'wgradtile',
      3 * 30 * 30 * 8,
      16 * 192 * 27 * 8,
    ]);
    // The device check's A/B: the old kernel on the same problem.
    expect(depthwiseLaunch(desc(x3d), 'bwFilter', { wgrad: { kernel: 'wgrad' } }).kernel).toBe(
      'wgrad',
    );
  });

  it.each<[string, Case, string]>([
    ['stride 2 in width', { ...x3d, stride: [1, 1, 2] }, 'wgrad'],
    ['a 5×5×5 filter (125 taps)', { ...x3d, k: [5, 5, 5], pad: [2, 2, 2] }, 'wgrad'],
    ['a 4×3×3 filter (36 taps)', { ...x3d, k: [4, 3, 3], pad: [0, 1, 1] }, 'wgrad'],
    ['NDHWC', { ...x3d, layout: 'ndhwc' }, 'wgradcl'],
    // (3·58·58 + 8·27) · 4 bytes = 41,232 fits 48 KiB; · 8 does not.
    ['a 56×56 plane in f32', { ...x3d, in: [16, 56, 56] }, 'wgradtile'],
    ['a 56×56 plane in bf16', { ...x3d, in: [16, 56, 56], element: ElementKind.Bf16 }, 'wgradtile'],
    ['a 56×56 plane in f64', { ...x3d, in: [16, 56, 56], element: ElementKind.F64 }, 'wgrad'],
    // (3·66·66 + 216) · 4 = 53,136 > 48 KiB.
    ['a 64×64 plane in f32 (tile past 48 KiB)', { ...x3d, in: [16, 64, 64] }, 'wgrad'],
    ['dilation 2, a 5×5×1 filter (25 taps)', { ...x3d, k: [5, 5, 1], dil: [2, 2, 1] }, 'wgradtile'],
    ['a 1×1×1 filter', { ...x3d, k: [1, 1, 1], pad: [0, 0, 0] }, 'wgradtile'],
  ])('%s takes %s', (_name, t, kernel) => {
    expect(depthwiseLaunch(desc(t), 'bwFilter', TILE).kernel).toBe(kernel);
  });

  it('fits the block to the plane: the fewest rounds, then the fewest warps', () => {
    const block = (h: number, w: number) =>
      depthwiseLaunch(desc({ c: 4, n: 1, in: [2, h, w], k: [1, 1, 1] }), 'bwFilter', TILE).block[0];
    // 12 positions: one warp; 196: 7 warps; 527: 3 rounds of 176 (6 warps); 4096: 16 rounds of 256.
    expect([block(3, 4), block(14, 14), block(17, 31), block(64, 64)]).toEqual([32, 224, 192, 256]);
  });

  it('cuts batch 1 into one slice a depth; bounds the slots by the workspace cap', () => {
    const one = depthwiseLaunch(
      desc({ c: 24, n: 1, in: [16, 28, 28], k: [3, 3, 3] }),
      'bwFilter',
      TILE,
    );
    // 86 blocks a channel wanted: every one of the 14 output depths is a slice.
    expect([one.grid, one.ints.slice(-2)]).toEqual([
      [24, 14, 1],
      [14, 1],
    ]);
    const slot = 24 * 27 * 4;
    const capped = depthwiseLaunch(
      desc({ c: 24, n: 1, in: [16, 28, 28], k: [3, 3, 3] }),
      'bwFilter',
      TILE,
      3.5 * slot,
    );
    expect([capped.grid[1], capped.workspaceBytes, capped.reduce!.slots]).toEqual([3, 3 * slot, 3]);
  });
});

describe('wgradtile on the host', () => {
  const cases: [string, Case, number?][] = [
    [
      'X3D-like, odd sizes, 5 channels',
      { c: 5, n: 2, in: [5, 7, 9], k: [3, 3, 3], pad: [1, 1, 1] },
    ],
    ['no padding', { c: 3, n: 2, in: [5, 6, 7], k: [3, 3, 3] }],
    ['padding past the reach', { c: 2, n: 2, in: [3, 4, 5], k: [3, 3, 3], pad: [2, 2, 2] }],
    ['uneven pads', { c: 2, n: 2, in: [6, 5, 7], k: [3, 2, 3], pad: [0, 1, 2] }],
    ['dilation', { c: 2, n: 2, in: [7, 8, 9], k: [2, 3, 2], pad: [1, 2, 0], dil: [2, 2, 3] }],
    ['batch 1 (a slice a depth)', { c: 3, n: 1, in: [6, 5, 4], k: [3, 3, 3], pad: [1, 1, 1] }],
    ['a 1×1×1 filter', { c: 3, n: 3, in: [3, 5, 6], k: [1, 1, 1] }],
    ['a 3×3×1 filter', { c: 2, n: 2, in: [4, 6, 5], k: [3, 3, 1], pad: [1, 1, 0] }],
    // 18 × 19 = 342 positions: 2 rounds of 192 threads, the second partial.
    ['a plane past one round', { c: 2, n: 1, in: [2, 18, 19], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'slots capped: each sums several slices',
      { c: 3, n: 5, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] },
      2 * 3 * 27 * 4,
    ],
  ];
  it.each(cases)('%s: equals the definition', (_name, t, cap) => {
    const d = desc(t);
    const launch = depthwiseLaunch(d, 'bwFilter', TILE, cap);
    expect(launch.kernel).toBe('wgradtile');
    if (cap !== undefined) expect(launch.reduce!.slots).toBeLessThan(d.batch * launch.ints.at(-2)!);
    const x = random(d.xElements, 1);
    const dy = random(d.yElements, 2);
    const want = directDw(d, x, dy);
    const out = new Float64Array(d.wElements).fill(Number.NaN);
    const { partials } = wgradHost(launch, x, dy, out, 1, 0);
    expect(maxAbsDiff(out, want)).toBeLessThan(1e-12);
    expect(partials.length * 4).toBe(launch.workspaceBytes);
    const prior = random(d.wElements, 3);
    const scaled = wgradHost(launch, x, dy, Float64Array.from(prior), 2, -0.5).out;
    expect(
      maxAbsDiff(
        scaled,
        want.map((v, i) => 2 * v - 0.5 * prior[i]!),
      ),
    ).toBeLessThan(1e-12);
    // Rounded to f32 at every step, as the f32 kernel sums: within f32's error of the definition.
    const f32 = wgradTilePartials(launch, x, dy, Math.fround);
    const sum = want.map((_, e) =>
      f32.reduce((s, _v, i) => (i % d.wElements === e ? s + f32[i]! : s), 0),
    );
    expect(maxAbsDiff(sum, want)).toBeLessThan(1e-5);
    expect(maxAbsDiff(sum, want)).toBeGreaterThan(0);
  });

  it('slot y holds its slices alone: batch 1, one slice a depth, slot d is output depth d', () => {
    const t: Case = { c: 2, n: 1, in: [4, 3, 5], k: [3, 3, 3], pad: [1, 1, 1] };
    const d = desc(t);
    const launch = depthwiseLaunch(d, 'bwFilter', TILE);
    expect([launch.grid[1], launch.ints.at(-1)]).toEqual([4, 1]);
    const x = random(d.xElements, 4);
    const dy = random(d.yElements, 5);
    const { partials } = wgradHost(launch, x, dy, new Float64Array(d.wElements), 1, 0);
    const plane = 3 * 5;
    for (let od = 0; od < 4; od++) {
      // dy zero but at output depth od: dw is that depth's part of the sum.
      const only = dy.map((v, i) => (Math.floor((i % (4 * plane)) / plane) === od ? v : 0));
      const per = d.wElements;
      expect(
        maxAbsDiff(partials.slice(od * per, (od + 1) * per), directDw(d, x, only)),
      ).toBeLessThan(1e-12);
    }
  });

  it('takes only a wgradtile launch', () => {
    const old = depthwiseLaunch(desc({ ...x3d, n: 1 }), 'bwFilter', { wgrad: { kernel: 'wgrad' } });
    expect(() => wgradTilePartials(old, [], [])).toThrow(
      'wgradTilePartials takes a wgradtile launch, not wgrad',
    );
  });
});
