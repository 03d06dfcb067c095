import {
  CudnnError,
  type DeviceSlice,
  DisposedError,
  ElementKind,
  InvalidArgumentError,
  type TensorRef,
  UnsupportedError,
  type Workspace,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import {
  type AutotuneEntry,
  autotuneKey,
  defaultAutotuneCachePath,
  readAutotuneCache,
  saveAutotuneEntry,
} from './autotune-cache.js';
import {
  type ArchSku,
  archSkuFromComputeCapability,
  type KernelSku,
  type MathPrecision,
  type PlanPreference,
  type PrecisionGuarantee,
  type ResolvedPlanPreference,
  resolvePlanPreference,
} from './compat.js';
import {
  type DepthwiseCall,
  DepthwiseKernels,
  depthwiseLaunch,
  depthwiseUnsupported,
  depthwiseUntuned,
} from './depthwise.js';
import { bwDataAsForward, Conv3dDescriptor } from './descriptor.js';
import {
  type Erratum,
  errataFor,
  erratumPinnedRefusal,
  erratumRefusal,
  formatCudnnVersion,
} from './errata.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import {
  type FilterFlip,
  filterFlip,
  LayoutKernels,
  layoutTransposes,
  type OperandTransposes,
  type TransposeShape,
  transposeGrid,
} from './layout.js';
import { PointerLru } from './lru.js';
import {
  alignmentClass,
  autoWorkspaceLimit,
  detourWins,
  engineName,
  engineRejection,
  fastestIndices,
  intendedMathPrecision,
  type KnobRange,
  knobNeighbours,
  type LegacyPerf,
  MathType,
  mathPrecisionOfEngine,
  mathPrecisionOfLegacy,
  median,
  mib,
  nextSearchBases,
  numericalNoteName,
  pickLegacyAlgorithm,
  pinnedMathType,
  REDUCTION_KNOBS,
  randomScratchBytes,
  tuneFinalists,
  tuneGiveUpMs,
  tuneReps,
  tuneRotationSets,
} from './policy.js';
import { guardReceivers } from './receivers.js';
import { checkRunArgs, type RunScalars, type RunTarget } from './run-args.js';
import {
  type BackendDescriptor,
  C,
  type CudnnHandle,
  cudnn,
  cudnnDataType,
  type DeviceLike,
  deviceOf,
  driver,
  type LegacyDescriptor,
  lastErrorString,
  loadCudnn,
  type OwnedBuffer,
  outputOf,
  type StreamLike,
  statusName,
  type TimingEvent,
} from './sys.js';

/** The three passes of a convolution. */
export type Conv3dPass = 'fw' | 'bwData' | 'bwFilter';
const PASSES: readonly Conv3dPass[] = ['fw', 'bwData', 'bwFilter'];

/** What a plan chose for one pass. */
export interface AlgorithmInfo {
  /**
   * 'graph': cuDNN's backend (graph) API with a cached execution plan; 'legacy':
   * cudnnConvolution*; 'native': baracuda's own kernel (depthwise forward, backward-data and
   * NCDHW backward-filter, cuda/depthwise.cu).
   */
  readonly path: 'graph' | 'legacy' | 'native';
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

/** Options of `Conv3dPlan.select`. */
export interface Conv3dPlanOptions {
  /**
   * The autotune cache file. Defaults to `$BARACUDA_AUTOTUNE_CACHE`, else
   * `$XDG_CACHE_HOME/baracuda/conv3d-autotune.json`, else `~/.cache/baracuda/conv3d-autotune.json`.
   */
  autotuneCachePath?: string;
  /** The passes autotune tunes at select. Defaults to `['fw', 'bwData', 'bwFilter']`. */
  passes?: Conv3dPass[];
  /**
   * Receives progress lines while tuning. Defaults to `undefined`: after 1 s of tuning, progress
   * lines go to stderr.
   */
  onProgress?: (message: string) => void;
  /**
   * Ids of errata (see `CONV3D_ERRATA`) to run past anyway, with a warning. Defaults to the
   * comma-separated `$BARACUDA_IGNORE_ERRATA`, else `[]`.
   */
  ignoreErrata?: string[];
  /**
   * Backward-data of a stride-1 layer as the forward convolution of dy with the filter transposed
   * per group and flipped in space (the flip runs on our kernel into plan-owned scratch before each
   * call). `'tuned'` (the default): autotune times it against the backward-data engines and takes
   * it when faster; heuristic plans do not use it. `'always'`: heuristic and autotuned plans use it
   * wherever it applies (tests, or where it is known to be faster). `'never'`: it is not used. Not
   * used by pinned plans. Defaults to `$BARACUDA_BWDATA_AS_FORWARD`, else `'tuned'`.
   */
  bwDataAsForward?: 'tuned' | 'always' | 'never';
  /**
   * The layout detour: a problem run as the same problem in the other layout (NCDHW through
   * NDHWC, NDHWC through NCDHW): our layout transposes of the operands into plan-owned scratch,
   * that problem's own plan, and the result transposed back. cuDNN's engines for one layout often
   * transpose to the other inside; ours move 90–97% of a copy's bandwidth on an H200. `'tuned'`
   * (the default): autotune times it per pass against the engines for the problem's own layout
   * and takes it when at least 2% faster (f32, TF32, f16 and bf16; not f64); heuristic plans do
   * not use it. `'always'`: every pass takes it, heuristic or autotuned (tests, or where it is
   * known to be faster). `'never'`: it is not used except where an erratum requires it. Never
   * into a layout an erratum covers; not used by pinned plans. Defaults to
   * `$BARACUDA_LAYOUT_DETOUR`, else `'tuned'`.
   */
  layoutDetour?: 'tuned' | 'always' | 'never';
}

/** A tensor argument: a TensorRef (checked for element, shape, strides and size) or a plain DeviceSlice (taken as dense in the descriptor's layout). */
export type Conv3dTensorArg = TensorRef | DeviceSlice;

interface RunCommon {
  /**
   * Scratch memory: a DeviceSlice or `Workspace.borrowed(slice)`; `Workspace.none()` allows only
   * workspace-free plans. Defaults to `undefined`: the plan allocates, grows and keeps its own.
   */
  workspace?: DeviceSlice | Workspace | null;
  /** Scale of the convolution result. Defaults to `1`. */
  alpha?: number;
  /** Scale of the output's prior content (1 accumulates). Defaults to `0`. */
  beta?: number;
  /** Stream to enqueue on. Defaults to the stream given to `select`. */
  stream?: StreamLike;
}
/** Arguments of `runFw`: y = alpha * conv(x, w) + beta * y. */
export interface Conv3dFwArgs extends RunCommon {
  x: Conv3dTensorArg;
  w: Conv3dTensorArg;
  y: Conv3dTensorArg;
}
/** Arguments of `runBwData`: dx = alpha * convBwData(w, dy) + beta * dx. */
export interface Conv3dBwDataArgs extends RunCommon {
  w: Conv3dTensorArg;
  dy: Conv3dTensorArg;
  dx: Conv3dTensorArg;
}
/** Arguments of `runDw`: dw = alpha * convBwFilter(x, dy) + beta * dw. */
export interface Conv3dDwArgs extends RunCommon {
  x: Conv3dTensorArg;
  dy: Conv3dTensorArg;
  dw: Conv3dTensorArg;
}

// ---------------------------------------------------------------------------------------------
// One cuDNN handle per device, shared by every plan, reference-counted.

/** @internal */
interface SharedHandle {
  readonly ordinal: number;
  readonly handle: CudnnHandle;
  refs: number;
  /** The stream last bound with cudnnSetStream (null before the first). */
  boundStream: bigint | null;
}
const handles = new Map<number, SharedHandle>();

function acquireHandle(ordinal: number, problem: string): SharedHandle {
  const existing = handles.get(ordinal);
  if (existing) {
    existing.refs++;
    return existing;
  }
  const r = cudnn.cudnnCreate();
  check(r.status, 'cudnnCreate', problem);
  const shared: SharedHandle = {
    ordinal,
    handle: outputOf<CudnnHandle>(r, 'handle'),
    refs: 1,
    boundStream: null,
  };
  handles.set(ordinal, shared);
  return shared;
}

function releaseHandle(shared: SharedHandle): void {
  shared.refs--;
  if (shared.refs <= 0 && handles.get(shared.ordinal) === shared) {
    handles.delete(shared.ordinal);
    try {
      cudnn.cudnnDestroy(shared.handle);
    } catch {
      // a safety net never throws
    }
  }
}

function bindStream(shared: SharedHandle, stream: bigint, problem: string): void {
  if (shared.boundStream !== stream) {
    check(cudnn.cudnnSetStream(shared.handle, stream), 'cudnnSetStream', problem);
    shared.boundStream = stream;
  }
}

/** The one place a cuDNN status becomes a CudnnError. */
function check(status: number, call: string, problem: string): void {
  if (status !== 0) {
    throw new CudnnError(call, status, statusName(status), lastErrorString(), problem);
  }
}

function isNotSupported(status: number): boolean {
  return status >= 3000 && status < 4000;
}

// ---------------------------------------------------------------------------------------------
// Native resources of a plan, kept apart from the plan so a FinalizationRegistry can free them.

/** @internal */
interface Resources {
  backend: Set<BackendDescriptor>;
  /** Descriptors an engine config we built refers to (its engine, its knob choices). */
  parts: Map<BackendDescriptor, BackendDescriptor[]>;
  tensors: Set<LegacyDescriptor>;
  filters: Set<LegacyDescriptor>;
  convs: Set<LegacyDescriptor>;
  handle: SharedHandle | null;
  workspace: OwnedBuffer | null;
  /** Scratch operands of the layout detour (x-like, w-like, y-like); w also the flipped filter. */
  scratch: Record<'x' | 'w' | 'y', OwnedBuffer | null>;
  released: boolean;
}

function releaseResources(res: Resources): void {
  if (res.released) return;
  res.released = true;
  const attempt = (f: () => unknown) => {
    try {
      f();
    } catch {
      // never throw from cleanup
    }
  };
  for (const d of res.backend) attempt(() => cudnn.cudnnBackendDestroyDescriptor(d));
  for (const d of res.tensors) attempt(() => cudnn.cudnnDestroyTensorDescriptor(d));
  for (const d of res.filters) attempt(() => cudnn.cudnnDestroyFilterDescriptor(d));
  for (const d of res.convs) attempt(() => cudnn.cudnnDestroyConvolutionDescriptor(d));
  res.backend.clear();
  res.parts.clear();
  res.tensors.clear();
  res.filters.clear();
  res.convs.clear();
  const ws = res.workspace;
  res.workspace = null;
  if (ws) attempt(() => ws.dispose());
  for (const role of ['x', 'w', 'y'] as const) {
    const buf = res.scratch[role];
    res.scratch[role] = null;
    if (buf) attempt(() => buf.dispose());
  }
  const h = res.handle;
  res.handle = null;
  if (h) attempt(() => releaseHandle(h));
}

const registry = new FinalizationRegistry<Resources>((res) => releaseResources(res));

/** The problem in the other layout (NCDHW ↔ NDHWC). */
function otherLayout(desc: Conv3dDescriptor): Conv3dDescriptor {
  return desc.withLayout(desc.layout === 'ncdhw' ? 'ndhwc' : 'ncdhw');
}

/**
 * Whether the layout detour may take `desc` into its other layout: no erratum covers that layout
 * (the f16/bf16 NCDHW defect of cuDNN 9.8–9.14 keeps NDHWC problems where they are).
 */
function otherLayoutClean(
  desc: Conv3dDescriptor,
  version: number,
  pref: ResolvedPlanPreference,
): boolean {
  return errataFor(otherLayout(desc), version, pref).length === 0;
}

/** Each operand's transposes into the other layout (`in`) and back (`out`). */
function detourTransposes(
  desc: Conv3dDescriptor,
): Record<'x' | 'w' | 'y', { readonly in: TransposeShape; readonly out: TransposeShape }> {
  const t = layoutTransposes(desc);
  const toNdhwc = desc.layout === 'ncdhw';
  const of = (o: OperandTransposes) =>
    toNdhwc ? { in: o.toNdhwc, out: o.toNcdhw } : { in: o.toNcdhw, out: o.toNdhwc };
  return { x: of(t.x), w: of(t.w), y: of(t.y) };
}

/** What a pass run through another plan reports: that plan's choice, named as the way it runs. */
function renamed(info: AlgorithmInfo, suffix: string): AlgorithmInfo {
  return Object.freeze({ ...info, name: `${info.name} ${suffix}` });
}

// ---------------------------------------------------------------------------------------------
// Per-pass state.

/** @internal A finalized execution plan for (pass, alpha, beta, alignment). */
interface GraphExec {
  readonly alpha: number;
  readonly beta: number;
  readonly align: number;
  readonly plan: BackendDescriptor;
  readonly workspaceBytes: number;
  readonly info: AlgorithmInfo;
  readonly variantPacks: PointerLru<BackendDescriptor>;
}

/** @internal A legacy-API choice for one pass. */
interface LegacyPass {
  readonly algo: number;
  readonly conv: LegacyDescriptor;
  readonly workspaceBytes: number;
  readonly info: AlgorithmInfo;
  readonly alphaBuf: Float32Array | Float64Array;
  readonly betaBuf: Float32Array | Float64Array;
}

/** @internal A pass on our own depthwise kernels. */
interface NativePass {
  readonly call: DepthwiseCall;
  readonly workspaceBytes: 0;
  readonly info: AlgorithmInfo;
}

/** The autotune cache's engine index for our depthwise kernels (cuDNN's indices are ≥ 0). */
const NATIVE_ENGINE_INDEX = -1;
/** The autotune cache's engine index for backward-data run as a forward pass ({@link BwDataAsFw}). */
const BWDATA_AS_FW_ENGINE_INDEX = -2;
const BWDATA_AS_FW_SUFFIX = 'as forward on the flipped filter';

/**
 * @internal Backward-data of a stride-1 layer run as the forward pass of the problem
 * {@link bwDataAsForward} gives: the filter transposed per group and flipped in space into
 * plan-owned scratch, then that problem's own plan (sharing the handle) on (dy, flipped W) into
 * dx. Autotune takes it when it times faster than every backward-data engine (PyTorch's cuDNN took
 * 107.7 µs for the suite's pointwise f32 backward-data and 82.8 µs for the same as a forward pass,
 * run 36).
 */
interface BwDataAsFw {
  readonly inner: Conv3dPlan;
  readonly layout: LayoutKernels;
  readonly flip: FilterFlip;
}

/** @internal */
interface PassState {
  /** Our depthwise kernels run the pass (null: they do not; undefined: not decided yet). */
  native: NativePass | null | undefined;
  readonly graphs: Map<string, GraphExec | null>;
  last: GraphExec | undefined;
  legacy: LegacyPass | undefined;
  preferred: AutotuneEntry | undefined;
  /** The first built choice, reported by algorithm(pass). */
  reported: AlgorithmInfo | undefined;
  /** Autotune (now or from its cache) chose the layout detour for this pass. */
  via: boolean;
}

/**
 * @internal The layout detour: the same problem in the other layout as its own plan (sharing the
 * handle), our transposes around it, and the transform descriptors (for cudnnTransformTensor
 * where our kernels do not load), made on the first run. Every pass takes it where an erratum
 * requires it (NCDHW through NDHWC) or `options.layoutDetour` is `'always'`; otherwise the passes
 * autotune timed faster through it.
 */
interface LayoutDetour {
  /** The erratum that sends every pass this way, if one does. */
  readonly erratum: Erratum | undefined;
  /** Every pass takes it (an erratum, or `options.layoutDetour: 'always'`). */
  readonly every: boolean;
  /** The problem in the other layout. */
  readonly inner: Conv3dPlan;
  /** The batched transposes of x, w and y (our layout kernels): into the inner layout, and back. */
  readonly transposes: Record<Role, { readonly in: TransposeShape; readonly out: TransposeShape }>;
  /** Legacy tensor descriptors: the caller's strides, and the scratch's (the inner layout's). */
  descs:
    | { caller: Record<Role, LegacyDescriptor>; scratch: Record<Role, LegacyDescriptor> }
    | undefined;
  readonly one: Float32Array | Float64Array;
  readonly zero: Float32Array | Float64Array;
  readonly alphaBuf: Float32Array | Float64Array;
  readonly betaBuf: Float32Array | Float64Array;
}
type Role = 'x' | 'w' | 'y';
/** Which operand (in uid order x, w, y) each pass writes. */
const OUTPUT_ROLE: Record<Conv3dPass, Role> = { fw: 'y', bwData: 'x', bwFilter: 'w' };
const ROLES: readonly Role[] = ['x', 'w', 'y'];
const VIA_NDHWC_SUFFIX = 'via NDHWC (cuDNN 9.8–9.14 erratum)';
/** The autotune cache's engine index for the layout detour ({@link LayoutDetour}). */
const LAYOUT_DETOUR_ENGINE_INDEX = -3;

interface EngineCandidate {
  cfg: BackendDescriptor;
  engineIndex: number;
  knobs: [number, number][];
  notes: string[];
}

/** An engine config with its finalized execution plan. */
interface BuiltCandidate {
  c: EngineCandidate;
  plan: BackendDescriptor;
  workspaceBytes: number;
}

/** How an engine config is told apart from others: its engine and knob choices. */
function configId(engineIndex: number, knobs: readonly (readonly [number, number])[]): string {
  return `${engineIndex}:${JSON.stringify(knobs)}`;
}

const UID_X = 1n;
const UID_W = 2n;
const UID_Y = 3n;
const VARIANT_PACK_CACHE = 8;
/** Knob choices asked of an engine config at first (asked again when it has more). */
const KNOB_SLOTS = 16;
/**
 * Autotune: a finalist's runs are timed one by one, each between its own pair of events, and
 * their median kept: at least this many runs...
 */
const TUNE_REPS = 5;
/** ...at most this many... */
const TUNE_MAX_REPS = 30;
/** ...and enough to fill about this many ms where that is between the two. */
const TUNE_WINDOW_MS = 2;
/** Autotune: finalists are timed in turn this many times over (each keeps its best). */
const TUNE_ROUNDS = 2;
/** Autotune: a candidate whose warm-up run took less gets a second, untimed lead run. */
const TUNE_LEAD_RUN_BELOW_MS = 2;
/** Autotune: candidates within this factor of the fastest single run are timed again. */
const TUNE_KEEP_RATIO = 1.3;
/** Autotune: at most this many finalists. */
const TUNE_FINALISTS = 6;
/** Autotune's knob search: around this many of the fastest finalists. */
const TUNE_SEARCH_BASES = 2;
/** Autotune's knob search: at most this many values of one knob. */
const TUNE_SEARCH_VALUES = 12;
/** Autotune's knob search: at most this many configs tried per search pass. */
const TUNE_SEARCH_MAX = 48;
/**
 * Autotune's knob search: at most this many passes. A pass that finds a faster config starts
 * another around it, so configs two or three knobs away from the heuristics' offers are reached.
 */
const TUNE_SEARCH_PASSES = 3;
/**
 * Autotune's knob search: per search pass, no more configs are built after this long, and none
 * timed after twice this long (an engine that compiles its kernels at run time finalizes slowly).
 */
const TUNE_SEARCH_BUDGET_MS = 1500;
/** Autotune's knob search: a config whose first time is within this factor of the leader's is timed again. */
const TUNE_SEARCH_KEEP_RATIO = 1.1;
/** Knob-info slots asked of an engine (cuDNN 9 has 37 knob types). */
const KNOB_INFO_SLOTS = 40;
/**
 * Autotune: a candidate whose warm-up run is this many times slower than the fastest so far (and
 * {@link TUNE_GIVE_UP_MARGIN_MS} slower) is not timed again.
 */
const TUNE_GIVE_UP_RATIO = 4;
/** Autotune: see {@link TUNE_GIVE_UP_RATIO}. */
const TUNE_GIVE_UP_MARGIN_MS = 10;

/** How many runs a finalist that took `estimateMs` a run is timed over (see {@link tuneReps}). */
function finalistReps(estimateMs: number): number {
  return tuneReps(estimateMs, TUNE_REPS, TUNE_MAX_REPS, TUNE_WINDOW_MS);
}

/** One set of autotune's operands. */
interface TuneOperands {
  readonly x: bigint;
  readonly w: bigint;
  readonly y: bigint;
}
/** What autotune times on: random operands, timing events and a growable workspace. */
interface TuneBench {
  /**
   * Operand sets with the same values, taken in turn run after run (see {@link tuneRotationSets}),
   * so that timed runs read their operands from memory, as in a network, not from L2.
   */
  readonly sets: readonly TuneOperands[];
  /** The set the next run takes; advances it. */
  nextSet(): number;
  /**
   * 2 × {@link TUNE_MAX_REPS} timing events, a start and an end for each timed run, made as the
   * bench and torch.cuda.Event make them (without CU_EVENT_BLOCKING_SYNC, which adds 0.6-0.9 µs
   * to each run they bracket).
   */
  readonly events: readonly TimingEvent[];
  /** Recorded after the runs and waited on: a blocking-sync event, so the wait sleeps. */
  readonly fence: TimingEvent;
  /** Bytes of one set (x + w + y). */
  readonly setBytes: number;
  workspace(bytes: number): bigint;
  dispose(): void;
}
const PINNED_ALGOS: Record<Conv3dPass, [string, string]> = {
  fw: ['CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM', 'forward'],
  bwData: ['CUDNN_CONVOLUTION_BWD_DATA_ALGO_1', 'backward-data'],
  bwFilter: ['CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1', 'backward-filter'],
};

function passName(pass: Conv3dPass): string {
  return pass === 'fw' ? 'forward' : pass === 'bwData' ? 'backward-data' : 'backward-filter';
}

/** One scalar attribute of a backend descriptor (INT64 unless `type` says), or null if cuDNN does not give it. */
function getScalar(
  d: BackendDescriptor,
  name: number,
  type: number = C.CUDNN_TYPE_INT64,
): number | null {
  const r = cudnn.cudnnBackendGetAttribute(d, name, type, 1);
  return r.status === 0 ? Number((r.values as ArrayLike<number | bigint>)[0]) : null;
}

/**
 * The preference with `maxWorkspaceBytes: 'auto'` settled for this problem on this device (see
 * {@link autoWorkspaceLimit}); a byte count is kept as given.
 */
function settleWorkspaceLimit(
  pref: PlanPreference,
  desc: Conv3dDescriptor,
  device: DeviceLike,
): ResolvedPlanPreference {
  if (pref.maxWorkspaceBytes !== 'auto') return pref as ResolvedPlanPreference;
  const tensorBytes = (desc.xElements + desc.wElements + desc.yElements) * desc.elementBytes;
  return Object.freeze({
    ...pref,
    maxWorkspaceBytes: autoWorkspaceLimit(tensorBytes, freeDeviceBytes(device)),
  });
}

/**
 * The device memory free now (`cuMemGetInfo`), or undefined where there is no reading: then no
 * cap is derived from it, and an allocation that does not fit reports the shortage, typed.
 */
function freeDeviceBytes(device: DeviceLike): number | undefined {
  try {
    return device.memoryInfo?.().free;
  } catch {
    return undefined;
  }
}

function checkStream(value: unknown, name: string): StreamLike {
  const raw = typeof value === 'object' && value !== null ? (value as StreamLike).raw : undefined;
  if (typeof raw !== 'bigint') {
    throw new InvalidArgumentError(name, 'a Stream from @baracuda/driver', value);
  }
  if (raw < 0n || raw >= 1n << 64n) {
    throw new InvalidArgumentError(`${name}.raw`, 'a bigint from 0 to 2^64 - 1 (a CUstream)', raw);
  }
  return value as StreamLike;
}

function resolveOptions(options: Conv3dPlanOptions | undefined): Required<
  Omit<Conv3dPlanOptions, 'onProgress'>
> & {
  onProgress: ((message: string) => void) | undefined;
} {
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  ) {
    throw new InvalidArgumentError('options', 'an object or undefined', options);
  }
  const o = options ?? {};
  // Only undefined takes a default: null is a wrong value like any other.
  const path = o.autotuneCachePath === undefined ? defaultAutotuneCachePath() : o.autotuneCachePath;
  if (typeof path !== 'string' || path.length === 0) {
    throw new InvalidArgumentError('options.autotuneCachePath', 'a non-empty string', path);
  }
  const passes = o.passes === undefined ? [...PASSES] : o.passes;
  // Array.from visits holes (as undefined), which some() skips.
  if (!Array.isArray(passes) || Array.from(passes).some((p) => !PASSES.includes(p))) {
    throw new InvalidArgumentError(
      'options.passes',
      "an array of 'fw', 'bwData' and 'bwFilter'",
      passes,
    );
  }
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new InvalidArgumentError('options.onProgress', 'a function', o.onProgress);
  }
  const ignore =
    o.ignoreErrata === undefined
      ? (process.env.BARACUDA_IGNORE_ERRATA ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : o.ignoreErrata;
  if (!Array.isArray(ignore) || Array.from(ignore).some((s) => typeof s !== 'string')) {
    throw new InvalidArgumentError('options.ignoreErrata', 'an array of erratum ids', ignore);
  }
  return {
    autotuneCachePath: path,
    passes: [...new Set(passes)],
    onProgress: o.onProgress,
    ignoreErrata: ignore,
    bwDataAsForward: detourOption(
      o.bwDataAsForward,
      'bwDataAsForward',
      'BARACUDA_BWDATA_AS_FORWARD',
    ),
    layoutDetour: detourOption(o.layoutDetour, 'layoutDetour', 'BARACUDA_LAYOUT_DETOUR'),
  };
}

/** A detour's option: as given, else from `$<env>`, else `'tuned'`; checked either way. */
function detourOption(value: unknown, name: string, env: string): 'tuned' | 'always' | 'never' {
  const fromEnv = value === undefined ? process.env[env] : undefined;
  const chosen = value === undefined ? fromEnv || 'tuned' : value;
  if (chosen !== 'tuned' && chosen !== 'always' && chosen !== 'never') {
    throw new InvalidArgumentError(
      fromEnv ? `$${env}` : `options.${name}`,
      "'tuned', 'always' or 'never'",
      chosen,
    );
  }
  return chosen;
}

/**
 * A 3-D convolution plan over cuDNN: forward, backward-data and backward-filter.
 *
 * Execution plans are built lazily, per pass, on the first query or run of that pass (and
 * again for a new alpha/beta pair or pointer-alignment class, which cuDNN bakes into the plan),
 * except with `algorithm: 'autotune'`, which tunes the selected passes inside `select`.
 */
export class Conv3dPlan {
  readonly descriptor: Conv3dDescriptor;
  readonly preference: ResolvedPlanPreference;
  /** The cuDNN version the plan runs on (cudnnGetVersion() encoding). */
  readonly cudnnVersion: number;
  /** Ids of errata that changed what this plan does (e.g. forced strict f32). */
  readonly errataApplied: readonly string[];
  readonly #stream: StreamLike;
  readonly #device: DeviceLike;
  readonly #res: Resources;
  readonly #passes: Record<Conv3dPass, PassState>;
  readonly #problem: string;
  readonly #elementBytes: number;
  /** What the run calls' argument checks need (run-args.ts). */
  readonly #runTarget: RunTarget;
  readonly #legacyBase: { x?: LegacyDescriptor; w?: LegacyDescriptor; y?: LegacyDescriptor } = {};
  #disposed = false;
  /**
   * The layout detour: made at creation when a 'via-ndhwc' erratum applies or `layoutDetour` is
   * `'always'` (every pass takes it), or by autotune when it times faster for some pass.
   */
  #via: LayoutDetour | undefined;
  /** Our layout kernels for this plan's detour: undefined until asked, null when unusable. */
  #layout: LayoutKernels | null | undefined;
  /** This plan is a layout detour's inner plan, which takes no layout detour of its own. */
  #isTwin = false;
  /** Backward-data as a forward pass, when autotune (now or from its cache) timed it fastest. */
  #bwDataAsFw: BwDataAsFw | undefined;

  static {
    guardReceivers(
      Conv3dPlan,
      'Conv3dPlan',
      (o) => typeof o === 'object' && o !== null && #disposed in o,
    );
  }

  private constructor(
    token: FactoryToken,
    stream: StreamLike,
    device: DeviceLike,
    desc: Conv3dDescriptor,
    preference: ResolvedPlanPreference,
    cudnnVersion: number,
    handle: SharedHandle,
    errataApplied: string[],
    via: { erratum: Erratum | undefined; inner: Conv3dPlan } | undefined,
  ) {
    requireFactoryToken(token, 'Conv3dPlan', 'Conv3dPlan.select or Conv3dPlan.selectSync');
    this.descriptor = desc;
    this.#via = via === undefined ? undefined : this.#makeVia(via.erratum, true, via.inner);
    this.preference = preference;
    this.cudnnVersion = cudnnVersion;
    this.errataApplied = Object.freeze(errataApplied);
    this.#stream = stream;
    this.#device = device;
    this.#problem = desc.describe();
    this.#elementBytes = desc.elementBytes;
    this.#runTarget = { descriptor: desc, device, stream };
    this.#res = {
      backend: new Set(),
      parts: new Map(),
      tensors: new Set(),
      filters: new Set(),
      convs: new Set(),
      handle,
      workspace: null,
      scratch: { x: null, w: null, y: null },
      released: false,
    };
    const state = (): PassState => ({
      native: undefined,
      graphs: new Map(),
      last: undefined,
      legacy: undefined,
      preferred: undefined,
      reported: undefined,
      via: false,
    });
    this.#passes = { fw: state(), bwData: state(), bwFilter: state() };
    registry.register(this, this.#res, this);
  }

  // -------------------------------------------------------------------------------------------
  // select

  /**
   * Validate the problem, load cuDNN and make a plan. With `algorithm: 'autotune'`, tunes the
   * passes in `options.passes` here (waiting on the GPU without blocking the event loop).
   */
  static async select(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): Promise<Conv3dPlan> {
    const stack = new Error().stack;
    try {
      const plan = Conv3dPlan.#create(stream, desc, preference, options);
      try {
        const gen = plan.#prepare(options);
        let step = gen.next();
        while (!step.done) {
          await step.value.synchronize();
          step = gen.next();
        }
      } catch (error) {
        plan.dispose();
        throw error;
      }
      return plan;
    } catch (error) {
      if (error instanceof Error && stack) {
        error.stack = `${error.stack}\n    --- select() called from ---\n${stack.split('\n').slice(1).join('\n')}`;
      }
      throw error;
    }
  }

  /**
   * Like `select`, synchronously. With `algorithm: 'autotune'` it blocks the thread while it
   * tunes (seconds for large problems).
   */
  static selectSync(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): Conv3dPlan {
    const plan = Conv3dPlan.#create(stream, desc, preference, options);
    try {
      const gen = plan.#prepare(options);
      let step = gen.next();
      while (!step.done) {
        step.value.synchronizeSync();
        step = gen.next();
      }
    } catch (error) {
      plan.dispose();
      throw error;
    }
    return plan;
  }

  static #create(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference: Partial<PlanPreference> | undefined,
    options: Conv3dPlanOptions | undefined,
  ): Conv3dPlan {
    if (!(desc instanceof Conv3dDescriptor)) {
      throw new InvalidArgumentError('desc', 'a Conv3dDescriptor', desc);
    }
    desc.validate();
    const asked = resolvePlanPreference(preference);
    const opts = resolveOptions(options);
    checkStream(stream, 'stream');
    const version = loadCudnn();
    const device = deviceOf(stream);
    let pref = settleWorkspaceLimit(asked, desc, device);
    const applied: string[] = [];
    let via: Erratum | undefined;
    for (const erratum of errataFor(desc, version, pref)) {
      if (opts.ignoreErrata.includes(erratum.id)) {
        process.emitWarning(
          `Running ${desc.describe()} on cuDNN ${formatCudnnVersion(version)} despite erratum ${erratum.id}: ${erratum.description}`,
          { type: 'BaracudaWarning', code: 'BARACUDA_ERRATUM_IGNORED' },
        );
        continue;
      }
      if (erratum.action === 'refuse') {
        throw new UnsupportedError(erratumRefusal(erratum, desc, version));
      }
      if (erratum.action === 'via-ndhwc') {
        if (pref.algorithm === 'pinned') {
          // The seed's legacy algorithms were not verified on the defect's reproducers.
          throw new UnsupportedError(erratumPinnedRefusal(erratum, desc, version));
        }
        if (desc.layout !== 'ncdhw') {
          throw new UnsupportedError(erratumRefusal(erratum, desc, version));
        }
        via = erratum;
      } else {
        pref = { ...pref, allowTf32: false };
      }
      applied.push(erratum.id);
    }
    device.makeCurrent?.();
    const always =
      opts.layoutDetour === 'always' &&
      pref.algorithm !== 'pinned' &&
      otherLayoutClean(desc, version, pref);
    if (via === undefined && !always) {
      const handle = acquireHandle(device.ordinal, desc.describe());
      return new Conv3dPlan(
        FACTORY_TOKEN,
        stream,
        device,
        desc,
        pref,
        version,
        handle,
        applied,
        undefined,
      );
    }
    // The same problem in the other layout (NDHWC: which the erratum does not touch) as its own plan.
    const inner = Conv3dPlan.#layoutTwin(stream, device, desc, pref, version);
    try {
      const handle = acquireHandle(device.ordinal, desc.describe());
      return new Conv3dPlan(FACTORY_TOKEN, stream, device, desc, pref, version, handle, applied, {
        erratum: via,
        inner,
      });
    } catch (error) {
      inner.dispose();
      throw error;
    }
  }

  /**
   * The problem in the other layout as its own plan (heuristics, autotune and legacy fallback as
   * for any problem), sharing the device's handle: the layout detour's.
   */
  static #layoutTwin(
    stream: StreamLike,
    device: DeviceLike,
    desc: Conv3dDescriptor,
    pref: ResolvedPlanPreference,
    version: number,
  ): Conv3dPlan {
    const innerDesc = otherLayout(desc);
    const handle = acquireHandle(device.ordinal, innerDesc.describe());
    const twin = new Conv3dPlan(
      FACTORY_TOKEN,
      stream,
      device,
      innerDesc,
      pref,
      version,
      handle,
      [],
      undefined,
    );
    twin.#isTwin = true;
    return twin;
  }

  // -------------------------------------------------------------------------------------------
  // the layout detour

  #makeVia(erratum: Erratum | undefined, every: boolean, inner: Conv3dPlan): LayoutDetour {
    const f64 = this.descriptor.element === ElementKind.F64;
    const scale = (v: number) => (f64 ? Float64Array.of(v) : Float32Array.of(v));
    return {
      erratum,
      every,
      inner,
      transposes: detourTransposes(this.descriptor),
      descs: undefined,
      one: scale(1),
      zero: scale(0),
      alphaBuf: scale(1),
      betaBuf: scale(0),
    };
  }

  /** The layout detour when it runs `pass`: every pass, or the passes autotune chose it for. */
  #viaFor(pass: Conv3dPass): LayoutDetour | undefined {
    const via = this.#via;
    return via !== undefined && (via.every || this.#passes[pass].via) ? via : undefined;
  }

  /**
   * Whether autotune times the layout detour (see `options.layoutDetour`): a problem of f32, TF32,
   * f16 or bf16 (f64 has no tensor-core engines to gain), not itself a detour's inner plan, that
   * does not take it for every pass already, whose other layout no erratum covers (the f16/bf16 NCDHW defect of cuDNN 9.8–9.14:
   * an NDHWC problem does not detour into it), on a device where our layout kernels load.
   */
  #viaTunable(): boolean {
    const d = this.descriptor;
    return (
      !this.#isTwin &&
      d.element !== ElementKind.F64 &&
      this.preference.algorithm === 'autotune' &&
      this.#via?.every !== true &&
      otherLayoutClean(d, this.cudnnVersion, this.preference) &&
      this.#layoutKernels() !== null
    );
  }

  /** The detour autotune times, made on first use; kept only if some pass takes it. */
  #ensureVia(): LayoutDetour {
    if (this.#via !== undefined) return this.#via;
    const inner = Conv3dPlan.#layoutTwin(
      this.#stream,
      this.#device,
      this.descriptor,
      this.preference,
      this.cudnnVersion,
    );
    this.#via = this.#makeVia(undefined, false, inner);
    return this.#via;
  }

  /** Drop an autotuned detour no pass took, with its plan and its x and y scratch. */
  #dropUnusedVia(): void {
    const via = this.#via;
    if (via === undefined || via.every || PASSES.some((p) => this.#passes[p].via)) return;
    this.#via = undefined;
    via.inner.dispose();
    for (const role of ['x', 'y'] as const) {
      const buf = this.#res.scratch[role];
      this.#res.scratch[role] = null;
      buf?.dispose();
    }
  }

  /**
   * The layout detour timed as one call sees it: the set's operands transposed into scratch, the
   * other layout's plan (tuned already) and the result transposed back, like a finalist (see
   * {@link Conv3dPlan.#timeAsFinalist}).
   */
  *#timeVia(
    via: LayoutDetour,
    pass: Conv3dPass,
    bench: TuneBench,
  ): Generator<TimingEvent, number, void> {
    const args: RunScalars = { alpha: 1, beta: 0, stream: this.#stream, userWs: null };
    const run = (set: number) => {
      const { x, w, y } = bench.sets[set]!;
      this.#runLayoutDetour(via, pass, x, w, y, args);
      return true;
    };
    return yield* this.#timeAsFinalist(bench, run, TUNE_ROUNDS);
  }

  /** Our layout kernels for this plan's transposes, or null (then cudnnTransformTensor serves). */
  #layoutKernels(): LayoutKernels | null {
    if (this.#layout !== undefined) return this.#layout;
    const loaded = LayoutKernels.forDevice(this.#device);
    const shapes = Object.values(layoutTransposes(this.descriptor)).flatMap((t) => [
      t.toNdhwc,
      t.toNcdhw,
    ]);
    if (loaded instanceof Error) {
      process.emitWarning(
        `baracuda's layout kernels did not load on ${this.#device.name} (${loaded.message}); ${this.#problem} transposes with cudnnTransformTensor, which is much slower`,
        { type: 'BaracudaWarning', code: 'BARACUDA_LAYOUT_KERNELS' },
      );
      this.#layout = null;
    } else {
      this.#layout = shapes.every((t) => transposeGrid(t) !== null) ? loaded : null;
    }
    return this.#layout;
  }

  /** Backward-data as a forward pass, when `pass` is backward-data and autotune chose it. */
  #asFwFor(pass: Conv3dPass): BwDataAsFw | undefined {
    return pass === 'bwData' ? this.#bwDataAsFw : undefined;
  }

  /** Enqueue the flipped filter of `w` into plan-owned scratch; returns the scratch. */
  #flippedFilter(asFw: BwDataAsFw, w: bigint, stream: StreamLike): bigint {
    const flipped = this.#scratchOperand('w', this.descriptor.wElements, stream);
    if (!asFw.layout.flipFilter(stream, w, flipped, asFw.flip, this.#elementBytes)) {
      throw new UnsupportedError(`No filter-flip kernel for ${this.#problem}`);
    }
    return flipped;
  }

  /**
   * Backward-data as a forward pass, made and tuned (its forward problem tunes as its own plan,
   * with its own autotune cache entry); null where it does not apply: a strided layer (see
   * {@link bwDataAsForward}), a layout detour every pass takes on either side, our depthwise kernel for the forward
   * problem, or no layout kernels for the flip.
   */
  *#makeBwDataAsFw(
    options: Conv3dPlanOptions | undefined,
  ): Generator<TimingEvent, BwDataAsFw | null, void> {
    const forward = bwDataAsForward(this.descriptor);
    if (forward === null || this.#via?.every === true) return null;
    const layout = LayoutKernels.forDevice(this.#device);
    if (layout instanceof Error) return null;
    const inner = Conv3dPlan.#create(this.#stream, forward, this.preference, options);
    try {
      if (inner.#via !== undefined) {
        inner.dispose();
        return null;
      }
      if (inner.preference.algorithm === 'autotune') yield* inner.#tune('fw', options);
      // Timed and run as a cuDNN plan only (our depthwise kernels run backward-data directly).
      if (inner.#nativeFor('fw') !== null) {
        inner.dispose();
        return null;
      }
    } catch (error) {
      inner.dispose();
      throw error;
    }
    return { inner, layout, flip: filterFlip(this.descriptor) };
  }

  /**
   * Backward-data as a forward pass timed as one call sees it: the set's w flipped, then the
   * forward plan on (the set's y as dy, the flipped filter) into the set's x as dx. Like a
   * finalist, {@link TUNE_ROUNDS} rounds of {@link finalistReps} runs, keeping the best round.
   * Infinity when the forward problem fell back to the legacy API.
   */
  *#timeBwDataAsFw(asFw: BwDataAsFw, bench: TuneBench): Generator<TimingEvent, number, void> {
    const inner = asFw.inner;
    const stream = this.#stream;
    const flipped = this.#scratchOperand('w', this.descriptor.wElements, stream);
    if (inner.#viaFor('fw') !== undefined) {
      // The forward problem autotuned its layout detour: timed through its run, as a call runs
      // it (the detour's scratch pointers repeat, so its variant packs are cached).
      const args: RunScalars = { alpha: 1, beta: 0, stream, userWs: null };
      const run = (set: number) => {
        const { x, w, y } = bench.sets[set]!;
        inner.#run('fw', y, this.#flippedFilter(asFw, w, stream), x, args);
        return true;
      };
      return yield* this.#timeAsFinalist(bench, run, TUNE_ROUNDS);
    }
    const exec = inner.#choice('fw', 1, 0, 16);
    if (!('variantPacks' in exec)) return Number.POSITIVE_INFINITY;
    const workspace = bench.workspace(exec.workspaceBytes);
    const packs: BackendDescriptor[] = [];
    try {
      for (const { x, y } of bench.sets) packs.push(inner.#variantPack(y, flipped, x, workspace));
      const shared = inner.#res.handle!;
      bindStream(shared, stream.raw, inner.#problem);
      const run = (set: number) => {
        this.#flippedFilter(asFw, bench.sets[set]!.w, stream);
        return cudnn.cudnnBackendExecute(shared.handle, exec.plan, packs[set]!) === 0;
      };
      return yield* this.#timeAsFinalist(bench, run, TUNE_ROUNDS);
    } finally {
      for (const vp of packs) inner.#destroyBackend(vp);
    }
  }

  // -------------------------------------------------------------------------------------------
  // our depthwise kernels

  /**
   * Whether our depthwise kernels run the pass, decided once: every pass of a depthwise problem
   * they take, except in pinned mode, or when autotune (now or from its cache) timed a cuDNN
   * engine faster. An untuned pass takes them where {@link depthwiseUntuned} says.
   */
  #nativeFor(pass: Conv3dPass): NativePass | null {
    const st = this.#passes[pass];
    if (st.native !== undefined) return st.native;
    const tuned = st.preferred;
    const allowed =
      this.preference.algorithm !== 'pinned' &&
      (tuned === undefined || tuned.engineIndex === NATIVE_ENGINE_INDEX);
    const candidate = allowed ? this.#nativeCandidate(pass) : null;
    st.native =
      candidate !== null && (tuned !== undefined || depthwiseUntuned(candidate.call.launch))
        ? candidate
        : null;
    return st.native;
  }

  /** Our kernels for the pass when they apply and load on the device; null otherwise. */
  #nativeCandidate(pass: Conv3dPass): NativePass | null {
    const d = this.descriptor;
    if (depthwiseUnsupported(d, pass) !== null) return null;
    const kernels = DepthwiseKernels.forDevice(this.#device);
    if (kernels instanceof Error) {
      process.emitWarning(
        `baracuda's depthwise kernels did not load on ${this.#device.name} (${kernels.message}); ${this.#problem} ${pass} runs on cuDNN, which is slower for it`,
        { type: 'BaracudaWarning', code: 'BARACUDA_DEPTHWISE_KERNELS' },
      );
      return null;
    }
    const launch = depthwiseLaunch(d, pass);
    return {
      call: kernels.call(launch, d.element),
      workspaceBytes: 0,
      info: Object.freeze({
        path: 'native' as const,
        name: `baracuda depthwise ${launch.kernel}`,
        numericalNotes: Object.freeze([]),
        workspaceBytes: 0,
        deterministic: true,
        mathPrecision: intendedMathPrecision(d.element, false),
      }),
    };
  }

  /** Run a pass on our depthwise kernels: no workspace, no cuDNN handle. */
  #runNative(
    pass: Conv3dPass,
    native: NativePass,
    px: bigint,
    pw: bigint,
    py: bigint,
    { alpha, beta, stream }: RunScalars,
  ): void {
    // fw reads x (px) and w into y (py); bwData dy (py) and w into dx (px); bwFilter x and dy into
    // dw (pw).
    if (pass === 'fw') native.call.run(stream, px, pw, py, alpha, beta);
    else if (pass === 'bwData') native.call.run(stream, py, pw, px, alpha, beta);
    else native.call.run(stream, px, py, pw, alpha, beta);
  }

  // -------------------------------------------------------------------------------------------
  // queries

  #checkNotDisposed(): void {
    if (this.#disposed) throw new DisposedError('Conv3dPlan');
  }

  /** Output extents [D, H, W]. */
  outputDims(): [number, number, number] {
    this.#checkNotDisposed();
    return this.descriptor.outputDims();
  }

  /** Workspace bytes of the forward pass (builds its plan if needed: alpha 1, beta 0, 16-byte aligned pointers). */
  queryFwWorkspaceSize(): number {
    return this.#defaultChoice('fw').workspaceBytes;
  }
  /** Workspace bytes of the backward-data pass (builds its plan if needed). */
  queryBwDataWorkspaceSize(): number {
    return this.#defaultChoice('bwData').workspaceBytes;
  }
  /** Workspace bytes of the backward-filter pass (builds its plan if needed). */
  queryBwFilterWorkspaceSize(): number {
    return this.#defaultChoice('bwFilter').workspaceBytes;
  }

  /** What was chosen for a pass (builds its plan if needed). */
  algorithm(pass: Conv3dPass): AlgorithmInfo {
    if (!PASSES.includes(pass)) {
      this.#checkNotDisposed();
      throw new InvalidArgumentError('pass', "'fw', 'bwData' or 'bwFilter'", pass);
    }
    this.#checkNotDisposed();
    const native = this.#nativeFor(pass);
    if (native !== null) return native.info;
    const asFw = this.#asFwFor(pass);
    if (asFw !== undefined) return renamed(asFw.inner.algorithm('fw'), BWDATA_AS_FW_SUFFIX);
    const via = this.#viaFor(pass);
    if (via !== undefined) {
      // The inner NDHWC plan's truth, named as the detour it is.
      const suffix =
        via.erratum !== undefined
          ? VIA_NDHWC_SUFFIX
          : `via ${via.inner.descriptor.layout.toUpperCase()}`;
      return renamed(via.inner.algorithm(pass), suffix);
    }
    const choice = this.#defaultChoice(pass);
    return this.#passes[pass].reported ?? choice.info;
  }

  /**
   * The precision the plan gives. Before any pass is built, the preference's intent; after,
   * the truth of the chosen engines/algorithms (TF32 if any built f32 pass uses tensor cores,
   * nondeterministic if any built pass is).
   */
  precisionGuarantee(): PrecisionGuarantee {
    this.#checkNotDisposed();
    const element = this.descriptor.element;
    const built = this.#builtInfos();
    const accumulator = element === ElementKind.F64 ? ElementKind.F64 : ElementKind.F32;
    if (built.length === 0) {
      const deterministic = this.preference.deterministic || this.preference.algorithm === 'pinned';
      const mathPrecision = intendedMathPrecision(element, this.preference.allowTf32);
      return {
        mathPrecision,
        accumulator,
        deterministic,
        bitStableOnSameHardware: deterministic,
      };
    }
    const tf32 = built.some((i) => i.mathPrecision === 'tf32');
    const mathPrecision = tf32 ? 'tf32' : built[0]!.mathPrecision;
    const deterministic = built.every((i) => i.deterministic);
    return { mathPrecision, accumulator, deterministic, bitStableOnSameHardware: deterministic };
  }

  /**
   * What each pass built so far runs: our kernel's info, else what the plan that runs it (the
   * forward problem's, the layout detour's, or this one) built.
   */
  #builtInfos(): AlgorithmInfo[] {
    return PASSES.map((p) => this.#builtInfo(p)).filter((i): i is AlgorithmInfo => i !== undefined);
  }

  #builtInfo(pass: Conv3dPass): AlgorithmInfo | undefined {
    const own = this.#passes[pass].native?.info;
    if (own !== undefined) return own;
    const asFw = this.#asFwFor(pass);
    if (asFw !== undefined) return asFw.inner.#builtInfo('fw');
    // The layout detour's plan runs the pass, maybe on our kernel or as a forward pass itself.
    const via = this.#viaFor(pass);
    if (via !== undefined) return via.inner.#builtInfo(pass);
    return this.#passes[pass].reported;
  }

  /**
   * Identity of the kernel: element, layout, arch from the device's compute capability, and the
   * backend: `'native'` when every pass built so far runs on baracuda's own kernels (a depthwise
   * plan of forward and backward-data only, say), else `'cudnn'`.
   */
  sku(): KernelSku {
    this.#checkNotDisposed();
    const built = this.#builtInfos();
    const cc = this.#device.computeCapability;
    const arch =
      (this.#device.arch as ArchSku | undefined) ??
      archSkuFromComputeCapability(cc.major, cc.minor);
    return {
      category: 'convolution',
      op: 'conv3d',
      element: this.descriptor.element,
      auxElement: undefined,
      layout: this.descriptor.layout,
      epilogue: 'identity',
      arch,
      backend: built.length > 0 && built.every((i) => i.path === 'native') ? 'native' : 'cudnn',
      precisionGuarantee: this.precisionGuarantee(),
    };
  }

  // -------------------------------------------------------------------------------------------
  // runs

  /** Enqueue y = alpha * conv(x, w) + beta * y on the stream; returns without waiting. */
  runFw(args: Conv3dFwArgs): void {
    this.#checkNotDisposed();
    const { px, pw, py, scalars } = checkRunArgs('fw', args, this.#runTarget);
    // A getter of the arguments may have disposed the plan.
    this.#checkNotDisposed();
    this.#run('fw', px, pw, py, scalars);
  }

  /** Enqueue dx = alpha * convBwData(w, dy) + beta * dx; returns without waiting. */
  runBwData(args: Conv3dBwDataArgs): void {
    this.#checkNotDisposed();
    const { px, pw, py, scalars } = checkRunArgs('bwData', args, this.#runTarget);
    // A getter of the arguments may have disposed the plan.
    this.#checkNotDisposed();
    this.#run('bwData', px, pw, py, scalars);
  }

  /** Enqueue dw = alpha * convBwFilter(x, dy) + beta * dw; returns without waiting. */
  runDw(args: Conv3dDwArgs): void {
    this.#checkNotDisposed();
    const { px, pw, py, scalars } = checkRunArgs('bwFilter', args, this.#runTarget);
    // A getter of the arguments may have disposed the plan.
    this.#checkNotDisposed();
    this.#run('bwFilter', px, pw, py, scalars);
  }

  /**
   * Run a pass. Operand order is cuDNN's uid order: (x-like, w-like, y-like) pointers.
   * Hot path when the pointers, alpha and beta repeat: one LRU scan, maybe cudnnSetStream,
   * one cudnnBackendExecute.
   */
  #run(pass: Conv3dPass, px: bigint, pw: bigint, py: bigint, args: RunScalars): void {
    const asFw = this.#asFwFor(pass);
    if (asFw !== undefined) {
      // dx = alpha * conv(dy, flipped W) + beta * dx: the flipped filter into scratch, then the
      // forward plan.
      asFw.inner.#run('fw', py, this.#flippedFilter(asFw, pw, args.stream), px, args);
      return;
    }
    const native = this.#passes[pass].native;
    if (native !== null) {
      const chosen = native ?? this.#nativeFor(pass);
      if (chosen !== null) {
        this.#runNative(pass, chosen, px, pw, py, args);
        return;
      }
    }
    const via = this.#viaFor(pass);
    if (via !== undefined) {
      this.#runLayoutDetour(via, pass, px, pw, py, args);
      return;
    }
    const { alpha, beta, stream, userWs } = args;
    const st = this.#passes[pass];
    const shared = this.#res.handle!;
    let wsPtr = userWs !== null ? userWs.devicePtr : (this.#res.workspace?.devicePtr ?? 0n);
    const last = st.last;
    if (last !== undefined && last.alpha === alpha && last.beta === beta) {
      const vp = last.variantPacks.get(px, pw, py, wsPtr);
      if (vp !== undefined) {
        if (userWs !== null && userWs.byteLength < last.workspaceBytes) {
          throw new WorkspaceTooSmallError(last.workspaceBytes, userWs.byteLength);
        }
        bindStream(shared, stream.raw, this.#problem);
        this.#execute(pass, shared.handle, last, vp);
        return;
      }
    }
    // Slow path: choose (or build) the execution plan for this alpha/beta/alignment.
    const align = alignmentClass([px, pw, py, wsPtr], this.#elementBytes);
    const choice = this.#choice(pass, alpha, beta, align);
    const needed = choice.workspaceBytes;
    if (userWs !== null) {
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
    } else {
      wsPtr = this.#ownWorkspace(needed, stream);
    }
    bindStream(shared, stream.raw, this.#problem);
    if ('variantPacks' in choice) {
      let vp = choice.variantPacks.get(px, pw, py, wsPtr);
      if (vp === undefined) {
        vp = this.#variantPack(px, pw, py, wsPtr);
        choice.variantPacks.set(px, pw, py, wsPtr, vp);
      }
      st.last = choice;
      this.#execute(pass, shared.handle, choice, vp);
    } else {
      this.#legacyRun(pass, choice, shared.handle, px, pw, py, wsPtr, alpha, beta);
    }
  }

  /**
   * The layout detour's run: the inputs transposed into scratch in the other layout, that layout's
   * plan into scratch, and the result transposed into the caller's output. Our transposes move the
   * caller's output in too when beta must read it, and the plan takes the caller's alpha and beta;
   * with cudnnTransformTensor (NCDHW only) the plan runs with alpha 1 and beta 0 and the last
   * transform applies the caller's (so beta 1 accumulates exactly once). Every check happens
   * before anything is written to the caller's output.
   */
  #runLayoutDetour(
    via: LayoutDetour,
    pass: Conv3dPass,
    px: bigint,
    pw: bigint,
    py: bigint,
    args: RunScalars,
  ): void {
    const { alpha, beta, stream, userWs } = args;
    if (userWs !== null) {
      // The inner plan checks it again; checked here first so a short one writes nothing at all.
      const needed = via.inner.#defaultChoice(pass).workspaceBytes;
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
    }
    const d = this.descriptor;
    const ptr: Record<Role, bigint> = { x: px, w: pw, y: py };
    const scratch: Record<Role, bigint> = {
      x: this.#scratchOperand('x', d.xElements, stream),
      w: this.#scratchOperand('w', d.wElements, stream),
      y: this.#scratchOperand('y', d.yElements, stream),
    };
    const out = OUTPUT_ROLE[pass];
    const layout = this.#layoutKernels();
    if (layout !== null) {
      const bytes = this.#elementBytes;
      const t = via.transposes;
      for (const role of ROLES) {
        if (role !== out || beta !== 0) {
          layout.transpose(stream, ptr[role], scratch[role], t[role].in, bytes);
        }
      }
      via.inner.#run(pass, scratch.x, scratch.w, scratch.y, args);
      layout.transpose(stream, scratch[out], ptr[out], t[out].out, bytes);
      return;
    }
    const descs = this.#viaDescriptors(via);
    const shared = this.#res.handle!;
    bindStream(shared, stream.raw, this.#problem);
    for (const role of ROLES) {
      if (role === out) continue;
      check(
        cudnn.cudnnTransformTensor(
          shared.handle,
          via.one,
          descs.caller[role],
          ptr[role],
          via.zero,
          descs.scratch[role],
          scratch[role],
        ),
        'cudnnTransformTensor',
        `${this.#problem} ${pass} (${role} into ${via.inner.descriptor.layout.toUpperCase()})`,
      );
    }
    via.inner.#run(pass, scratch.x, scratch.w, scratch.y, { alpha: 1, beta: 0, stream, userWs });
    // The inner plan bound the same shared handle to the same stream.
    via.alphaBuf[0] = alpha;
    via.betaBuf[0] = beta;
    check(
      cudnn.cudnnTransformTensor(
        shared.handle,
        via.alphaBuf,
        descs.scratch[out],
        scratch[out],
        via.betaBuf,
        descs.caller[out],
        ptr[out],
      ),
      'cudnnTransformTensor',
      `${this.#problem} ${pass} (${out} back from ${via.inner.descriptor.layout.toUpperCase()})`,
    );
  }

  /** The legacy tensor descriptors of the layout transforms (made once). */
  #viaDescriptors(via: LayoutDetour): NonNullable<LayoutDetour['descs']> {
    if (via.descs !== undefined) return via.descs;
    const caller = {} as Record<Role, LegacyDescriptor>;
    const scratch = {} as Record<Role, LegacyDescriptor>;
    const operands = (
      d: Conv3dDescriptor,
    ): Record<Role, [readonly number[], readonly number[]]> => ({
      x: [d.xShape, d.xStrides],
      w: [d.wShape, d.wStrides],
      y: [d.yShape, d.yStrides],
    });
    const own = operands(this.descriptor);
    const other = operands(via.inner.descriptor);
    for (const role of ROLES) {
      const [dims, strides] = own[role];
      caller[role] = this.#legacyTensor(dims, strides, `${role} ${this.descriptor.layout}`);
      const [, innerStrides] = other[role];
      scratch[role] = this.#legacyTensor(
        dims,
        innerStrides,
        `${role} ${via.inner.descriptor.layout}`,
      );
    }
    via.descs = { caller, scratch };
    return via.descs;
  }

  /**
   * A plan-owned scratch operand: allocated on first use (stream-ordered), then reused. The layout
   * detour's operands, or backward-data-as-forward's flipped filter. One plan may take both (the
   * detour for some passes, the flip for backward-data): each run writes the scratch it reads,
   * before reading it, in stream order.
   */
  #scratchOperand(role: Role, elements: number, stream: StreamLike): bigint {
    const bytes = elements * this.#elementBytes;
    const current = this.#res.scratch[role];
    if (current !== null && current.byteLength >= bytes) return current.devicePtr;
    const next = driver.DeviceBuffer.alloc(bytes, { device: this.#device, stream });
    this.#res.scratch[role] = next;
    if (current !== null) current.dispose();
    return next.devicePtr;
  }

  #execute(pass: Conv3dPass, handle: CudnnHandle, exec: GraphExec, vp: BackendDescriptor): void {
    const status = cudnn.cudnnBackendExecute(handle, exec.plan, vp);
    if (status !== 0) {
      check(status, 'cudnnBackendExecute', `${this.#problem} ${pass} ${exec.info.name}`);
    }
  }

  #ownWorkspace(bytes: number, stream: StreamLike): bigint {
    const current = this.#res.workspace;
    if (bytes === 0) return current?.devicePtr ?? 0n;
    if (current !== null && current.byteLength >= bytes) return current.devicePtr;
    // Grown: the old buffer is freed in stream order by the driver (after queued work).
    const next = driver.DeviceBuffer.alloc(bytes, { device: this.#device, stream });
    this.#res.workspace = next;
    if (current !== null) current.dispose();
    return next.devicePtr;
  }

  #variantPack(px: bigint, pw: bigint, py: bigint, ws: bigint): BackendDescriptor {
    const vp = this.#createBackend(C.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 'variant pack');
    try {
      this.#set(
        vp,
        C.CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
        C.CUDNN_TYPE_INT64,
        new BigInt64Array([UID_X, UID_W, UID_Y]),
      );
      this.#set(
        vp,
        C.CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
        C.CUDNN_TYPE_VOID_PTR,
        new BigUint64Array([px, pw, py]),
      );
      this.#set(
        vp,
        C.CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
        C.CUDNN_TYPE_VOID_PTR,
        new BigUint64Array([ws]),
      );
      check(
        cudnn.cudnnBackendFinalize(vp),
        'cudnnBackendFinalize',
        `${this.#problem} (variant pack)`,
      );
    } catch (error) {
      this.#destroyBackend(vp);
      throw error;
    }
    return vp;
  }

  // -------------------------------------------------------------------------------------------
  // choosing per pass

  /** The choice for alpha 1, beta 0 and 16-byte aligned pointers (queries, algorithm()). */
  #defaultChoice(pass: Conv3dPass): GraphExec | LegacyPass | NativePass {
    this.#checkNotDisposed();
    const native = this.#nativeFor(pass);
    if (native !== null) return native;
    const asFw = this.#asFwFor(pass);
    if (asFw !== undefined) return asFw.inner.#defaultChoice('fw');
    const via = this.#viaFor(pass);
    if (via !== undefined) return via.inner.#defaultChoice(pass);
    return this.#choice(pass, 1, 0, 16);
  }

  #choice(pass: Conv3dPass, alpha: number, beta: number, align: number): GraphExec | LegacyPass {
    const st = this.#passes[pass];
    if (this.preference.algorithm === 'pinned') {
      st.legacy ??= this.#pinned(pass);
      st.reported ??= st.legacy.info;
      return st.legacy;
    }
    const key = `${alpha}|${beta}|${align}`;
    let exec = st.graphs.get(key);
    if (exec === undefined) {
      exec = this.#selectGraph(pass, alpha, beta, align, st.preferred);
      st.graphs.set(key, exec);
    }
    if (exec !== null) {
      st.reported ??= exec.info;
      return exec;
    }
    st.legacy ??= this.#legacyHeuristic(pass);
    st.reported ??= st.legacy.info;
    return st.legacy;
  }

  // -------------------------------------------------------------------------------------------
  // graph API

  #createBackend(type: number, what: string): BackendDescriptor {
    const r = cudnn.cudnnBackendCreateDescriptor(type);
    check(r.status, 'cudnnBackendCreateDescriptor', `${this.#problem} (${what})`);
    const d = outputOf<BackendDescriptor>(r, 'descriptor');
    this.#res.backend.add(d);
    return d;
  }

  #destroyBackend(d: BackendDescriptor): void {
    if (this.#res.backend.delete(d)) {
      try {
        cudnn.cudnnBackendDestroyDescriptor(d);
      } catch {
        // ignore
      }
    }
    const parts = this.#res.parts.get(d);
    if (parts !== undefined) {
      this.#res.parts.delete(d);
      for (const p of parts) this.#destroyBackend(p);
    }
  }

  #set(d: BackendDescriptor, name: number, type: number, values: unknown): void {
    const status = cudnn.cudnnBackendSetAttribute(d, name, type, values);
    if (status !== 0) {
      check(status, 'cudnnBackendSetAttribute', `${this.#problem} (attribute ${name})`);
    }
  }

  #tensorDesc(
    uid: bigint,
    shape: readonly number[],
    strides: readonly number[],
    align: number,
  ): BackendDescriptor {
    const t = this.#createBackend(C.CUDNN_BACKEND_TENSOR_DESCRIPTOR, 'tensor');
    this.#set(
      t,
      C.CUDNN_ATTR_TENSOR_DATA_TYPE,
      C.CUDNN_TYPE_DATA_TYPE,
      new Int32Array([cudnnDataType(this.descriptor.element)]),
    );
    this.#set(
      t,
      C.CUDNN_ATTR_TENSOR_DIMENSIONS,
      C.CUDNN_TYPE_INT64,
      BigInt64Array.from(shape, BigInt),
    );
    this.#set(
      t,
      C.CUDNN_ATTR_TENSOR_STRIDES,
      C.CUDNN_TYPE_INT64,
      BigInt64Array.from(strides, BigInt),
    );
    this.#set(t, C.CUDNN_ATTR_TENSOR_UNIQUE_ID, C.CUDNN_TYPE_INT64, new BigInt64Array([uid]));
    this.#set(
      t,
      C.CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,
      C.CUDNN_TYPE_INT64,
      new BigInt64Array([BigInt(align)]),
    );
    check(
      cudnn.cudnnBackendFinalize(t),
      'cudnnBackendFinalize',
      `${this.#problem} (tensor ${uid})`,
    );
    return t;
  }

  /** Build the one-node operation graph of a pass. Returns the graph and every descriptor made. */
  #operationGraph(
    pass: Conv3dPass,
    alpha: number,
    beta: number,
    align: number,
  ): { graph: BackendDescriptor; parts: BackendDescriptor[] } {
    const d = this.descriptor;
    const parts: BackendDescriptor[] = [];
    const made = (x: BackendDescriptor) => {
      parts.push(x);
      return x;
    };
    try {
      const x = made(this.#tensorDesc(UID_X, d.xShape, d.xStrides, align));
      const w = made(this.#tensorDesc(UID_W, d.wShape, d.wStrides, align));
      const y = made(this.#tensorDesc(UID_Y, d.yShape, d.yStrides, align));
      const conv = made(this.#createBackend(C.CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 'convolution'));
      const f64 = d.element === ElementKind.F64;
      const i64 = (a: number, b: number, c: number) =>
        new BigInt64Array([BigInt(a), BigInt(b), BigInt(c)]);
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_COMP_TYPE,
        C.CUDNN_TYPE_DATA_TYPE,
        new Int32Array([f64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT]),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_CONV_MODE,
        C.CUDNN_TYPE_CONVOLUTION_MODE,
        new Int32Array([C.CUDNN_CROSS_CORRELATION]),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
        C.CUDNN_TYPE_INT64,
        new BigInt64Array([3n]),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
        C.CUDNN_TYPE_INT64,
        i64(d.padD, d.padH, d.padW),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
        C.CUDNN_TYPE_INT64,
        i64(d.padD, d.padH, d.padW),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
        C.CUDNN_TYPE_INT64,
        i64(d.strideD, d.strideH, d.strideW),
      );
      this.#set(
        conv,
        C.CUDNN_ATTR_CONVOLUTION_DILATIONS,
        C.CUDNN_TYPE_INT64,
        i64(d.dilationD, d.dilationH, d.dilationW),
      );
      check(
        cudnn.cudnnBackendFinalize(conv),
        'cudnnBackendFinalize',
        `${this.#problem} (convolution)`,
      );

      const scaleType = f64 ? C.CUDNN_TYPE_DOUBLE : C.CUDNN_TYPE_FLOAT;
      const scale = (v: number) => (f64 ? new Float64Array([v]) : new Float32Array([v]));
      const desc = C.CUDNN_TYPE_BACKEND_DESCRIPTOR;
      let op: BackendDescriptor;
      if (pass === 'fw') {
        op = made(
          this.#createBackend(
            C.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
            'forward op',
          ),
        );
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, desc, [x]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, desc, [w]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, desc, [y]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, desc, [conv]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, scaleType, scale(alpha));
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, scaleType, scale(beta));
      } else if (pass === 'bwData') {
        op = made(
          this.#createBackend(
            C.CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            'backward-data op',
          ),
        );
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, desc, [x]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, desc, [w]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, desc, [y]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, desc, [conv]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, scaleType, scale(alpha));
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, scaleType, scale(beta));
      } else {
        op = made(
          this.#createBackend(
            C.CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
            'backward-filter op',
          ),
        );
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, desc, [x]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, desc, [w]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, desc, [y]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, desc, [conv]);
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, scaleType, scale(alpha));
        this.#set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, scaleType, scale(beta));
      }
      check(
        cudnn.cudnnBackendFinalize(op),
        'cudnnBackendFinalize',
        `${this.#problem} ${pass} (operation)`,
      );
      const graph = made(
        this.#createBackend(C.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 'operation graph'),
      );
      this.#set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_HANDLE, C.CUDNN_TYPE_HANDLE, [
        this.#res.handle!.handle,
      ]);
      this.#set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, [op]);
      check(
        cudnn.cudnnBackendFinalize(graph),
        'cudnnBackendFinalize',
        `${this.#problem} ${pass} (operation graph)`,
      );
      return { graph, parts };
    } catch (error) {
      for (const p of parts) this.#destroyBackend(p);
      throw error;
    }
  }

  /** Engine configs the heuristics offer in one mode ([] when the mode has none). */
  #heuristicConfigs(graph: BackendDescriptor, mode: number): BackendDescriptor[] {
    const heur = this.#createBackend(C.CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 'heuristics');
    try {
      this.#set(heur, C.CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [
        graph,
      ]);
      this.#set(heur, C.CUDNN_ATTR_ENGINEHEUR_MODE, C.CUDNN_TYPE_HEUR_MODE, new Int32Array([mode]));
      if (cudnn.cudnnBackendFinalize(heur) !== 0) return [];
      const count = cudnn.cudnnBackendGetAttribute(
        heur,
        C.CUDNN_ATTR_ENGINEHEUR_RESULTS,
        C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        0,
        [],
      );
      const n = Number(count.elementCount);
      if (count.status !== 0 || n === 0) return [];
      const cfgs: BackendDescriptor[] = [];
      for (let i = 0; i < n; i++)
        cfgs.push(this.#createBackend(C.CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 'engine config'));
      const r = cudnn.cudnnBackendGetAttribute(
        heur,
        C.CUDNN_ATTR_ENGINEHEUR_RESULTS,
        C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        n,
        cfgs,
      );
      const got = r.status === 0 ? Math.min(n, Number(r.elementCount)) : 0;
      for (const extra of cfgs.slice(got)) this.#destroyBackend(extra);
      return cfgs.slice(0, got);
    } finally {
      this.#destroyBackend(heur);
    }
  }

  /** An engine config's engine: a new descriptor for the caller to destroy; null if cuDNN does not say. */
  #engineOf(cfg: BackendDescriptor): BackendDescriptor | null {
    const engine = this.#createBackend(C.CUDNN_BACKEND_ENGINE_DESCRIPTOR, 'engine');
    const r = cudnn.cudnnBackendGetAttribute(
      cfg,
      C.CUDNN_ATTR_ENGINECFG_ENGINE,
      C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      1,
      [engine],
    );
    if (r.status === 0) return engine;
    this.#destroyBackend(engine);
    return null;
  }

  /** Engine index, knobs and numerical notes of an engine config. */
  #describeConfig(cfg: BackendDescriptor): EngineCandidate | null {
    const engine = this.#engineOf(cfg);
    if (engine === null) return null;
    const knobDescs: BackendDescriptor[] = [];
    try {
      const engineIndex = getScalar(engine, C.CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
      if (engineIndex === null) return null;
      const notesR = cudnn.cudnnBackendGetAttribute(
        engine,
        C.CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
        C.CUDNN_TYPE_NUMERICAL_NOTE,
        16,
      );
      const notes: string[] = [];
      if (notesR.status === 0) {
        const values = notesR.values as ArrayLike<number | bigint>;
        const count = Math.min(Number(notesR.elementCount), values.length);
        for (let i = 0; i < count; i++) notes.push(numericalNoteName(Number(values[i])));
      }
      const knobs: [number, number][] = [];
      // Ask for a fixed number of choices, and again if the config has more. Asked for the count
      // with an empty array, cuDNN 9.14 and 9.19 report no choices: every config of an engine then
      // looked alike and all but the first were dropped as duplicates (on an H200 that hid
      // engine 28's default config, 1.37 ms against 1.98 ms, for a VideoMAE f32 patch embedding).
      const ask = (count: number) => {
        while (knobDescs.length < count)
          knobDescs.push(
            this.#createBackend(C.CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 'knob choice'),
          );
        return cudnn.cudnnBackendGetAttribute(
          cfg,
          C.CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
          C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
          count,
          knobDescs,
        );
      };
      let r = ask(KNOB_SLOTS);
      if (r.status === 0 && Number(r.elementCount) > KNOB_SLOTS) r = ask(Number(r.elementCount));
      const got = r.status === 0 ? Math.min(knobDescs.length, Number(r.elementCount)) : 0;
      for (const choice of knobDescs.slice(0, got)) {
        const t = getScalar(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, C.CUDNN_TYPE_KNOB_TYPE);
        const v = getScalar(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE);
        if (t !== null && v !== null) knobs.push([t, v]);
      }
      knobs.sort((a, b) => a[0] - b[0]);
      return { cfg, engineIndex, knobs, notes };
    } finally {
      this.#destroyBackend(engine);
      for (const k of knobDescs) this.#destroyBackend(k);
    }
  }

  /** The knob ranges of an engine config's engine ([] when cuDNN does not say). */
  #knobSpace(cfg: BackendDescriptor): KnobRange[] {
    const engine = this.#engineOf(cfg);
    if (engine === null) return [];
    const infos: BackendDescriptor[] = [];
    try {
      for (let i = 0; i < KNOB_INFO_SLOTS; i++)
        infos.push(this.#createBackend(C.CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, 'knob info'));
      const r = cudnn.cudnnBackendGetAttribute(
        engine,
        C.CUDNN_ATTR_ENGINE_KNOB_INFO,
        C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        infos.length,
        infos,
      );
      const got = r.status === 0 ? Math.min(infos.length, Number(r.elementCount)) : 0;
      const space: KnobRange[] = [];
      for (const info of infos.slice(0, got)) {
        const knob = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_TYPE, C.CUDNN_TYPE_KNOB_TYPE);
        const min = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE);
        const max = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE);
        const stride = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_STRIDE);
        if (knob === null || min === null || max === null || stride === null) continue;
        space.push({ knob, min, max, stride });
      }
      return space;
    } finally {
      this.#destroyBackend(engine);
      for (const info of infos) this.#destroyBackend(info);
    }
  }

  /**
   * An engine config built from an engine's global index and knob choices (autotune's knob search,
   * and a cached choice); null when cuDNN refuses it. Its engine and knob choices live as long as
   * it does.
   */
  #buildConfig(
    graph: BackendDescriptor,
    engineIndex: number,
    knobs: readonly (readonly [number, number])[],
  ): BackendDescriptor | null {
    const parts: BackendDescriptor[] = [];
    const fail = () => {
      for (const p of parts) this.#destroyBackend(p);
      return null;
    };
    const set = (d: BackendDescriptor, name: number, type: number, values: unknown) =>
      cudnn.cudnnBackendSetAttribute(d, name, type, values) === 0;
    const setInt64 = (d: BackendDescriptor, name: number, value: number) =>
      set(d, name, C.CUDNN_TYPE_INT64, new BigInt64Array([BigInt(value)]));
    const engine = this.#createBackend(C.CUDNN_BACKEND_ENGINE_DESCRIPTOR, 'engine');
    parts.push(engine);
    if (
      !set(engine, C.CUDNN_ATTR_ENGINE_OPERATION_GRAPH, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [graph]) ||
      !setInt64(engine, C.CUDNN_ATTR_ENGINE_GLOBAL_INDEX, engineIndex) ||
      cudnn.cudnnBackendFinalize(engine) !== 0
    )
      return fail();
    const choices: BackendDescriptor[] = [];
    for (const [knob, value] of knobs) {
      const choice = this.#createBackend(C.CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 'knob choice');
      parts.push(choice);
      choices.push(choice);
      if (
        !set(
          choice,
          C.CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
          C.CUDNN_TYPE_KNOB_TYPE,
          new Int32Array([knob]),
        ) ||
        !setInt64(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, value) ||
        cudnn.cudnnBackendFinalize(choice) !== 0
      )
        return fail();
    }
    const cfg = this.#createBackend(C.CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 'engine config');
    this.#res.parts.set(cfg, parts);
    if (
      !set(cfg, C.CUDNN_ATTR_ENGINECFG_ENGINE, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [engine]) ||
      (choices.length > 0 &&
        !set(cfg, C.CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, choices)) ||
      cudnn.cudnnBackendFinalize(cfg) !== 0
    ) {
      this.#destroyBackend(cfg);
      return null;
    }
    return cfg;
  }

  /**
   * A built config (see {@link Conv3dPlan.#buildConfig}) read back, allowed by the preference and
   * finalized within the workspace limit; null otherwise (nothing is left allocated).
   */
  #buildCandidate(
    graph: BackendDescriptor,
    engineIndex: number,
    knobs: readonly (readonly [number, number])[],
  ): BuiltCandidate | null {
    const cfg = this.#buildConfig(graph, engineIndex, knobs);
    if (cfg === null) return null;
    const c = this.#describeConfig(cfg);
    const built = c === null ? null : this.#finalizeAllowed(c);
    if (built === null) this.#destroyBackend(cfg);
    return built;
  }

  /**
   * The candidate with its execution plan, when the preference allows its engine and the plan
   * fits the workspace limit (`onTooBig` hears of a plan that does not); null otherwise, with its
   * plan destroyed and its config left to the caller.
   */
  #finalizeAllowed(
    c: EngineCandidate,
    onTooBig?: (workspaceBytes: number) => void,
  ): BuiltCandidate | null {
    if (engineRejection(c.notes, this.preference, this.descriptor.element) !== null) return null;
    const built = this.#finalizePlan(c.cfg);
    if (built === null) return null;
    if (built.workspaceBytes <= this.preference.maxWorkspaceBytes) return { c, ...built };
    onTooBig?.(built.workspaceBytes);
    this.#destroyBackend(built.plan);
    return null;
  }

  /** Candidates of the given heuristic modes, deduplicated by engine index + knobs, in order. */
  #candidates(graph: BackendDescriptor, modes: readonly number[]): EngineCandidate[] {
    const seen = new Set<string>();
    const out: EngineCandidate[] = [];
    for (const mode of modes) {
      for (const cfg of this.#heuristicConfigs(graph, mode)) {
        const c = this.#describeConfig(cfg);
        const id = c ? configId(c.engineIndex, c.knobs) : '';
        if (c === null || seen.has(id)) {
          this.#destroyBackend(cfg);
          continue;
        }
        seen.add(id);
        out.push(c);
      }
    }
    return out;
  }

  /** Finalize an execution plan; null (no throw) when cuDNN refuses this config. */
  #finalizePlan(
    cfg: BackendDescriptor,
  ): { plan: BackendDescriptor; workspaceBytes: number } | null {
    const plan = this.#createBackend(C.CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 'execution plan');
    const fail = () => {
      this.#destroyBackend(plan);
      return null;
    };
    if (
      cudnn.cudnnBackendSetAttribute(
        plan,
        C.CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
        C.CUDNN_TYPE_HANDLE,
        [this.#res.handle!.handle],
      ) !== 0
    )
      return fail();
    if (
      cudnn.cudnnBackendSetAttribute(
        plan,
        C.CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
        C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        [cfg],
      ) !== 0
    )
      return fail();
    if (cudnn.cudnnBackendFinalize(plan) !== 0) return fail();
    const workspaceBytes = getScalar(plan, C.CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
    if (workspaceBytes === null) return fail();
    return { plan, workspaceBytes };
  }

  #graphInfo(c: EngineCandidate, workspaceBytes: number): AlgorithmInfo {
    return Object.freeze({
      path: 'graph' as const,
      name: engineName(c.engineIndex, c.knobs),
      engineIndex: c.engineIndex,
      knobs: Object.freeze(c.knobs.map(([knob, value]) => Object.freeze({ knob, value }))),
      numericalNotes: Object.freeze([...c.notes]),
      workspaceBytes,
      deterministic: !c.notes.includes('NONDETERMINISTIC'),
      mathPrecision: mathPrecisionOfEngine(c.notes, this.descriptor.element),
    });
  }

  /**
   * Heuristic selection on the graph API: mode A then FALLBACK (plus B when matching a tuned
   * engine); the first config that is allowed by the preference, finalizes, and fits the
   * workspace budget. Null when none does (the caller falls back to the legacy API).
   */
  #selectGraph(
    pass: Conv3dPass,
    alpha: number,
    beta: number,
    align: number,
    preferred: AutotuneEntry | undefined,
  ): GraphExec | null {
    const { graph, parts } = this.#operationGraph(pass, alpha, beta, align);
    const variantPacks = () =>
      new PointerLru<BackendDescriptor>(VARIANT_PACK_CACHE, (vp) => this.#destroyBackend(vp));
    // A tuned choice is built directly: autotune's knob search finds configs no heuristic mode
    // offers, and this skips the heuristics' queries.
    if (preferred && preferred.engineIndex >= 0) {
      const direct = this.#buildCandidate(graph, preferred.engineIndex, preferred.knobs);
      if (direct !== null) {
        return {
          alpha,
          beta,
          align,
          plan: direct.plan,
          workspaceBytes: direct.workspaceBytes,
          info: this.#graphInfo(direct.c, direct.workspaceBytes),
          variantPacks: variantPacks(),
        };
      }
    }
    const modes = preferred
      ? [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_B, C.CUDNN_HEUR_MODE_FALLBACK]
      : [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_FALLBACK];
    const candidates = this.#candidates(graph, modes);
    if (preferred) {
      const key = configId(preferred.engineIndex, preferred.knobs);
      const i = candidates.findIndex((c) => configId(c.engineIndex, c.knobs) === key);
      if (i > 0) candidates.unshift(...candidates.splice(i, 1));
    }
    let chosen: BuiltCandidate | null = null;
    for (const c of candidates) {
      if (chosen === null) {
        chosen = this.#finalizeAllowed(c);
        if (chosen !== null) continue; // keep its engine config alive with the plan
      }
      this.#destroyBackend(c.cfg);
    }
    if (chosen === null) {
      for (const p of parts) this.#destroyBackend(p);
      return null;
    }
    return {
      alpha,
      beta,
      align,
      plan: chosen.plan,
      workspaceBytes: chosen.workspaceBytes,
      info: this.#graphInfo(chosen.c, chosen.workspaceBytes),
      variantPacks: variantPacks(),
    };
  }

  // -------------------------------------------------------------------------------------------
  // autotune

  /**
   * What select does after making the plan: backward-data as a forward pass where
   * `options.bwDataAsForward` is `'always'`, then, with `algorithm: 'autotune'`, tuning the
   * passes in `options.passes`. Yields the events to wait on.
   */
  *#prepare(options: Conv3dPlanOptions | undefined): Generator<TimingEvent, void, void> {
    const opts = resolveOptions(options);
    const tuner = this.#tuner();
    if (opts.bwDataAsForward === 'always' && this.preference.algorithm !== 'pinned') {
      const asFw = yield* tuner.#makeBwDataAsFw(options);
      if (asFw !== null) tuner.#bwDataAsFw = asFw;
    }
    if (this.preference.algorithm === 'autotune') {
      for (const pass of opts.passes) yield* tuner.#tune(pass, options);
      this.#dropUnusedVia();
    }
  }

  /** Which plan tunes: the inner plan of a layout detour every pass takes; any other plan itself. */
  #tuner(): Conv3dPlan {
    return this.#via?.every === true ? this.#via.inner : this;
  }

  /**
   * Tune one pass, or take its choice from the autotune cache. Times the allowed candidates of
   * heuristic modes A, B and FALLBACK on scratch buffers, keeps the fastest and persists it.
   * Yields the events to wait on, so select() waits asynchronously and selectSync() blocks. A pass
   * that cannot be tuned (for example, no memory for the scratch buffers) is left to the
   * heuristics, with a warning.
   */
  *#tune(
    pass: Conv3dPass,
    options: Conv3dPlanOptions | undefined,
  ): Generator<TimingEvent, void, void> {
    const opts = resolveOptions(options);
    const st = this.#passes[pass];
    const d = this.descriptor;
    // Made already: options.bwDataAsForward is 'always'.
    if (this.#asFwFor(pass) !== undefined) return;
    const key = autotuneKey({
      problem: d.describe(),
      pass,
      scalingKind: d.element === ElementKind.F64 ? 'f64' : 'f32',
      deterministic: this.preference.deterministic,
      allowTf32: this.preference.allowTf32,
      deviceName: this.#device.name,
      computeCapability: this.#device.computeCapability,
      cudnnVersion: this.cudnnVersion,
    });
    let cached: AutotuneEntry | undefined = readAutotuneCache(opts.autotuneCachePath).entries[key];
    // Not to be used: tuned again, without it.
    if (
      (cached?.engineIndex === BWDATA_AS_FW_ENGINE_INDEX && opts.bwDataAsForward === 'never') ||
      (cached?.engineIndex === LAYOUT_DETOUR_ENGINE_INDEX && opts.layoutDetour === 'never')
    ) {
      cached = undefined;
    }
    if (cached?.engineIndex === LAYOUT_DETOUR_ENGINE_INDEX) {
      if (this.#viaTunable()) {
        const via = this.#ensureVia();
        // Its NDHWC plan's choice comes from the cache too (its own entry), or is tuned again.
        yield* via.inner.#tune(pass, options);
        st.preferred = cached;
        st.via = true;
        return;
      }
      process.emitWarning(
        `The autotune cache's layout detour for ${d.describe()} ${pass} does not apply here; using ${this.#defaultChoice(pass).info.name}`,
        { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_STALE' },
      );
      return;
    }
    if (cached?.engineIndex === BWDATA_AS_FW_ENGINE_INDEX) {
      const asFw = pass === 'bwData' ? yield* this.#makeBwDataAsFw(options) : null;
      if (asFw !== null) {
        st.preferred = cached;
        this.#bwDataAsFw = asFw;
        return;
      }
      process.emitWarning(
        `The autotune cache's backward-data ${BWDATA_AS_FW_SUFFIX} for ${d.describe()} ${pass} does not apply; using ${this.#defaultChoice(pass).info.name}`,
        { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_STALE' },
      );
      return;
    }
    if (cached) {
      st.preferred = cached;
      if (cached.engineIndex === NATIVE_ENGINE_INDEX && this.#nativeFor(pass) !== null) return;
      const exec = this.#choice(pass, 1, 0, 16);
      const wanted =
        cached.engineIndex === NATIVE_ENGINE_INDEX
          ? "baracuda's depthwise kernel"
          : engineName(cached.engineIndex, cached.knobs);
      if ('variantPacks' in exec && exec.info.name !== wanted) {
        process.emitWarning(
          `The autotune cache's ${wanted} for ${d.describe()} ${pass} is no longer offered; using ${exec.info.name}`,
          { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_STALE' },
        );
      }
      return;
    }
    const started = Date.now();
    const progress = (message: string) => {
      if (opts.onProgress) opts.onProgress(message);
      else if (Date.now() - started > 1000) process.stderr.write(`baracuda autotune: ${message}\n`);
    };
    let bench: TuneBench;
    try {
      bench = this.#tuneBench();
    } catch (error) {
      this.#tuneFailed(pass, error);
      return;
    }
    const sets = bench.sets.length;
    progress(
      `${d.describe()} ${pass}: timing on ${sets} operand set${sets > 1 ? 's' : ''} of ${mib(bench.setBytes)}${sets > 1 ? ', rotated run by run past L2' : ''}`,
    );
    try {
      let entry = yield* this.#tuneNative(pass, bench, progress);
      const native = this.#nativeCandidate(pass);
      if (native !== null) {
        const ms = yield* this.#timeNative(pass, native, bench);
        const wins = entry === null || ms < (entry.timeMs ?? Number.POSITIVE_INFINITY);
        progress(
          `${d.describe()} ${pass}: ${native.info.name} ${ms.toFixed(3)} ms${wins ? ', chosen' : ''}`,
        );
        if (wins) {
          entry = { engineIndex: NATIVE_ENGINE_INDEX, knobs: [], timeMs: ms };
          st.preferred = entry;
          st.native = native;
          st.reported = native.info;
        } else {
          st.native = null;
        }
      }
      if (pass === 'bwData' && opts.bwDataAsForward === 'tuned') {
        const asFw = yield* this.#makeBwDataAsFw(options);
        if (asFw !== null) {
          let ms: number;
          try {
            ms = yield* this.#timeBwDataAsFw(asFw, bench);
          } catch (error) {
            asFw.inner.dispose();
            throw error;
          }
          const wins = detourWins(ms, entry?.timeMs ?? Number.POSITIVE_INFINITY);
          progress(
            `${d.describe()} ${pass}: ${BWDATA_AS_FW_SUFFIX} (${asFw.inner.algorithm('fw').name}) ${ms.toFixed(3)} ms${wins ? ', chosen' : ''}`,
          );
          if (wins) {
            entry = { engineIndex: BWDATA_AS_FW_ENGINE_INDEX, knobs: [], timeMs: ms };
            st.preferred = entry;
            st.native = null;
            this.#bwDataAsFw = asFw;
          } else {
            asFw.inner.dispose();
          }
        }
      }
      if (opts.layoutDetour === 'tuned' && this.#viaTunable()) {
        entry = yield* this.#tuneVia(pass, entry, bench, options, progress);
      }
      if (entry !== null) yield* saveAutotuneEntry(opts.autotuneCachePath, key, entry);
    } catch (error) {
      this.#tuneFailed(pass, error);
    } finally {
      bench.dispose();
    }
  }

  /**
   * Time the layout detour for `pass` (the other layout's plan tuned first, under its own cache
   * entry) and take it when {@link detourWins} over `best`; returns the pass's entry either way. A
   * detour that cannot be timed (no memory for its scratch, say) is left out with a progress line.
   */
  *#tuneVia(
    pass: Conv3dPass,
    best: AutotuneEntry | null,
    bench: TuneBench,
    options: Conv3dPlanOptions | undefined,
    progress: (message: string) => void,
  ): Generator<TimingEvent, AutotuneEntry | null, void> {
    const st = this.#passes[pass];
    const other = this.descriptor.layout === 'ncdhw' ? 'NDHWC' : 'NCDHW';
    const what = `${this.#problem} ${pass}: via ${other}`;
    let ms: number;
    let name: string;
    try {
      const via = this.#ensureVia();
      yield* via.inner.#tune(pass, options);
      name = via.inner.algorithm(pass).name;
      ms = yield* this.#timeVia(via, pass, bench);
    } catch (error) {
      progress(`${what} not timed (${error instanceof Error ? error.message : String(error)})`);
      return best;
    }
    const wins = detourWins(ms, best?.timeMs ?? Number.POSITIVE_INFINITY);
    progress(`${what} (${name}) ${ms.toFixed(3)} ms${wins ? ', chosen' : ''}`);
    if (!wins) return best;
    st.preferred = { engineIndex: LAYOUT_DETOUR_ENGINE_INDEX, knobs: [], timeMs: ms };
    st.native = null;
    st.via = true;
    if (pass === 'bwData' && this.#bwDataAsFw !== undefined) {
      this.#bwDataAsFw.inner.dispose();
      this.#bwDataAsFw = undefined;
    }
    return st.preferred;
  }

  #tuneFailed(pass: Conv3dPass, error: unknown): void {
    this.#passes[pass].reported = undefined;
    process.emitWarning(
      `Could not autotune ${this.#problem} ${pass} (${error instanceof Error ? error.message : String(error)}); it uses the heuristic choice instead`,
      { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_FAILED' },
    );
  }

  /** Scratch operands (random data), timing events and the largest workspace, for tuning. */
  #tuneBench(): TuneBench {
    const d = this.descriptor;
    const stream = this.#stream;
    const owned: { dispose(): void }[] = [];
    const dispose = () => {
      for (const o of owned.splice(0)) {
        try {
          o.dispose();
        } catch {
          // never throw from cleanup
        }
      }
    };
    try {
      const alloc = (elements: number) => {
        const b = driver.DeviceBuffer.alloc(elements * this.#elementBytes, {
          device: this.#device,
          stream,
        });
        owned.push(b);
        return b;
      };
      const first = [d.xElements, d.wElements, d.yElements].map((elements) => {
        const b = alloc(elements);
        b.uploadSync(randomScratchBytes(d.element, elements));
        return b;
      });
      const operands = ([x, w, y]: readonly OwnedBuffer[]): TuneOperands => ({
        x: x!.devicePtr,
        w: w!.devicePtr,
        y: y!.devicePtr,
      });
      const sets = [operands(first)];
      const setBytes = (d.xElements + d.wElements + d.yElements) * this.#elementBytes;
      const wanted = tuneRotationSets(setBytes, freeDeviceBytes(this.#device));
      try {
        while (sets.length < wanted) {
          const copies = first.map((src) => {
            const b = alloc(src.byteLength / this.#elementBytes);
            b.copyFrom(src, stream);
            return b;
          });
          sets.push(operands(copies));
        }
      } catch {
        // Out of memory for another set: tune on the sets there are (the last one's buffers, if
        // any were made, are freed with the rest).
      }
      let next = 0;
      const events: TimingEvent[] = [];
      for (let i = 0; i < 2 * TUNE_MAX_REPS; i++) {
        const event = driver.Event.create(this.#device, { timing: true, blockingSync: false });
        owned.push(event);
        events.push(event);
      }
      const fence = driver.Event.create(this.#device, { timing: false, blockingSync: true });
      owned.push(fence);
      let ws: OwnedBuffer | null = null;
      return {
        sets,
        nextSet: () => next++ % sets.length,
        events,
        fence,
        setBytes,
        workspace: (bytes: number) => {
          if (bytes === 0) return 0n;
          if (ws !== null && ws.byteLength >= bytes) return ws.devicePtr;
          const next = driver.DeviceBuffer.alloc(bytes, { device: this.#device, stream });
          if (ws !== null) {
            owned.splice(owned.indexOf(ws), 1);
            ws.dispose(); // freed in stream order, after the runs that used it
          }
          owned.push(next);
          ws = next;
          return next.devicePtr;
        },
        dispose,
      };
    } catch (error) {
      dispose();
      throw error;
    }
  }

  /**
   * Milliseconds per run of `run` as one call sees it: the median of `reps` runs (at most
   * {@link TUNE_MAX_REPS}), each on the next of the bench's operand sets (`run` is given the set's
   * index) and each between its own pair of events, as the benchmark times a call. A loop of runs
   * between one pair of events ranked some engines by how their runs overlap the next run of the
   * same engine: 15 µs in a loop, 18 µs a call, against another config's 15 µs either way. A
   * network's next kernel is another layer's. An untimed lead run comes first, so that the GPU is
   * busy while the host enqueues the timed ones (timing one run from an idle GPU adds the host's
   * enqueue latency, 10-20 µs, which ranks 50-100 µs candidates by their host cost). With
   * `giveUpMs`, the lead run is a warm-up timed on its own first (it loads the engine's kernels):
   * past `giveUpMs`, its time is returned and nothing more runs; under
   * {@link TUNE_LEAD_RUN_BELOW_MS} another lead run follows it. Infinity when the first run fails
   * to launch.
   */
  *#timeRuns(
    bench: TuneBench,
    run: (set: number) => boolean,
    reps: number,
    giveUpMs?: number,
  ): Generator<TimingEvent, number, void> {
    const events = bench.events;
    const start = events[0]!;
    const end = events[1]!;
    const runNext = () => run(bench.nextSet());
    const done = () => {
      bench.fence.record(this.#stream);
      return bench.fence;
    };
    if (giveUpMs !== undefined) {
      start.record(this.#stream);
      if (!runNext()) return Number.POSITIVE_INFINITY;
      end.record(this.#stream);
      yield done();
      let warm = driver.Event.elapsedMs(start, end);
      if (warm > giveUpMs) {
        // An engine's first run also loads its kernels (CUDA loads modules lazily): 10-15 ms on
        // an H200, which once gave up on the fastest config of a 0.94 ms layer. A second run says.
        start.record(this.#stream);
        runNext();
        end.record(this.#stream);
        yield done();
        warm = driver.Event.elapsedMs(start, end);
        if (warm > giveUpMs) return warm;
      }
      if (warm < TUNE_LEAD_RUN_BELOW_MS) runNext();
    } else if (!runNext()) {
      return Number.POSITIVE_INFINITY;
    }
    const timed = Math.max(1, Math.min(reps, TUNE_MAX_REPS));
    for (let r = 0; r < timed; r++) {
      events[2 * r]!.record(this.#stream);
      runNext();
      events[2 * r + 1]!.record(this.#stream);
    }
    yield done();
    const times: number[] = [];
    for (let r = 0; r < timed; r++) {
      times.push(driver.Event.elapsedMs(events[2 * r]!, events[2 * r + 1]!));
    }
    return median(times);
  }

  /** Time our depthwise kernel on the tuning operands like any engine (see #timeRuns). */
  *#timeNative(
    pass: Conv3dPass,
    native: NativePass,
    bench: TuneBench,
  ): Generator<TimingEvent, number, void> {
    const scalars = { alpha: 1, beta: 0, stream: this.#stream, userWs: null };
    const run = (i: number) => {
      const { x, w, y } = bench.sets[i]!;
      this.#runNative(pass, native, x, w, y, scalars);
      return true;
    };
    return yield* this.#timeAsFinalist(bench, run, 1);
  }

  /**
   * `run` timed after one estimate, over `rounds` rounds of {@link finalistReps} runs, keeping the
   * best round (see {@link Conv3dPlan.#timeRuns}).
   */
  *#timeAsFinalist(
    bench: TuneBench,
    run: (set: number) => boolean,
    rounds: number,
  ): Generator<TimingEvent, number, void> {
    const estimate = yield* this.#timeRuns(bench, run, 1);
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      best = Math.min(best, yield* this.#timeRuns(bench, run, finalistReps(estimate)));
    }
    return best;
  }

  /**
   * Tune the pass on the graph API. Every allowed candidate of heuristic modes A, B and FALLBACK
   * is timed once after a timed warm-up run (see {@link Conv3dPlan.#timeRuns}); a hopeless one (see
   * {@link tuneGiveUpMs}) is not timed further. The few within {@link TUNE_KEEP_RATIO} of the
   * fastest are timed again ({@link finalistReps} runs each), in turn, {@link TUNE_ROUNDS}
   * times over. Then a knob search: the configs one knob away from the fastest
   * {@link TUNE_SEARCH_BASES} (cuDNN's knob ranges; no heuristic mode offers most of them), within
   * {@link TUNE_SEARCH_BUDGET_MS}; those close to the leader are timed in turn with it, and when
   * one of them wins, the configs one knob away from it are searched next, at most
   * {@link TUNE_SEARCH_PASSES} passes (see {@link nextSearchBases}). Installs
   * the winner as the pass's plan and returns its cache entry; null when no graph engine runs it
   * (the pass then uses the legacy fallback).
   */
  *#tuneNative(
    pass: Conv3dPass,
    bench: TuneBench,
    progress: (message: string) => void,
  ): Generator<TimingEvent, AutotuneEntry | null, void> {
    const st = this.#passes[pass];
    const d = this.descriptor;
    const { graph, parts } = this.#operationGraph(pass, 1, 0, 16);
    const candidates = this.#candidates(graph, [
      C.CUDNN_HEUR_MODE_A,
      C.CUDNN_HEUR_MODE_B,
      C.CUDNN_HEUR_MODE_FALLBACK,
    ]);
    const built: BuiltCandidate[] = [];
    for (const c of candidates) {
      const b = this.#finalizeAllowed(c, (bytes) =>
        progress(
          `${d.describe()} ${pass}: passed over ${engineName(c.engineIndex, c.knobs)}: needs ${mib(bytes)} of workspace, over maxWorkspaceBytes (${mib(this.preference.maxWorkspaceBytes)})`,
        ),
      );
      if (b !== null) built.push(b);
      else this.#destroyBackend(c.cfg);
    }
    const fallback = () => {
      for (const p of parts) this.#destroyBackend(p);
      st.legacy ??= this.#legacyHeuristic(pass);
      st.reported ??= st.legacy.info;
      return null;
    };
    if (built.length === 0) return fallback();
    const shared = this.#res.handle!;
    bindStream(shared, this.#stream.raw, this.#problem);
    const timings: number[] = built.map(() => Number.POSITIVE_INFINITY);
    /** Each timed candidate's variant packs, one per operand set, and the workspace they name. */
    const packsOf = new Map<number, { workspace: bigint; packs: BackendDescriptor[] }>();
    const dropPacks = (i: number) => {
      for (const vp of packsOf.get(i)?.packs ?? []) this.#destroyBackend(vp);
      packsOf.delete(i);
    };
    const timeCandidate = function* (
      this: Conv3dPlan,
      i: number,
      reps: number,
      giveUpMs?: number,
    ): Generator<TimingEvent, number, void> {
      const b = built[i]!;
      const workspace = bench.workspace(b.workspaceBytes);
      // Every set's variant pack is made before the runs (made between them, it would hold the GPU
      // up and be timed), once per candidate and workspace: a candidate is timed several times.
      let made = packsOf.get(i);
      if (made === undefined || made.workspace !== workspace) {
        dropPacks(i);
        made = { workspace, packs: [] };
        packsOf.set(i, made);
        for (const { x, w, y } of bench.sets) {
          made.packs.push(this.#variantPack(x, w, y, workspace));
        }
      }
      const packs = made.packs;
      const run = (set: number) =>
        cudnn.cudnnBackendExecute(shared.handle, b.plan, packs[set]!) === 0;
      return yield* this.#timeRuns(bench, run, reps, giveUpMs);
    };
    try {
      for (let i = 0; i < built.length; i++) {
        const giveUp = tuneGiveUpMs(
          Math.min(...timings),
          TUNE_GIVE_UP_RATIO,
          TUNE_GIVE_UP_MARGIN_MS,
        );
        timings[i] = yield* timeCandidate.call(this, i, 1, giveUp);
        const name = engineName(built[i]!.c.engineIndex, built[i]!.c.knobs);
        const note = timings[i]! > giveUp ? ' (warm-up run; not timed again)' : '';
        progress(
          `${d.describe()} ${pass}: candidate ${i + 1}/${built.length} ${name} ${timings[i]!.toFixed(3)} ms${note}`,
        );
      }
      // Finalists are timed in turn, TUNE_ROUNDS times over, each keeping its best round: a
      // candidate timed while the GPU's clock dips is not ranked by that alone.
      const timeFinalists = function* (
        this: Conv3dPlan,
        indices: readonly number[],
      ): Generator<TimingEvent, void, void> {
        for (let round = 0; round < TUNE_ROUNDS; round++) {
          for (const i of indices) {
            const t = yield* timeCandidate.call(this, i, finalistReps(timings[i]!));
            timings[i] = round === 0 ? t : Math.min(timings[i]!, t);
          }
        }
      };
      const finalists = tuneFinalists(timings, TUNE_KEEP_RATIO, TUNE_FINALISTS);
      if (finalists.length > 1) yield* timeFinalists.call(this, finalists);
      // Knob search: the configs one knob away from the fastest finalists, which no heuristic
      // mode offered. Each is timed once; those close to the leader are timed again with the
      // leader, back to back. When a searched config becomes the leader, the next pass searches
      // around it (hill climbing), at most TUNE_SEARCH_PASSES passes.
      const seen = new Set(built.map((b) => configId(b.c.engineIndex, b.c.knobs)));
      const skip = this.preference.deterministic ? REDUCTION_KNOBS : undefined;
      let bases = fastestIndices(timings, TUNE_SEARCH_BASES);
      for (let searchPass = 1; searchPass <= TUNE_SEARCH_PASSES && bases.length > 0; searchPass++) {
        const firstSearched = built.length;
        const searchStarted = Date.now();
        const searching = (budget: number) => Date.now() - searchStarted < budget;
        for (const base of bases.map((i) => built[i]!.c)) {
          const space = this.#knobSpace(base.cfg);
          for (const knobs of knobNeighbours(base.knobs, space, TUNE_SEARCH_VALUES, skip)) {
            if (
              built.length - firstSearched >= TUNE_SEARCH_MAX ||
              !searching(TUNE_SEARCH_BUDGET_MS)
            )
              break;
            const asked = configId(base.engineIndex, knobs);
            if (seen.has(asked)) continue;
            seen.add(asked);
            const b = this.#buildCandidate(graph, base.engineIndex, knobs);
            if (b === null) continue;
            // cuDNN may read a config back with other knobs than asked: dedupe on what it reports.
            const id = configId(b.c.engineIndex, b.c.knobs);
            if (id !== asked && seen.has(id)) {
              this.#destroyBackend(b.plan);
              this.#destroyBackend(b.c.cfg);
              continue;
            }
            seen.add(id);
            built.push(b);
            timings.push(Number.POSITIVE_INFINITY);
          }
        }
        if (built.length === firstSearched) break;
        progress(
          `${d.describe()} ${pass}: knob search${searchPass > 1 ? ` pass ${searchPass}` : ''}: ${built.length - firstSearched} more configs of engine ${[...new Set(bases.map((i) => built[i]!.c.engineIndex))].join(', ')}`,
        );
        const leader = bases[0]!;
        for (let i = firstSearched; i < built.length && searching(2 * TUNE_SEARCH_BUDGET_MS); i++) {
          const giveUp = tuneGiveUpMs(timings[leader]!, TUNE_GIVE_UP_RATIO, TUNE_GIVE_UP_MARGIN_MS);
          timings[i] = yield* timeCandidate.call(this, i, 1, giveUp);
          const name = engineName(built[i]!.c.engineIndex, built[i]!.c.knobs);
          progress(
            `${d.describe()} ${pass}: searched ${i - firstSearched + 1}/${built.length - firstSearched} ${name} ${timings[i]!.toFixed(3)} ms`,
          );
        }
        const challengers = fastestIndices(
          timings.map((t, i) => (i >= firstSearched ? t : Number.POSITIVE_INFINITY)),
          TUNE_FINALISTS,
        ).filter((i) => timings[i]! <= timings[leader]! * TUNE_SEARCH_KEEP_RATIO);
        for (let i = firstSearched; i < built.length; i++) {
          if (!challengers.includes(i)) timings[i] = Number.POSITIVE_INFINITY;
        }
        if (challengers.length === 0) break;
        yield* timeFinalists.call(this, [leader, ...challengers]);
        bases = nextSearchBases(timings, firstSearched);
      }
    } catch (error) {
      for (const b of built) {
        this.#destroyBackend(b.plan);
        this.#destroyBackend(b.c.cfg);
      }
      for (const p of parts) this.#destroyBackend(p);
      throw error;
    } finally {
      for (const i of [...packsOf.keys()]) dropPacks(i);
    }
    let best = -1;
    for (let i = 0; i < built.length; i++) {
      if (Number.isFinite(timings[i]!) && (best < 0 || timings[i]! < timings[best]!)) best = i;
    }
    for (let i = 0; i < built.length; i++) {
      if (i !== best) {
        this.#destroyBackend(built[i]!.plan);
        this.#destroyBackend(built[i]!.c.cfg);
      }
    }
    if (best < 0) return fallback();
    const winner = built[best]!;
    const exec: GraphExec = {
      alpha: 1,
      beta: 0,
      align: 16,
      plan: winner.plan,
      workspaceBytes: winner.workspaceBytes,
      info: this.#graphInfo(winner.c, winner.workspaceBytes),
      variantPacks: new PointerLru<BackendDescriptor>(VARIANT_PACK_CACHE, (vp) =>
        this.#destroyBackend(vp),
      ),
    };
    st.graphs.set('1|0|16', exec);
    st.reported = exec.info;
    st.preferred = {
      engineIndex: winner.c.engineIndex,
      knobs: winner.c.knobs,
      timeMs: timings[best]!,
    };
    progress(
      `${d.describe()} ${pass}: chose ${exec.info.name} (${timings[best]!.toFixed(3)} ms) of ${built.length}`,
    );
    return st.preferred;
  }

  // -------------------------------------------------------------------------------------------
  // legacy API

  /** A plan-owned legacy 5-D tensor descriptor of the problem's data type. */
  #legacyTensor(
    dims: readonly number[],
    strides: readonly number[],
    what: string,
  ): LegacyDescriptor {
    const r = cudnn.cudnnCreateTensorDescriptor();
    check(r.status, 'cudnnCreateTensorDescriptor', this.#problem);
    const t = outputOf<LegacyDescriptor>(r, 'tensorDesc');
    this.#res.tensors.add(t);
    check(
      cudnn.cudnnSetTensorNdDescriptor(
        t,
        cudnnDataType(this.descriptor.element),
        5,
        Int32Array.from(dims),
        Int32Array.from(strides),
      ),
      'cudnnSetTensorNdDescriptor',
      `${this.#problem} (${what})`,
    );
    return t;
  }

  #legacyDescriptors(): { x: LegacyDescriptor; w: LegacyDescriptor; y: LegacyDescriptor } {
    const base = this.#legacyBase;
    if (base.x && base.w && base.y) return { x: base.x, w: base.w, y: base.y };
    const d = this.descriptor;
    const dt = cudnnDataType(d.element);
    base.x ??= this.#legacyTensor(d.xShape, d.xStrides, 'x');
    base.y ??= this.#legacyTensor(d.yShape, d.yStrides, 'y');
    if (!base.w) {
      const r = cudnn.cudnnCreateFilterDescriptor();
      check(r.status, 'cudnnCreateFilterDescriptor', this.#problem);
      const f = outputOf<LegacyDescriptor>(r, 'filterDesc');
      this.#res.filters.add(f);
      const format = d.layout === 'ndhwc' ? C.CUDNN_TENSOR_NHWC : C.CUDNN_TENSOR_NCHW;
      check(
        cudnn.cudnnSetFilterNdDescriptor(f, dt, format, 5, Int32Array.from(d.wShape)),
        'cudnnSetFilterNdDescriptor',
        `${this.#problem} (w)`,
      );
      base.w = f;
    }
    return { x: base.x, w: base.w, y: base.y };
  }

  #legacyConv(mathType: number): LegacyDescriptor {
    const d = this.descriptor;
    const r = cudnn.cudnnCreateConvolutionDescriptor();
    check(r.status, 'cudnnCreateConvolutionDescriptor', this.#problem);
    const conv = outputOf<LegacyDescriptor>(r, 'convDesc');
    this.#res.convs.add(conv);
    const compute = d.element === ElementKind.F64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT;
    check(
      cudnn.cudnnSetConvolutionNdDescriptor(
        conv,
        3,
        Int32Array.of(d.padD, d.padH, d.padW),
        Int32Array.of(d.strideD, d.strideH, d.strideW),
        Int32Array.of(d.dilationD, d.dilationH, d.dilationW),
        C.CUDNN_CROSS_CORRELATION,
        compute,
      ),
      'cudnnSetConvolutionNdDescriptor',
      this.#problem,
    );
    check(
      cudnn.cudnnSetConvolutionGroupCount(conv, d.groups),
      'cudnnSetConvolutionGroupCount',
      this.#problem,
    );
    check(
      cudnn.cudnnSetConvolutionMathType(conv, mathType),
      'cudnnSetConvolutionMathType',
      this.#problem,
    );
    return conv;
  }

  /** Workspace size of a legacy algorithm; returns the raw status when cuDNN refuses. */
  #legacyWorkspace(
    pass: Conv3dPass,
    conv: LegacyDescriptor,
    algo: number,
  ): { status: number; bytes: number } {
    const { x, w, y } = this.#legacyDescriptors();
    const h = this.#res.handle!.handle;
    const r =
      pass === 'fw'
        ? cudnn.cudnnGetConvolutionForwardWorkspaceSize(h, x, w, conv, y, algo)
        : pass === 'bwData'
          ? cudnn.cudnnGetConvolutionBackwardDataWorkspaceSize(h, w, y, conv, x, algo)
          : cudnn.cudnnGetConvolutionBackwardFilterWorkspaceSize(h, x, y, conv, w, algo);
    return {
      status: r.status,
      bytes: r.status === 0 ? Number(outputOf<number | bigint>(r, 'sizeInBytes')) : 0,
    };
  }

  #legacyPass(
    algo: number,
    name: string,
    conv: LegacyDescriptor,
    mathType: number,
    deterministic: boolean,
    workspaceBytes: number,
  ): LegacyPass {
    const f64 = this.descriptor.element === ElementKind.F64;
    return {
      algo,
      conv,
      workspaceBytes,
      alphaBuf: f64 ? new Float64Array(1) : new Float32Array(1),
      betaBuf: f64 ? new Float64Array(1) : new Float32Array(1),
      info: Object.freeze({
        path: 'legacy' as const,
        name,
        numericalNotes: Object.freeze(mathType === MathType.TENSOR_OP ? ['TENSOR_CORE'] : []),
        workspaceBytes,
        deterministic,
        mathPrecision: mathPrecisionOfLegacy(mathType, this.descriptor.element),
      }),
    };
  }

  /** The seed's pinned algorithms on the legacy API. */
  #pinned(pass: Conv3dPass): LegacyPass {
    const [algoName, what] = PINNED_ALGOS[pass];
    const algo =
      pass === 'fw'
        ? C.CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM
        : pass === 'bwData'
          ? C.CUDNN_CONVOLUTION_BWD_DATA_ALGO_1
          : C.CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    const mathType = pinnedMathType(this.descriptor.element, this.preference.allowTf32);
    const conv = this.#legacyConv(mathType);
    const ws = this.#legacyWorkspace(pass, conv, algo);
    if (isNotSupported(ws.status)) {
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${algoName} (the seed's choice) does not support ${this.#problem}: ` +
          `its workspace query returned ${statusName(ws.status)}${lastErrorString() ? ` (${lastErrorString()})` : ''}. ` +
          "Use algorithm 'heuristic' (the default) instead.",
      );
    }
    check(
      ws.status,
      `cudnnGetConvolution${pass === 'fw' ? 'Forward' : pass === 'bwData' ? 'BackwardData' : 'BackwardFilter'}WorkspaceSize`,
      `${this.#problem} ${algoName}`,
    );
    if (ws.bytes > this.preference.maxWorkspaceBytes) {
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${algoName} needs ${ws.bytes} bytes of workspace for ${this.#problem}, ` +
          `more than preference.maxWorkspaceBytes (${this.preference.maxWorkspaceBytes})`,
      );
    }
    return this.#legacyPass(algo, algoName, conv, mathType, true, ws.bytes);
  }

  /** Legacy fallback of the heuristic path: cudnnGet*Algorithm_v7, first allowed result. */
  #legacyHeuristic(pass: Conv3dPass): LegacyPass {
    const d = this.descriptor;
    const mathType =
      d.element === ElementKind.F32
        ? this.preference.allowTf32
          ? MathType.DEFAULT
          : MathType.FMA
        : pinnedMathType(d.element, this.preference.allowTf32);
    const conv = this.#legacyConv(mathType);
    const { x, w, y } = this.#legacyDescriptors();
    const h = this.#res.handle!.handle;
    const [call, r] =
      pass === 'fw'
        ? [
            'cudnnGetConvolutionForwardAlgorithm_v7',
            cudnn.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, 8),
          ]
        : pass === 'bwData'
          ? [
              'cudnnGetConvolutionBackwardDataAlgorithm_v7',
              cudnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, w, y, conv, x, 8),
            ]
          : [
              'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
              cudnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, x, y, conv, w, 8),
            ];
    check(r.status, call, `${this.#problem} ${pass}`);
    const perfs = (r.perfResults ?? outputOf<LegacyPerf[]>(r, 'perfResults')) as LegacyPerf[];
    const count = typeof r.returnedAlgoCount === 'number' ? r.returnedAlgoCount : perfs.length;
    const pick = pickLegacyAlgorithm(perfs.slice(0, count), this.preference, d.element);
    if (pick === null) {
      throw new UnsupportedError(
        `No cuDNN algorithm can run the ${passName(pass)} pass of ${this.#problem} under the preference ` +
          `(deterministic=${this.preference.deterministic}, allowTf32=${this.preference.allowTf32}, ` +
          `maxWorkspaceBytes=${this.preference.maxWorkspaceBytes}): no graph-API engine config passed, ` +
          `and ${call} offered ${perfs.map((p) => `algo ${p.algo} (status ${p.status}, ${p.memory} bytes, determinism ${p.determinism}, math ${p.mathType})`).join(', ') || 'nothing'}`,
      );
    }
    check(
      cudnn.cudnnSetConvolutionMathType(conv, pick.mathType),
      'cudnnSetConvolutionMathType',
      this.#problem,
    );
    const ws = this.#legacyWorkspace(pass, conv, pick.algo);
    check(
      ws.status,
      'cudnnGetConvolution*WorkspaceSize',
      `${this.#problem} ${pass} algo ${pick.algo}`,
    );
    const prefix = pass === 'fw' ? 'FWD' : pass === 'bwData' ? 'BWD_DATA' : 'BWD_FILTER';
    return this.#legacyPass(
      pick.algo,
      `CUDNN_CONVOLUTION_${prefix}_ALGO ${pick.algo}`,
      conv,
      pick.mathType,
      pick.determinism === 1,
      ws.bytes,
    );
  }

  #legacyRun(
    pass: Conv3dPass,
    lp: LegacyPass,
    handle: CudnnHandle,
    px: bigint,
    pw: bigint,
    py: bigint,
    ws: bigint,
    alpha: number,
    beta: number,
  ): void {
    const { x, w, y } = this.#legacyDescriptors();
    lp.alphaBuf[0] = alpha;
    lp.betaBuf[0] = beta;
    const size = lp.workspaceBytes;
    let status: number;
    let call: string;
    if (pass === 'fw') {
      call = 'cudnnConvolutionForward';
      status = cudnn.cudnnConvolutionForward(
        handle,
        lp.alphaBuf,
        x,
        px,
        w,
        pw,
        lp.conv,
        lp.algo,
        ws,
        size,
        lp.betaBuf,
        y,
        py,
      );
    } else if (pass === 'bwData') {
      call = 'cudnnConvolutionBackwardData';
      status = cudnn.cudnnConvolutionBackwardData(
        handle,
        lp.alphaBuf,
        w,
        pw,
        y,
        py,
        lp.conv,
        lp.algo,
        ws,
        size,
        lp.betaBuf,
        x,
        px,
      );
    } else {
      call = 'cudnnConvolutionBackwardFilter';
      status = cudnn.cudnnConvolutionBackwardFilter(
        handle,
        lp.alphaBuf,
        x,
        px,
        y,
        py,
        lp.conv,
        lp.algo,
        ws,
        size,
        lp.betaBuf,
        w,
        pw,
      );
    }
    if (status === 0) return;
    if (this.preference.algorithm === 'pinned' && isNotSupported(status)) {
      const [algoName, what] = PINNED_ALGOS[pass];
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${algoName} (the seed's choice) does not support ${this.#problem}: ` +
          `${call} returned ${statusName(status)}${lastErrorString() ? ` (${lastErrorString()})` : ''}. Use algorithm 'heuristic' (the default) instead.`,
      );
    }
    check(status, call, `${this.#problem} ${pass} ${lp.info.name}`);
  }

  // -------------------------------------------------------------------------------------------
  // lifetime

  /** Destroy every cuDNN object of the plan, release the shared handle, free the owned workspace. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    registry.unregister(this);
    this.#via?.inner.dispose();
    this.#bwDataAsFw?.inner.dispose();
    for (const pass of PASSES) {
      const st = this.#passes[pass];
      for (const exec of st.graphs.values()) exec?.variantPacks.clear();
      st.graphs.clear();
      st.last = undefined;
    }
    releaseResources(this.#res);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.#disposed;
  }
}
