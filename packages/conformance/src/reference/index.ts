export {
  convTranspose3dBackwardData,
  convTranspose3dBackwardFilter,
  convTranspose3dForward,
  type TransposeProblem,
  transposeElementCounts,
  transposeOutputDims,
  transposeOutputExtent,
} from './conv-transpose3d.js';
export {
  conv3dBackwardData,
  conv3dBackwardDataAt,
  conv3dBackwardFilter,
  conv3dBackwardFilterAt,
  conv3dForward,
  conv3dForwardAt,
} from './conv3d.js';
export {
  type ActivationSpec,
  activate,
  activationDerivative,
  activationDerivativeFromOutput,
  type EpilogueActivationName,
  type EpilogueSpec,
  epilogueBackward,
  epilogueForward,
  erf,
  FROM_OUTPUT,
} from './epilogue.js';
export { convertLayout, type TensorRole } from './layout.js';
export { adjointMismatch, dot, maxAbsDiff, relL2 } from './metrics.js';
export {
  type ConvPass,
  type ConvProblem,
  elementCounts,
  type Layout,
  macs,
  macsPerPoint,
  outputDims,
  outputExtent,
  pointsWithinBudget,
  type Triple,
  validateProblem,
} from './problem.js';
export { randomArray, seededRandom } from './random.js';
export {
  type ChannelTensor,
  convInput,
  epilogueBackwardOn,
  epilogueForwardOn,
  inputActivationBackward,
  transposeInput,
  transposeOutput,
} from './tails.js';
