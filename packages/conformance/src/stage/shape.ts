/**
 * One stage of a 3-D U-Net, as the stage benchmark, the demo and the f64 reference see it:
 *   a1 = relu(conv3(x) + b1)            c → c,     3×3×3, pad 1, full resolution
 *   a2 = relu(conv3(a1) + b2)           c → c,     3×3×3, pad 1
 *   a3 = relu(conv3/2(a2) + bd)         c → cDown, 3×3×3, pad 1, stride 2 (the down convolution)
 *   y  = convTranspose2/2(a3)           cDown → c, 2×2×2, stride 2, no bias (back to full resolution)
 * The transposed convolution carries no bias: its descriptor has no epilogue in this release.
 * Pure data: no GPU, no reference.
 */
import { InvalidArgumentError } from '@baracuda/types';
import type { ConvProblem, Layout, TransposeProblem, Triple } from '../reference/index.js';

/** The stage's sizes. */
export interface StageShape {
  /** Batch. */
  readonly n: number;
  /** Channels at full resolution (input, the two convolutions, the output). */
  readonly c: number;
  /** Channels after the down convolution. */
  readonly cDown: number;
  /** Full-resolution extents `[D, H, W]`, each even. */
  readonly size: Triple;
  readonly layout: Layout;
}

/** The stage's layers, in forward order. */
export const STAGE_LAYERS = ['conv1', 'conv2', 'down', 'up'] as const;
export type StageLayer = (typeof STAGE_LAYERS)[number];

/** Every tensor of one training step: inputs, parameters, activations and gradients. */
export const STAGE_TENSORS = [
  'x',
  'w1',
  'b1',
  'a1',
  'w2',
  'b2',
  'a2',
  'wd',
  'bd',
  'a3',
  'wu',
  'y',
  'dy',
  'da3',
  'dwu',
  'dp3',
  'dbd',
  'da2',
  'dwd',
  'dp2',
  'db2',
  'da1',
  'dw2',
  'dp1',
  'db1',
  'dx',
  'dw1',
] as const;
export type StageTensor = (typeof STAGE_TENSORS)[number];

/** The tensors a training step writes (the rest are its inputs). */
export const STAGE_OUTPUTS: readonly StageTensor[] = [
  'a1',
  'a2',
  'a3',
  'y',
  'da3',
  'dwu',
  'dp3',
  'dbd',
  'da2',
  'dwd',
  'dp2',
  'db2',
  'da1',
  'dw2',
  'dp1',
  'db1',
  'dx',
  'dw1',
];

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidArgumentError(name, 'a positive integer', value);
  }
  return value;
}

/** Check a shape: positive integers, even extents, a layout. Returns it. */
export function checkStageShape(shape: StageShape): StageShape {
  positive('n', shape.n);
  positive('c', shape.c);
  positive('cDown', shape.cDown);
  if (!Array.isArray(shape.size) || shape.size.length !== 3) {
    throw new InvalidArgumentError('size', 'three extents [D, H, W]', shape.size);
  }
  for (const [i, axis] of ['D', 'H', 'W'].entries()) {
    const extent = positive(`size${axis}`, shape.size[i]);
    if (extent % 2 !== 0) {
      throw new InvalidArgumentError(
        `size${axis}`,
        'an even extent (the down convolution halves it, the up convolution doubles it back)',
        extent,
      );
    }
  }
  if (shape.layout !== 'ncdhw' && shape.layout !== 'ndhwc') {
    throw new InvalidArgumentError('layout', "'ncdhw' or 'ndhwc'", shape.layout);
  }
  return shape;
}

const ONE: Triple = [1, 1, 1];
const TWO: Triple = [2, 2, 2];
const THREE: Triple = [3, 3, 3];

/** The half-resolution extents after the down convolution. */
export function downSize(shape: StageShape): Triple {
  return [shape.size[0] / 2, shape.size[1] / 2, shape.size[2] / 2];
}

/** The convolution problems of conv1, conv2 (same problem) and down. */
export function stageConvProblem(
  shape: StageShape,
  layer: 'conv1' | 'conv2' | 'down',
): ConvProblem {
  checkStageShape(shape);
  const down = layer === 'down';
  return {
    n: shape.n,
    cIn: shape.c,
    cOut: down ? shape.cDown : shape.c,
    in: shape.size,
    k: THREE,
    pad: ONE,
    stride: down ? TWO : ONE,
    dil: ONE,
    groups: 1,
    layout: shape.layout,
  };
}

/** The transposed convolution back to full resolution. */
export function stageUpProblem(shape: StageShape): TransposeProblem {
  checkStageShape(shape);
  return {
    n: shape.n,
    cIn: shape.cDown,
    cOut: shape.c,
    in: downSize(shape),
    k: TWO,
    pad: [0, 0, 0],
    stride: TWO,
    dil: ONE,
    groups: 1,
    layout: shape.layout,
  };
}

/** Element count of every tensor of the step. */
export function stageElementCounts(shape: StageShape): Readonly<Record<StageTensor, number>> {
  checkStageShape(shape);
  const full = shape.n * shape.c * shape.size[0] * shape.size[1] * shape.size[2];
  const half = (shape.n * shape.cDown * shape.size[0] * shape.size[1] * shape.size[2]) / 8;
  const w = shape.c * shape.c * 27;
  const wd = shape.cDown * shape.c * 27;
  const wu = shape.cDown * shape.c * 8;
  return {
    x: full,
    w1: w,
    b1: shape.c,
    a1: full,
    w2: w,
    b2: shape.c,
    a2: full,
    wd,
    bd: shape.cDown,
    a3: half,
    wu,
    y: full,
    dy: full,
    da3: half,
    dwu: wu,
    dp3: half,
    dbd: shape.cDown,
    da2: full,
    dwd: wd,
    dp2: full,
    db2: shape.c,
    da1: full,
    dw2: w,
    dp1: full,
    db1: shape.c,
    dx: full,
    dw1: w,
  };
}

/** Multiply-accumulates of one training step (forward, backward-data of every layer, every weight gradient). */
export function stageMacs(shape: StageShape): number {
  const counts = stageElementCounts(shape);
  const conv = counts.a1 * shape.c * 27;
  const down = counts.a3 * shape.c * 27;
  const up = counts.a3 * shape.c * 8;
  return 3 * (2 * conv + down + up);
}

/** e.g. `n=2 c=32→64 64×64×64 ndhwc`. */
export function describeStage(shape: StageShape): string {
  return `n=${shape.n} c=${shape.c}→${shape.cDown} ${shape.size.join('×')} ${shape.layout}`;
}
