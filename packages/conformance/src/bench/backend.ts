/**
 * What the bench runner needs from a GPU, as an interface, so the runner's logic (modes, caps,
 * budgets, error recording) is testable in CI with a fake, and the CUDA side stays in one file.
 */
import type {
  BenchCase,
  BenchDtype,
  BenchGroup,
  BenchLayout,
  BenchMode,
  BenchPass,
  CudnnIdentity,
  PassSelectionInfo,
} from './types.js';

/** @internal */
export interface BenchBackend {
  /** e.g. `NVIDIA H200 (sm_90, 132 SMs)`. */
  readonly deviceName: string;
  /** The cuDNN our side loaded. */
  readonly cudnn: CudnnIdentity;
  /** Median (bytes read + bytes written) / s of a large device-to-device copy. */
  measureCopyBandwidth(): Promise<number>;
  /** Allocate and fill the group's rotation sets. */
  openGroup(group: BenchGroup): Promise<GroupSession>;
  dispose(): void;
}

/** @internal */
export interface GroupSession {
  /** Select a plan in this mode; throws UnsupportedError when the mode cannot run the problem. */
  selectPlan(mode: BenchMode): Promise<PlanSession>;
  dispose(): void;
}

/** @internal */
export interface PlanSession {
  /** The algorithm or engine the plan chose for a pass, for the report. */
  algorithm(pass: BenchPass): string | undefined;
  /** What select did for a pass (timed, budget, cut), when the plan says. */
  selection?(pass: BenchPass): PassSelectionInfo | undefined;
  /**
   * Enqueue `warmup` untimed calls, then `reps` calls each between a pair of CUDA events, rotating
   * the input/output sets; resolve with each timed call's milliseconds.
   */
  time(pass: BenchPass, warmup: number, reps: number): Promise<number[]>;
  /**
   * Host µs per call of `calls` back-to-back calls with no sync in between, once per trial
   * (synchronizing between trials).
   */
  hostOverhead(pass: BenchPass, calls: number, trials: number): Promise<number[]>;
  dispose(): void;
}

/** @internal */
export interface BackendFactoryResult {
  backend?: BenchBackend;
  /** Why no backend: no driver, no GPU, no cuDNN. */
  unavailable?: string;
}

/** The GEMM-shaped conv whose achieved FLOP/s stands in for the compute peak. */
export const PEAK_GEMM_CASE: BenchCase = {
  name: 'peak-gemm-1x1x1',
  n: 1,
  cIn: 4096,
  cOut: 4096,
  in: [1, 64, 64],
  k: [1, 1, 1],
  pad: [0, 0, 0],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
};

/** Layouts tried for the GEMM-shaped peak of a dtype (the best one counts). */
export function peakLayouts(dtype: BenchDtype): BenchLayout[] {
  return dtype === 'f16' || dtype === 'bf16' ? ['ndhwc', 'ncdhw'] : ['ncdhw'];
}
