/**
 * The f64 reference of a 3-D transposed convolution (PyTorch's nn.ConvTranspose3d), written from
 * its definition, the scatter form, and not through the convolution's reference: every input
 * element adds `x · w` to each output element its taps reach,
 * `y[n, g·Kg + k, i·stride − pad + t·dil] += x[n, g·Cg + c, i] · w[g·Cg + c, k, t]`,
 * where Cg = cIn / groups, Kg = cOut / groups, and taps that land outside the output (in the
 * padding, or past its end) are dropped. Backward-data and backward-filter are its adjoints,
 * walked over the same (input, tap) pairs.
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import {
  denseStrides,
  expectTriple,
  isPositiveInteger,
  type Layout,
  type Strides5,
  type Triple,
} from './problem.js';

/** A transposed convolution: x `[N, cIn, in]`, w `[cIn, cOut/groups, k]`, y `[N, cOut, out]`. */
export interface TransposeProblem {
  readonly n: number;
  /** Channels of the transposed convolution's input. */
  readonly cIn: number;
  /** Channels of its output. */
  readonly cOut: number;
  /** Input extents `[D, H, W]`. */
  readonly in: Triple;
  readonly k: Triple;
  /** Padding removed from the leading side of the output (both sides when `padAfter` is absent). */
  readonly pad: Triple;
  /** Padding removed from the trailing side. Defaults to `pad`. */
  readonly padAfter?: Triple;
  /** Extra planes on the trailing side; each below max(stride, dil). Defaults to 0. */
  readonly outputPadding?: Triple;
  readonly stride: Triple;
  readonly dil: Triple;
  readonly groups: number;
  readonly layout: Layout;
}

const AXES = ['D', 'H', 'W'] as const;
const ZERO: Triple = [0, 0, 0];

/** (in − 1)·stride − pad − padAfter + dil·(k − 1) + outputPadding + 1. */
export function transposeOutputExtent(
  inExtent: number,
  kernel: number,
  pad: number,
  padAfter: number,
  stride: number,
  dil: number,
  outputPadding: number,
): number {
  return (inExtent - 1) * stride - pad - padAfter + dil * (kernel - 1) + outputPadding + 1;
}

/** Check a transposed problem; typed errors as validateProblem's. Returns its output extents. */
export function transposeOutputDims(
  p: TransposeProblem,
  name = 'problem',
): [number, number, number] {
  if (typeof p !== 'object' || p === null) {
    throw new InvalidArgumentError(name, 'a TransposeProblem object', p);
  }
  for (const field of ['n', 'cIn', 'cOut', 'groups'] as const) {
    if (!isPositiveInteger(p[field])) {
      throw new InvalidArgumentError(`${name}.${field}`, 'a positive integer', p[field]);
    }
  }
  expectTriple(p.in, `${name}.in`, false);
  expectTriple(p.k, `${name}.k`, false);
  expectTriple(p.pad, `${name}.pad`, true);
  const after =
    p.padAfter === undefined ? p.pad : expectTriple(p.padAfter, `${name}.padAfter`, true);
  const op =
    p.outputPadding === undefined
      ? ZERO
      : expectTriple(p.outputPadding, `${name}.outputPadding`, true);
  expectTriple(p.stride, `${name}.stride`, false);
  expectTriple(p.dil, `${name}.dil`, false);
  if (p.layout !== 'ncdhw' && p.layout !== 'ndhwc') {
    throw new InvalidArgumentError(`${name}.layout`, "'ncdhw' or 'ndhwc'", p.layout);
  }
  if (p.cIn % p.groups !== 0 || p.cOut % p.groups !== 0) {
    throw new InvalidProblemError(
      `${name}.groups ${p.groups} must divide both cIn ${p.cIn} and cOut ${p.cOut}`,
      'groups',
    );
  }
  const out: number[] = [];
  for (let a = 0; a < 3; a++) {
    const limit = Math.max(p.stride[a]!, p.dil[a]!);
    if (op[a]! >= limit) {
      throw new InvalidProblemError(
        `${name}.outputPadding along ${AXES[a]} is ${op[a]}, not below max(stride, dil) = ${limit}`,
        'outputPadding',
      );
    }
    const e = transposeOutputExtent(
      p.in[a]!,
      p.k[a]!,
      p.pad[a]!,
      after[a]!,
      p.stride[a]!,
      p.dil[a]!,
      op[a]!,
    );
    if (e < 1) {
      throw new InvalidProblemError(`${name} has an empty output along ${AXES[a]} (${e})`, 'in');
    }
    out.push(e);
  }
  return out as [number, number, number];
}

/** Element counts of x (and dx), w (and dw), y (and dy). */
export function transposeElementCounts(p: TransposeProblem): { x: number; w: number; y: number } {
  const [od, oh, ow] = transposeOutputDims(p);
  return {
    x: p.n * p.cIn * p.in[0] * p.in[1] * p.in[2],
    w: p.cIn * (p.cOut / p.groups) * p.k[0] * p.k[1] * p.k[2],
    y: p.n * p.cOut * od * oh * ow,
  };
}

interface Walk {
  xs: Strides5;
  ws: Strides5;
  ys: Strides5;
}

/**
 * Call `visit(xIndex, wIndex, yIndex)` for every (input element, tap, output channel) whose tap
 * lands inside the output: the scatter's pairs, shared by the three passes.
 */
function walk(p: TransposeProblem, visit: (xi: number, wi: number, yi: number) => void): void {
  const out = transposeOutputDims(p);
  const cg = p.cIn / p.groups;
  const kg = p.cOut / p.groups;
  const s: Walk = {
    xs: denseStrides(p.layout, p.cIn, p.in[0], p.in[1], p.in[2]),
    // [cIn, cOut/groups, k]: cIn is the outer axis, cOut/groups the channel axis.
    ws: denseStrides(p.layout, kg, p.k[0], p.k[1], p.k[2]),
    ys: denseStrides(p.layout, p.cOut, out[0], out[1], out[2]),
  };
  for (let n = 0; n < p.n; n++)
    for (let ci = 0; ci < p.cIn; ci++) {
      const g = Math.floor(ci / cg);
      for (let i = 0; i < p.in[0]; i++)
        for (let j = 0; j < p.in[1]; j++)
          for (let l = 0; l < p.in[2]; l++) {
            const xi = n * s.xs.outer + ci * s.xs.channel + i * s.xs.d + j * s.xs.h + l * s.xs.w;
            for (let td = 0; td < p.k[0]; td++) {
              const od = i * p.stride[0] - p.pad[0] + td * p.dil[0];
              if (od < 0 || od >= out[0]) continue;
              for (let th = 0; th < p.k[1]; th++) {
                const oh = j * p.stride[1] - p.pad[1] + th * p.dil[1];
                if (oh < 0 || oh >= out[1]) continue;
                for (let tw = 0; tw < p.k[2]; tw++) {
                  const ow = l * p.stride[2] - p.pad[2] + tw * p.dil[2];
                  if (ow < 0 || ow >= out[2]) continue;
                  const wBase = ci * s.ws.outer + td * s.ws.d + th * s.ws.h + tw * s.ws.w;
                  const yBase = n * s.ys.outer + od * s.ys.d + oh * s.ys.h + ow * s.ys.w;
                  for (let k = 0; k < kg; k++) {
                    visit(xi, wBase + k * s.ws.channel, yBase + (g * kg + k) * s.ys.channel);
                  }
                }
              }
            }
          }
    }
}

function expectLength(name: string, a: ArrayLike<number>, n: number): void {
  if (a.length !== n) {
    throw new InvalidArgumentError(name, `an array of ${n} elements`, a);
  }
}

/** y = convTranspose(x, w): the scatter of every input element through every tap. */
export function convTranspose3dForward(
  p: TransposeProblem,
  x: ArrayLike<number>,
  w: ArrayLike<number>,
): Float64Array {
  const counts = transposeElementCounts(p);
  expectLength('x', x, counts.x);
  expectLength('w', w, counts.w);
  const y = new Float64Array(counts.y);
  walk(p, (xi, wi, yi) => {
    y[yi]! += x[xi]! * w[wi]!;
  });
  return y;
}

/** dx = the adjoint of the scatter in x: each input gathers dy · w over the outputs it reached. */
export function convTranspose3dBackwardData(
  p: TransposeProblem,
  dy: ArrayLike<number>,
  w: ArrayLike<number>,
): Float64Array {
  const counts = transposeElementCounts(p);
  expectLength('dy', dy, counts.y);
  expectLength('w', w, counts.w);
  const dx = new Float64Array(counts.x);
  walk(p, (xi, wi, yi) => {
    dx[xi]! += dy[yi]! * w[wi]!;
  });
  return dx;
}

/** dw = the adjoint of the scatter in w: x · dy summed over every pair a tap joined. */
export function convTranspose3dBackwardFilter(
  p: TransposeProblem,
  x: ArrayLike<number>,
  dy: ArrayLike<number>,
): Float64Array {
  const counts = transposeElementCounts(p);
  expectLength('x', x, counts.x);
  expectLength('dy', dy, counts.y);
  const dw = new Float64Array(counts.w);
  walk(p, (xi, wi, yi) => {
    dw[wi]! += x[xi]! * dy[yi]!;
  });
  return dw;
}
