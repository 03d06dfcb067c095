import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import {
  type ConvProblem,
  conv3dBackwardData,
  conv3dBackwardDataAt,
  conv3dBackwardFilter,
  conv3dBackwardFilterAt,
  conv3dForward,
  conv3dForwardAt,
  convertLayout,
  dot,
  elementCounts,
  type Layout,
  macs,
  macsPerPoint,
  outputDims,
  pointsWithinBudget,
  randomArray,
  seededRandom,
} from './index.js';

type P = Omit<ConvProblem, 'layout'> & { layout?: Layout };

function problem(p: Partial<P> & Pick<P, 'in' | 'k'>): ConvProblem {
  return {
    n: 1,
    cIn: 1,
    cOut: 1,
    pad: [0, 0, 0],
    stride: [1, 1, 1],
    dil: [1, 1, 1],
    groups: 1,
    layout: 'ncdhw',
    ...p,
  };
}

const f64 = (values: number[]) => Float64Array.from(values);

/** A problem that is one-dimensional along `axis`, the other extents being 1. */
function alongAxis(
  axis: number,
  inExtent: number,
  k: number,
  pad: number,
  stride: number,
  dil: number,
): ConvProblem {
  const put = (v: number, rest: number) =>
    [0, 1, 2].map((a) => (a === axis ? v : rest)) as [number, number, number];
  return problem({
    in: put(inExtent, 1),
    k: put(k, 1),
    pad: put(pad, 0),
    stride: put(stride, 1),
    dil: put(dil, 1),
  });
}

describe('hand-computed cases', () => {
  it('1×1×(3×1×1) input ⊛ kernel 2 along D', () => {
    const p = problem({ in: [3, 1, 1], k: [2, 1, 1] });
    expect(outputDims(p)).toEqual([2, 1, 1]);
    expect(Array.from(conv3dForward(p, f64([1, 2, 3]), f64([10, 1])))).toEqual([12, 23]);
    expect(Array.from(conv3dBackwardData(p, f64([1, 1]), f64([10, 1])))).toEqual([10, 11, 1]);
    expect(Array.from(conv3dBackwardFilter(p, f64([1, 2, 3]), f64([1, 2])))).toEqual([5, 8]);
  });

  for (const axis of [0, 1, 2]) {
    it(`padding 2, stride 2, dilation 2 along axis ${'DHW'[axis]}`, () => {
      const p = alongAxis(axis, 5, 3, 2, 2, 2);
      expect(outputDims(p)[axis]).toBe(3);
      const x = f64([1, 2, 3, 4, 5]);
      const w = f64([1, 10, 100]);
      // o=0 reads x[-2], x[0], x[2]; o=1 reads x[0], x[2], x[4]; o=2 reads x[2], x[4], x[6].
      expect(Array.from(conv3dForward(p, x, w))).toEqual([310, 531, 53]);
      expect(Array.from(conv3dBackwardData(p, f64([1, 1, 1]), w))).toEqual([11, 0, 111, 0, 110]);
      expect(Array.from(conv3dBackwardFilter(p, x, f64([1, 2, 3])))).toEqual([11, 22, 13]);
    });
  }

  it('2 groups keep their channels apart', () => {
    const p = problem({ cIn: 4, cOut: 2, groups: 2, in: [1, 1, 1], k: [1, 1, 1] });
    const x = f64([1, 2, 3, 4]);
    const w = f64([1, 10, 100, 1000]);
    expect(Array.from(conv3dForward(p, x, w))).toEqual([21, 4300]);
    expect(Array.from(conv3dBackwardData(p, f64([1, 2]), w))).toEqual([1, 10, 200, 2000]);
    expect(Array.from(conv3dBackwardFilter(p, x, f64([1, 2])))).toEqual([1, 2, 6, 8]);
  });

  it('batch 2 with a 2×2×2 kernel of ones sums each 2×2×2 block', () => {
    const p = problem({ n: 2, in: [2, 2, 3], k: [2, 2, 2] });
    const x = f64([...Array(24).keys()]);
    // Batch 0 holds 0..11 (rows of 3 along W), batch 1 holds 12..23.
    // Block at w=0: 0+1+3+4+6+7+9+10 = 40; at w=1: 48; batch 1 adds 8·12 = 96.
    expect(Array.from(conv3dForward(p, x, new Float64Array(8).fill(1)))).toEqual([
      40, 48, 136, 144,
    ]);
  });

  it('ndhwc puts channels last and the filter in KDHWC order', () => {
    const p = problem({ cIn: 2, cOut: 1, in: [1, 1, 2], k: [1, 1, 2], layout: 'ndhwc' });
    // x[w=0] = (c0 1, c1 2), x[w=1] = (c0 3, c1 4); w[k=0, tw=0] = (1, 10), [tw=1] = (100, 1000).
    expect(Array.from(conv3dForward(p, f64([1, 2, 3, 4]), f64([1, 10, 100, 1000])))).toEqual([
      1 + 20 + 300 + 4000,
    ]);
  });
});

describe('cost model', () => {
  const p = problem({
    n: 2,
    cIn: 6,
    cOut: 4,
    groups: 2,
    in: [5, 6, 7],
    k: [3, 1, 2],
    pad: [1, 0, 0],
    stride: [2, 1, 1],
  });
  it('counts elements and MACs', () => {
    expect(outputDims(p)).toEqual([3, 6, 6]);
    expect(elementCounts(p)).toEqual({ x: 2 * 6 * 210, w: 4 * 3 * 6, y: 2 * 4 * 108 });
    expect(macs(p)).toBe(2 * 4 * 108 * 3 * 6);
    expect(macsPerPoint(p, 'fw')).toBe(18);
    expect(macsPerPoint(p, 'bwData')).toBe(12);
    expect(macsPerPoint(p, 'bwFilter')).toBe(216);
  });
  it('caps sampled points by the budget and the output size', () => {
    expect(pointsWithinBudget(p, 'fw', 1e9, 4096)).toBe(864);
    expect(pointsWithinBudget(p, 'bwFilter', 216 * 10, 4096)).toBe(10);
    expect(pointsWithinBudget(p, 'bwData', 1e9, 100)).toBe(100);
    expect(pointsWithinBudget(p, 'bwFilter', 1, 4096)).toBe(1);
    expect(() => pointsWithinBudget(p, 'fw', 0, 4096)).toThrow(
      'Expected a positive number for maxMacs but received 0 of type number',
    );
    expect(() => pointsWithinBudget(p, 'fw', 1e6, 0)).toThrow(
      'Expected a positive integer for maxPoints but received 0 of type number',
    );
  });
});

describe('argument errors', () => {
  const p = problem({ in: [3, 1, 1], k: [2, 1, 1] });
  it('names the bad field', () => {
    const bad = { ...p, n: -1 };
    expect(() => conv3dForward(bad, f64([1, 2, 3]), f64([1, 1]))).toThrow(
      new InvalidArgumentError('problem.n', 'a positive integer', -1),
    );
    expect(() => outputDims({ ...p, pad: [0, -1, 0] })).toThrow(
      'Expected a non-negative integer for problem.pad[1] but received -1 of type number',
    );
    expect(() => outputDims({ ...p, stride: [1, 1.5, 1] })).toThrow(
      'Expected a positive integer for problem.stride[1] but received 1.5 of type number',
    );
    expect(() => outputDims({ ...p, dil: [1, 1] as unknown as [number, number, number] })).toThrow(
      'Expected an array of 3 positive integers for problem.dil but received an array of length 2',
    );
    expect(() => outputDims({ ...p, layout: 'nchw' as Layout })).toThrow(
      `Expected 'ncdhw' or 'ndhwc' for problem.layout but received "nchw" of type string`,
    );
  });
  it('rejects problems whose fields do not fit together', () => {
    expect(() => outputDims({ ...p, cIn: 3, cOut: 2, groups: 2 })).toThrow(
      new InvalidProblemError('problem.groups 2 must divide both cIn 3 and cOut 2', 'groups'),
    );
    expect(() => outputDims({ ...p, k: [5, 1, 1] })).toThrow(
      'problem has an empty output along D: input 3 + 2·pad 0 is smaller than the dilated kernel footprint 5',
    );
  });
  it('checks tensor types and sizes', () => {
    expect(() => conv3dForward(p, new Float32Array(3) as never, f64([1, 1]))).toThrow(
      'Expected a Float64Array for x but received an instance of Float32Array',
    );
    expect(() => conv3dForward(p, f64([1, 2]), f64([1, 1]))).toThrow(
      'x holds 2 elements but the problem needs 3 (N·C·D·H·W)',
    );
    expect(() => conv3dBackwardData(p, f64([1]), f64([1, 1]))).toThrow(
      'dy holds 1 elements but the problem needs 2 (N·K·Do·Ho·Wo)',
    );
    expect(() => conv3dBackwardFilter(p, f64([1, 2, 3]), f64([1, 2, 3]))).toThrow(
      'dy holds 3 elements but the problem needs 2 (N·K·Do·Ho·Wo)',
    );
    expect(() => conv3dForward(p, f64([1, 2, 3]), f64([1]))).toThrow(
      'w holds 1 elements but the problem needs 2 (K·(C/groups)·kd·kh·kw)',
    );
  });
  it('checks sampled indices', () => {
    expect(() => conv3dForwardAt(p, f64([1, 2, 3]), f64([1, 1]), [0, 2])).toThrow(
      'Expected an integer in [0, 2) for indices[1] but received 2 of type number',
    );
    expect(() => conv3dBackwardDataAt(p, f64([1, 2]), f64([1, 1]), [0.5])).toThrow(
      'Expected an integer in [0, 3) for indices[0] but received 0.5 of type number',
    );
    expect(() => conv3dBackwardFilterAt(p, f64([1, 2, 3]), f64([1, 2]), 7 as never)).toThrow(
      'Expected an array of flat indices for indices but received 7 of type number',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Independent checks on random problems.

/** Logical (NCDHW-order) accessor for a tensor stored in `layout`. */
function at5(layout: Layout, shape: number[]) {
  const [, c, d, h, w] = shape as [number, number, number, number, number];
  return layout === 'ncdhw'
    ? (o: number, ch: number, i: number, j: number, k: number) =>
        (((o * c + ch) * d + i) * h + j) * w + k
    : (o: number, ch: number, i: number, j: number, k: number) =>
        (((o * d + i) * h + j) * w + k) * c + ch;
}

/** The definition, written as plainly as possible: 10 nested loops over logical coordinates. */
function bruteForward(p: ConvProblem, x: Float64Array, w: Float64Array): Float64Array {
  const [od, oh, ow] = outputDims(p);
  const cpg = p.cIn / p.groups;
  const kpg = p.cOut / p.groups;
  const xi = at5(p.layout, [p.n, p.cIn, ...p.in]);
  const wi = at5(p.layout, [p.cOut, cpg, ...p.k]);
  const yi = at5(p.layout, [p.n, p.cOut, od, oh, ow]);
  const y = new Float64Array(p.n * p.cOut * od * oh * ow);
  for (let n = 0; n < p.n; n++)
    for (let g = 0; g < p.groups; g++)
      for (let kk = 0; kk < kpg; kk++)
        for (let a = 0; a < od; a++)
          for (let b = 0; b < oh; b++)
            for (let e = 0; e < ow; e++) {
              let sum = 0;
              for (let c = 0; c < cpg; c++)
                for (let i = 0; i < p.k[0]; i++)
                  for (let j = 0; j < p.k[1]; j++)
                    for (let l = 0; l < p.k[2]; l++) {
                      const d = a * p.stride[0] - p.pad[0] + i * p.dil[0];
                      const h = b * p.stride[1] - p.pad[1] + j * p.dil[1];
                      const ww = e * p.stride[2] - p.pad[2] + l * p.dil[2];
                      if (d < 0 || h < 0 || ww < 0) continue;
                      if (d >= p.in[0] || h >= p.in[1] || ww >= p.in[2]) continue;
                      sum += x[xi(n, g * cpg + c, d, h, ww)]! * w[wi(g * kpg + kk, c, i, j, l)]!;
                    }
              y[yi(n, g * kpg + kk, a, b, e)] = sum;
            }
  return y;
}

function randomProblem(random: () => number, layout: Layout): ConvProblem {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  for (;;) {
    const groups = int(1, 3);
    const triple = (lo: number, hi: number) =>
      [int(lo, hi), int(lo, hi), int(lo, hi)] as [number, number, number];
    const p: ConvProblem = {
      n: int(1, 2),
      cIn: groups * int(1, 3),
      cOut: groups * int(1, 3),
      groups,
      in: triple(1, 7),
      k: triple(1, 3),
      pad: triple(0, 2),
      stride: triple(1, 3),
      dil: triple(1, 2),
      layout,
    };
    // A third of the problems pad asymmetrically (the trailing side on its own).
    const asymmetric = int(0, 2) === 0 ? { padAfter: triple(0, 2) } : {};
    Object.assign(p, asymmetric);
    try {
      outputDims(p);
      return p;
    } catch {
      // empty output along some axis: draw again
    }
  }
}

function relDiff(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1e-300);
}

function maxRelErr(got: Float64Array, want: Float64Array): number {
  let scale = 0;
  for (const v of want) scale = Math.max(scale, Math.abs(v));
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
  return worst / Math.max(scale, 1e-300);
}

const PROBLEMS = 500;

describe.each(['ncdhw', 'ndhwc'] as const)('random problems in %s', (layout) => {
  const random = seededRandom(layout === 'ncdhw' ? 11 : 12);
  const cases = Array.from({ length: PROBLEMS }, () => {
    const p = randomProblem(random, layout);
    const counts = elementCounts(p);
    return {
      p,
      x: randomArray(counts.x, random),
      w: randomArray(counts.w, random),
      dy: randomArray(counts.y, random),
    };
  });

  it('covers groups, odd sizes, and per-axis pad/stride/dilation', () => {
    expect(cases.some((c) => c.p.groups > 1)).toBe(true);
    expect(cases.some((c) => c.p.stride[0] !== c.p.stride[2] && c.p.dil[1] === 2)).toBe(true);
    expect(cases.some((c) => c.p.pad.some((v) => v === 2))).toBe(true);
  });

  it('agrees with the brute-force definition', () => {
    for (const { p, x, w } of cases) {
      const got = conv3dForward(p, x, w);
      expect(maxRelErr(got, bruteForward(p, x, w)), JSON.stringify(p)).toBeLessThan(1e-13);
    }
  });

  it('satisfies ⟨conv(x,w), dy⟩ = ⟨x, bwdData(dy,w)⟩ = ⟨w, bwdFilter(x,dy)⟩', () => {
    for (const { p, x, w, dy } of cases) {
      const lhs = dot(conv3dForward(p, x, w), dy);
      const viaData = dot(x, conv3dBackwardData(p, dy, w));
      const viaFilter = dot(w, conv3dBackwardFilter(p, x, dy));
      // The three sums add the same products in different orders; when they cancel to
      // nearly zero, compare against the size of the products instead.
      const scale = Math.max(Math.abs(lhs), 1e-3);
      expect(Math.abs(lhs - viaData) / scale, JSON.stringify(p)).toBeLessThan(1e-12);
      expect(Math.abs(lhs - viaFilter) / scale, JSON.stringify(p)).toBeLessThan(1e-12);
    }
  });

  it('sampled passes agree with the full ones', () => {
    for (const { p, x, w, dy } of cases.slice(0, 100)) {
      const y = conv3dForward(p, x, w);
      const dx = conv3dBackwardData(p, dy, w);
      const dw = conv3dBackwardFilter(p, x, dy);
      const all = (len: number) => Array.from({ length: len }, (_, i) => len - 1 - i);
      expect(Array.from(conv3dForwardAt(p, x, w, all(y.length))).reverse()).toEqual(Array.from(y));
      const dxAt = conv3dBackwardDataAt(p, dy, w, all(dx.length)).reverse();
      expect(maxRelErr(dxAt, dx), JSON.stringify(p)).toBeLessThan(1e-13);
      const dwAt = conv3dBackwardFilterAt(p, x, dy, all(dw.length)).reverse();
      expect(maxRelErr(dwAt, dw), JSON.stringify(p)).toBeLessThan(1e-13);
    }
  });
});

describe('layout equivalence', () => {
  it('ncdhw results permuted equal ndhwc results', () => {
    const random = seededRandom(7);
    for (let t = 0; t < 150; t++) {
      const p = randomProblem(random, 'ncdhw');
      const q: ConvProblem = { ...p, layout: 'ndhwc' };
      const counts = elementCounts(p);
      const x = randomArray(counts.x, random);
      const w = randomArray(counts.w, random);
      const dy = randomArray(counts.y, random);
      const xq = convertLayout(p, 'x', x, 'ncdhw', 'ndhwc');
      const wq = convertLayout(p, 'w', w, 'ncdhw', 'ndhwc');
      const dyq = convertLayout(p, 'y', dy, 'ncdhw', 'ndhwc');
      const back = (role: 'x' | 'w' | 'y', data: Float64Array) =>
        Array.from(convertLayout(p, role, data, 'ndhwc', 'ncdhw'));
      const close = (a: number[], b: Float64Array) =>
        expect(maxRelErr(Float64Array.from(a), b), JSON.stringify(p)).toBeLessThan(1e-13);
      close(back('y', conv3dForward(q, xq, wq)), conv3dForward(p, x, w));
      close(back('x', conv3dBackwardData(q, dyq, wq)), conv3dBackwardData(p, dy, w));
      close(back('w', conv3dBackwardFilter(q, xq, dyq)), conv3dBackwardFilter(p, x, dy));
    }
  });

  it('convertLayout moves channels last and back', () => {
    const p = problem({ cIn: 2, in: [1, 1, 3], k: [1, 1, 1] });
    const x = f64([1, 2, 3, 10, 20, 30]);
    expect(Array.from(convertLayout(p, 'x', x, 'ncdhw', 'ndhwc'))).toEqual([1, 10, 2, 20, 3, 30]);
    expect(Array.from(convertLayout(p, 'x', f64([1, 10, 2, 20, 3, 30]), 'ndhwc', 'ncdhw'))).toEqual(
      [1, 2, 3, 10, 20, 30],
    );
  });
});

describe('adjoint check can fail', () => {
  it('a wrong backward pass breaks the identity', () => {
    const random = seededRandom(3);
    const p = problem({ cIn: 2, cOut: 3, in: [4, 5, 3], k: [2, 2, 2], pad: [1, 0, 1] });
    const counts = elementCounts(p);
    const x = randomArray(counts.x, random);
    const w = randomArray(counts.w, random);
    const dy = randomArray(counts.y, random);
    const dx = conv3dBackwardData(p, dy, w);
    dx[5] = dx[5]! + 1e-3;
    expect(relDiff(dot(conv3dForward(p, x, w), dy), dot(x, dx))).toBeGreaterThan(1e-6);
  });
});
