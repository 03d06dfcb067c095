/** The vocabulary every layer of a plan shares: what a pass reports, a run's scalars. */
import type { MathPrecision } from '../compat.js';

/** What a plan chose for one pass. */
export interface AlgorithmInfo {
  /**
   * 'graph': cuDNN's backend (graph) API with a cached execution plan; 'legacy':
   * cudnnConvolution*; 'native': baracuda's own kernel (depthwise forward, backward-data and
   * NCDHW backward-filter, cuda/depthwise.cu); 'cublaslt': a cuBLASLt matrix product (the
   * patch-embedding route's inner 1×1×1 convolution, exec/lt-gemm.ts).
   */
  readonly path: 'graph' | 'legacy' | 'native' | 'cublaslt';
  /** e.g. `engine 12` or `CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM`. */
  readonly name: string;
  /** Engine global index (graph path). */
  readonly engineIndex?: number;
  /** Knob choices of the engine config (graph path). */
  readonly knobs?: readonly { readonly knob: number; readonly value: number }[];
  readonly numericalNotes: readonly string[];
  readonly workspaceBytes: number;
  readonly deterministic: boolean;
  readonly mathPrecision: MathPrecision;
}

export type { RunScalars } from '../run-args.js';

/** What a pass run another way reports: that way's choice, named as the way it runs. */
export function renamed(info: AlgorithmInfo, suffix: string): AlgorithmInfo {
  return Object.freeze({ ...info, name: `${info.name} ${suffix}` });
}

/** The options select resolved once (see `Conv3dPlanOptions`). */
export interface ResolvedOptions {
  readonly autotuneCachePath: string;
  readonly passes: readonly ('fw' | 'bwData' | 'bwFilter')[];
  readonly onProgress: ((message: string) => void) | undefined;
  readonly ignoreErrata: readonly string[];
  readonly bwDataAsForward: 'tuned' | 'always' | 'never';
  readonly layoutDetour: 'tuned' | 'always' | 'never';
  readonly patchGemm: 'tuned' | 'always' | 'never';
  readonly stemSpaceToDepth: 'tuned' | 'always' | 'never';
  /** Autotune's wall-clock budget per pass, ms; Infinity: none. */
  readonly autotuneBudgetMs: number;
  /** What the heuristic mode does at select: time its first few choices, or take the first. */
  readonly heuristic: 'quick-tune' | 'first';
}

/** What one pass's selection did, for `Conv3dPlan.selectReport()`. */
export interface PassSelection {
  readonly pass: 'fw' | 'bwData' | 'bwFilter';
  /**
   * `'autotune'`: tuned at this select; `'quick-tune'`: the default mode timed its first few
   * choices; `'cache'`: taken from the autotune cache (nothing timed).
   */
  readonly how: 'autotune' | 'quick-tune' | 'cache';
  /** Configs and routes timed (0 for a cache hit). */
  readonly timed: number;
  /** The budget it ran under, ms (`Infinity`: none). */
  readonly budgetMs: number;
  /** Whether the budget ran out before every candidate was timed (the best so far won). */
  readonly budgetCut: boolean;
  /** Wall milliseconds the pass's selection took (the cache lookup included). */
  readonly wallMs: number;
  /** The chosen route's time as timed, ms (undefined when nothing was timed). */
  readonly chosenMs?: number;
}

/** What `Conv3dPlan.select` did (`plan.selectReport()`). */
export interface Conv3dSelectReport {
  /** Wall milliseconds of select, from the call to the plan (tuning and the cache included). */
  readonly wallMs: number;
  /** Per pass that was timed or taken from the autotune cache, in pass order. */
  readonly passes: readonly PassSelection[];
}
