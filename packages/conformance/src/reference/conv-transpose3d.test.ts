import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import {
  type ConvProblem,
  conv3dBackwardData,
  conv3dBackwardFilter,
  conv3dForward,
  convTranspose3dBackwardData,
  convTranspose3dBackwardFilter,
  convTranspose3dForward,
  dot,
  elementCounts,
  outputExtent,
  randomArray,
  seededRandom,
  type TransposeProblem,
  transposeElementCounts,
  transposeOutputDims,
} from './index.js';

const one = (
  p: Partial<TransposeProblem> & Pick<TransposeProblem, 'in' | 'k'>,
): TransposeProblem => ({
  n: 1,
  cIn: 1,
  cOut: 1,
  pad: [0, 0, 0],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
  layout: 'ncdhw',
  ...p,
});

describe('convTranspose3dForward', () => {
  it('scatters each input through the filter: a hand-worked 1-D case', () => {
    // in 2, k 3, stride 2: y = [x0 w0, x0 w1, x0 w2 + x1 w0, x1 w1, x1 w2].
    const p = one({ in: [1, 1, 2], k: [1, 1, 3], stride: [1, 1, 2] });
    expect(transposeOutputDims(p)).toEqual([1, 1, 5]);
    const y = convTranspose3dForward(p, [2, 3], [1, 10, 100]);
    expect([...y]).toEqual([2, 20, 200 + 3, 30, 300]);
    // pad 1 drops one plane each side; outputPadding 1 adds one trailing plane no input reaches
    // with pad 0 after it.
    const padded = { ...p, pad: [0, 0, 1] as const, outputPadding: [0, 0, 1] as const };
    expect([...convTranspose3dForward(padded, [2, 3], [1, 10, 100])]).toEqual([20, 203, 30, 300]);
    const trailing = { ...p, padAfter: [0, 0, 0] as const, outputPadding: [0, 0, 1] as const };
    expect([...convTranspose3dForward(trailing, [2, 3], [1, 10, 100])]).toEqual([
      2, 20, 203, 30, 300, 0,
    ]);
  });

  it('validates with typed errors', () => {
    const p = one({ in: [2, 2, 2], k: [2, 2, 2], stride: [2, 2, 2] });
    expect(() => transposeOutputDims({ ...p, outputPadding: [0, 2, 0] })).toThrow(
      new InvalidProblemError(
        'problem.outputPadding along H is 2, not below max(stride, dil) = 2',
        'outputPadding',
      ),
    );
    expect(() => transposeOutputDims({ ...p, pad: [3, 0, 0] })).toThrow(InvalidProblemError);
    expect(() => transposeOutputDims({ ...p, cIn: 0 })).toThrow(InvalidArgumentError);
    expect(() => transposeOutputDims({ ...p, cOut: 3, groups: 2 })).toThrow(InvalidProblemError);
  });
});

/** The convolution whose backward-data is this transposed convolution (when outputPadding ≤ padAfter). */
function equivalentConv(p: TransposeProblem): ConvProblem {
  const out = transposeOutputDims(p);
  const after = p.padAfter ?? p.pad;
  const op = p.outputPadding ?? [0, 0, 0];
  return {
    n: p.n,
    cIn: p.cOut,
    cOut: p.cIn,
    in: out,
    k: p.k,
    pad: p.pad,
    padAfter: [after[0] - op[0], after[1] - op[1], after[2] - op[2]],
    stride: p.stride,
    dil: p.dil,
    groups: p.groups,
    layout: p.layout,
  };
}

function randomTranspose(random: () => number, layout: 'ncdhw' | 'ndhwc'): TransposeProblem {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const triple = (lo: number, hi: number) =>
    [int(lo, hi), int(lo, hi), int(lo, hi)] as [number, number, number];
  for (;;) {
    const groups = int(1, 2);
    const stride = triple(1, 3);
    const dil = triple(1, 2);
    const p: TransposeProblem = {
      n: int(1, 2),
      cIn: groups * int(1, 3),
      cOut: groups * int(1, 3),
      groups,
      in: triple(1, 4),
      k: triple(1, 3),
      pad: triple(0, 2),
      padAfter: triple(0, 2),
      outputPadding: [0, 1, 2].map((a) => int(0, Math.max(stride[a]!, dil[a]!) - 1)) as [
        number,
        number,
        number,
      ],
      stride,
      dil,
      layout,
    };
    try {
      transposeOutputDims(p);
      return p;
    } catch {
      // empty output: draw again
    }
  }
}

describe.each(['ncdhw', 'ndhwc'] as const)('random transposed problems in %s', (layout) => {
  const random = seededRandom(layout === 'ncdhw' ? 21 : 22);
  const cases = Array.from({ length: 300 }, () => randomTranspose(random, layout));

  it('forward equals the equivalent convolution’s backward-data where outputPadding ≤ padAfter', () => {
    let compared = 0;
    for (const p of cases) {
      const conv = equivalentConv(p);
      if (conv.padAfter!.some((v) => v < 0)) continue;
      const counts = transposeElementCounts(p);
      const x = randomArray(counts.x, random);
      const w = randomArray(counts.w, random);
      const want = conv3dBackwardData(conv, x, w);
      const got = convTranspose3dForward(p, x, w);
      expect(got.length).toBe(want.length);
      for (let i = 0; i < got.length; i++) expect(got[i]).toBeCloseTo(want[i]!, 12);
      // And its backward-data is the convolution's forward; its backward-filter the
      // convolution's with x and dy swapped.
      const dy = randomArray(counts.y, random);
      const dx = convTranspose3dBackwardData(p, dy, w);
      const fw = conv3dForward(conv, dy, w);
      for (let i = 0; i < dx.length; i++) expect(dx[i]).toBeCloseTo(fw[i]!, 12);
      const dw = convTranspose3dBackwardFilter(p, x, dy);
      const bf = conv3dBackwardFilter(conv, dy, x);
      for (let i = 0; i < dw.length; i++) expect(dw[i]).toBeCloseTo(bf[i]!, 12);
      expect(elementCounts(conv).x).toBe(counts.y);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('satisfies ⟨T(x,w), dy⟩ = ⟨x, T_bwData(dy,w)⟩ = ⟨w, T_bwFilter(x,dy)⟩ (outputPadding > padAfter included)', () => {
    let beyond = 0;
    for (const p of cases) {
      const counts = transposeElementCounts(p);
      const x = randomArray(counts.x, random);
      const w = randomArray(counts.w, random);
      const dy = randomArray(counts.y, random);
      const a = dot(convTranspose3dForward(p, x, w), dy);
      const b = dot(x, convTranspose3dBackwardData(p, dy, w));
      const c = dot(w, convTranspose3dBackwardFilter(p, x, dy));
      const scale = Math.max(1, Math.abs(a));
      expect(Math.abs(a - b) / scale).toBeLessThan(1e-12);
      expect(Math.abs(a - c) / scale).toBeLessThan(1e-12);
      if (equivalentConv(p).padAfter!.some((v) => v < 0)) beyond++;
    }
    expect(beyond).toBeGreaterThan(20);
  });

  it('leaves the trailing planes no input reaches at zero when outputPadding > padAfter', () => {
    const p = one({
      in: [2, 1, 1],
      k: [3, 1, 1],
      stride: [2, 1, 1],
      outputPadding: [1, 0, 0],
      layout,
    });
    // Full reach (2−1)·2 + 3 = 5 planes, plus one: the sixth is untouched.
    const y = convTranspose3dForward(p, [1, 1], [1, 1, 1]);
    expect([...y]).toEqual([1, 1, 2, 1, 1, 0]);
  });
});

describe('transposed output extents', () => {
  it('match a brute-force search over 3,000 seeded random axes: the smallest X whose convolution gives `in`, plus outputPadding', () => {
    const random = seededRandom(23);
    const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const [input, k, s, dil, pb, pa] = [
        int(1, 9),
        int(1, 5),
        int(1, 4),
        int(1, 3),
        int(0, 3),
        int(0, 3),
      ];
      const op = int(0, s - 1);
      // The formula itself, searched from below the origin: the window count is monotone in X.
      let smallest: number | undefined;
      for (let x = -40; x < 200 && smallest === undefined; x++) {
        if (outputExtent(x, k, pb, s, dil, pa) === input) smallest = x;
      }
      const p = one({
        in: [1, 1, input],
        k: [1, 1, k],
        stride: [1, 1, s],
        dil: [1, 1, dil],
        pad: [0, 0, pb],
        padAfter: [0, 0, pa],
        outputPadding: [0, 0, op],
      });
      if (smallest === undefined || smallest + op < 1) {
        expect(() => transposeOutputDims(p)).toThrow(InvalidProblemError);
        continue;
      }
      expect(transposeOutputDims(p)[2]).toBe(smallest + op);
      checked++;
    }
    expect(checked).toBeGreaterThan(1500);
  });
});
