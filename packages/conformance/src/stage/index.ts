/** The U-Net stage training step: its shape, f64 reference, GPU step and check. */
export {
  BENCH_SALTS,
  type BenchInput,
  benchDims,
  benchInput,
  benchSampleIndices,
  benchScale,
  benchStorageIndex,
  benchValue,
} from './bench-inputs.js';
export {
  checkStageStep,
  STAGE_FILTER_POINTS,
  STAGE_POINTS,
  type StageCheckRow,
  upAsConvolution,
} from './check.js';
export {
  layerBackward,
  layerForward,
  type StageActivations,
  type StageGradients,
  type StageParams,
  stageBackward,
  stageForward,
} from './reference.js';
export {
  checkStageShape,
  describeStage,
  downSize,
  STAGE_LAYERS,
  STAGE_OUTPUTS,
  STAGE_TENSORS,
  type StageLayer,
  type StageShape,
  type StageTensor,
  stageConvProblem,
  stageElementCounts,
  stageMacs,
  stageUpProblem,
} from './shape.js';
export {
  type StageAlgorithm,
  type StageBuffer,
  type StageDtype,
  type StageKernels,
  type StageOp,
  type StageOptions,
  stageElementBytes,
  UnetStage,
} from './unet-stage.js';
