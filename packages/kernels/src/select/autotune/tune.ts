/**
 * Autotune, per pass: the cache's choice when it has one (or one stale warning and the
 * heuristics; an entry a smaller budget cut is tuned again), else, within the pass's time budget
 * (budget.ts), the graph search's survey of the heuristics' configs and its finalists, then each
 * candidate that applies (our depthwise kernels, backward-data as a forward pass, the layout
 * detour) in a fixed order, each kept when it wins, then the knob search; the result installed
 * in one step, then written to the cache (marked when the budget cut it). A failure part way
 * installs nothing: the pass is left to the heuristics, as if never tuned, and the warning says
 * so. The default mode's quick tune is quick.ts.
 */
import { readAutotuneCache, saveAutotuneEntry } from '../../autotune-cache.js';
import { type Conv3dPass, PASSES } from '../../core/pass.js';
import type { ResolvedOptions } from '../../core/types.js';
import type { LegacyPass } from '../../cudnn/legacy.js';
import type { GraphExec } from '../../exec/cudnn.js';
import { engineName, mib } from '../../policy.js';
import type { TimingEvent } from '../../sys.js';
import { detourWins } from '../../tuning.js';
import type { PlanCore } from '../core.js';
import { ltPatchApplies } from '../lt-gemm-candidate.js';
import { makeSpaceToDepth, spaceToDepthRouteFor } from '../space-to-depth-candidate.js';
import { type TuneBench, tuneBench } from './bench.js';
import { budgetClock, selectionOf, TuneBudget } from './budget.js';
import { decodeEntry, entryOf, passKey, type TunedChoice } from './cache-codec.js';
import {
  makeBwDataAsForward,
  type TimedCandidate,
  type TuneCandidate,
  tuneCandidates,
} from './candidates.js';
import { searchGraph } from './graph-search.js';
import { quickTunePass } from './quick.js';

/**
 * What select does after making the plan: backward-data as a forward pass where
 * `options.bwDataAsForward` is `'always'`, then, with `algorithm: 'autotune'`, tuning the passes
 * in `options.passes`. Yields the events to wait on (select awaits them, selectSync blocks).
 */
export function* prepare(
  core: PlanCore,
  opts: ResolvedOptions,
): Generator<TimingEvent, void, void> {
  // The inner plan of the 3xTF32 split (for the passes it covers) or of a layout detour every
  // pass takes tunes; any other plan itself.
  const detourOrSelf = core.everyPassDetour?.inner ?? core;
  const tunerOf = (pass: Conv3dPass): PlanCore =>
    core.split?.covers(pass) ? core.split.inner : detourOrSelf;
  const tuner = tunerOf('bwData');
  const algorithm = core.ctx.preference.algorithm;
  if (opts.bwDataAsForward === 'always' && algorithm !== 'pinned') {
    const asForward = yield* makeBwDataAsForward(tuner, opts, tunePass);
    if (asForward !== null) tuner.useRoute('bwData', asForward);
  }
  if (spaceToDepthRouteFor(tuner, opts)?.option === 'always') {
    for (const pass of PASSES) {
      const route = yield* makeSpaceToDepth(tunerOf(pass), pass, opts, tuneAsPlan);
      if (route !== null) tunerOf(pass).useRoute(pass, route);
    }
  }
  if (algorithm === 'autotune') {
    for (const pass of opts.passes) yield* tunePass(tunerOf(pass), pass, opts);
  } else if (algorithm === 'heuristic' && opts.heuristic === 'quick-tune') {
    for (const pass of opts.passes) yield* quickTunePass(tunerOf(pass), pass, opts);
  }
  // The detours timed that no pass took (of the plan, or of the inner plan that tuned).
  for (const tuned of new Set([core, ...PASSES.map(tunerOf)])) tuned.dropUnusedDetour();
  for (const pass of PASSES) {
    const from = tunerOf(pass);
    const selection = from === core ? undefined : from.selection.get(pass);
    if (selection !== undefined) core.selection.set(pass, selection);
  }
}

/** A route's inner plan tuned as the plan's preference tunes its passes (or not at all). */
function* tuneAsPlan(
  inner: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  budget?: TuneBudget,
): Generator<TimingEvent, void, void> {
  const algorithm = inner.ctx.preference.algorithm;
  if (algorithm === 'autotune') yield* tunePass(inner, pass, opts, budget);
  else if (algorithm === 'heuristic' && opts.heuristic === 'quick-tune') {
    yield* quickTunePass(inner, pass, opts);
  }
}

function stale(what: string, core: PlanCore, pass: Conv3dPass, tail: string): void {
  process.emitWarning(
    `The autotune cache's ${what} for ${core.ctx.problem} ${pass} ${tail}; using ${core.executor(pass).info().name}`,
    { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_STALE' },
  );
}

/** The pass as its cached choice makes it (or a stale warning, and the heuristics). */
function* fromCache(
  core: PlanCore,
  pass: Conv3dPass,
  cached: TunedChoice,
  opts: ResolvedOptions,
): Generator<TimingEvent, void, void> {
  const candidate = CANDIDATES.find((c) => c.kind === cached.kind);
  if (candidate?.fromCache !== undefined) {
    const executor = yield* candidate.fromCache(core, pass, opts);
    if (executor !== null) {
      core.install(pass, cached, { executor });
      return;
    }
    const [what, tail] = candidate.stale ?? [cached.kind, 'does not apply'];
    stale(what, core, pass, tail);
    return;
  }
  core.install(pass, cached, {});
  if (cached.kind === 'depthwise' && core.depthwise(pass) !== null) return;
  const exec = core.cudnn(pass).defaultChoice();
  const wanted =
    cached.kind === 'engine'
      ? engineName(cached.engineIndex, cached.knobs)
      : "baracuda's depthwise kernel";
  if ('variantPacks' in exec && exec.info.name !== wanted) {
    process.emitWarning(
      `The autotune cache's ${wanted} for ${core.ctx.problem} ${pass} is no longer offered; using ${exec.info.name}`,
      { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_STALE' },
    );
  }
}

/**
 * Tune one pass, or take its choice from the autotune cache. Yields the events to wait on. A
 * pass that cannot be tuned (for example, no memory for the scratch buffers) is left to the
 * heuristics, with a warning.
 */
export function* tunePass(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  shared?: TuneBudget,
): Generator<TimingEvent, void, void> {
  const { ctx } = core;
  const d = ctx.desc;
  // Made already: options.bwDataAsForward is 'always'.
  if (core.installed(pass) !== undefined) return;
  const passStarted = budgetClock.now();
  // A detour's inner plan tuned within its outer pass's budget shares it. Otherwise the budget
  // starts once the bench is made (its random operands are a fixed cost, not a candidate's).
  let budget = shared ?? new TuneBudget(opts.autotuneBudgetMs);
  const key = passKey(core, pass);
  const entry = readAutotuneCache(opts.autotuneCachePath).entries[key];
  let cached = entry === undefined ? undefined : decodeEntry(entry);
  // Not to be used: tuned again, without it.
  if (
    (cached?.kind === 'bwDataAsForward' && opts.bwDataAsForward === 'never') ||
    (cached?.kind === 'layoutDetour' && opts.layoutDetour === 'never') ||
    (cached?.kind === 'spaceToDepth' && spaceToDepthRouteFor(core, opts) === null) ||
    (cached?.kind === 'patchGemmLt' && !ltPatchApplies(core, opts))
  ) {
    cached = undefined;
  }
  const started = Date.now();
  const progress = (message: string) => {
    if (opts.onProgress) opts.onProgress(message);
    else if (Date.now() - started > 1000) process.stderr.write(`baracuda autotune: ${message}\n`);
  };
  // A search a smaller budget cut is refined under a larger one (or none).
  if (cached !== undefined && entry?.budgetMs !== undefined && budget.limitMs > entry.budgetMs) {
    progress(
      `${d.describe()} ${pass}: the cached choice was cut by a budget of ${entry.budgetMs} ms; tuning again under ${budget.bounded ? `${budget.limitMs} ms` : 'no budget'}`,
    );
    cached = undefined;
  }
  if (cached !== undefined) {
    yield* fromCache(core, pass, cached, opts);
    if (shared === undefined) {
      core.selection.set(pass, selectionOf(pass, 'cache', budget, passStarted));
    }
    return;
  }
  let bench: TuneBench;
  try {
    bench = tuneBench(ctx);
  } catch (error) {
    tuneFailed(core, pass, error);
    return;
  }
  if (shared === undefined) budget = new TuneBudget(opts.autotuneBudgetMs);
  const sets = bench.sets.length;
  progress(
    `${d.describe()} ${pass}: timing on ${sets} operand set${sets > 1 ? 's' : ''} of ${mib(bench.setBytes)}${sets > 1 ? ', rotated run by run past L2' : ''}`,
  );
  const result = new Tuned();
  const timedBefore = budget.timed;
  try {
    yield* tuneAll(core, pass, bench, opts, progress, result, budget);
    result.installIn(core, pass);
    if (result.choice !== null) {
      yield* saveAutotuneEntry(opts.autotuneCachePath, key, entryOf(result.choice, budget));
    }
  } catch (error) {
    result.discard(core);
    tuneFailed(core, pass, error);
  } finally {
    bench.dispose();
  }
  if (budget.cut) {
    progress(
      `${d.describe()} ${pass}: the budget of ${budget.limitMs} ms cut the search after ${budget.timed - timedBefore} timed; chose ${core.executor(pass).info().name}`,
    );
  }
  if (shared === undefined) {
    core.selection.set(
      pass,
      selectionOf(pass, 'autotune', budget, passStarted, result.choice?.timeMs),
    );
  }
}

/** A pass's tuning result so far: nothing of it is installed until {@link Tuned.installIn}. */
class Tuned {
  choice: TunedChoice | null = null;
  /** The graph search's winner: the pass's cuDNN plan whichever route wins. */
  graph: GraphExec | undefined;
  /** The legacy API's choice where no graph engine runs the pass. */
  legacy: LegacyPass | undefined;
  /** The candidate that beat the graph search, if one did. */
  winner: TimedCandidate | undefined;
  /** The graph search's fastest time when our routes were timed (before its knob search). */
  graphMs = Number.POSITIVE_INFINITY;

  /**
   * The time a candidate must beat: the best so far, the winning route's or the graph search's (a
   * route ranked before the search may have won then and be slower than its engines).
   */
  get timeMs(): number {
    return Math.min(this.winner?.ms ?? this.choice?.timeMs ?? this.graphMs, this.graphMs);
  }

  /** Whether `c` wins: any faster (first of all, when nothing runs yet), or by its minimum gain. */
  wins(c: TimedCandidate): boolean {
    const none = this.choice === null && !Number.isFinite(this.graphMs);
    return c.minGain === 0 ? none || c.ms < this.timeMs : detourWins(c.ms, this.timeMs, c.minGain);
  }

  take(c: TimedCandidate): void {
    this.winner?.drop();
    this.winner = c;
    this.choice = { kind: c.kind, timeMs: c.ms };
  }

  /**
   * The graph search's result: its winner, unless a route that won against the time it had
   * when the route was timed (none yet, for a route ranked before the search) still wins against
   * its final time (the survey and the knob search may have found a faster config since).
   */
  settle(choice: TunedChoice, progress: (message: string) => void): void {
    const w = this.winner;
    if (w === undefined) {
      this.choice = choice;
      return;
    }
    const graphMs = choice.timeMs ?? Number.POSITIVE_INFINITY;
    if (w.minGain === 0 ? w.ms < graphMs : detourWins(w.ms, graphMs, w.minGain)) return;
    progress(`${w.label()} ${w.ms.toFixed(3)} ms lost to cuDNN's best, ${graphMs.toFixed(3)} ms`);
    w.drop();
    this.winner = undefined;
    this.choice = choice;
  }

  /** Install it in one step. */
  installIn(core: PlanCore, pass: Conv3dPass): void {
    const cudnn = core.cudnn(pass);
    if (this.graph !== undefined) cudnn.install(this.graph);
    if (this.legacy !== undefined) cudnn.installLegacy(this.legacy);
    if (this.choice === null) return;
    const route = this.winner?.route ?? {};
    core.install(pass, this.choice, {
      depthwise: route.depthwise ?? null,
      executor: route.executor,
    });
  }

  /** Drop what a failed tuning made. */
  discard(core: PlanCore): void {
    if (this.graph !== undefined) {
      this.graph.variantPacks.clear();
      core.ctx.scope.destroyBackend(this.graph.plan);
    }
    this.winner?.drop();
  }
}

/**
 * The candidates the shape qualifies for that are ranked first (our depthwise kernels, the
 * space-to-depth routes: see {@link TuneCandidate.ranked}), then the graph search's survey and
 * finalists (its give-up point counting the ranked winner's time, so that a config many times
 * slower than it costs one warm-up run), then the other candidates in order (each kept when it
 * wins), then the knob search; within `budget`, except that a candidate marked `alwaysTimed` is
 * timed even after the budget ran out. Whatever won before the graph search must still win
 * against its final time (Tuned.settle): autotune never installs a route slower than the best
 * cuDNN engine it timed.
 */
function* tuneAll(
  core: PlanCore,
  pass: Conv3dPass,
  bench: TuneBench,
  opts: ResolvedOptions,
  progress: (message: string) => void,
  result: Tuned,
  budget: TuneBudget,
): Generator<TimingEvent, void, void> {
  const timeCandidates = function* (
    list: readonly TuneCandidate[],
  ): Generator<TimingEvent, void, void> {
    for (const candidate of list) {
      if (candidate.alwaysTimed !== true && !budget.allows()) continue;
      const timed = yield* candidate.time(core, pass, bench, opts, progress, budget);
      if (timed === null) continue;
      budget.timed++;
      const wins = result.wins(timed);
      progress(`${timed.label()} ${timed.ms.toFixed(3)} ms${wins ? ', chosen' : ''}`);
      if (wins) result.take(timed);
      else timed.drop();
    }
  };
  yield* timeCandidates(CANDIDATES.filter((c) => c.ranked === true));
  const rest = CANDIDATES.filter((c) => c.ranked !== true);
  let restTimed = false;
  const searched = yield* searchGraph(
    core.ctx,
    pass,
    bench,
    progress,
    budget,
    (bestMs) => {
      restTimed = true;
      result.graphMs = bestMs;
      return timeCandidates(rest);
    },
    result.winner?.ms,
  );
  if (searched.exec !== undefined) {
    result.graph = searched.exec;
    result.settle(searched.choice, progress);
  } else {
    result.legacy = searched.legacy;
  }
  if (!restTimed) yield* timeCandidates(rest);
}

function tuneFailed(core: PlanCore, pass: Conv3dPass, error: unknown): void {
  process.emitWarning(
    `Could not autotune ${core.ctx.problem} ${pass} (${error instanceof Error ? error.message : String(error)}); it uses the heuristic choice instead`,
    { type: 'BaracudaWarning', code: 'BARACUDA_AUTOTUNE_FAILED' },
  );
}

const CANDIDATES = tuneCandidates(tunePass);
