export {
  AUTOTUNE_CACHE_VERSION,
  type AutotuneCacheFile,
  type AutotuneEntry,
  autotuneKey,
  defaultAutotuneCachePath,
  readAutotuneCache,
} from './autotune-cache.js';
export { releaseCudnnHandles } from './cudnn/handle.js';
export {
  type AsymmetricPadding,
  Conv3dDescriptor,
  type Conv3dLayout,
  type Conv3dProblem,
  convOutputExtent,
  INT32_MAX,
  type PaddingSpec,
  stridesFor,
} from './descriptor.js';
export {
  Epilogue,
  type EpilogueActivation,
  type EpilogueBackwardInput,
  type EpilogueOptions,
  type InputActivationOptions,
} from './epilogue/epilogue.js';
export {
  CONV3D_ERRATA,
  type CudnnVersionCode,
  type Erratum,
  type ErratumAction,
  errataFor,
  erratumPinnedRefusal,
  erratumRefusal,
  formatCudnnVersion,
} from './errata.js';
export type {
  ConvTranspose3dBwDataArgs,
  ConvTranspose3dBwEpilogueArgs,
  ConvTranspose3dDwArgs,
  ConvTranspose3dFwArgs,
} from './plan/transpose-arguments.js';
export {
  type AlgorithmInfo,
  type Conv3dBwDataArgs,
  type Conv3dBwEpilogueArgs,
  type Conv3dDwArgs,
  type Conv3dFwArgs,
  type Conv3dPass,
  Conv3dPlan,
  type Conv3dPlanOptions,
  type Conv3dSelectReport,
  type Conv3dTensorArg,
  type PassSelection,
} from './plan.js';
export {
  engineAllowed,
  engineRejection,
  intendedMathPrecision,
  MAX_ROTATION_SETS,
  mathPrecisionOfEngine,
  median,
  numericalNoteName,
  pickLegacyAlgorithm,
  pinnedMathType,
  ROTATE_BELOW_BYTES,
  rotationSets,
  tuneRotationSets,
} from './policy.js';
export { ConvTranspose3dDescriptor, type ConvTranspose3dProblem } from './transpose-descriptor.js';
export { ConvTranspose3dPlan } from './transpose-plan.js';
