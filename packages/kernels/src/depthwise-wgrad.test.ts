/**
 * Depthwise backward-filter in two passes: the launch geometry and workspace as the rule in
 * depthwise-wgrad.ts makes them, and the host emulation of its slots (wgradHost, the kernels'
 * order) against a direct definition in f64.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { depthwiseLaunch } from './depthwise-launch.js';
import {
  type Case,
  desc,
  directDw,
  maxAbsDiff,
  random,
  type Triple,
} from './depthwise-wgrad.test-helpers.js';
import { wgradHost } from './depthwise-wgrad-host.js';

/** NCDHW 3×3×3 takes `wgradrow` (depthwise-wgrad-row.test.ts); these test `wgrad` itself. */
const OLD = { wgrad: { kernel: 'wgrad' } } as const;

describe('the two-pass backward-filter launch', () => {
  it("X3D's layer: a slot a sample in NCDHW (3,072 blocks), 22 slices a sample in NDHWC", () => {
    const x3d = { c: 192, n: 8, in: [16, 28, 28] as Triple, k: [3, 3, 3] as Triple };
    const ncdhw = depthwiseLaunch(desc({ ...x3d, pad: [1, 1, 1] }), 'bwFilter', OLD);
    expect(ncdhw).toMatchObject({ kernel: 'wgrad', grid: [192, 8, 2], block: [256, 1, 1] });
    expect(ncdhw.ints.slice(-2)).toEqual([1, 16 * 28 * 28]);
    expect(ncdhw.workspaceBytes).toBe(8 * 192 * 27 * 4);
    expect(ncdhw.reduce).toEqual({ grid: [21, 1, 1], block: [256, 1, 1], slots: 8, count: 5184 });
    const cl = depthwiseLaunch(
      desc({ ...x3d, pad: [1, 1, 1], element: ElementKind.Bf16, layout: 'ndhwc' }),
      'bwFilter',
      OLD,
    );
    // 6 channel groups × 2 tap groups: 171 slots wanted, 22 slices of 571 positions a sample.
    expect(cl).toMatchObject({ kernel: 'wgradcl', grid: [6, 176, 2], block: [32, 8, 1] });
    expect(cl.ints.slice(-2)).toEqual([22, 571]);
    expect(cl.workspaceBytes).toBe(176 * 192 * 27 * 4);
    // f64 partial sums are f64.
    const f64 = depthwiseLaunch(
      desc({ ...x3d, pad: [1, 1, 1], element: ElementKind.F64 }),
      'bwFilter',
      OLD,
    );
    expect(f64.workspaceBytes).toBe(8 * 192 * 27 * 8);
  });

  it('cuts a sample of batch 1 into slices to fill the GPU, 4 positions a thread at least', () => {
    const one = depthwiseLaunch(
      desc({ c: 24, n: 1, in: [16, 56, 56], k: [3, 3, 3], pad: [1, 1, 1] }),
      'bwFilter',
      OLD,
    );
    // 48 blocks a slot: 43 slices of 1,167 positions.
    expect(one.grid).toEqual([24, 43, 2]);
    expect(one.ints.slice(-2)).toEqual([43, 1167]);
    const small = depthwiseLaunch(
      desc({ c: 4, n: 1, in: [4, 8, 64], k: [1, 1, 1] }),
      'bwFilter',
      OLD,
    );
    // 2,048 positions: 2 slices of 1,024 at most.
    expect(small.grid).toEqual([4, 2, 1]);
    expect(small.ints.slice(-2)).toEqual([2, 1024]);
  });

  it('bounds the slots by the workspace cap and by the grid (a slot then sums several slices)', () => {
    const d = desc({ c: 4, n: 5, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] });
    const slot = 4 * 27 * 4;
    expect(depthwiseLaunch(d, 'bwFilter', OLD).grid[1]).toBe(5);
    const capped = depthwiseLaunch(d, 'bwFilter', OLD, 2.5 * slot);
    expect([capped.grid[1], capped.workspaceBytes, capped.reduce!.slots]).toEqual([2, 2 * slot, 2]);
    const many = depthwiseLaunch(
      desc({ c: 2, n: 70000, in: [1, 1, 1], k: [1, 1, 1] }),
      'bwFilter',
      OLD,
    );
    expect([many.grid[1], many.reduce!.slots]).toEqual([65535, 65535]);
  });
});

describe('wgradHost', () => {
  const cases: [string, Case, number?][] = [
    ['X3D-like, batch 3, NCDHW', { c: 3, n: 3, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'X3D-like, batch 3, NDHWC',
      { c: 3, n: 3, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1], layout: 'ndhwc' },
    ],
    [
      '40 channels NDHWC (two lane groups, the second partial)',
      { c: 40, n: 2, in: [3, 4, 4], k: [3, 3, 3], pad: [1, 1, 1], layout: 'ndhwc' },
    ],
    [
      'stride 2, dilation 2, uneven pads',
      {
        c: 2,
        n: 2,
        in: [7, 8, 9],
        k: [2, 3, 2],
        pad: [1, 2, 0],
        stride: [2, 1, 2],
        dil: [2, 2, 1],
      },
    ],
    [
      'stride 2, dilation 2, uneven pads, NDHWC',
      {
        c: 2,
        n: 2,
        in: [7, 8, 9],
        k: [2, 3, 2],
        pad: [1, 2, 0],
        stride: [2, 1, 2],
        dil: [2, 2, 1],
        layout: 'ndhwc',
      },
    ],
    ['batch 1 cut into slices', { c: 2, n: 1, in: [8, 16, 32], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'a 5×5×5 filter (8 tap groups), NDHWC',
      { c: 4, n: 1, in: [5, 6, 7], k: [5, 5, 5], pad: [2, 2, 2], layout: 'ndhwc' },
    ],
    [
      'slots capped: each sums several slices',
      { c: 3, n: 5, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1] },
      2 * 3 * 27 * 4,
    ],
    [
      'slots capped, NDHWC',
      { c: 3, n: 5, in: [3, 4, 5], k: [3, 3, 3], pad: [1, 1, 1], layout: 'ndhwc' },
      3 * 3 * 27 * 4,
    ],
  ];
  it.each(cases)('%s: equals the definition, every partial written once', (_name, t, cap) => {
    const d = desc(t);
    const launch = depthwiseLaunch(d, 'bwFilter', OLD, cap);
    if (cap !== undefined) expect(launch.workspaceBytes).toBeLessThanOrEqual(cap);
    const x = random(d.xElements, 1);
    const dy = random(d.yElements, 2);
    const want = directDw(d, x, dy);
    const { out, partials } = wgradHost(
      launch,
      x,
      dy,
      new Float64Array(d.wElements).fill(Number.NaN),
      1,
      0,
    );
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
  });

  it('the slots hold disjoint parts of the sum: the slot sums of batch 5 are its samples', () => {
    const t: Case = { c: 2, n: 5, in: [3, 3, 3], k: [3, 3, 3], pad: [1, 1, 1] };
    const d = desc(t);
    const launch = depthwiseLaunch(d, 'bwFilter', OLD);
    expect(launch.reduce!.slots).toBe(5);
    const x = random(d.xElements, 4);
    const dy = random(d.yElements, 5);
    const { partials } = wgradHost(launch, x, dy, new Float64Array(d.wElements), 1, 0);
    const per = d.wElements;
    const one = desc({ ...t, n: 1 });
    const sample = (n: number, a: Float64Array, size: number) => a.slice(n * size, (n + 1) * size);
    for (let n = 0; n < 5; n++) {
      const alone = directDw(one, sample(n, x, d.xElements / 5), sample(n, dy, d.yElements / 5));
      expect(maxAbsDiff(partials.slice(n * per, (n + 1) * per), alone)).toBeLessThan(1e-12);
    }
  });

  it('takes only a two-pass launch', () => {
    const fw = depthwiseLaunch(desc({ c: 2, n: 1, in: [3, 3, 3], k: [3, 3, 3] }), 'fw');
    expect(() => wgradHost(fw, [], [], new Float64Array(0), 1, 0)).toThrow(
      'wgradHost takes a two-pass backward-filter launch, not tiled',
    );
  });
});
