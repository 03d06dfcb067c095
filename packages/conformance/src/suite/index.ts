export { ASYM_PAD_SUITE, TRANSPOSE_SUITE, type TransposeCase } from './conv-family.js';
export {
  DEFAULT_SUITES,
  type DefaultSuiteName,
  GROUPED_SUITE,
  LARGE_DTYPES,
  LARGE_ELEMENTS,
  LARGE_SAMPLE_POINTS,
  LARGE_SUITE,
  ODD_SUITE,
  SHARED_SCALED_BUDGET_MACS,
  SHARED_SCALED_REDUCTIONS,
  SHARED_SCALED_SUITE,
  SHARED_SUITE,
  TINY_SUITE,
} from './defaults.js';
export {
  formatCase,
  loadSuite,
  parseCase,
  type SuiteCase,
  toProblem,
} from './load.js';
export { caseMacs, largestTensorElements, type ReducedCase, reduceCase } from './reduce.js';
export { SHARED_SUITE_SOURCE } from './shared-suite.js';
