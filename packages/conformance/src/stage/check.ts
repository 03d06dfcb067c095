/**
 * Check every tensor a stage step wrote (shape.ts) against the f64 reference, layer by layer: each
 * layer's reference is computed from the GPU's own inputs to that layer (the activation or
 * gradient the previous layer wrote), so each comparison holds one layer's rounding, never the
 * drift of the whole chain, and the documented per-dtype tolerance applies. The convolutions are
 * compared on sampled points (the reference's `…At` functions); the transposed convolution's
 * passes are those of the equivalent convolution (its forward is that convolution's
 * backward-data); the epilogue's dyPre and dBias in full.
 */
import {
  type ConvProblem,
  conv3dBackwardDataAt,
  conv3dBackwardFilterAt,
  conv3dForwardAt,
  relL2,
} from '../reference/index.js';
import { type StageShape, type StageTensor, stageConvProblem, stageUpProblem } from './shape.js';

/** One compared tensor. */
export interface StageCheckRow {
  readonly tensor: StageTensor;
  /** Relative L2 error on the compared points (Infinity where the reference is all zero). */
  readonly error: number;
  /** How many points were compared. */
  readonly points: number;
  /** NaN elements anywhere in the tensor (unwritten, still poisoned, or computed NaN). */
  readonly unwritten: number;
}

/** Points compared per tensor of a forward or backward-data pass. */
export const STAGE_POINTS = 4096;
/**
 * Points compared per weight gradient: each costs a sum over the batch and the volume (2·64³
 * products at the benchmark's stage), and any wrong tap or channel shows on a few dozen.
 */
export const STAGE_FILTER_POINTS = 128;

/** The convolution whose backward-data is the up convolution's forward (weights shared as stored). */
export function upAsConvolution(shape: StageShape): ConvProblem {
  const u = stageUpProblem(shape);
  return {
    n: u.n,
    cIn: u.cOut,
    cOut: u.cIn,
    in: shape.size,
    k: u.k,
    pad: u.pad,
    stride: u.stride,
    dil: u.dil,
    groups: 1,
    layout: shape.layout,
  };
}

function channelAt(p: ConvProblem, count: number, i: number): number {
  if (p.layout === 'ndhwc') return i % p.cOut;
  return Math.floor(i / (count / (p.n * p.cOut))) % p.cOut;
}

function countNaN(a: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Number.isNaN(a[i])) n++;
  return n;
}

/**
 * Compare the step's outputs. `get(name)` gives a tensor's values as the GPU stored them (f32 or
 * f64, in the shape's layout); `pick(count, points)` chooses the sampled flat indices.
 */
export function checkStageStep(
  shape: StageShape,
  get: (name: StageTensor) => ArrayLike<number>,
  pick: (count: number, points: number) => readonly number[],
): StageCheckRow[] {
  const full = stageConvProblem(shape, 'conv1');
  const down = stageConvProblem(shape, 'down');
  const up = upAsConvolution(shape);
  const rows: StageCheckRow[] = [];
  const compare = (
    tensor: StageTensor,
    points: number,
    reference: (indices: readonly number[]) => Float64Array,
  ) => {
    const got = get(tensor);
    const indices = pick(got.length, points);
    const want = reference(indices);
    const sampled = Float64Array.from(indices, (i) => got[i]!);
    rows.push({
      tensor,
      error: relL2(sampled, want),
      points: indices.length,
      unwritten: countNaN(got),
    });
  };
  const layerForward = (
    tensor: StageTensor,
    p: ConvProblem,
    x: StageTensor,
    w: StageTensor,
    b: StageTensor,
  ) =>
    compare(tensor, STAGE_POINTS, (indices) => {
      const conv = conv3dForwardAt(p, get(x), get(w), indices);
      const bias = get(b);
      const count = get(tensor).length;
      return conv.map((v, j) => Math.max(0, v + bias[channelAt(p, count, indices[j]!)]!));
    });
  /** dyPre = dy·relu'(y) in full, dBias = Σ dyPre per channel, then the layer's dx and dw. */
  const layerBackward = (
    p: ConvProblem,
    names: { dy: StageTensor; y: StageTensor; dyPre: StageTensor; dBias: StageTensor },
    data: { x: StageTensor; w: StageTensor; dx: StageTensor; dw: StageTensor },
  ) => {
    // One pass over the tensor: the reference dyPre (no copy of it kept), its error and dBias.
    const dy = get(names.dy);
    const y = get(names.y);
    const got = get(names.dyPre);
    const dBias = new Float64Array(p.cOut);
    const inner = p.layout === 'ndhwc' ? 1 : dy.length / (p.n * p.cOut);
    let num = 0;
    let den = 0;
    for (let i = 0, c = 0, k = 0; i < dy.length; i++) {
      const want = y[i]! > 0 ? dy[i]! : 0;
      const e = got[i]! - want;
      num += e * e;
      den += want * want;
      dBias[c]! += want;
      if (++k === inner) {
        k = 0;
        c = c + 1 === p.cOut ? 0 : c + 1;
      }
    }
    rows.push({
      tensor: names.dyPre,
      error: den === 0 ? Number.POSITIVE_INFINITY : Math.sqrt(num / den),
      points: dy.length,
      unwritten: countNaN(got),
    });
    compare(names.dBias, p.cOut, (indices) => Float64Array.from(indices, (i) => dBias[i]!));
    compare(data.dx, STAGE_POINTS, (indices) =>
      conv3dBackwardDataAt(p, get(names.dyPre), get(data.w), indices),
    );
    compare(data.dw, STAGE_FILTER_POINTS, (indices) =>
      conv3dBackwardFilterAt(p, get(data.x), get(names.dyPre), indices),
    );
  };
  layerForward('a1', full, 'x', 'w1', 'b1');
  layerForward('a2', full, 'a1', 'w2', 'b2');
  layerForward('a3', down, 'a2', 'wd', 'bd');
  compare('y', STAGE_POINTS, (indices) => conv3dBackwardDataAt(up, get('a3'), get('wu'), indices));
  compare('da3', STAGE_POINTS, (indices) => conv3dForwardAt(up, get('dy'), get('wu'), indices));
  compare('dwu', STAGE_FILTER_POINTS, (indices) =>
    conv3dBackwardFilterAt(up, get('dy'), get('a3'), indices),
  );
  layerBackward(
    down,
    { dy: 'da3', y: 'a3', dyPre: 'dp3', dBias: 'dbd' },
    { x: 'a2', w: 'wd', dx: 'da2', dw: 'dwd' },
  );
  layerBackward(
    full,
    { dy: 'da2', y: 'a2', dyPre: 'dp2', dBias: 'db2' },
    { x: 'a1', w: 'w2', dx: 'da1', dw: 'dw2' },
  );
  layerBackward(
    full,
    { dy: 'da1', y: 'a1', dyPre: 'dp1', dBias: 'db1' },
    { x: 'x', w: 'w1', dx: 'dx', dw: 'dw1' },
  );
  return rows;
}
