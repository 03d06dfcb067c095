/**
 * Which backward-filter problems the row-segment pass 1 (`wgradrow`) takes, by the shape alone,
 * its geometry, and wgradHost's emulation of its slots against dw from the definition.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { depthwiseLaunch } from './depthwise-launch.js';
import { type Case, desc, directDw, maxAbsDiff, random } from './depthwise-wgrad.test-helpers.js';
import { wgradHost } from './depthwise-wgrad-host.js';
import { wgradRowRefusal } from './depthwise-wgrad-row.js';

const x3d: Case = { c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] };

describe('wgradrow', () => {
  it("X3D's layer: a slot a sample, 3,136 segments of 4 outputs each, all 27 taps a block", () => {
    for (const element of [ElementKind.F32, ElementKind.F16, ElementKind.Bf16, ElementKind.F64]) {
      const l = depthwiseLaunch(desc({ ...x3d, element }), 'bwFilter');
      expect(l).toMatchObject({ kernel: 'wgradrow', grid: [192, 8, 1], block: [256, 1, 1] });
      expect(l.ints.slice(-2)).toEqual([1, 16 * 28 * 7]);
      const acc = element === ElementKind.F64 ? 8 : 4;
      expect(l.workspaceBytes).toBe(8 * 192 * 27 * acc);
      expect(l.reduce).toEqual({ grid: [21, 1, 1], block: [256, 1, 1], slots: 8, count: 5184 });
    }
  });

  it('cuts a sample of batch 1 into slices to fill the GPU, 4 segments a thread at least', () => {
    const l = depthwiseLaunch(
      desc({ c: 24, n: 1, in: [16, 56, 56], k: [3, 3, 3], pad: [1, 1, 1] }),
      'bwFilter',
    );
    // 43 blocks a channel wanted; 12,544 segments hold 12 slices of at least 1,024.
    expect(l).toMatchObject({ kernel: 'wgradrow', grid: [24, 12, 1] });
    expect(l.ints.slice(-2)).toEqual([12, 1046]);
  });

  it.each<[string, Partial<Case>, string | null]>([
    ['stride 2 and dilation 2 along D and H', { stride: [2, 2, 1], dil: [2, 2, 1] }, null],
    ['padding 0 along W', { pad: [1, 1, 0] }, null],
    ['NDHWC', { layout: 'ndhwc' }, 'NDHWC'],
    ['a 3×3×1 filter', { k: [3, 3, 1] }, 'a 3×3×1 filter (it takes 3×3×3)'],
    ['a 5×5×5 filter', { k: [5, 5, 5] }, 'a 5×5×5 filter (it takes 3×3×3)'],
    [
      'stride 2 along W',
      { stride: [1, 1, 2] },
      'stride 2 and dilation 1 along W (it takes 1 and 1)',
    ],
    [
      'dilation 2 along W',
      { dil: [1, 1, 2] },
      'stride 1 and dilation 2 along W (it takes 1 and 1)',
    ],
  ])('%s: %s', (_name, change, refusal) => {
    const d = desc({ ...x3d, n: 1, c: 4, ...change });
    expect(wgradRowRefusal(d)).toBe(refusal);
    const kernel = depthwiseLaunch(d, 'bwFilter').kernel;
    expect(kernel).toBe(refusal === null ? 'wgradrow' : d.layout === 'ndhwc' ? 'wgradcl' : 'wgrad');
  });

  it('a forced pass 1 where the shape allows: wgrad instead, wgradrow only where it takes the shape', () => {
    const d = desc({ ...x3d, n: 1, c: 4 });
    expect(depthwiseLaunch(d, 'bwFilter', { wgrad: { kernel: 'wgrad' } }).kernel).toBe('wgrad');
    const wide = desc({ ...x3d, n: 1, c: 4, stride: [1, 1, 2] });
    expect(depthwiseLaunch(wide, 'bwFilter', { wgrad: { kernel: 'wgradrow' } }).kernel).toBe(
      'wgrad',
    );
  });

  it.each<[string, Case]>([
    ['short last segments', { c: 3, n: 2, in: [3, 5, 7], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'strides, dilations, uneven pads',
      {
        c: 2,
        n: 1,
        in: [7, 9, 6],
        k: [3, 3, 3],
        pad: [2, 0, 2],
        stride: [2, 2, 1],
        dil: [2, 2, 1],
      },
    ],
  ])('wgradHost of its launch: %s, as defined, alpha and beta applied', (_name, t) => {
    const d = desc(t);
    const l = depthwiseLaunch(d, 'bwFilter');
    expect(l.kernel).toBe('wgradrow');
    const x = random(d.xElements, 31);
    const dy = random(d.yElements, 32);
    const want = directDw(d, x, dy);
    const { out } = wgradHost(l, x, dy, new Float64Array(d.wElements).fill(Number.NaN), 1, 0);
    expect(maxAbsDiff(out, want)).toBeLessThan(1e-12);
    const prior = random(d.wElements, 33);
    const scaled = wgradHost(l, x, dy, Float64Array.from(prior), 2, -0.5).out;
    expect(
      maxAbsDiff(
        scaled,
        Array.from(want, (v, i) => 2 * v - 0.5 * prior[i]!),
      ),
    ).toBeLessThan(1e-12);
  });
});
