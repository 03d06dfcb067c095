/**
 * Autotune's search on the graph API for one pass: every allowed candidate of the heuristics
 * timed, the fastest few timed again, then a hill-climbing search over knob values no heuristic
 * offers. The constants that shape it sit here, next to their use.
 */
import type { Conv3dPass } from '../../core/pass.js';
import type { BuiltCandidate, EngineCandidate } from '../../cudnn/engine-configs.js';
import { configId, knobSpace } from '../../cudnn/engine-configs.js';
import { bindStream } from '../../cudnn/handle.js';
import type { LegacyPass } from '../../cudnn/legacy.js';
import { operationGraph, variantPack } from '../../cudnn/operation-graph.js';
import type { GraphExec } from '../../exec/cudnn.js';
import type { ExecContext } from '../../exec/executor.js';
import { engineName, mib } from '../../policy.js';
import { type BackendDescriptor, C, cudnn, type TimingEvent } from '../../sys.js';
import {
  fastestIndices,
  finalistReps,
  isReferenceEngine,
  knobNeighbours,
  nextSearchBases,
  REDUCTION_KNOBS,
  surveyStillBuilds,
  TUNE_FINALISTS,
  TUNE_GIVE_UP_MARGIN_MS,
  TUNE_GIVE_UP_RATIO,
  TUNE_KEEP_RATIO,
  TUNE_SEARCH_BASES,
  TUNE_SEARCH_VALUES,
  tuneFinalists,
  tuneGiveUpMs,
} from '../../tuning.js';
import { buildCandidate, candidates, finalizeAllowed, graphExec } from '../graph-choice.js';
import type { TuneBench } from './bench.js';
import type { TuneBudget } from './budget.js';
import type { TunedChoice } from './cache-codec.js';
import { TUNE_ROUNDS, timeRuns } from './timing.js';

/** The knob search: at most this many configs tried per search pass. */
const TUNE_SEARCH_MAX = 48;
/**
 * The knob search: at most this many passes. A pass that finds a faster config starts another
 * around it, so configs two or three knobs away from the heuristics' offers are reached.
 */
const TUNE_SEARCH_PASSES = 3;
/**
 * The knob search: per search pass, no more configs are built after this long, and none timed
 * after twice this long (an engine that compiles its kernels at run time finalizes slowly).
 */
const TUNE_SEARCH_BUDGET_MS = 1500;
/** The knob search: a config whose first time is within this factor of the leader's is timed again. */
const TUNE_SEARCH_KEEP_RATIO = 1.1;

/** The search's winner (its plan for alpha 1, beta 0, 16-byte alignment), or the legacy fallback. */
export type GraphSearchResult =
  | { readonly exec: GraphExec; readonly choice: TunedChoice; readonly legacy?: undefined }
  | { readonly legacy: LegacyPass; readonly exec?: undefined };

/**
 * Tune the pass on the graph API, in ranked order and within `budget` (checked between
 * candidates, never inside a measurement; once it is spent the best so far wins). Every allowed
 * candidate of heuristic modes A, B and FALLBACK, in the heuristics' order (configs that compile at
 * run time after the precompiled ones, cuDNN's reference engines last, each only as
 * surveyStillBuilds says), is built (finalized)
 * only when its turn comes and timed once after a timed warm-up run (see {@link timeRuns}); a
 * hopeless one (see
 * {@link tuneGiveUpMs}) is not timed further. The few within {@link TUNE_KEEP_RATIO} of the
 * fastest are timed again ({@link finalistReps} runs each), in turn, {@link TUNE_ROUNDS}
 * times over. Then a knob search: the configs one knob away from the fastest
 * {@link TUNE_SEARCH_BASES} (cuDNN's knob ranges; no heuristic mode offers most of them), within
 * {@link TUNE_SEARCH_BUDGET_MS}; those close to the leader are timed in turn with it, and when
 * one of them wins, the configs one knob away from it are searched next, at most
 * {@link TUNE_SEARCH_PASSES} passes (see {@link nextSearchBases}). Returns
 * the winner with its execution plan, installing nothing; or, when no graph engine runs the pass,
 * the legacy API's choice. `knownBestMs`: the time of a route timed before the search (our
 * kernels, the space-to-depth routes), which the give-up point counts as the fastest so far.
 * `interlude`, given the fastest time so far, runs after the finalists
 * and before the knob search (autotune times our own routes there, so the knob search, the part
 * of the search least likely to matter, is the part a budget cuts first).
 */
export function* searchGraph(
  ctx: ExecContext,
  pass: Conv3dPass,
  bench: TuneBench,
  progress: (message: string) => void,
  budget: TuneBudget,
  interlude?: (bestMs: number) => Generator<TimingEvent, void, void>,
  knownBestMs = Number.POSITIVE_INFINITY,
): Generator<TimingEvent, GraphSearchResult, void> {
  const d = ctx.desc;
  const scope = ctx.scope;
  const { graph, parts } = operationGraph(scope, d, pass, 1, 0, 16);
  const offered = candidates(ctx, graph, [
    C.CUDNN_HEUR_MODE_A,
    C.CUDNN_HEUR_MODE_B,
    C.CUDNN_HEUR_MODE_FALLBACK,
  ]);
  const built: BuiltCandidate[] = [];
  /**
   * The offered configs not built yet, in the heuristics' order (built when their turn comes),
   * those that compile at run time next to last and cuDNN's reference engines last, so that a
   * budget cuts them first (and surveyStillBuilds passes them over once a faster one ran).
   */
  const reference = (c: EngineCandidate) => isReferenceEngine(c.notes);
  const compiled = (c: EngineCandidate) => !reference(c) && c.compilesAtRunTime === true;
  const waiting = [
    ...offered.filter((c) => !reference(c) && !compiled(c)),
    ...offered.filter(compiled),
    ...offered.filter(reference),
  ];
  /** The next config the survey builds, given the fastest time so far (see surveyStillBuilds). */
  const buildNext = (fastestMs: number): BuiltCandidate | null => {
    while (waiting.length > 0) {
      const c = waiting.shift()!;
      if (!surveyStillBuilds(c, fastestMs)) {
        progress(
          `${d.describe()} ${pass}: passed over ${engineName(c.engineIndex, c.knobs)}: ${reference(c) ? "cuDNN's reference engine" : `compiles its kernels at run time, and the fastest so far takes ${fastestMs.toFixed(3)} ms`}`,
        );
        scope.destroyBackend(c.cfg);
        continue;
      }
      const b = finalizeAllowed(ctx, c, (bytes) =>
        progress(
          `${d.describe()} ${pass}: passed over ${engineName(c.engineIndex, c.knobs)}: needs ${mib(bytes)} of workspace, over maxWorkspaceBytes (${mib(ctx.preference.maxWorkspaceBytes)})`,
        ),
      );
      if (b !== null) return b;
      scope.destroyBackend(c.cfg);
    }
    return null;
  };
  const dropWaiting = () => {
    for (const c of waiting.splice(0)) scope.destroyBackend(c.cfg);
  };
  const fallback = (): GraphSearchResult => {
    dropWaiting();
    for (const p of parts) scope.destroyBackend(p);
    return { legacy: ctx.legacy.heuristic(pass) };
  };
  const first = buildNext(knownBestMs);
  if (first === null) return fallback();
  built.push(first);
  const shared = scope.handle;
  bindStream(shared, bench.stream.raw, ctx.problem);
  const timings: number[] = built.map(() => Number.POSITIVE_INFINITY);
  /** Each timed candidate's variant packs, one per operand set, and the workspace they name. */
  const packsOf = new Map<number, { workspace: bigint; packs: BackendDescriptor[] }>();
  const dropPacks = (i: number) => {
    for (const vp of packsOf.get(i)?.packs ?? []) scope.destroyBackend(vp);
    packsOf.delete(i);
  };
  const timeCandidate = function* (
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
        made.packs.push(variantPack(scope, x, w, y, workspace));
      }
    }
    const packs = made.packs;
    const run = (set: number) =>
      cudnn.cudnnBackendExecute(shared.handle, b.plan, packs[set]!) === 0;
    return yield* timeRuns(bench, run, reps, giveUpMs);
  };
  try {
    for (let i = 0; ; i++) {
      if (i === built.length) {
        // The next offered config, built only if the budget allows timing it.
        if (waiting.length === 0) break;
        if (!budget.allows()) {
          progress(
            `${d.describe()} ${pass}: budget of ${budget.limitMs} ms spent after ${i} of ${i + waiting.length} offered configs; the best so far wins`,
          );
          dropWaiting();
          break;
        }
        const b = buildNext(Math.min(knownBestMs, ...timings));
        if (b === null) break;
        built.push(b);
        timings.push(Number.POSITIVE_INFINITY);
      }
      const fastest = Math.min(knownBestMs, ...timings);
      const giveUp = tuneGiveUpMs(fastest, TUNE_GIVE_UP_RATIO, TUNE_GIVE_UP_MARGIN_MS);
      timings[i] = yield* timeCandidate(i, 1, giveUp);
      budget.timed++;
      const name = engineName(built[i]!.c.engineIndex, built[i]!.c.knobs);
      const note = timings[i]! > giveUp ? ' (warm-up run; not timed again)' : '';
      const of = built.length + waiting.length;
      progress(
        `${d.describe()} ${pass}: candidate ${i + 1}/${of} ${name} ${timings[i]!.toFixed(3)} ms${note}`,
      );
    }
    // Finalists are timed in turn, TUNE_ROUNDS times over, each keeping its best round: a
    // candidate timed while the GPU's clock dips is not ranked by that alone.
    const timeFinalists = function* (
      indices: readonly number[],
    ): Generator<TimingEvent, void, void> {
      for (let round = 0; round < TUNE_ROUNDS; round++) {
        for (const i of indices) {
          // A cut keeps each finalist's latest time (each a median of its runs).
          if (!budget.allows()) return;
          const t = yield* timeCandidate(i, finalistReps(timings[i]!));
          timings[i] = round === 0 ? t : Math.min(timings[i]!, t);
        }
      }
    };
    const finalists = tuneFinalists(timings, TUNE_KEEP_RATIO, TUNE_FINALISTS);
    if (finalists.length > 1) yield* timeFinalists(finalists);
    if (interlude !== undefined) yield* interlude(Math.min(...timings));
    // Knob search: the configs one knob away from the fastest finalists, which no heuristic
    // mode offered. Each is timed once; those close to the leader are timed again with the
    // leader, back to back. When a searched config becomes the leader, the next pass searches
    // around it (hill climbing), at most TUNE_SEARCH_PASSES passes.
    const seen = new Set(built.map((b) => configId(b.c.engineIndex, b.c.knobs)));
    const skip = ctx.preference.deterministic ? REDUCTION_KNOBS : undefined;
    let bases = fastestIndices(timings, TUNE_SEARCH_BASES);
    for (let searchPass = 1; searchPass <= TUNE_SEARCH_PASSES && bases.length > 0; searchPass++) {
      if (!budget.allows()) {
        progress(`${d.describe()} ${pass}: budget of ${budget.limitMs} ms spent; no knob search`);
        break;
      }
      const firstSearched = built.length;
      const searchStarted = Date.now();
      const searching = (limitMs: number) => Date.now() - searchStarted < limitMs;
      for (const base of bases.map((i) => built[i]!.c)) {
        const space = knobSpace(scope, base.cfg);
        for (const knobs of knobNeighbours(base.knobs, space, TUNE_SEARCH_VALUES, skip)) {
          if (
            built.length - firstSearched >= TUNE_SEARCH_MAX ||
            !searching(TUNE_SEARCH_BUDGET_MS) ||
            !budget.allows()
          )
            break;
          const asked = configId(base.engineIndex, knobs);
          if (seen.has(asked)) continue;
          seen.add(asked);
          const b = buildCandidate(ctx, graph, base.engineIndex, knobs);
          if (b === null) continue;
          // cuDNN may read a config back with other knobs than asked: dedupe on what it reports.
          const id = configId(b.c.engineIndex, b.c.knobs);
          if (id !== asked && seen.has(id)) {
            scope.destroyBackend(b.plan);
            scope.destroyBackend(b.c.cfg);
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
        if (!budget.allows()) break;
        const giveUp = tuneGiveUpMs(timings[leader]!, TUNE_GIVE_UP_RATIO, TUNE_GIVE_UP_MARGIN_MS);
        timings[i] = yield* timeCandidate(i, 1, giveUp);
        budget.timed++;
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
      yield* timeFinalists([leader, ...challengers]);
      bases = nextSearchBases(timings, firstSearched);
    }
  } catch (error) {
    dropWaiting();
    for (const b of built) {
      scope.destroyBackend(b.plan);
      scope.destroyBackend(b.c.cfg);
    }
    for (const p of parts) scope.destroyBackend(p);
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
      scope.destroyBackend(built[i]!.plan);
      scope.destroyBackend(built[i]!.c.cfg);
    }
  }
  if (best < 0) return fallback();
  const winner = built[best]!;
  const exec = graphExec(ctx, winner, 1, 0, 16);
  const timeMs = timings[best]!;
  progress(
    `${d.describe()} ${pass}: chose ${exec.info.name} (${timeMs.toFixed(3)} ms) of ${built.length}`,
  );
  return {
    exec,
    choice: { kind: 'engine', engineIndex: winner.c.engineIndex, knobs: winner.c.knobs, timeMs },
  };
}
