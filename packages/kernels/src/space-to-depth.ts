/**
 * Space-to-depth routes: a convolution rewritten as another convolution on a tensor whose blocks
 * of B_d×B_h×B_w positions are folded into channels (the math; exec/space-to-depth.ts runs it).
 *
 * - Patch embedding (kernel = stride on every axis, padding 0, dilation 1, groups 1): blocks of
 *   the kernel's size, and the inner problem is a 1×1×1 convolution on C·kd·kh·kw channels, a GEMM.
 * - The stem (stride 2 on every axis, a small cIn, any padding): 2×2×2 blocks, and the inner
 *   problem is a stride-1 convolution on 8·cIn channels with kernel ceil(k / 2) and no padding.
 *
 * The transformed tensor keeps the caller's layout, with its channels in the order of the
 * filter's memory: NCDHW `[n, c, φd, φh, φw, jd, jh, jw]`, NDHWC `[n, jd, jh, jw, φd, φh, φw, c]`
 * (φ the position in the block, j the block), so a patch's filter needs no rearrangement at all.
 * Position j·B + φ − P of the original axis sits at (j, φ); the stem's padding P is materialized
 * by the transform (zeros), so the inner convolution has none. Proof: y[o] = Σ_t x[2o + t − P]·w[t];
 * with 2o + t − P = 2j + φ − P, j = o + u and t = 2u + φ, that is Σ_{u,φ} x'[o + u, φ]·w'[u, φ],
 * w'[u, φ] = w[2u + φ] (zero for 2u + φ ≥ k): a stride-1 convolution with kernel ceil(k / 2) over
 * J = O + ceil(k / 2) − 1 blocks (space-to-depth.test.ts checks it against a direct convolution).
 */
import { ElementKind } from '@baracuda/types';
import { Conv3dDescriptor } from './descriptor.js';
import { isAsymmetric } from './padding.js';

/** The widest cIn the stem route takes: 8·cIn ≤ 32 channels is where the fold buys tensor-core K. */
export const STEM_MAX_CIN = 4;

type Triple = readonly [number, number, number];

const FLOATS: readonly ElementKind[] = [
  ElementKind.F32,
  ElementKind.F64,
  ElementKind.F16,
  ElementKind.Bf16,
];

/**
 * cuda/space-to-depth.cu's gather: out (dense, `dims` outermost first) from in. Each out index
 * i_k adds `strides[k]·i_k` to the in offset (from `base`) and, for a spatial dim, `mul[k]·i_k` to
 * its axis's coordinate (from −pad); a coordinate outside [0, extent) reads zero.
 */
export interface GatherMap {
  readonly dims: readonly number[];
  readonly strides: readonly number[];
  /** 0, 1, 2: the spatial axis the dim adds to; -1: none. */
  readonly axis: readonly number[];
  readonly mul: readonly number[];
  readonly pad: Triple;
  readonly extent: Triple;
  readonly base: number;
  readonly total: number;
}

/**
 * cuda/space-to-depth.cu's inverse: out (the original tensor, dense, `dims` outermost first) from
 * in (the transformed one). A spatial coordinate s sits at block j = (s + pad) / block, phase
 * (s + pad) % block; j ≥ count means no element of in holds it (an uncovered position: zeroed,
 * kept or scaled, see `InverseMode`). A plain dim adds `strides[k]·i_k`.
 */
export interface InverseMap {
  readonly dims: readonly number[];
  readonly strides: readonly number[];
  readonly axis: readonly number[];
  readonly pad: Triple;
  readonly block: Triple;
  readonly count: Triple;
  readonly blockStride: Triple;
  readonly phaseStride: Triple;
  readonly total: number;
  /** Some position of out is uncovered. */
  readonly partial: boolean;
}

/** What the inverse writes at an uncovered position: 0 bits, nothing, or beta times itself. */
export enum InverseMode {
  Zero = 0,
  Keep = 1,
  Scale = 2,
}

/** One operand's transform both ways. */
export interface OperandTransform {
  readonly gather: GatherMap;
  readonly inverse: InverseMap;
  /** Elements of the transformed tensor. */
  readonly elements: number;
}

const product = (v: readonly number[]) => v.reduce((a, b) => a * b, 1);

/**
 * The transforms of one tensor of `outer` × `channels` × extents `extent` (the caller's layout),
 * folded in blocks `block` into `count` blocks per axis, position j·block + φ − pad.
 */
export function operandTransform(
  layout: 'ncdhw' | 'ndhwc',
  outer: number,
  channels: number,
  extent: Triple,
  block: Triple,
  count: Triple,
  pad: Triple,
): OperandTransform {
  const ndhwc = layout === 'ndhwc';
  const spatial = product(extent);
  // The original tensor's strides.
  const sOuter = channels * spatial;
  const sChan = ndhwc ? 1 : spatial;
  const sAxis = [0, 1, 2].map((a) =>
    ndhwc ? product(extent.slice(a + 1)) * channels : product(extent.slice(a + 1)),
  );
  // The transformed tensor: its dims in order, each [kind, axis, extent].
  type Dim = readonly ['n' | 'c' | 'j' | 'p', number, number];
  const j = [0, 1, 2].map((a): Dim => ['j', a, count[a]!]);
  const p = [0, 1, 2].map((a): Dim => ['p', a, block[a]!]);
  const n: Dim = ['n', -1, outer];
  const c: Dim = ['c', -1, channels];
  const order: Dim[] = ndhwc ? [n, ...j, ...p, c] : [n, c, ...p, ...j];
  const tStrides = order.map((_, k) => product(order.slice(k + 1).map((d) => d[2])));
  const tStride = (kind: Dim[0], axis: number) =>
    tStrides[order.findIndex((d) => d[0] === kind && d[1] === axis)]!;
  const gather: GatherMap = {
    dims: order.map((d) => d[2]),
    strides: order.map(([kind, a]) =>
      kind === 'n'
        ? sOuter
        : kind === 'c'
          ? sChan
          : kind === 'j'
            ? block[a]! * sAxis[a]!
            : sAxis[a]!,
    ),
    axis: order.map((d) => d[1]),
    mul: order.map(([kind, a]) => (kind === 'j' ? block[a]! : kind === 'p' ? 1 : 0)),
    pad,
    extent,
    base: -(pad[0] * sAxis[0]! + pad[1] * sAxis[1]! + pad[2] * sAxis[2]!),
    total: product(order.map((d) => d[2])),
  };
  const oDims = ndhwc ? [outer, ...extent, channels] : [outer, channels, ...extent];
  const oAxis = ndhwc ? [-1, 0, 1, 2, -1] : [-1, -1, 0, 1, 2];
  const inverse: InverseMap = {
    dims: oDims,
    strides: oAxis.map((a, k) => (a >= 0 ? 0 : k === 0 ? tStride('n', -1) : tStride('c', -1))),
    axis: oAxis,
    pad,
    block,
    count,
    blockStride: [tStride('j', 0), tStride('j', 1), tStride('j', 2)],
    phaseStride: [tStride('p', 0), tStride('p', 1), tStride('p', 2)],
    total: product(oDims),
    partial: [0, 1, 2].some((a) => count[a]! * block[a]! - pad[a]! < extent[a]!),
  };
  return { gather, inverse, elements: gather.total };
}

/** A space-to-depth route of one problem: the inner problem and the transforms around it. */
export interface SpaceToDepthRoute {
  readonly kind: 'patch' | 'stem';
  /** The inner problem: a 1×1×1 (patch) or stride-1 unpadded (stem) convolution. */
  readonly inner: Conv3dDescriptor;
  /** x (dx) into the inner problem's x (dx), and back. */
  readonly x: OperandTransform;
  /** The filter's; null where the inner filter is the same bytes (a patch). */
  readonly w: OperandTransform | null;
}

/** Whether the inner problem is one cuDNN takes (a 32-bit extent or stride overflow is not). */
function valid(inner: Conv3dDescriptor): boolean {
  try {
    inner.validate();
    return true;
  } catch {
    return false;
  }
}

function plainConv(d: Conv3dDescriptor): boolean {
  return (
    d.groups === 1 &&
    d.dilationD === 1 &&
    d.dilationH === 1 &&
    d.dilationW === 1 &&
    // The folds are written for one padding per axis (before = after).
    !isAsymmetric(d) &&
    FLOATS.includes(d.element)
  );
}

/**
 * The patch-embedding route where it applies: kernel = stride per axis (not all 1), padding 0,
 * dilation 1, groups 1. Trailing input positions no patch covers are left out (PyTorch floors).
 */
export function patchRoute(d: Conv3dDescriptor): SpaceToDepthRoute | null {
  const k: Triple = [d.dFilt, d.hFilt, d.wFilt];
  if (!plainConv(d)) return null;
  if (d.strideD !== k[0] || d.strideH !== k[1] || d.strideW !== k[2]) return null;
  if (d.padD !== 0 || d.padH !== 0 || d.padW !== 0) return null;
  if (k[0] * k[1] * k[2] === 1) return null;
  const o = d.outputDims() as unknown as Triple;
  if (o.some((v) => v < 1)) return null;
  const inner = Conv3dDescriptor.create({
    batch: d.batch,
    cIn: d.cIn * k[0] * k[1] * k[2],
    dIn: o[0],
    hIn: o[1],
    wIn: o[2],
    cOut: d.cOut,
    dFilt: 1,
    hFilt: 1,
    wFilt: 1,
    element: d.element,
  }).withLayout(d.layout);
  if (!valid(inner)) return null;
  const x = operandTransform(d.layout, d.batch, d.cIn, [d.dIn, d.hIn, d.wIn], k, o, [0, 0, 0]);
  return { kind: 'patch', inner, x, w: null };
}

/**
 * The stem route where it applies: stride 2 on every axis, cIn ≤ {@link STEM_MAX_CIN}, dilation
 * 1, groups 1, a kernel of at least 3 on some axis (so never a patch) and padding below the
 * kernel on every axis.
 */
export function stemRoute(d: Conv3dDescriptor): SpaceToDepthRoute | null {
  if (!plainConv(d) || d.cIn > STEM_MAX_CIN) return null;
  if (d.strideD !== 2 || d.strideH !== 2 || d.strideW !== 2) return null;
  const k: Triple = [d.dFilt, d.hFilt, d.wFilt];
  const pad: Triple = [d.padD, d.padH, d.padW];
  if (Math.max(...k) < 3 || pad.some((p, a) => p >= k[a]!)) return null;
  const o = d.outputDims() as unknown as Triple;
  if (o.some((v) => v < 1)) return null;
  const kk = k.map((v) => Math.ceil(v / 2)) as unknown as Triple;
  const count = o.map((v, a) => v + kk[a]! - 1) as unknown as Triple;
  const inner = Conv3dDescriptor.create({
    batch: d.batch,
    cIn: d.cIn * 8,
    dIn: count[0],
    hIn: count[1],
    wIn: count[2],
    cOut: d.cOut,
    dFilt: kk[0],
    hFilt: kk[1],
    wFilt: kk[2],
    element: d.element,
  }).withLayout(d.layout);
  if (!valid(inner)) return null;
  const two: Triple = [2, 2, 2];
  const x = operandTransform(d.layout, d.batch, d.cIn, [d.dIn, d.hIn, d.wIn], two, count, pad);
  const w = operandTransform(d.layout, d.cOut, d.cIn, k, two, kk, [0, 0, 0]);
  return { kind: 'stem', inner, x, w };
}
