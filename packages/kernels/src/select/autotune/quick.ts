/**
 * The default mode's quick tune (`options.heuristic: 'quick-tune'`): per pass, the choice the
 * heuristics would make first (the incumbent), then the routes the shape qualifies for (our
 * depthwise kernel, its layout detour, the space-to-depth routes), then the heuristics' next
 * engine configs (quick-candidates.ts says which, and why), each made only when its turn comes,
 * within {@link QUICK_TUNE_BUDGET_MS} (checked before each candidate is made; the first is always
 * timed), on one set of scratch operands. A candidate whose warm-up run is hopeless against the
 * fastest so far is not run again (one run of a config that takes seconds, never two). A
 * challenger replaces the incumbent only when at least {@link QUICK_MIN_GAIN} faster, so timing
 * noise never moves a pass off the heuristics' choice. The choice is kept in the autotune cache
 * under its own key (`select=quick-tune`), which autotune never reads or writes, and a later
 * select of the problem times nothing. Where there is nothing to choose between (one candidate),
 * nothing is timed and nothing written; where it cannot run (no memory for the scratch), the pass
 * is left to the heuristics' first choice.
 */
import { readAutotuneCache, saveAutotuneEntry } from '../../autotune-cache.js';
import type { Conv3dPass } from '../../core/pass.js';
import type { ResolvedOptions } from '../../core/types.js';
import { operationGraph } from '../../cudnn/operation-graph.js';
import { isDriverStream, type TimingEvent } from '../../sys.js';
import { QUICK_TUNE_BUDGET_MS, tuneGiveUpMs } from '../../tuning.js';
import type { PlanCore } from '../core.js';
import { graphExec } from '../graph-choice.js';
import { type TuneBench, tuneBench } from './bench.js';
import { budgetClock, selectionOf, TuneBudget } from './budget.js';
import { decodeEntry, entryOf, passKey, type TunedChoice } from './cache-codec.js';
import {
  type QuickCandidate,
  type QuickEngines,
  type QuickRun,
  quickCandidates,
  quickEngines,
  spaceToDepthExecutor,
} from './quick-candidates.js';
import { timeRuns } from './timing.js';

/** How much faster than the incumbent a challenger must time to replace it. */
export const QUICK_MIN_GAIN = 0.03;
/** A candidate whose warm-up runs take this many times the fastest so far is not timed further. */
const QUICK_GIVE_UP_RATIO = 2;
/** ...and at least this many ms more (a first run that loads kernels is not held against it). */
const QUICK_GIVE_UP_MARGIN_MS = 1;
/** Timed runs after the warm-up: one, then (under {@link QUICK_ONE_RUN_ABOVE_MS}) a median of 3. */
const QUICK_REPS = 3;
/** A candidate whose first timed run took longer is not timed again (one run already says). */
const QUICK_ONE_RUN_ABOVE_MS = 5;

/** The pass as the quick tune's cached choice makes it; false where that no longer applies. */
function* fromCache(
  core: PlanCore,
  pass: Conv3dPass,
  cached: TunedChoice,
  opts: ResolvedOptions,
): Generator<TimingEvent, boolean, void> {
  if (cached.kind === 'engine' || cached.kind === 'depthwise') {
    // The pass builds it directly on first use (or, if it no longer builds, the heuristics' first).
    core.install(pass, cached, {});
    return true;
  }
  if (cached.kind === 'layoutDetour') {
    if (opts.layoutDetour !== 'tuned' || !core.detourAvailable()) return false;
    core.install(pass, cached, { depthwise: null, executor: core.ensureDetour().executor(pass) });
    return true;
  }
  if (cached.kind === 'spaceToDepth') {
    const route = yield* spaceToDepthExecutor(core, pass, opts, quickInner);
    if (route === null) return false;
    core.install(pass, cached, { depthwise: null, executor: route });
    return true;
  }
  return false;
}

/** A route's inner plan quick-tuned for `pass` (or its quick choice taken from the cache). */
function* quickInner(
  inner: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
): Generator<TimingEvent, void, void> {
  yield* quickTunePass(inner, pass, opts);
}

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
  if (cached !== undefined && (yield* fromCache(core, pass, cached, opts))) {
    core.selection.set(pass, selectionOf(pass, 'cache', budget, started));
    return;
  }
  const { ctx } = core;
  const scope = ctx.scope;
  const { graph, parts } = operationGraph(scope, ctx.desc, pass, 1, 0, 16);
  let engines: QuickEngines | undefined;
  let bench: TuneBench | undefined;
  const made: (QuickRun | undefined)[] = [];
  let kept: QuickRun | undefined;
  /** The operation graph stays with an engine plan built on it (as the heuristics' choice keeps it). */
  let graphKept = false;
  try {
    engines = quickEngines(core, graph);
    const { list, firstEngine } = quickCandidates(core, pass, opts, engines, quickInner);
    // Nothing to choose between: the heuristics decide (as they do where only the legacy API
    // runs the pass, or only our kernel). Their one config is the pass's plan already.
    if (list.length < 2) {
      const only = list[0] === firstEngine ? engines.takeFirst() : null;
      if (only !== null) {
        graphKept = true;
        core.cudnn(pass).install(graphExec(ctx, only, 1, 0, 16));
      }
      return;
    }
    bench = tuneBench(ctx, true);
    budget = new TuneBudget(QUICK_TUNE_BUDGET_MS);
    const progress = (m: string) => opts.onProgress?.(`${ctx.problem} ${pass}: ${m}`);
    const times = yield* timeAll(list, bench, budget, made, progress);
    const winner = pick(times);
    const chosen = made[winner];
    if (chosen === undefined || !Number.isFinite(times[winner]!)) return;
    const choice = chosen.choice(times[winner]!);
    kept = chosen;
    chosen.install(choice);
    graphKept = choice.kind === 'engine';
    opts.onProgress?.(
      `${ctx.problem} ${pass}: quick tune chose ${core.executor(pass).info().name} (${times[winner]!.toFixed(3)} ms) of ${times.filter(Number.isFinite).length} timed${budget.cut ? `; the budget of ${budget.limitMs} ms cut it` : ''}`,
    );
    yield* saveAutotuneEntry(opts.autotuneCachePath, key, entryOf(choice, budget));
    core.selection.set(pass, selectionOf(pass, 'quick-tune', budget, started, times[winner]));
  } catch (error) {
    process.emitWarning(
      `Could not quick-tune ${ctx.problem} ${pass} (${error instanceof Error ? error.message : String(error)}); it uses ${kept === undefined ? "the heuristics' first choice" : 'what it chose, not saved'}`,
      { type: 'BaracudaWarning', code: 'BARACUDA_QUICK_TUNE_FAILED' },
    );
  } finally {
    for (const r of made) if (r !== undefined && r !== kept) r.drop();
    engines?.dispose();
    if (!graphKept) for (const p of parts) scope.destroyBackend(p);
    bench?.dispose();
  }
}

/**
 * Each candidate made and timed in order (Infinity: not timed, not made, or failed) while the
 * budget lasts; what was made is left in `made` (by index) for the caller to keep or drop.
 */
function* timeAll(
  list: readonly QuickCandidate[],
  bench: TuneBench,
  budget: TuneBudget,
  made: (QuickRun | undefined)[],
  progress: (message: string) => void,
): Generator<TimingEvent, number[], void> {
  const times = list.map(() => Number.POSITIVE_INFINITY);
  for (let i = 0; i < list.length; i++) {
    if (i > 0 && !budget.allows()) {
      progress(`quick tune: budget of ${budget.limitMs} ms spent after ${i} of ${list.length}`);
      break;
    }
    const c = yield* list[i]!(bench);
    if (c === null) continue;
    made[i] = c;
    const best = Math.min(...times);
    const giveUp = tuneGiveUpMs(best, QUICK_GIVE_UP_RATIO, QUICK_GIVE_UP_MARGIN_MS);
    let t = yield* timeRuns(bench, c.run, 1, giveUp);
    if (t <= giveUp && t < QUICK_ONE_RUN_ABOVE_MS) t = yield* timeRuns(bench, c.run, QUICK_REPS);
    times[i] = t;
    budget.timed++;
    const note = t > giveUp ? ' (warm-up run; not timed again)' : '';
    progress(`quick ${i + 1}/${list.length} ${c.name} ${t.toFixed(3)} ms${note}`);
  }
  return times;
}

/** The incumbent (the first), unless another timed at least {@link QUICK_MIN_GAIN} faster: the fastest. */
export function pick(times: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[best]!) best = i;
  }
  const first = times[0]!;
  if (best === 0 || !Number.isFinite(times[best]!)) return 0;
  return Number.isFinite(first) && times[best]! > first * (1 - QUICK_MIN_GAIN) ? 0 : best;
}
