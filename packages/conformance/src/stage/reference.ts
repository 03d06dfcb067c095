/**
 * The f64 reference of one U-Net stage training step (shape.ts), chained from the reference's
 * convolution, transposed convolution and epilogue functions. `layer*` compute one layer from
 * given inputs, so a check can feed each layer the GPU's own inputs; `stageForward` and
 * `stageBackward` chain them from the step's inputs. The loss is ⟨y, dy⟩ (dy the upstream gradient).
 */
import {
  type ConvProblem,
  conv3dBackwardData,
  conv3dBackwardFilter,
  conv3dForward,
  convTranspose3dBackwardData,
  convTranspose3dBackwardFilter,
  convTranspose3dForward,
  epilogueBackward,
  epilogueForward,
} from '../reference/index.js';
import { type StageShape, stageConvProblem, stageUpProblem } from './shape.js';

const RELU = { activation: 'relu' } as const;

/** y = relu(conv(x, w) + b). */
export function layerForward(
  p: ConvProblem,
  x: Float64Array,
  w: Float64Array,
  b: Float64Array,
): Float64Array {
  return epilogueForward(p, conv3dForward(p, x, w), { ...RELU, bias: b }).y;
}

/** The backward of {@link layerForward} from its output y: dyPre = dy·relu'(y), db, dx, dw. */
export function layerBackward(
  p: ConvProblem,
  x: Float64Array,
  w: Float64Array,
  y: Float64Array,
  dy: Float64Array,
): { dyPre: Float64Array; db: Float64Array; dx: Float64Array; dw: Float64Array } {
  const { dyPre, dBias } = epilogueBackward(p, dy, y, RELU, true);
  return {
    dyPre,
    db: dBias,
    dx: conv3dBackwardData(p, dyPre, w),
    dw: conv3dBackwardFilter(p, x, dyPre),
  };
}

/** The stage's parameters, each in the shape's layout. */
export interface StageParams {
  readonly w1: Float64Array;
  readonly b1: Float64Array;
  readonly w2: Float64Array;
  readonly b2: Float64Array;
  readonly wd: Float64Array;
  readonly bd: Float64Array;
  readonly wu: Float64Array;
}

/** What the forward pass keeps for the backward. */
export interface StageActivations {
  readonly a1: Float64Array;
  readonly a2: Float64Array;
  readonly a3: Float64Array;
  readonly y: Float64Array;
}

/** Every gradient of the step (and the intermediate ones a check compares too). */
export interface StageGradients {
  readonly da3: Float64Array;
  readonly dwu: Float64Array;
  readonly dp3: Float64Array;
  readonly dbd: Float64Array;
  readonly da2: Float64Array;
  readonly dwd: Float64Array;
  readonly dp2: Float64Array;
  readonly db2: Float64Array;
  readonly da1: Float64Array;
  readonly dw2: Float64Array;
  readonly dp1: Float64Array;
  readonly db1: Float64Array;
  readonly dx: Float64Array;
  readonly dw1: Float64Array;
}

/** The forward pass from x. */
export function stageForward(
  shape: StageShape,
  params: StageParams,
  x: Float64Array,
): StageActivations {
  const full = stageConvProblem(shape, 'conv1');
  const a1 = layerForward(full, x, params.w1, params.b1);
  const a2 = layerForward(full, a1, params.w2, params.b2);
  const a3 = layerForward(stageConvProblem(shape, 'down'), a2, params.wd, params.bd);
  const y = convTranspose3dForward(stageUpProblem(shape), a3, params.wu);
  return { a1, a2, a3, y };
}

/** The backward pass of the loss ⟨y, dy⟩, from the forward's activations. */
export function stageBackward(
  shape: StageShape,
  params: StageParams,
  x: Float64Array,
  acts: StageActivations,
  dy: Float64Array,
): StageGradients {
  const up = stageUpProblem(shape);
  const full = stageConvProblem(shape, 'conv1');
  const da3 = convTranspose3dBackwardData(up, dy, params.wu);
  const dwu = convTranspose3dBackwardFilter(up, acts.a3, dy);
  const down = layerBackward(stageConvProblem(shape, 'down'), acts.a2, params.wd, acts.a3, da3);
  const l2 = layerBackward(full, acts.a1, params.w2, acts.a2, down.dx);
  const l1 = layerBackward(full, x, params.w1, acts.a1, l2.dx);
  return {
    da3,
    dwu,
    dp3: down.dyPre,
    dbd: down.db,
    da2: down.dx,
    dwd: down.dw,
    dp2: l2.dyPre,
    db2: l2.db,
    da1: l2.dx,
    dw2: l2.dw,
    dp1: l1.dyPre,
    db1: l1.db,
    dx: l1.dx,
    dw1: l1.dw,
  };
}
