/**
 * The default mode's quick tune (`options.heuristic: 'quick-tune'`): per pass, the route the
 * heuristics would take first, then our depthwise kernel where it applies, then the heuristics'
 * next engine configs, up to {@link QUICK_CONFIGS} configs that build, each timed a few runs on
 * one set of scratch operands within {@link QUICK_TUNE_BUDGET_MS} (checked between candidates;
 * the first is always timed). A challenger replaces the first choice only when at least
 * {@link QUICK_MIN_GAIN} faster, so timing noise never moves a pass off the heuristics' choice.
 * The choice is kept in the autotune cache under its own key (`select=quick-tune`), which
 * autotune never reads or writes, and a later select of the problem times nothing. Where there
 * is nothing to choose between (one candidate), nothing is timed and nothing written; where it
 * cannot run (no memory for the scratch), the pass is left to the heuristics' first choice.
 */
import { readAutotuneCache, saveAutotuneEntry } from '../../autotune-cache.js';
import type { Conv3dPass } from '../../core/pass.js';
import type { ResolvedOptions, RunScalars } from '../../core/types.js';
import type { BuiltCandidate } from '../../cudnn/engine-configs.js';
import { bindStream } from '../../cudnn/handle.js';
import { operationGraph, variantPack } from '../../cudnn/operation-graph.js';
import { depthwiseUntuned } from '../../depthwise.js';
import { type DepthwiseExecutor, depthwiseExecutor } from '../../exec/depthwise.js';
import { C, cudnn, isDriverStream, type TimingEvent } from '../../sys.js';
import { QUICK_TUNE_BUDGET_MS, tuneGiveUpMs } from '../../tuning.js';
import type { PlanCore } from '../core.js';
import { candidates, finalizeAllowed, graphExec } from '../graph-choice.js';
import { type TuneBench, tuneBench } from './bench.js';
import { budgetClock, selectionOf, TuneBudget } from './budget.js';
import { decodeEntry, entryOf, passKey, type TunedChoice } from './cache-codec.js';
import { timeRuns } from './timing.js';

/** The heuristics' engine configs the quick tune times at most (those that build). */
export const QUICK_CONFIGS = 3;
/** How much faster than the first choice a challenger must time to replace it. */
export const QUICK_MIN_GAIN = 0.03;
/** A candidate whose warm-up runs take this many times the fastest so far is not timed further. */
const QUICK_GIVE_UP_RATIO = 2;
/** ...and at least this many ms more (a first run that loads kernels is not held against it). */
const QUICK_GIVE_UP_MARGIN_MS = 1;
/** Timed runs after the warm-up: one, then (under {@link QUICK_ONE_RUN_ABOVE_MS}) a median of 3. */
const QUICK_REPS = 3;
/** A candidate whose first timed run took longer is not timed again (one run already says). */
const QUICK_ONE_RUN_ABOVE_MS = 5;

/** One quick-tune candidate: an engine config (built) or our depthwise kernel. */
type Candidate =
  | { readonly kind: 'engine'; readonly built: BuiltCandidate }
  | { readonly kind: 'depthwise'; readonly executor: DepthwiseExecutor };

/** Quick-tune one pass of a heuristic plan, or take its quick choice from the cache. */
export function* quickTunePass(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
): Generator<TimingEvent, void, void> {
  if (core.installed(pass) !== undefined || core.tuned(pass) !== undefined) return;
  if (!isDriverStream(core.ctx.stream)) return;
  const started = budgetClock.now();
  let budget = new TuneBudget(QUICK_TUNE_BUDGET_MS);
  const key = passKey(core, pass, 'quick-tune');
  const entry = readAutotuneCache(opts.autotuneCachePath).entries[key];
  const cached = entry === undefined ? undefined : decodeEntry(entry);
  if (cached?.kind === 'engine' || cached?.kind === 'depthwise') {
    // The pass builds it directly on first use (or, if it no longer builds, the heuristics' first).
    core.install(pass, cached, {});
    core.selection.set(pass, selectionOf(pass, 'cache', budget, started));
    return;
  }
  const { ctx } = core;
  const scope = ctx.scope;
  const { graph, parts } = operationGraph(scope, ctx.desc, pass, 1, 0, 16);
  const list: Candidate[] = [];
  const offered = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_FALLBACK]);
  const dropAll = () => {
    for (const c of list) {
      if (c.kind === 'engine') {
        scope.destroyBackend(c.built.plan);
        scope.destroyBackend(c.built.c.cfg);
      }
    }
    for (const c of offered) scope.destroyBackend(c.cfg);
    offered.length = 0;
    for (const p of parts) scope.destroyBackend(p);
  };
  let bench: TuneBench | undefined;
  let installed = false;
  try {
    const depthwise = depthwiseExecutor(ctx, pass);
    if (depthwise !== null && depthwiseUntuned(depthwise.call.launch)) {
      list.push({ kind: 'depthwise', executor: depthwise });
    }
    let engines = 0;
    while (offered.length > 0 && engines < QUICK_CONFIGS) {
      const c = offered.shift()!;
      const built = finalizeAllowed(ctx, c);
      if (built === null) {
        scope.destroyBackend(c.cfg);
        continue;
      }
      list.push({ kind: 'engine', built });
      engines++;
      // Our kernel right after the heuristics' first choice.
      if (depthwise !== null && list.length === 1) {
        list.push({ kind: 'depthwise', executor: depthwise });
      }
    }
    for (const c of offered) scope.destroyBackend(c.cfg);
    offered.length = 0;
    // Nothing to choose between: the heuristics decide (as they do where only the legacy API
    // runs the pass, or only our kernel). Their one config is the pass's plan already.
    if (list.length < 2 || engines === 0) {
      const only = list.length === 1 && list[0]!.kind === 'engine' ? list[0]!.built : undefined;
      if (only === undefined) {
        dropAll();
        return;
      }
      installed = true;
      core.cudnn(pass).install(graphExec(ctx, only, 1, 0, 16));
      return;
    }
    bench = tuneBench(ctx, true);
    budget = new TuneBudget(QUICK_TUNE_BUDGET_MS);
    const times = yield* timeAll(core, list, bench, budget);
    const winner = pick(times);
    const chosen = list[winner]!;
    const choice: TunedChoice =
      chosen.kind === 'engine'
        ? {
            kind: 'engine',
            engineIndex: chosen.built.c.engineIndex,
            knobs: chosen.built.c.knobs,
            timeMs: times[winner],
          }
        : { kind: 'depthwise', timeMs: times[winner] };
    installed = true;
    if (chosen.kind === 'engine') {
      core.cudnn(pass).install(graphExec(ctx, chosen.built, 1, 0, 16));
      core.install(pass, choice, { depthwise: null });
    } else {
      core.install(pass, choice, { depthwise: chosen.executor });
    }
    const keep = chosen.kind === 'engine' ? chosen.built : undefined;
    for (const c of list) {
      if (c.kind === 'engine' && c.built !== keep) {
        scope.destroyBackend(c.built.plan);
        scope.destroyBackend(c.built.c.cfg);
      }
    }
    list.length = 0;
    // The operation graph stays with a plan built on it (as the heuristics' choice keeps it).
    if (keep === undefined) for (const p of parts) scope.destroyBackend(p);
    opts.onProgress?.(
      `${ctx.problem} ${pass}: quick tune chose ${core.executor(pass).info().name} (${times[winner]!.toFixed(3)} ms) of ${times.filter(Number.isFinite).length} timed${budget.cut ? `; the budget of ${budget.limitMs} ms cut it` : ''}`,
    );
    yield* saveAutotuneEntry(opts.autotuneCachePath, key, entryOf(choice, budget));
    core.selection.set(pass, selectionOf(pass, 'quick-tune', budget, started, times[winner]));
  } catch (error) {
    if (!installed) dropAll();
    process.emitWarning(
      `Could not quick-tune ${ctx.problem} ${pass} (${error instanceof Error ? error.message : String(error)}); it uses the heuristics' first choice`,
      { type: 'BaracudaWarning', code: 'BARACUDA_QUICK_TUNE_FAILED' },
    );
  } finally {
    bench?.dispose();
  }
}

/** Each candidate's time (Infinity: not timed, or failed), in order, within the budget. */
function* timeAll(
  core: PlanCore,
  list: readonly Candidate[],
  bench: TuneBench,
  budget: TuneBudget,
): Generator<TimingEvent, number[], void> {
  const { ctx } = core;
  const scope = ctx.scope;
  const shared = scope.handle;
  bindStream(shared, bench.stream.raw, ctx.problem);
  const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const times = list.map(() => Number.POSITIVE_INFINITY);
  for (let i = 0; i < list.length; i++) {
    if (i > 0 && !budget.allows()) break;
    const c = list[i]!;
    let run: (set: number) => boolean;
    let pack: ReturnType<typeof variantPack> | undefined;
    if (c.kind === 'engine') {
      const { x, w, y } = bench.sets[0]!;
      pack = variantPack(scope, x, w, y, bench.workspace(c.built.workspaceBytes));
      const vp = pack;
      run = () => cudnn.cudnnBackendExecute(shared.handle, c.built.plan, vp) === 0;
    } else {
      run = (set) => {
        c.executor.run(bench.sets[set]!, scalars);
        return true;
      };
    }
    try {
      const best = Math.min(...times);
      const giveUp = tuneGiveUpMs(best, QUICK_GIVE_UP_RATIO, QUICK_GIVE_UP_MARGIN_MS);
      let t = yield* timeRuns(bench, run, 1, giveUp);
      if (t <= giveUp && t < QUICK_ONE_RUN_ABOVE_MS) t = yield* timeRuns(bench, run, QUICK_REPS);
      times[i] = t;
      budget.timed++;
    } finally {
      if (pack !== undefined) scope.destroyBackend(pack);
    }
  }
  return times;
}

/** The first candidate, unless another timed at least {@link QUICK_MIN_GAIN} faster: the fastest. */
export function pick(times: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[best]!) best = i;
  }
  const first = times[0]!;
  if (best === 0 || !Number.isFinite(times[best]!)) return 0;
  return Number.isFinite(first) && times[best]! > first * (1 - QUICK_MIN_GAIN) ? 0 : best;
}
