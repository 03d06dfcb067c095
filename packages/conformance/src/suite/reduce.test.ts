import { describe, expect, it } from 'vitest';
import { macs, outputDims, outputExtent } from '../reference/problem.js';
import { SHARED_SUITE } from './defaults.js';
import { type SuiteCase, toProblem } from './load.js';
import { caseMacs, reduceCase } from './reduce.js';

function byName(name: string): SuiteCase {
  const found = SHARED_SUITE.find((c) => c.name === name);
  if (!found) throw new Error(`no shared case ${name}`);
  return found;
}

function outputs(c: SuiteCase): number[] {
  return [0, 1, 2].map((a) => outputExtent(c.in[a]!, c.k[a]!, c.pad[a]!, c.stride[a]!, c.dil[a]!));
}

const BUDGETS = [1e4, 1e5, 1e6, 2e7, 1e8];

describe('reduceCase', () => {
  it('agrees with the reference cost model', () => {
    for (const c of SHARED_SUITE) expect(caseMacs(c)).toBe(macs(toProblem(c, 'ncdhw')));
  });

  it('leaves a case that fits alone', () => {
    const c = byName('unet3d-bottleneck');
    const result = reduceCase(c, 3e9);
    expect(result).toEqual({ case: c, reduced: false, how: 'unchanged (2.83e9 MACs)' });
  });

  it('reduces the batch first, and only as far as needed', () => {
    expect(reduceCase(byName('unet3d-bottleneck'), 1.5e9)).toMatchObject({
      case: { n: 1, in: [8, 8, 8], cIn: 320, cOut: 320 },
      reduced: true,
      how: 'n 2→1 (2.83e9 → 1.42e9 MACs)',
    });
    expect(reduceCase(byName('c3d-conv2'), 3e10).case.n).toBe(2);
  });

  it('then the spatial extents, then the channels', () => {
    expect(reduceCase(byName('c3d-conv2'), 2e7).how).toBe(
      'n 8→1, in 16×56×56→3×5×5 (8.88e10 → 1.66e7 MACs)',
    );
    expect(reduceCase(byName('unet3d-bottleneck'), 2e7).how).toBe(
      'n 2→1, in 8×8×8→3×3×3, c 320→160/320→160 (2.83e9 → 1.87e7 MACs)',
    );
  });

  it('respects the budget and keeps the kernel footprint, the stride and the groups', () => {
    for (const budget of BUDGETS) {
      for (const c of SHARED_SUITE) {
        const { case: r, how } = reduceCase(c, budget);
        const label = `${c.name} @ ${budget}: ${how}`;
        outputDims(toProblem(r, 'ndhwc'));
        if (!how.includes('still over')) expect(caseMacs(r), label).toBeLessThanOrEqual(budget);
        expect(r.name).toBe(c.name);
        expect([r.k, r.pad, r.stride, r.dil]).toEqual([c.k, c.pad, c.stride, c.dil]);
        const before = outputs(c);
        const after = outputs(r);
        for (let a = 0; a < 3; a++) {
          const footprint = c.dil[a]! * (c.k[a]! - 1) + 1;
          expect(r.in[a], label).toBeGreaterThanOrEqual(Math.min(c.in[a]!, footprint));
          expect(r.in[a], label).toBeLessThanOrEqual(c.in[a]!);
          if (before[a]! >= 2) expect(after[a], label).toBeGreaterThanOrEqual(2);
        }
        expect(r.cIn % r.groups, label).toBe(0);
        expect(r.cOut % r.groups, label).toBe(0);
        if (c.groups > 1) expect(r.groups, label).toBeGreaterThanOrEqual(2);
        if (c.groups === c.cIn && c.cIn === c.cOut) {
          expect([r.cIn, r.cOut], label).toEqual([r.groups, r.groups]);
        }
        if (r.in.some((v, a) => v !== c.in[a]) || r.cIn !== c.cIn) expect(r.n, label).toBe(1);
        if (r.cIn !== c.cIn || r.cOut !== c.cOut) {
          // Channels shrink only once the extents are at their floor.
          expect(
            reduceCase({ ...r, cIn: c.cIn, cOut: c.cOut, groups: c.groups }, budget).case.in,
          ).toEqual(r.in);
        }
      }
    }
  });

  it('keeps depthwise depthwise and grouped grouped', () => {
    const depthwise = reduceCase(byName('x3d-depthwise'), 1e5);
    expect(depthwise.case).toMatchObject({ cIn: 136, cOut: 136, groups: 136, in: [3, 3, 3], n: 1 });
    expect(depthwise.how).toBe(
      'n 8→1, in 16×28×28→3×3×3, c 192→136/192→136, groups 192→136 (5.20e8 → 9.91e4 MACs)',
    );
    expect(reduceCase(byName('x3d-depthwise'), 5000).case).toMatchObject({
      cIn: 6,
      cOut: 6,
      groups: 6,
    });
    const grouped = reduceCase(byName('resnext3d-grouped'), 1e5);
    expect(grouped.case.groups).toBe(8);
    expect(grouped.case.cIn % 8).toBe(0);
  });

  it('keeps aligned channel counts aligned and small counts as they are', () => {
    const stem = reduceCase(byName('i3d-stem'), 1e6).case;
    expect(stem.cIn).toBe(3);
    expect(stem.cOut % 8).toBe(0);
    const bottleneck = reduceCase(byName('unet3d-bottleneck'), 1e6).case;
    expect(bottleneck.cIn % 8).toBe(0);
    expect(bottleneck.cOut % 8).toBe(0);
  });

  it('returns the smallest case and says so when nothing fits', () => {
    const result = reduceCase(byName('videomae-patch'), 10);
    expect(result.case).toMatchObject({ n: 1, cIn: 1, cOut: 1, in: [4, 32, 32] });
    expect(result.how).toBe(
      'n 8→1, in 16×224×224→4×32×32, c 3→1/768→1 (1.48e10 → 4.10e3 MACs, still over the budget of 1.00e1)',
    );
  });

  it('rejects a bad budget or case', () => {
    expect(() => reduceCase(byName('pointwise'), 0)).toThrow(
      'Expected a positive finite number for maxMacs but received 0 of type number',
    );
    expect(() => reduceCase(byName('pointwise'), Number.NaN)).toThrow(
      'Expected a positive finite number for maxMacs but received NaN of type number',
    );
    expect(() => reduceCase({ ...byName('pointwise'), cIn: -1 }, 1e6)).toThrow(
      'Expected a positive integer for case "pointwise".c_in but received -1 of type number',
    );
    // A hand-built case with a scalar where a triple belongs gets the typed error too.
    const scalarIn = { ...byName('pointwise'), in: 8 } as unknown as SuiteCase;
    expect(() => reduceCase(scalarIn, 1e6)).toThrow(
      'Expected an array of 3 positive integers for case "pointwise".in but received 8 of type number',
    );
  });
});
