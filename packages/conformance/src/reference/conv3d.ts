/**
 * f64 CPU reference for 3-D convolution (cross-correlation, PyTorch semantics), forward,
 * backward-data and backward-filter, with groups, per-axis padding/stride/dilation and both
 * layouts.
 *
 * The full passes share one loop nest: for every (batch, output channel, input channel, tap)
 * the valid output range of each axis is precomputed once per tap, so the innermost loop runs
 * over a contiguous range of output columns with no bounds checks. Forward and backward-data
 * are axpy loops (`y += w·x`, `dx += w·dy`); backward-filter is a dot product per filter tap.
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { type ConvProblem, type Geometry, geometry } from './problem.js';

function checkTensor(value: unknown, name: string, needed: number, formula: string): Float64Array {
  if (!(value instanceof Float64Array)) {
    throw new InvalidArgumentError(name, 'a Float64Array', value);
  }
  if (value.length !== needed) {
    throw new InvalidProblemError(
      `${name} holds ${value.length} elements but the problem needs ${needed} (${formula})`,
      name,
    );
  }
  return value;
}

/** Like `checkTensor`, for the sampled passes: any array-like of numbers of the exact length. */
function checkSource(
  value: unknown,
  name: string,
  needed: number,
  formula: string,
): ArrayLike<number> {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as ArrayLike<number>).length !== 'number'
  ) {
    throw new InvalidArgumentError(name, 'an array or typed array of numbers', value);
  }
  const length = (value as ArrayLike<number>).length;
  if (length !== needed) {
    throw new InvalidProblemError(
      `${name} holds ${length} elements but the problem needs ${needed} (${formula})`,
      name,
    );
  }
  return value as ArrayLike<number>;
}

const X_FORMULA = 'N·C·D·H·W';
const W_FORMULA = 'K·(C/groups)·kd·kh·kw';
const Y_FORMULA = 'N·K·Do·Ho·Wo';

/**
 * For each tap `t` of one axis, the half-open range `[lo[t], hi[t])` of output coordinates
 * whose input coordinate `o·stride − pad + t·dil` lies inside `[0, inExtent)`.
 */
function tapRanges(
  outExtent: number,
  inExtent: number,
  stride: number,
  dil: number,
  pad: number,
  taps: number,
): { lo: Int32Array; hi: Int32Array } {
  const lo = new Int32Array(taps);
  const hi = new Int32Array(taps);
  for (let t = 0; t < taps; t++) {
    const shift = t * dil - pad;
    const first = Math.max(0, Math.ceil(-shift / stride));
    const last = Math.min(outExtent, Math.floor((inExtent - 1 - shift) / stride) + 1);
    lo[t] = first;
    hi[t] = Math.max(first, last);
  }
  return { lo, hi };
}

/**
 * The axpy loop nest shared by forward (`target` = y, `source` = x) and backward-data
 * (`target` = dx, `source` = dy). `forward` says which of the two walks the input grid.
 */
function axpyPass(
  g: Geometry,
  w: Float64Array,
  source: Float64Array,
  target: Float64Array,
  forward: boolean,
): void {
  const { n: batch, groups, cpg, kpg, kD, kH, kW } = g;
  const { strD, strH, strW, dilD, dilH, dilW, padD, padH, padW } = g;
  const xs = g.xs;
  const ws = g.ws;
  const ys = g.ys;
  const rd = tapRanges(g.outD, g.inD, strD, dilD, padD, kD);
  const rh = tapRanges(g.outH, g.inH, strH, dilH, padH, kH);
  const rw = tapRanges(g.outW, g.inW, strW, dilW, padW, kW);
  const xsD = xs.d;
  const xsH = xs.h;
  const xsW = xs.w;
  const ysD = ys.d;
  const ysH = ys.h;
  const ysW = ys.w;
  const xStepW = strW * xsW;
  const xStepH = strH * xsH;
  const xStepD = strD * xsD;
  for (let n = 0; n < batch; n++) {
    for (let grp = 0; grp < groups; grp++) {
      for (let kk = 0; kk < kpg; kk++) {
        const oc = grp * kpg + kk;
        const yNK = n * ys.outer + oc * ys.channel;
        for (let c = 0; c < cpg; c++) {
          const xNC = n * xs.outer + (grp * cpg + c) * xs.channel;
          const wKC = oc * ws.outer + c * ws.channel;
          for (let td = 0; td < kD; td++) {
            const odLo = rd.lo[td]!;
            const odHi = rd.hi[td]!;
            if (odLo >= odHi) continue;
            for (let th = 0; th < kH; th++) {
              const ohLo = rh.lo[th]!;
              const ohHi = rh.hi[th]!;
              if (ohLo >= ohHi) continue;
              for (let tw = 0; tw < kW; tw++) {
                const owLo = rw.lo[tw]!;
                const count = rw.hi[tw]! - owLo;
                if (count <= 0) continue;
                const wv = w[wKC + td * ws.d + th * ws.h + tw * ws.w]!;
                let xD =
                  xNC +
                  (odLo * strD + td * dilD - padD) * xsD +
                  (ohLo * strH + th * dilH - padH) * xsH +
                  (owLo * strW + tw * dilW - padW) * xsW;
                let yD = yNK + odLo * ysD + ohLo * ysH + owLo * ysW;
                for (let od = odLo; od < odHi; od++) {
                  let xi0 = xD;
                  let yi0 = yD;
                  for (let oh = ohLo; oh < ohHi; oh++) {
                    let xi = xi0;
                    let yi = yi0;
                    if (forward) {
                      for (let i = 0; i < count; i++) {
                        target[yi] = target[yi]! + wv * source[xi]!;
                        yi += ysW;
                        xi += xStepW;
                      }
                    } else {
                      for (let i = 0; i < count; i++) {
                        target[xi] = target[xi]! + wv * source[yi]!;
                        yi += ysW;
                        xi += xStepW;
                      }
                    }
                    xi0 += xStepH;
                    yi0 += ysH;
                  }
                  xD += xStepD;
                  yD += ysD;
                }
              }
            }
          }
        }
      }
    }
  }
}

/** Forward pass: returns y (in the problem's layout) for x and w (in the problem's layout). */
export function conv3dForward(p: ConvProblem, x: Float64Array, w: Float64Array): Float64Array {
  const g = geometry(p);
  checkTensor(x, 'x', g.counts.x, X_FORMULA);
  checkTensor(w, 'w', g.counts.w, W_FORMULA);
  const y = new Float64Array(g.counts.y);
  axpyPass(g, w, x, y, true);
  return y;
}

/** Backward-data pass: returns dx = ∂⟨y, dy⟩/∂x for dy and w. */
export function conv3dBackwardData(
  p: ConvProblem,
  dy: Float64Array,
  w: Float64Array,
): Float64Array {
  const g = geometry(p);
  checkTensor(dy, 'dy', g.counts.y, Y_FORMULA);
  checkTensor(w, 'w', g.counts.w, W_FORMULA);
  const dx = new Float64Array(g.counts.x);
  axpyPass(g, w, dy, dx, false);
  return dx;
}

/** Backward-filter pass: returns dw = ∂⟨y, dy⟩/∂w for x and dy. */
export function conv3dBackwardFilter(
  p: ConvProblem,
  x: Float64Array,
  dy: Float64Array,
): Float64Array {
  const g = geometry(p);
  checkTensor(x, 'x', g.counts.x, X_FORMULA);
  checkTensor(dy, 'dy', g.counts.y, Y_FORMULA);
  const dw = new Float64Array(g.counts.w);
  const { groups, cpg, kpg, kD, kH, kW } = g;
  const rd = tapRanges(g.outD, g.inD, g.strD, g.dilD, g.padD, kD);
  const rh = tapRanges(g.outH, g.inH, g.strH, g.dilH, g.padH, kH);
  const rw = tapRanges(g.outW, g.inW, g.strW, g.dilW, g.padW, kW);
  for (let grp = 0; grp < groups; grp++) {
    for (let kk = 0; kk < kpg; kk++) {
      const oc = grp * kpg + kk;
      for (let c = 0; c < cpg; c++) {
        const ic = grp * cpg + c;
        const wKC = oc * g.ws.outer + c * g.ws.channel;
        for (let td = 0; td < kD; td++) {
          for (let th = 0; th < kH; th++) {
            for (let tw = 0; tw < kW; tw++) {
              dw[wKC + td * g.ws.d + th * g.ws.h + tw * g.ws.w] = filterTap(
                g,
                x,
                dy,
                oc,
                ic,
                td,
                th,
                tw,
                rd,
                rh,
                rw,
              );
            }
          }
        }
      }
    }
  }
  return dw;
}

/** One dw element: Σ over batch and valid output points of x · dy. */
function filterTap(
  g: Geometry,
  x: ArrayLike<number>,
  dy: ArrayLike<number>,
  oc: number,
  ic: number,
  td: number,
  th: number,
  tw: number,
  rd: { lo: Int32Array; hi: Int32Array },
  rh: { lo: Int32Array; hi: Int32Array },
  rw: { lo: Int32Array; hi: Int32Array },
): number {
  const odLo = rd.lo[td]!;
  const odHi = rd.hi[td]!;
  const ohLo = rh.lo[th]!;
  const ohHi = rh.hi[th]!;
  const owLo = rw.lo[tw]!;
  const count = rw.hi[tw]! - owLo;
  if (odLo >= odHi || ohLo >= ohHi || count <= 0) return 0;
  const xs = g.xs;
  const ys = g.ys;
  const xStepW = g.strW * xs.w;
  const xStepH = g.strH * xs.h;
  const xStepD = g.strD * xs.d;
  const ysW = ys.w;
  const ysH = ys.h;
  const ysD = ys.d;
  const xOff =
    ic * xs.channel +
    (odLo * g.strD + td * g.dilD - g.padD) * xs.d +
    (ohLo * g.strH + th * g.dilH - g.padH) * xs.h +
    (owLo * g.strW + tw * g.dilW - g.padW) * xs.w;
  const yOff = oc * ys.channel + odLo * ysD + ohLo * ysH + owLo * ysW;
  let acc = 0;
  for (let n = 0; n < g.n; n++) {
    let xD = n * xs.outer + xOff;
    let yD = n * ys.outer + yOff;
    for (let od = odLo; od < odHi; od++) {
      let xi0 = xD;
      let yi0 = yD;
      for (let oh = ohLo; oh < ohHi; oh++) {
        let xi = xi0;
        let yi = yi0;
        for (let i = 0; i < count; i++) {
          acc += x[xi]! * dy[yi]!;
          xi += xStepW;
          yi += ysW;
        }
        xi0 += xStepH;
        yi0 += ysH;
      }
      xD += xStepD;
      yD += ysD;
    }
  }
  return acc;
}

/** Decoded logical coordinates of one flat index: [outer, channel, d, h, w]. */
function decode(
  index: number,
  layout: 'ncdhw' | 'ndhwc',
  channels: number,
  d: number,
  h: number,
  w: number,
  into: Int32Array,
): void {
  let rest = index;
  if (layout === 'ncdhw') {
    into[4] = rest % w;
    rest = (rest - into[4]) / w;
    into[3] = rest % h;
    rest = (rest - into[3]) / h;
    into[2] = rest % d;
    rest = (rest - into[2]) / d;
    into[1] = rest % channels;
    into[0] = (rest - into[1]) / channels;
  } else {
    into[1] = rest % channels;
    rest = (rest - into[1]) / channels;
    into[4] = rest % w;
    rest = (rest - into[4]) / w;
    into[3] = rest % h;
    rest = (rest - into[3]) / h;
    into[2] = rest % d;
    into[0] = (rest - into[2]) / d;
  }
}

function checkIndex(indices: ArrayLike<number>, i: number, count: number): number {
  const v = indices[i];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= count) {
    throw new InvalidArgumentError(`indices[${i}]`, `an integer in [0, ${count})`, v);
  }
  return v;
}

function checkIndices(indices: unknown): ArrayLike<number> {
  if (
    typeof indices !== 'object' ||
    indices === null ||
    typeof (indices as ArrayLike<number>).length !== 'number'
  ) {
    throw new InvalidArgumentError('indices', 'an array of flat indices', indices);
  }
  return indices as ArrayLike<number>;
}

/**
 * Forward pass at selected points: `result[i] = y[indices[i]]`, with flat indices into y in the
 * problem's layout. Costs `macsPerPoint(p, 'fw')` per point.
 *
 * The sampled passes read their inputs through any array-like of numbers (a `Float32Array`
 * widened exactly from f16/bf16, or an object that decodes elements on access), so a large
 * problem needs no f64 copy of its tensors; the sums are still formed in f64.
 */
export function conv3dForwardAt(
  p: ConvProblem,
  x: ArrayLike<number>,
  w: ArrayLike<number>,
  indices: ArrayLike<number>,
): Float64Array {
  const g = geometry(p);
  checkSource(x, 'x', g.counts.x, X_FORMULA);
  checkSource(w, 'w', g.counts.w, W_FORMULA);
  const list = checkIndices(indices);
  const out = new Float64Array(list.length);
  const at = new Int32Array(5);
  const { xs, ws } = g;
  for (let i = 0; i < list.length; i++) {
    decode(checkIndex(list, i, g.counts.y), p.layout, g.cOut, g.outD, g.outH, g.outW, at);
    const n = at[0]!;
    const oc = at[1]!;
    const grp = Math.floor(oc / g.kpg);
    const d0 = at[2]! * g.strD - g.padD;
    const h0 = at[3]! * g.strH - g.padH;
    const w0 = at[4]! * g.strW - g.padW;
    let acc = 0;
    for (let c = 0; c < g.cpg; c++) {
      const xNC = n * xs.outer + (grp * g.cpg + c) * xs.channel;
      const wKC = oc * ws.outer + c * ws.channel;
      for (let td = 0; td < g.kD; td++) {
        const id = d0 + td * g.dilD;
        if (id < 0 || id >= g.inD) continue;
        for (let th = 0; th < g.kH; th++) {
          const ih = h0 + th * g.dilH;
          if (ih < 0 || ih >= g.inH) continue;
          for (let tw = 0; tw < g.kW; tw++) {
            const iw = w0 + tw * g.dilW;
            if (iw < 0 || iw >= g.inW) continue;
            acc +=
              x[xNC + id * xs.d + ih * xs.h + iw * xs.w]! *
              w[wKC + td * ws.d + th * ws.h + tw * ws.w]!;
          }
        }
      }
    }
    out[i] = acc;
  }
  return out;
}

/** For one input coordinate, the taps that reach it and the output coordinate each comes from. */
function reachingTaps(
  inCoord: number,
  taps: number,
  stride: number,
  dil: number,
  pad: number,
  outExtent: number,
  tapOut: Int32Array,
  outOut: Int32Array,
): number {
  let count = 0;
  for (let t = 0; t < taps; t++) {
    const scaled = inCoord + pad - t * dil;
    if (scaled < 0 || scaled % stride !== 0) continue;
    const o = scaled / stride;
    if (o >= outExtent) continue;
    tapOut[count] = t;
    outOut[count] = o;
    count++;
  }
  return count;
}

/**
 * Backward-data pass at selected points: `result[i] = dx[indices[i]]`, flat indices into x in
 * the problem's layout. Costs at most `macsPerPoint(p, 'bwData')` per point.
 */
export function conv3dBackwardDataAt(
  p: ConvProblem,
  dy: ArrayLike<number>,
  w: ArrayLike<number>,
  indices: ArrayLike<number>,
): Float64Array {
  const g = geometry(p);
  checkSource(dy, 'dy', g.counts.y, Y_FORMULA);
  checkSource(w, 'w', g.counts.w, W_FORMULA);
  const list = checkIndices(indices);
  const out = new Float64Array(list.length);
  const at = new Int32Array(5);
  const tD = new Int32Array(g.kD);
  const oD = new Int32Array(g.kD);
  const tH = new Int32Array(g.kH);
  const oH = new Int32Array(g.kH);
  const tW = new Int32Array(g.kW);
  const oW = new Int32Array(g.kW);
  const { ys, ws } = g;
  for (let i = 0; i < list.length; i++) {
    decode(checkIndex(list, i, g.counts.x), p.layout, g.cIn, g.inD, g.inH, g.inW, at);
    const n = at[0]!;
    const ic = at[1]!;
    const grp = Math.floor(ic / g.cpg);
    const c = ic - grp * g.cpg;
    const nd = reachingTaps(at[2]!, g.kD, g.strD, g.dilD, g.padD, g.outD, tD, oD);
    const nh = reachingTaps(at[3]!, g.kH, g.strH, g.dilH, g.padH, g.outH, tH, oH);
    const nw = reachingTaps(at[4]!, g.kW, g.strW, g.dilW, g.padW, g.outW, tW, oW);
    let acc = 0;
    for (let kk = 0; kk < g.kpg; kk++) {
      const oc = grp * g.kpg + kk;
      const yNK = n * ys.outer + oc * ys.channel;
      const wKC = oc * ws.outer + c * ws.channel;
      for (let a = 0; a < nd; a++) {
        for (let b = 0; b < nh; b++) {
          for (let e = 0; e < nw; e++) {
            acc +=
              dy[yNK + oD[a]! * ys.d + oH[b]! * ys.h + oW[e]! * ys.w]! *
              w[wKC + tD[a]! * ws.d + tH[b]! * ws.h + tW[e]! * ws.w]!;
          }
        }
      }
    }
    out[i] = acc;
  }
  return out;
}

/**
 * Backward-filter pass at selected points: `result[i] = dw[indices[i]]`, flat indices into w in
 * the problem's layout (KCDHW or KDHWC). Costs at most `macsPerPoint(p, 'bwFilter')` =
 * `N·Do·Ho·Wo` per point.
 */
export function conv3dBackwardFilterAt(
  p: ConvProblem,
  x: ArrayLike<number>,
  dy: ArrayLike<number>,
  indices: ArrayLike<number>,
): Float64Array {
  const g = geometry(p);
  checkSource(x, 'x', g.counts.x, X_FORMULA);
  checkSource(dy, 'dy', g.counts.y, Y_FORMULA);
  const list = checkIndices(indices);
  const out = new Float64Array(list.length);
  const at = new Int32Array(5);
  const rd = tapRanges(g.outD, g.inD, g.strD, g.dilD, g.padD, g.kD);
  const rh = tapRanges(g.outH, g.inH, g.strH, g.dilH, g.padH, g.kH);
  const rw = tapRanges(g.outW, g.inW, g.strW, g.dilW, g.padW, g.kW);
  for (let i = 0; i < list.length; i++) {
    decode(checkIndex(list, i, g.counts.w), p.layout, g.cpg, g.kD, g.kH, g.kW, at);
    const oc = at[0]!;
    const grp = Math.floor(oc / g.kpg);
    const ic = grp * g.cpg + at[1]!;
    out[i] = filterTap(g, x, dy, oc, ic, at[2]!, at[3]!, at[4]!, rd, rh, rw);
  }
  return out;
}
