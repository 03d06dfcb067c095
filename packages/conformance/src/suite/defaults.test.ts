import { describe, expect, it } from 'vitest';
import { conv3dBackwardDataAt, conv3dForwardAt } from '../reference/conv3d.js';
import { elementCounts, macs, outputDims } from '../reference/problem.js';
import {
  DEFAULT_SUITES,
  LARGE_DTYPES,
  LARGE_ELEMENTS,
  LARGE_SAMPLE_POINTS,
  LARGE_SUITE,
  SHARED_SCALED_BUDGET_MACS,
  SHARED_SCALED_REDUCTIONS,
  SHARED_SUITE,
} from './defaults.js';
import { loadSuite, type SuiteCase, toFileCase, toProblem } from './load.js';
import { largestTensorElements } from './reduce.js';

const suites = Object.entries(DEFAULT_SUITES);

describe('default suites', () => {
  it.each(suites)('%s: every case is valid, uniquely named, in both layouts', (_, cases) => {
    expect(cases.length).toBeGreaterThan(0);
    expect(loadSuite({ cases: cases.map(toFileCase) })).toEqual(cases);
    for (const c of cases) {
      expect(outputDims(toProblem(c, 'ncdhw'))).toEqual(outputDims(toProblem(c, 'ndhwc')));
    }
  });

  it('tiny cases are 1–3 wide and include 1×1×1, 3×3×3 pad 1 and batch 2', () => {
    for (const c of DEFAULT_SUITES.tiny) {
      for (const v of [c.n, c.cIn, c.cOut, ...c.in, ...c.k]) expect(v).toBeLessThanOrEqual(3);
    }
    const has = (f: (c: SuiteCase) => boolean) => expect(DEFAULT_SUITES.tiny.some(f)).toBe(true);
    has((c) => c.k.every((v) => v === 1));
    has((c) => c.k.every((v) => v === 3) && c.pad.every((v) => v === 1));
    has((c) => c.n === 2);
  });

  it('odd cases avoid multiples of 8 and vary pad/stride/dilation per axis', () => {
    const odd = DEFAULT_SUITES.odd;
    for (const c of odd) {
      expect(c.cIn % 8).not.toBe(0);
      expect(c.cOut % 8).not.toBe(0);
    }
    const channels = new Set(odd.flatMap((c) => [c.cIn, c.cOut]));
    for (const v of [3, 5, 7, 13]) expect(channels.has(v)).toBe(true);
    expect(odd.some((c) => c.in.join() === '7,9,11')).toBe(true);
    expect(
      odd.some(
        (c) => c.pad.join() === '0,1,2' && c.stride.join() === '1,2,3' && c.dil.join() === '2,1,1',
      ),
    ).toBe(true);
  });

  it('grouped cases cover groups 2, 4, depthwise and stride 2', () => {
    const grouped = DEFAULT_SUITES.grouped;
    const groups = new Set(grouped.map((c) => c.groups));
    expect(groups.has(2)).toBe(true);
    expect(groups.has(4)).toBe(true);
    const depthwise = grouped.filter((c) => c.groups === c.cIn && c.groups > 1);
    expect(depthwise.some((c) => c.cOut === c.cIn)).toBe(true);
    expect(depthwise.some((c) => c.stride.includes(2))).toBe(true);
    expect(grouped.some((c) => c.groups === 4 && c.stride.includes(2))).toBe(true);
  });

  it('shared-scaled is the shared suite within the budget', () => {
    const scaled = DEFAULT_SUITES['shared-scaled'];
    expect(scaled.map((c) => c.name)).toEqual(SHARED_SUITE.map((c) => c.name));
    expect(scaled).toHaveLength(10);
    expect(SHARED_SCALED_BUDGET_MACS).toBe(2e7);
    for (const c of scaled) {
      expect(macs(toProblem(c, 'ncdhw'))).toBeLessThanOrEqual(SHARED_SCALED_BUDGET_MACS);
    }
    expect(SHARED_SCALED_REDUCTIONS.every((r) => r.reduced)).toBe(true);
  });

  it('large holds a ≥ 2^28-element f16/bf16 case, including the PyTorch #163539 reproducer', () => {
    expect(LARGE_SAMPLE_POINTS).toBe(4096);
    expect(LARGE_ELEMENTS).toBe(268435456);
    expect([...LARGE_DTYPES]).toEqual(['f16', 'bf16']);
    for (const c of LARGE_SUITE) expect(largestTensorElements(c)).toBeGreaterThanOrEqual(2 ** 28);
    const repro = LARGE_SUITE.find((c) => c.name === 'pt163539-repro')!;
    const p = toProblem(repro, 'ncdhw');
    expect(outputDims(p)).toEqual([124, 1280, 720]);
    expect(elementCounts(p)).toEqual({ x: 1836398336, w: 2304, y: 1828454400 });
    expect(elementCounts(toProblem(LARGE_SUITE[1]!, 'ndhwc')).x).toBe(2 ** 28);
  });

  it('the sampled reference handles a large case without f64 copies of its tensors', () => {
    // Tensors that compute their elements on access: no 14 GB Float64Array is needed.
    const lazy = (length: number, seed: number): ArrayLike<number> =>
      new Proxy({ length } as ArrayLike<number>, {
        get: (target, key) =>
          key === 'length' ? target.length : Math.sin(Number(key as string) * 0.37 + seed),
      });
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      const p = toProblem(LARGE_SUITE[0]!, layout);
      const counts = elementCounts(p);
      const x = lazy(counts.x, 1);
      const w = lazy(counts.w, 2);
      const last = counts.y - 1;
      const [y] = conv3dForwardAt(p, x, w, [last]);
      // The last output reads the last 3×3 input window of the last depth slice, every channel.
      const [, oh, ow] = outputDims(p);
      let want = 0;
      for (let c = 0; c < 16; c++) {
        for (let th = 0; th < 3; th++) {
          for (let tw = 0; tw < 3; tw++) {
            const xi =
              layout === 'ncdhw'
                ? ((c * 124 + 123) * 1282 + oh - 1 + th) * 722 + ow - 1 + tw
                : ((123 * 1282 + oh - 1 + th) * 722 + ow - 1 + tw) * 16 + c;
            const wi =
              layout === 'ncdhw'
                ? (15 * 16 + c) * 9 + th * 3 + tw
                : (15 * 9 + th * 3 + tw) * 16 + c;
            want += x[xi]! * w[wi]!;
          }
        }
      }
      expect(y).toBeCloseTo(want, 12);
      expect(conv3dBackwardDataAt(p, lazy(counts.y, 3), w, [0, counts.x - 1])).toHaveLength(2);
    }
  });
});
