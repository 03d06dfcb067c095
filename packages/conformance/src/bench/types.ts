/**
 * Data shapes of the benchmark: what a row is, what a measurement is, what a report holds.
 * Pure data, no GPU.
 */
import type { SuiteCase } from '../suite/index.js';

/** The dtypes the bench covers. `tf32` is f32 storage with TF32 tensor-core math allowed. */
export type BenchDtype = 'f32' | 'tf32' | 'f16' | 'bf16' | 'f64';
/** Memory layouts of activations. */
export type BenchLayout = 'ncdhw' | 'ndhwc';
/** The three convolution passes. */
export type BenchPass = 'fw' | 'bwData' | 'bwFilter';
/** Algorithm modes of `Conv3dPlan` (`PlanPreference.algorithm`). */
export type BenchMode = 'pinned' | 'heuristic' | 'autotune';
/** Where our timed calls write: one output per group, or one per input set. */
export type BenchOutputs = 'shared' | 'rotated';

export const ALL_DTYPES: readonly BenchDtype[] = ['f32', 'tf32', 'f16', 'bf16', 'f64'];
export const ALL_LAYOUTS: readonly BenchLayout[] = ['ncdhw', 'ndhwc'];
export const ALL_PASSES: readonly BenchPass[] = ['fw', 'bwData', 'bwFilter'];
export const ALL_MODES: readonly BenchMode[] = ['pinned', 'heuristic', 'autotune'];

/** One convolution shape: a case of a suite (the bench takes the suite loader's cases as they are). */
export type BenchCase = SuiteCase;

/** A case at one dtype and layout: the unit that shares buffers and plans across passes. */
export interface BenchGroup {
  case: BenchCase;
  dtype: BenchDtype;
  layout: BenchLayout;
  passes: BenchPass[];
  /** How many input/output sets to rotate among so the working set exceeds L2. */
  sets: number;
}

/** One row of the report: case × dtype × layout × pass. */
export interface BenchRowKey {
  case: string;
  dtype: BenchDtype;
  layout: BenchLayout;
  pass: BenchPass;
}

/** What happened to one algorithm mode on one row. */
export type ModeStatus = 'ok' | 'capped' | 'skipped' | 'unsupported' | 'error';

export interface ModeResult {
  mode: BenchMode;
  status: ModeStatus;
  /** Median milliseconds per call (CUDA events). Present for `ok` and `capped`. */
  medianMs?: number;
  /** Repetitions the median was taken over. */
  reps?: number;
  /** The algorithm / engine the plan reported for this pass, when it said. */
  algorithm?: string;
  /**
   * Wall time of the group's plan selection (`Conv3dPlan.select` for all of the group's passes,
   * autotune included), ms; the same figure on every pass of the group.
   */
  selectMs?: number;
  /** With `--rounds` above 1: each round's median, ms, in order (medianMs is their median). */
  roundsMs?: number[];
  /** Why it was capped, skipped, unsupported or failed. */
  note?: string;
}

export interface BenchRowResult extends BenchRowKey {
  id: string;
  macs: number;
  /** Bytes of x, w and y, each read or written once at the dtype's size. */
  bytes: number;
  sets: number;
  modes: ModeResult[];
  /** Best (lowest) median over modes that produced a time. */
  bestMs?: number;
  bestMode?: BenchMode;
  tflops?: number;
  floorMs?: number;
  /** floor / best time; 1.0 means the row runs at the roofline floor. */
  floorFraction?: number;
  torch?: TorchRowResult;
  /** best / torch. */
  ratioBest?: number;
  /** mode / torch, per mode that produced a time. */
  ratioByMode?: Partial<Record<BenchMode, number>>;
  /**
   * With rounds taken in turns: best mode / torch within each round (the two sides timed back to
   * back), lowest and highest. A row over 1.00× in its best round lost every round.
   */
  roundRatios?: { min: number; max: number; rounds: number };
  /** In a merged report: the report the row came from (`<label> started <time>`). */
  source?: string;
}

/** One PyTorch measurement, as the python script reports it. */
export interface TorchRowResult {
  id: string;
  status: 'ok' | 'error' | 'skipped';
  medianMs?: number;
  reps?: number;
  /** True when PyTorch ran cuDNN for this row, false when it fell back, null when unknown. */
  usedCudnn?: boolean | null;
  /** PyTorch's convolution backend for the row (`torch._C._select_conv_backend`), when known. */
  backend?: string | null;
  /** A few GPU kernel names from one profiled iteration, when profiled. */
  kernels?: string[];
  /** With `--rounds` above 1: each round's median, ms, in order (medianMs is their median). */
  roundsMs?: number[];
  note?: string;
}

/** Measured peaks of this GPU, this run. */
export interface BenchPeaks {
  /** Device-to-device copy: (bytes read + bytes written) / time, in bytes per second. */
  copyBytesPerS: number | null;
  /** Achieved FLOP/s of a GEMM-shaped (1×1×1, 4096→4096 channels) conv, per dtype. */
  gemmFlopsPerS: Partial<Record<BenchDtype, number>>;
  /** How each GEMM-shaped figure was obtained (mode, layout, ms). */
  gemmNotes: Partial<Record<BenchDtype, string>>;
}

/** Per-call host cost of enqueuing `runFw` on a tiny problem. */
export interface OverheadResult {
  id: string;
  /** `ours:heuristic`, `ours:pinned`, `torch`. */
  side: string;
  dtype: BenchDtype;
  layout: BenchLayout;
  /** Median over trials of µs per call. */
  usPerCall?: number;
  trialsUs?: number[];
  note?: string;
}

/** Which cuDNN a side loaded. */
export interface CudnnIdentity {
  version: string | null;
  path: string | null;
}

export interface TorchInfo {
  torchVersion: string | null;
  cudaVersion: string | null;
  cudnn: CudnnIdentity;
  /** Every libcudnn* mapped into the python process. */
  cudnnLibraries: string[];
  cudnnEnabled: boolean | null;
  device: string | null;
}

export interface BenchReport {
  label: string;
  startedAt: string;
  device: string;
  ours: { cudnn: CudnnIdentity };
  torch?: TorchInfo;
  /** Why the PyTorch side has no results, when it has none. */
  torchError?: string;
  settings: {
    reps: number;
    warmup: number;
    dtypes: BenchDtype[];
    layouts: BenchLayout[];
    passes: BenchPass[];
    modes: BenchMode[];
    f64MaxMacs: number;
    pinnedBudgetMs: number;
    /** Our plans' workspace limit in bytes; absent: the library's default, `'auto'`. */
    maxWorkspaceBytes?: number;
    rotateBelowBytes: number;
    /**
     * Where our calls wrote; absent (reports before it was recorded): `rotated`; `mixed`: a
     * merged report whose reports differ (its notes say which).
     */
    outputs?: BenchOutputs | 'mixed';
    /**
     * Rounds per group; above 1 the two sides took turns, round by round (absent: 1, ours then
     * PyTorch's whole run); `mixed`: a merged report whose reports differ.
     */
    rounds?: number | 'mixed';
  };
  peaks: BenchPeaks;
  overhead: OverheadResult[];
  rows: BenchRowResult[];
  summary?: ComparisonSummary;
  notes: string[];
}

export interface GeomeanEntry {
  /** `all`, `dtype=f16`, `pass=fw`, `mode=heuristic`, `torch-used-cudnn`. */
  scope: string;
  geomean: number;
  count: number;
}

export interface ComparisonSummary {
  /** Geometric means of best/torch. */
  best: GeomeanEntry[];
  /** Geometric means of mode/torch, one entry per mode (scope `mode=<m>`). */
  byMode: GeomeanEntry[];
  /** Rows where PyTorch used cuDNN and our best mode is slower than PyTorch. */
  losses: string[];
  /** Of `losses`, the rows measured in turns that lost every round (their best round over 1.00×). */
  lossesEveryRound?: string[];
  /** The goals: best ≤ 1.00× on every cuDNN row, geomean ≤ 0.90×. */
  goalEveryRow: boolean;
  goalGeomean: boolean;
}
