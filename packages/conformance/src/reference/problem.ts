import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';

/**
 * Memory order of the activation and filter tensors.
 * - `ncdhw`: x `[N, C, D, H, W]`, w `[K, C/groups, kd, kh, kw]`, y `[N, K, Do, Ho, Wo]`.
 * - `ndhwc`: x `[N, D, H, W, C]`, w `[K, kd, kh, kw, C/groups]` (KDHWC), y `[N, Do, Ho, Wo, K]`.
 */
export type Layout = 'ncdhw' | 'ndhwc';

/** The three passes of a convolution layer. */
export type ConvPass = 'fw' | 'bwData' | 'bwFilter';

/** Three extents, one per spatial axis, in the order D, H, W. */
export type Triple = readonly [number, number, number];

/**
 * One 3-D convolution (cross-correlation, PyTorch semantics):
 * `y[n, k, o] = Σ_{c in group(k), t} x[n, c, o·stride − pad + t·dil] · w[k, c − g·C/groups, t]`,
 * where out-of-range input coordinates read zero; the output extent counts the windows that fit
 * the input padded by `pad` before and `padAfter` (default `pad`) after.
 */
export interface ConvProblem {
  /** Batch size N. */
  readonly n: number;
  /** Input channels C. */
  readonly cIn: number;
  /** Output channels K. */
  readonly cOut: number;
  /** Input extents `[D, H, W]`. */
  readonly in: Triple;
  /** Kernel extents `[kd, kh, kw]`. */
  readonly k: Triple;
  /** Zero padding per axis: on both sides, or the leading side when `padAfter` is given. */
  readonly pad: Triple;
  /** Zero padding after (trailing side) per axis, for asymmetric padding. Defaults to `pad`. */
  readonly padAfter?: Triple;
  /** Stride per axis. */
  readonly stride: Triple;
  /** Dilation per axis. */
  readonly dil: Triple;
  /** Group count; divides both `cIn` and `cOut`. */
  readonly groups: number;
  readonly layout: Layout;
}

const AXES = ['D', 'H', 'W'] as const;

/** @internal */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** @internal Three positive (or, with `allowZero`, non-negative) integers, else a typed error. */
export function expectTriple(value: unknown, name: string, allowZero: boolean): Triple {
  const what = allowZero ? 'a non-negative integer' : 'a positive integer';
  if (!Array.isArray(value) || value.length !== 3) {
    throw new InvalidArgumentError(name, `an array of 3 ${what.slice(2)}s`, value);
  }
  for (let axis = 0; axis < 3; axis++) {
    const v: unknown = value[axis];
    if (!(allowZero ? isNonNegativeInteger(v) : isPositiveInteger(v))) {
      throw new InvalidArgumentError(`${name}[${axis}]`, what, v);
    }
  }
  return [value[0], value[1], value[2]];
}

/**
 * Output extent along one axis (PyTorch's formula, with the trailing padding `padAfter`,
 * default `pad`); may be ≤ 0 for an invalid problem.
 */
export function outputExtent(
  inExtent: number,
  kernel: number,
  pad: number,
  stride: number,
  dil: number,
  padAfter: number = pad,
): number {
  return Math.floor((inExtent + pad + padAfter - dil * (kernel - 1) - 1) / stride) + 1;
}

/** The trailing padding of a problem: `padAfter`, or `pad` when symmetric. */
export function padAfterOf(p: ConvProblem): Triple {
  return p.padAfter ?? p.pad;
}

/**
 * Check every field of a problem. Throws `InvalidArgumentError` for a field of the wrong
 * type or sign and `InvalidProblemError` for fields that do not fit together.
 */
export function validateProblem(p: ConvProblem, name = 'problem'): void {
  if (typeof p !== 'object' || p === null) {
    throw new InvalidArgumentError(name, 'a ConvProblem object', p);
  }
  for (const field of ['n', 'cIn', 'cOut', 'groups'] as const) {
    if (!isPositiveInteger(p[field])) {
      throw new InvalidArgumentError(`${name}.${field}`, 'a positive integer', p[field]);
    }
  }
  expectTriple(p.in, `${name}.in`, false);
  expectTriple(p.k, `${name}.k`, false);
  expectTriple(p.pad, `${name}.pad`, true);
  if (p.padAfter !== undefined) expectTriple(p.padAfter, `${name}.padAfter`, true);
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
  const after = padAfterOf(p);
  for (let axis = 0; axis < 3; axis++) {
    const out = outputExtent(
      p.in[axis]!,
      p.k[axis]!,
      p.pad[axis]!,
      p.stride[axis]!,
      p.dil[axis]!,
      after[axis]!,
    );
    if (out < 1) {
      const padding =
        after[axis] === p.pad[axis]
          ? `2·pad ${p.pad[axis]}`
          : `pad ${p.pad[axis]} + padAfter ${after[axis]}`;
      throw new InvalidProblemError(
        `${name} has an empty output along ${AXES[axis]}: input ${p.in[axis]} + ${padding} ` +
          `is smaller than the dilated kernel footprint ${p.dil[axis]! * (p.k[axis]! - 1) + 1}`,
        'in',
      );
    }
  }
}

/** Output extents `[Do, Ho, Wo]`. Throws for an invalid problem. */
export function outputDims(p: ConvProblem): [number, number, number] {
  validateProblem(p);
  const after = padAfterOf(p);
  return [0, 1, 2].map((a) =>
    outputExtent(p.in[a]!, p.k[a]!, p.pad[a]!, p.stride[a]!, p.dil[a]!, after[a]!),
  ) as [number, number, number];
}

/** Element counts of x (and dx), w (and dw), y (and dy). */
export function elementCounts(p: ConvProblem): { x: number; w: number; y: number } {
  const [od, oh, ow] = outputDims(p);
  return {
    x: p.n * p.cIn * p.in[0] * p.in[1] * p.in[2],
    w: p.cOut * (p.cIn / p.groups) * p.k[0] * p.k[1] * p.k[2],
    y: p.n * p.cOut * od * oh * ow,
  };
}

/**
 * Multiply-accumulates of one forward pass, counting taps that land in the padding:
 * `N · K · Do·Ho·Wo · (C/groups) · kd·kh·kw`.
 *
 * Cost model: the full reference passes (`conv3dForward`, `conv3dBackwardData`,
 * `conv3dBackwardFilter`) each do at most `macs(p)` multiply-adds (fewer when taps fall in the
 * padding), at a few hundred million per second per core. Budget the three passes as
 * `3 · macs(p)`. For the sampled passes see {@link macsPerPoint}.
 */
export function macs(p: ConvProblem): number {
  const [od, oh, ow] = outputDims(p);
  return p.n * p.cOut * od * oh * ow * (p.cIn / p.groups) * p.k[0] * p.k[1] * p.k[2];
}

/**
 * Upper bound on the multiply-adds one sampled point costs in the `...At` functions:
 * - `fw` (one y element): `(C/groups) · kd·kh·kw`;
 * - `bwData` (one dx element): `(K/groups) · kd·kh·kw`;
 * - `bwFilter` (one dw element): `N · Do·Ho·Wo` — expensive on large problems, so sample
 *   fewer dw points there.
 */
export function macsPerPoint(p: ConvProblem, pass: ConvPass): number {
  const [od, oh, ow] = outputDims(p);
  const taps = p.k[0] * p.k[1] * p.k[2];
  switch (pass) {
    case 'fw':
      return (p.cIn / p.groups) * taps;
    case 'bwData':
      return (p.cOut / p.groups) * taps;
    case 'bwFilter':
      return p.n * od * oh * ow;
    default:
      throw new InvalidArgumentError('pass', "'fw', 'bwData' or 'bwFilter'", pass);
  }
}

/**
 * How many points of a pass the sampled reference can check within `maxMacs`: at most
 * `maxPoints`, at least 1, and never more than the output holds. Use it to cap backward-filter
 * sampling, whose points cost `N·Do·Ho·Wo` each.
 */
export function pointsWithinBudget(
  p: ConvProblem,
  pass: ConvPass,
  maxMacs: number,
  maxPoints: number,
): number {
  if (typeof maxMacs !== 'number' || !(maxMacs > 0)) {
    throw new InvalidArgumentError('maxMacs', 'a positive number', maxMacs);
  }
  if (!isPositiveInteger(maxPoints)) {
    throw new InvalidArgumentError('maxPoints', 'a positive integer', maxPoints);
  }
  const counts = elementCounts(p);
  const outputs = pass === 'fw' ? counts.y : pass === 'bwData' ? counts.x : counts.w;
  const affordable = Math.floor(maxMacs / Math.max(1, macsPerPoint(p, pass)));
  return Math.max(1, Math.min(maxPoints, outputs, affordable));
}

/**
 * Element strides of one tensor, by logical axis.
 * @internal
 */
export interface Strides5 {
  /** Batch (x, y) or output channel (w). */
  outer: number;
  /** Channel (x, y) or input channel within the group (w). */
  channel: number;
  d: number;
  h: number;
  w: number;
}

/**
 * Dense strides of a tensor with logical shape `[outer, channel, d, h, w]` in a layout.
 * @internal
 */
export function denseStrides(
  layout: Layout,
  channels: number,
  d: number,
  h: number,
  w: number,
): Strides5 {
  if (layout === 'ncdhw') {
    return { outer: channels * d * h * w, channel: d * h * w, d: h * w, h: w, w: 1 };
  }
  return {
    outer: d * h * w * channels,
    channel: 1,
    d: h * w * channels,
    h: w * channels,
    w: channels,
  };
}

/**
 * Everything the loops need, computed once per call.
 * @internal
 */
export interface Geometry {
  n: number;
  cIn: number;
  cOut: number;
  groups: number;
  cpg: number;
  kpg: number;
  inD: number;
  inH: number;
  inW: number;
  outD: number;
  outH: number;
  outW: number;
  kD: number;
  kH: number;
  kW: number;
  padD: number;
  padH: number;
  padW: number;
  strD: number;
  strH: number;
  strW: number;
  dilD: number;
  dilH: number;
  dilW: number;
  xs: Strides5;
  ws: Strides5;
  ys: Strides5;
  counts: { x: number; w: number; y: number };
}

/** @internal */
export function geometry(p: ConvProblem): Geometry {
  validateProblem(p);
  const [outD, outH, outW] = outputDims(p);
  const cpg = p.cIn / p.groups;
  const kpg = p.cOut / p.groups;
  return {
    n: p.n,
    cIn: p.cIn,
    cOut: p.cOut,
    groups: p.groups,
    cpg,
    kpg,
    inD: p.in[0],
    inH: p.in[1],
    inW: p.in[2],
    outD,
    outH,
    outW,
    kD: p.k[0],
    kH: p.k[1],
    kW: p.k[2],
    padD: p.pad[0],
    padH: p.pad[1],
    padW: p.pad[2],
    strD: p.stride[0],
    strH: p.stride[1],
    strW: p.stride[2],
    dilD: p.dil[0],
    dilH: p.dil[1],
    dilW: p.dil[2],
    xs: denseStrides(p.layout, p.cIn, p.in[0], p.in[1], p.in[2]),
    ws: denseStrides(p.layout, cpg, p.k[0], p.k[1], p.k[2]),
    ys: denseStrides(p.layout, p.cOut, outD, outH, outW),
    counts: elementCounts(p),
  };
}
