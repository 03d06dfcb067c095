/**
 * Data shapes of the benchmark: what a row is, what a measurement is, what a report holds.
 * Pure data, no GPU.
 */
import type { SuiteCase } from '../suite/index.js';

/**
 * The dtypes the bench covers. `tf32` is f32 storage with TF32 tensor-core math allowed; `3xtf32`
 * is f32 storage with our `math: '3xtf32'` (three TF32 products, strict-f32 accuracy), against
 * PyTorch in strict f32 (it has no such mode).
 */
export type BenchDtype = 'f32' | 'tf32' | '3xtf32' | 'f16' | 'bf16' | 'f64';
/** Memory layouts of activations. */
export type BenchLayout = 'ncdhw' | 'ndhwc';
/**
 * The convolution passes: forward, backward-data, backward-filter, and `bwStep`, the backward of a
 * training step (dX and dW: our runBwData then runDw; PyTorch's one autograd backward).
 */
export type BenchPass = 'fw' | 'bwData' | 'bwFilter' | 'bwStep';
/** Algorithm modes of `Conv3dPlan` (`PlanPreference.algorithm`). */
export type BenchMode = 'pinned' | 'heuristic' | 'autotune';
/** Where our timed calls write: one output per group, or one per input set. */
export type BenchOutputs = 'shared' | 'rotated';

/** Every dtype `--dtypes` takes. */
export const ALL_DTYPES: readonly BenchDtype[] = ['f32', 'tf32', '3xtf32', 'f16', 'bf16', 'f64'];
/** The dtypes benched when none are named: all but the opt-in `3xtf32`. */
export const DEFAULT_DTYPES: readonly BenchDtype[] = ['f32', 'tf32', 'f16', 'bf16', 'f64'];
export const ALL_LAYOUTS: readonly BenchLayout[] = ['ncdhw', 'ndhwc'];
export const ALL_PASSES: readonly BenchPass[] = ['fw', 'bwData', 'bwFilter', 'bwStep'];
export const ALL_MODES: readonly BenchMode[] = ['pinned', 'heuristic', 'autotune'];

/**
 * PyTorch's two columns: `default`, `torch.backends.cudnn.benchmark = False` (PyTorch as a user
 * gets it); `tuned`, `benchmark = True` with `benchmark_limit = 0` (every engine config tried).
 */
export type TorchColumn = 'default' | 'tuned';
export const TORCH_COLUMNS: readonly TorchColumn[] = ['default', 'tuned'];
/** Our mode each PyTorch column is the peer of. */
export const PEER_MODE: Readonly<Record<TorchColumn, BenchMode>> = {
  default: 'heuristic',
  tuned: 'autotune',
};

/** A comparison's verdict: win or loss only when every round agrees beyond the round spread. */
export type Verdict = 'win' | 'loss' | 'parity';

/** Where and on what a measurement was made; every row carries it. */
export interface Provenance {
  /** The commit the measured code was built from (`<sha>`, `<sha>-dirty`, or `unknown`). */
  commit: string;
  /** When the report started (ISO 8601). */
  date: string;
  gpu: string;
  /** The NVIDIA driver version (`nvidia-smi`), or null when unknown. */
  driver: string | null;
  cudnnOurs: string | null;
  cudnnTorch: string | null;
}

/** The autotune cache our autotune mode started from. */
export interface AutotuneCacheState {
  /** `cold`: no file or no entries, so every autotune select tuned; `carried`: entries were there. */
  state: 'cold' | 'carried' | 'mixed';
  path: string | null;
  entriesAtStart: number;
}

/** One of our modes against its PyTorch peer on one row. */
export interface PeerComparison {
  column: TorchColumn;
  mode: BenchMode;
  oursMs: number;
  torchMs: number;
  /** ours / torch (medians of the rounds). */
  ratio: number;
  /** ours / torch round by round (the two sides took turns). */
  roundRatios: number[];
  /**
   * The larger of the two sides' relative round spreads, (max - min) / median of each side's round
   * medians; 0 with a single round.
   */
  spread: number;
  verdict: Verdict;
}

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
  /** With `--rounds` above 1: (max - min) / median of roundsMs. */
  spread?: number;
  /**
   * What select did for this row's pass (or passes: bwStep sums them), from the plan's
   * `selectReport()`: absent where it timed nothing and read no cache entry (`heuristic:
   * 'first'`, pinned, or nothing to choose between).
   */
  selection?: PassSelectionInfo;
  /** Why it was capped, skipped, unsupported or failed. */
  note?: string;
}

/** A row's share of select: how it chose, what it timed, under which budget, and whether it was cut. */
export interface PassSelectionInfo {
  /** 'autotune', 'quick-tune' (the default mode's quick tune), 'cache', or several joined by '+'. */
  how: string;
  /** Configs and routes timed. */
  timed: number;
  /** The budget per pass, ms; null: none. */
  budgetMs: number | null;
  /** Whether the budget cut the search of any of the row's passes. */
  budgetCut: boolean;
  /** Wall ms of the row's passes' selection. */
  wallMs: number;
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
  /** PyTorch's result per column. */
  torch?: Partial<Record<TorchColumn, TorchRowResult>>;
  /** Each PyTorch column against its peer mode of ours, where both produced a time. */
  peers?: Partial<Record<TorchColumn, PeerComparison>>;
  /** The commit, date, GPU, driver and cuDNN versions the row was measured with. */
  provenance?: Provenance;
  /** In a merged report: the report the row came from (`<label> started <time>`). */
  source?: string;
  /**
   * Wall ms of the row's whole group in the run, from its first select to its last PyTorch turn
   * (the same figure on every row of the group): what the shard split's cost table learns from.
   */
  groupWallMs?: number;
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
  /**
   * Wall ms of the first call on this group (synchronized): with `benchmark = True` it includes
   * cuDNN's search, PyTorch's time to a plan.
   */
  firstCallMs?: number;
  /** With `--rounds` above 1: each round's median, ms, in order (medianMs is their median). */
  roundsMs?: number[];
  /** With `--rounds` above 1: (max - min) / median of roundsMs. */
  spread?: number;
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

/** Per-call host cost of enqueuing one pass on a tiny problem. */
export interface OverheadResult {
  id: string;
  /** `ours:heuristic`, `torch:default`, `torch:tuned`. */
  side: string;
  dtype: BenchDtype;
  layout: BenchLayout;
  /** Absent in reports before every pass was measured: `fw`. */
  pass?: BenchPass;
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
  /** The column the process served, and the search settings it confirmed. */
  column?: TorchColumn;
  benchmark?: boolean | null;
  benchmarkLimit?: number | null;
}

/** Which groups of the suite a report measured. */
export interface ShardInfo {
  /** 1-based. */
  index: number;
  count: number;
  /** The groups (`case:dtype:layout`) of this shard. */
  groups: string[];
}

export interface BenchReport {
  label: string;
  startedAt: string;
  device: string;
  ours: { cudnn: CudnnIdentity };
  /** PyTorch's versions and settings, per column. */
  torch?: Partial<Record<TorchColumn, TorchInfo>>;
  /** Commit, date, GPU, driver, both cuDNN versions (absent in reports from before issue 22). */
  provenance?: Provenance;
  autotuneCache?: AutotuneCacheState;
  /** Every group the unsharded run would have measured (the same filters), in order. */
  suiteGroups?: string[];
  /** The shard this report measured; absent: all of suiteGroups. In a merged report, absent. */
  shard?: ShardInfo;
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
    /** `dtype:layout` of the groups the tuned pair ran on; absent: every group. */
    tunedOn?: string[];
  };
  peaks: BenchPeaks;
  overhead: OverheadResult[];
  rows: BenchRowResult[];
  summary?: ComparisonSummary;
  notes: string[];
}

export interface GeomeanEntry {
  /** `all`, `torch ≥ 0.2 ms`, `pass=fw`, ... */
  scope: string;
  geomean: number;
  count: number;
}

/** One PyTorch column against its peer mode over the compared rows. */
export interface PeerSummary {
  column: TorchColumn;
  mode: BenchMode;
  /** Geometric means of ours / torch: over all rows, over rows with torch ≥ 0.2 ms, per pass. */
  geomeans: GeomeanEntry[];
  wins: number;
  losses: number;
  parity: number;
  /** The lost rows, `id ratio× (rounds a–b×, spread s%)`, worst first. */
  lossRows: string[];
}

export interface ComparisonSummary {
  peers: PeerSummary[];
}
