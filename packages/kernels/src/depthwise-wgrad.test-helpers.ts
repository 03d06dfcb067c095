/**
 * What the depthwise tests share: a depthwise problem from a few numbers, seeded operands
 * and dw straight from its definition in f64.
 */
import { ElementKind } from '@baracuda/types';
import { Conv3dDescriptor } from './descriptor.js';

export type Triple = [number, number, number];
export interface Case {
  c: number;
  /** The batch (1 when left out). */
  n?: number;
  in: Triple;
  k: Triple;
  pad?: Triple;
  stride?: Triple;
  dil?: Triple;
  element?: ElementKind;
  layout?: 'ncdhw' | 'ndhwc';
}

export function desc(t: Case): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: t.n ?? 1,
    cIn: t.c,
    cOut: t.c,
    dIn: t.in[0],
    hIn: t.in[1],
    wIn: t.in[2],
    dFilt: t.k[0],
    hFilt: t.k[1],
    wFilt: t.k[2],
    element: t.element ?? ElementKind.F32,
  })
    .withPadding(...(t.pad ?? [0, 0, 0]))
    .withStride(...(t.stride ?? [1, 1, 1]))
    .withDilation(...(t.dil ?? [1, 1, 1]))
    .withGroups(t.c)
    .withLayout(t.layout ?? 'ncdhw');
}

/** Seeded values in [-1, 1). */
export function random(count: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  return Float64Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/** dw[c, t] = Σ over n and output positions of x · dy, straight from the definition. */
export function directDw(d: Conv3dDescriptor, x: Float64Array, dy: Float64Array): Float64Array {
  const [oD, oH, oW] = d.outputDims();
  const [iD, iH, iW] = [d.dIn, d.hIn, d.wIn];
  const C = d.cIn;
  const cl = d.layout === 'ndhwc';
  const xi = (n: number, c: number, a: number, b: number, e: number) =>
    cl ? (((n * iD + a) * iH + b) * iW + e) * C + c : (((n * C + c) * iD + a) * iH + b) * iW + e;
  const yi = (n: number, c: number, a: number, b: number, e: number) =>
    cl ? (((n * oD + a) * oH + b) * oW + e) * C + c : (((n * C + c) * oD + a) * oH + b) * oW + e;
  const dw = new Float64Array(d.wElements);
  for (let n = 0; n < d.batch; n++)
    for (let c = 0; c < C; c++)
      for (let kd = 0; kd < d.dFilt; kd++)
        for (let kh = 0; kh < d.hFilt; kh++)
          for (let kw = 0; kw < d.wFilt; kw++)
            for (let a = 0; a < oD; a++)
              for (let b = 0; b < oH; b++)
                for (let e = 0; e < oW; e++) {
                  const id = a * d.strideD - d.padD + kd * d.dilationD;
                  const ih = b * d.strideH - d.padH + kh * d.dilationH;
                  const iw = e * d.strideW - d.padW + kw * d.dilationW;
                  if (id < 0 || id >= iD || ih < 0 || ih >= iH || iw < 0 || iw >= iW) continue;
                  const t = (kd * d.hFilt + kh) * d.wFilt + kw;
                  dw[c * d.dFilt * d.hFilt * d.wFilt + t]! +=
                    x[xi(n, c, id, ih, iw)]! * dy[yi(n, c, a, b, e)]!;
                }
  return dw;
}

export const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
