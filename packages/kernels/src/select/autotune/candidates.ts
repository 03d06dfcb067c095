/**
 * The candidates autotune times against cuDNN's engines, in order: our depthwise kernels, the
 * space-to-depth routes (patch embedding as a GEMM, the stem) and the patch GEMM on cuBLASLt
 * before the graph search (ranked first: the shape qualifies them), backward-data as a forward
 * pass and the layout detour after its finalists. Each is made, timed
 * through its executor's own run on the bench's operand sets, and handed back with its time and
 * the route it would install; tune.ts keeps it when it wins by its minimum gain. A new route
 * that autotune should time is one more entry in {@link CANDIDATES}.
 */

import { ElementKind } from '@baracuda/types';
import { bwDataAsForward } from '../../bwdata-forward.js';
import type { Conv3dPass } from '../../core/pass.js';
import type { ResolvedOptions, RunScalars } from '../../core/types.js';
import { bindStream } from '../../cudnn/handle.js';
import { variantPack } from '../../cudnn/operation-graph.js';
import { depthwiseUnsupported } from '../../depthwise-launch.js';
import type { Conv3dDescriptor } from '../../descriptor.js';
import { BWDATA_AS_FW_SUFFIX, BwDataAsForwardExecutor } from '../../exec/bwdata-as-fw.js';
import { type DepthwiseExecutor, depthwiseExecutor } from '../../exec/depthwise.js';
import type { PassExecutor } from '../../exec/executor.js';
import type { LayoutDetour } from '../../exec/layout-detour.js';
import { filterFlip, LayoutKernels } from '../../layout.js';
import { type BackendDescriptor, cudnn, type TimingEvent } from '../../sys.js';
import { DETOUR_MIN_GAIN } from '../../tuning.js';
import type { PlanCore } from '../core.js';
import { createCore } from '../create.js';
import { ltPatchGemmCandidate } from '../lt-gemm-candidate.js';
import { spaceToDepthCandidate } from '../space-to-depth-candidate.js';
import type { TuneBench } from './bench.js';
import type { TuneBudget } from './budget.js';
import type { TunedChoice } from './cache-codec.js';
import { TUNE_ROUNDS, timeAsFinalist } from './timing.js';

/**
 * Tunes one pass of a plan (tune.ts's; given here so that the detours' inner plans tune too),
 * within `budget` when given (the outer pass's, which a detour's inner tuning shares).
 */
export type TunePass = (
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  budget?: TuneBudget,
) => Generator<TimingEvent, void, void>;

/** Time our depthwise kernel on the tuning operands like any engine (see timing.ts). */
export function* timeDepthwise(
  depthwise: DepthwiseExecutor,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run = (i: number) => {
    depthwise.run(bench.sets[i]!, scalars);
    return true;
  };
  return yield* timeAsFinalist(bench, run, 1);
}

/**
 * Backward-data as a forward pass, made and tuned (its forward problem tunes as its own plan,
 * with its own autotune cache entry); null where it does not apply: a strided layer (see
 * {@link bwDataAsForward}), a layout detour every pass takes on either side, our depthwise kernel
 * for the forward problem, or no layout kernels for the flip.
 */
export function* makeBwDataAsForward(
  core: PlanCore,
  opts: ResolvedOptions,
  tunePass: TunePass,
  budget?: TuneBudget,
): Generator<TimingEvent, BwDataAsForwardExecutor<PlanCore> | null, void> {
  const { ctx } = core;
  const forward = bwDataAsForward(ctx.desc);
  if (forward === null || core.everyPassDetour !== undefined) return null;
  const layout = LayoutKernels.forDevice(ctx.device);
  if (layout instanceof Error) return null;
  const inner = createCore(ctx.stream, forward, ctx.preference, opts);
  try {
    if (inner.everyPassDetour !== undefined) {
      inner.dispose();
      return null;
    }
    if (inner.ctx.preference.algorithm === 'autotune') yield* tunePass(inner, 'fw', opts, budget);
    // Timed and run as a cuDNN plan only (our depthwise kernels run backward-data directly).
    if (inner.depthwise('fw') !== null) {
      inner.dispose();
      return null;
    }
  } catch (error) {
    inner.dispose();
    throw error;
  }
  return new BwDataAsForwardExecutor(ctx, inner, layout, filterFlip(ctx.desc));
}

/**
 * Backward-data as a forward pass timed as one call sees it: the set's w flipped, then the
 * forward plan on (the set's y as dy, the flipped filter) into the set's x as dx. Like a
 * finalist, {@link TUNE_ROUNDS} rounds, keeping the best. Infinity when the forward problem fell
 * back to the legacy API.
 */
export function* timeBwDataAsForward(
  asForward: BwDataAsForwardExecutor<PlanCore>,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const inner = asForward.inner;
  const stream = bench.stream;
  const flipped = asForward.flippedScratch(stream);
  if (inner.detourFor('fw') !== undefined) {
    // The forward problem autotuned its layout detour: timed through its run, as a call runs
    // it (the detour's scratch pointers repeat, so its variant packs are cached).
    const args: RunScalars = { alpha: 1, beta: 0, stream, userWs: null };
    const run = (set: number) => {
      asForward.run(bench.sets[set]!, args);
      return true;
    };
    return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
  }
  const exec = inner.cudnn('fw').choice(1, 0, 16);
  if (!('variantPacks' in exec)) return Number.POSITIVE_INFINITY;
  const workspace = bench.workspace(exec.workspaceBytes);
  const scope = inner.ctx.scope;
  const packs: BackendDescriptor[] = [];
  try {
    for (const { x, y } of bench.sets) packs.push(variantPack(scope, y, flipped, x, workspace));
    const shared = scope.handle;
    bindStream(shared, stream.raw, inner.ctx.problem);
    const run = (set: number) => {
      asForward.flippedFilter(bench.sets[set]!.w, stream);
      return cudnn.cudnnBackendExecute(shared.handle, exec.plan, packs[set]!) === 0;
    };
    return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
  } finally {
    for (const vp of packs) scope.destroyBackend(vp);
  }
}

/**
 * The layout detour timed as one call sees it: the set's operands transposed into scratch, the
 * other layout's plan (tuned already) and the result transposed back, like a finalist.
 */
export function* timeLayoutDetour(
  detour: LayoutDetour,
  pass: Conv3dPass,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const args: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run = (set: number) => {
    detour.run(pass, bench.sets[set]!, args);
    return true;
  };
  return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
}

/** A candidate timed: what it would install, and how it is freed when it does not. */
export interface TimedCandidate {
  /** The cache's name for it (one of TunedChoice's kinds besides `'engine'`). */
  readonly kind: Exclude<TunedChoice['kind'], 'engine'>;
  readonly ms: number;
  /** The gain it needs over the best so far: 0 (any faster), or the detours' DETOUR_MIN_GAIN. */
  readonly minGain: number;
  /** What the progress line calls it (asked after timing). */
  label(): string;
  /** The route it installs when it wins: our depthwise kernels, or another executor. */
  readonly route: { readonly depthwise?: DepthwiseExecutor; readonly executor?: PassExecutor };
  /** Free what it made: a loser, or a winner a later candidate beat. */
  drop(): void;
}

/**
 * Something autotune times against the rest: made and timed, or null where it does not apply.
 * `budget` is the pass's (a candidate that tunes an inner plan tunes it within it).
 */
export type TimeCandidate = (
  core: PlanCore,
  pass: Conv3dPass,
  bench: TuneBench,
  opts: ResolvedOptions,
  progress: (message: string) => void,
  budget?: TuneBudget,
) => Generator<TimingEvent, TimedCandidate | null, void>;

/** A route autotune times, and makes again from a cache entry naming it. */
export interface TuneCandidate {
  readonly kind: TimedCandidate['kind'];
  readonly time: TimeCandidate;
  /**
   * The route again for a cache hit (its inner plans from their own entries), or null where it
   * does not apply now (then the stale warning names `stale`); absent for our depthwise kernels,
   * which a plan decides on first use.
   */
  readonly fromCache?: (
    core: PlanCore,
    pass: Conv3dPass,
    opts: ResolvedOptions,
  ) => Generator<TimingEvent, PassExecutor | null, void>;
  /** What the stale warning calls it, and how it says it does not apply. */
  readonly stale?: readonly [what: string, tail: string];
  /**
   * Timed even when the pass's budget ran out: a route whose one timing is cheap and that often
   * wins where it applies (our depthwise kernel). Other candidates are skipped once it is spent.
   */
  readonly alwaysTimed?: boolean;
  /**
   * Timed before the graph search's survey of the heuristics' configs: a route the shape qualifies
   * for (groups = channels; kernel = stride, or a small-cIn stride-2 stem) that often wins by far,
   * so that it is timed however the budget goes, and its time lets the survey give up early on
   * configs many times slower (VideoMAE's patch backward-data: the route's 0.30 ms against
   * cuDNN's 4.5 ms, and a 5.5 s engine 0 config in the survey, run 64).
   */
  readonly ranked?: boolean;
}

const timeDepthwiseCandidate: TimeCandidate = function* (core, pass, bench) {
  const depthwise = depthwiseExecutor(core.ctx, pass);
  if (depthwise === null) return null;
  const ms = yield* timeDepthwise(depthwise, bench);
  return {
    kind: 'depthwise',
    ms,
    minGain: 0,
    label: () => `${core.ctx.problem} ${pass}: ${depthwise.info().name}`,
    route: { depthwise },
    drop: () => {},
  };
};

const timeBwDataAsForwardCandidate = (tunePass: TunePass): TimeCandidate =>
  function* (core, pass, bench, opts, _progress, budget) {
    if (pass !== 'bwData' || opts.bwDataAsForward !== 'tuned') return null;
    const asForward = yield* makeBwDataAsForward(core, opts, tunePass, budget);
    if (asForward === null) return null;
    let ms: number;
    try {
      ms = yield* timeBwDataAsForward(asForward, bench);
    } catch (error) {
      asForward.inner.dispose();
      throw error;
    }
    return {
      kind: 'bwDataAsForward',
      ms,
      minGain: DETOUR_MIN_GAIN,
      label: () =>
        `${core.ctx.problem} ${pass}: ${BWDATA_AS_FW_SUFFIX} (${asForward.inner.executor('fw').info().name})`,
      route: { executor: asForward },
      drop: () => asForward.inner.dispose(),
    };
  };

/**
 * Whether autotune times the layout detour for `pass` of `d` at all: not from NDHWC in half
 * precision (f16, bf16), the layout cuDNN's tensor-core kernels take natively, unless our depthwise
 * kernels run the pass (their NCDHW kernels are the faster ones). On the suite's autotuned rows
 * (runs 87-88) the detour from NDHWC won only for the depthwise layer, yet it was tuned for every
 * pass, doubling each pass's search (run 91: 0.7-1.3 s of a small layer's time to a plan).
 */
export function detourMayWin(d: Conv3dDescriptor, pass: Conv3dPass): boolean {
  const half = d.element === ElementKind.F16 || d.element === ElementKind.Bf16;
  return !(d.layout === 'ndhwc' && half && depthwiseUnsupported(d, pass) !== null);
}

/**
 * The layout detour for `pass` (the other layout's plan tuned first, under its own cache entry),
 * where it may win (see {@link detourMayWin}).
 * One that cannot be timed (no memory for its scratch, say) is left out with a progress line; one
 * that loses stays made until select drops the detours no pass took.
 */
const timeLayoutDetourCandidate = (tunePass: TunePass): TimeCandidate =>
  function* (core, pass, bench, opts, progress, budget) {
    if (opts.layoutDetour !== 'tuned' || !core.detourTunable()) return null;
    if (!detourMayWin(core.ctx.desc, pass)) return null;
    const other = core.ctx.desc.layout === 'ncdhw' ? 'NDHWC' : 'NCDHW';
    const what = `${core.ctx.problem} ${pass}: via ${other}`;
    let ms: number;
    let name: string;
    let detour: LayoutDetour<PlanCore>;
    try {
      detour = core.ensureDetour();
      yield* tunePass(detour.inner, pass, opts, budget);
      name = detour.inner.executor(pass).info().name;
      ms = yield* timeLayoutDetour(detour, pass, bench);
    } catch (error) {
      progress(`${what} not timed (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
    return {
      kind: 'layoutDetour',
      ms,
      minGain: DETOUR_MIN_GAIN,
      label: () => `${what} (${name})`,
      route: { executor: detour.executor(pass) },
      drop: () => {},
    };
  };

/** What autotune times after the graph search, in this order. */
export function tuneCandidates(tunePass: TunePass): readonly TuneCandidate[] {
  return [
    { kind: 'depthwise', time: timeDepthwiseCandidate, alwaysTimed: true, ranked: true },
    {
      kind: 'bwDataAsForward',
      time: timeBwDataAsForwardCandidate(tunePass),
      *fromCache(core, pass, opts) {
        return pass === 'bwData' ? yield* makeBwDataAsForward(core, opts, tunePass) : null;
      },
      stale: [`backward-data ${BWDATA_AS_FW_SUFFIX}`, 'does not apply'],
    },
    {
      kind: 'layoutDetour',
      time: timeLayoutDetourCandidate(tunePass),
      *fromCache(core, pass, opts) {
        if (!core.detourTunable()) return null;
        const detour = core.ensureDetour();
        // Its inner plan's choice comes from the cache too (its own entry), or is tuned again.
        yield* tunePass(detour.inner, pass, opts);
        return detour.executor(pass);
      },
      stale: ['layout detour', 'does not apply here'],
    },
    { ...spaceToDepthCandidate(tunePass), ranked: true },
    { ...ltPatchGemmCandidate(), ranked: true },
  ];
}
