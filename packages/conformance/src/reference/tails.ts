/**
 * f64 reference of the conv family's tails on any tensor of channels, not only a convolution's y:
 * a transposed convolution's epilogue (y = act(convT + bias[c] + z)) and its backward, and an
 * input activation's backward after backward-data (dxPre = dx · act'(saved), the saved tensor the
 * activation's output or its pre-activation). Each is the epilogue reference (epilogue.ts) on the
 * 1×1×1 convolution whose y is that tensor, so the channel arithmetic is written once.
 */
import { type TransposeProblem, transposeOutputDims } from './conv-transpose3d.js';
import {
  type ActivationSpec,
  type EpilogueSpec,
  epilogueBackward,
  epilogueForward,
} from './epilogue.js';
import type { ConvProblem, Layout, Triple } from './problem.js';

/** A tensor `[n, c, dims]` in `layout`. */
export interface ChannelTensor {
  readonly n: number;
  readonly c: number;
  readonly dims: Triple;
  readonly layout: Layout;
}

/** The 1×1×1 convolution whose output is `t`. */
function pointwiseProblem(t: ChannelTensor): ConvProblem {
  return {
    n: t.n,
    cIn: t.c,
    cOut: t.c,
    in: t.dims,
    k: [1, 1, 1],
    pad: [0, 0, 0],
    stride: [1, 1, 1],
    dil: [1, 1, 1],
    groups: 1,
    layout: t.layout,
  };
}

/** A convolution's input x (what its backward-data writes). */
export function convInput(p: ConvProblem): ChannelTensor {
  return { n: p.n, c: p.cIn, dims: p.in, layout: p.layout };
}
/** A transposed convolution's output y. */
export function transposeOutput(p: TransposeProblem): ChannelTensor {
  return { n: p.n, c: p.cOut, dims: transposeOutputDims(p), layout: p.layout };
}
/** A transposed convolution's input x (what its backward-data writes). */
export function transposeInput(p: TransposeProblem): ChannelTensor {
  return { n: p.n, c: p.cIn, dims: p.in, layout: p.layout };
}

/** y = act(t + bias[c] + z) on the tensor `t` holds, and the pre-activation. */
export function epilogueForwardOn(
  t: ChannelTensor,
  value: Float64Array,
  spec: EpilogueSpec,
): { y: Float64Array; pre: Float64Array } {
  return epilogueForward(pointwiseProblem(t), value, spec);
}

/** dyPre = dy · act'(saved), dBias = Σ dyPre per channel, on `t` (see epilogueBackward). */
export function epilogueBackwardOn(
  t: ChannelTensor,
  dy: Float64Array,
  saved: Float64Array,
  spec: ActivationSpec,
  fromOutput = false,
): { dyPre: Float64Array; dBias: Float64Array } {
  return epilogueBackward(pointwiseProblem(t), dy, saved, spec, fromOutput);
}

/**
 * An input activation's backward after backward-data: dx · act'(saved) element-wise, `saved` the
 * activation's output (`fromOutput`: relu, sigmoid, tanh, clamp) or its pre-activation.
 */
export function inputActivationBackward(
  t: ChannelTensor,
  dx: Float64Array,
  saved: Float64Array,
  spec: ActivationSpec,
  fromOutput = false,
): Float64Array {
  return epilogueBackward(pointwiseProblem(t), dx, saved, spec, fromOutput).dyPre;
}
