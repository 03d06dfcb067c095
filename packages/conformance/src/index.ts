/**
 * @baracuda/conformance: the f64 CPU reference, the conformance suites and their GPU runner,
 * the demo and the PyTorch benchmark. The bundled CLI is `dist/cli.cjs`.
 */

export {
  type ConvRowSpec,
  checkConv,
  FULL_REFERENCE_MAX_ELEMENTS,
  needsSampling,
  passShapes,
  referencePass,
  referencePassAt,
  sampleIndices,
} from './check/conv.js';
export {
  checkAccumulate,
  checkAdjoint,
  checkBufferTooSmall,
  checkInvalidProblem,
  checkLeaks,
  checkReproducible,
  checkTwoStreams,
  checkWorkspaceTooSmall,
  EXTRAS_CASE,
  EXTRAS_CASE_GROUPED,
  type ExtrasOptions,
  LEAK_DEVICE_SLACK_BYTES,
  LEAK_EXTERNAL_SLACK_BYTES,
  LEAK_RSS_SLACK_BYTES,
  runExtras,
} from './check/extras.js';
export { caseLabel, formatGpuInfo, formatHeader, formatRow } from './check/format.js';
export {
  ALGO_MODES,
  type AlgoMode,
  type GpuApi,
  type GpuBuffer,
  type GpuInfo,
  type GpuOpenResult,
  type GpuPlan,
  type GpuStage,
  type GpuStream,
  type GpuTimer,
  type GpuUnavailable,
  PASSES,
  type Pass,
  type PassOperands,
  type PlanRequest,
  type StageRequest,
} from './check/gpu-api.js';
export {
  countNaN,
  decode,
  encode,
  freshSeed,
  type HostTensor,
  poison,
  Rng,
  randomTensor,
  type Seed,
  type StorageArray,
  stillPoisoned,
  storageArray,
} from './check/host.js';
export {
  type CheckCounts,
  type CheckRow,
  countRows,
  type RowStatus,
  summaryLine,
} from './check/rows.js';
export {
  type BuildCasesOptions,
  buildCases,
  type CheckCase,
  type CheckOptions,
  type CheckReport,
  LARGE_SUITE_DTYPES,
  LAYOUTS,
  runCheck,
  SUITE_NAMES,
  type SuiteName,
} from './check/run.js';
export { type OpenGpuOptions, openGpu } from './check/stack.js';
export {
  ADJOINT_TOLERANCE,
  algorithmAllowed,
  CHECK_DTYPES,
  type CheckDtype,
  DEFAULT_CHECK_DTYPES,
  dtypeAllowed,
  elementBytes,
  storageElement,
  TOLERANCES,
  type Tolerance,
  toleranceFor,
} from './check/tolerances.js';
export { main } from './cli/commands.js';
export * from './reference/index.js';
export * from './stage/index.js';
export * from './suite/index.js';
