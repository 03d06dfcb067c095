/**
 * What the default mode's quick tune times for one pass, in its order, each made only when its
 * turn comes: the choice `heuristic: 'first'` would make (the incumbent), the routes the shape
 * qualifies for, then the heuristics' next engine configs. Which candidates there are is decided
 * by the shape's properties and the heuristics' own modes, never by a layer's name:
 * - our depthwise kernel where it applies (groups = channels), right after the heuristics' first
 *   config, or first where it is the pass's untuned default (see depthwiseUntuned);
 * - where our depthwise kernel applies, the layout detour (the problem run in the other layout by
 *   that layout's default: our kernel there, or its heuristics' first config), since our kernels
 *   differ by layout (X3D's NDHWC forward: 0.52 ms here, 0.22 ms through NCDHW, run 68);
 * - where the shape qualifies (kernel = stride, no padding; a small-cIn stride-2 stem) and the
 *   option is `'tuned'`, the space-to-depth route (VideoMAE's f16 patch backward-data: 0.60 ms
 *   against the heuristics' 4.6 ms, run 68);
 * - the engine configs of heuristic modes A and B that the preference allows (B offers engines
 *   A does not: X3D's NDHWC depthwise backward-filter has no A config, and B's first, the split-K
 *   engine 61, ran in 0.13 ms against our kernel's 0.72 ms and the FALLBACK first's 51 ms, run
 *   68), up to {@link QUICK_CONFIGS} in all, without cuDNN's reference engine (see
 *   isReferenceEngine: 5.5 s a call on VideoMAE's patch backward-data). FALLBACK mode's configs
 *   only where A and B offer none: they are the generic engines that always run (engine 1 took
 *   3.4 s a call on the I3D stem's f32 backward-data).
 */
import type { Conv3dPass } from '../../core/pass.js';
import type { ResolvedOptions, RunScalars } from '../../core/types.js';
import { type BuiltCandidate, configId, type EngineCandidate } from '../../cudnn/engine-configs.js';
import { bindStream } from '../../cudnn/handle.js';
import { variantPack } from '../../cudnn/operation-graph.js';
import { depthwiseUntuned } from '../../depthwise.js';
import { type DepthwiseExecutor, depthwiseExecutor } from '../../exec/depthwise.js';
import type { PassExecutor } from '../../exec/executor.js';
import { engineName, engineRejection } from '../../policy.js';
import { type BackendDescriptor, C, cudnn, type TimingEvent } from '../../sys.js';
import { isReferenceEngine } from '../../tuning.js';
import type { PlanCore } from '../core.js';
import { candidates, finalizeAllowed, graphExec } from '../graph-choice.js';
import { makeSpaceToDepth, spaceToDepthRouteFor } from '../space-to-depth-candidate.js';
import type { TuneBench } from './bench.js';
import type { TunedChoice } from './cache-codec.js';
import type { TunePass } from './candidates.js';

/** The engine configs the quick tune times at most (those that build), the incumbent's included. */
export const QUICK_CONFIGS = 3;

/** A candidate made and ready to time: one call on the bench, and how it is kept or dropped. */
export interface QuickRun {
  /** What the progress line calls it. */
  readonly name: string;
  /** Enqueue one call on the bench's operand set `set`; false when it failed to launch. */
  run(set: number): boolean;
  /** The cache's entry for it, timed `timeMs`. */
  choice(timeMs: number): TunedChoice;
  /** Make it the pass's route (`choice` is what {@link QuickRun.choice} gave). */
  install(choice: TunedChoice): void;
  /** Free what it made (it was not chosen). */
  drop(): void;
}

/** A candidate not made yet: made on the bench when its turn comes, or null where it fails to. */
export type QuickCandidate = (bench: TuneBench) => Generator<TimingEvent, QuickRun | null, void>;

/** The heuristics' configs the quick tune may time, the incumbent built. */
export interface QuickEngines {
  /** The config `heuristic: 'first'` takes (A's first that builds, else FALLBACK's), built. */
  takeFirst(): BuiltCandidate | null;
  /** Whether there is a first config (taken or not). */
  readonly hasFirst: boolean;
  /** The other configs, in their order (not built), at most what {@link QUICK_CONFIGS} allows. */
  readonly next: EngineCandidate[];
  /** Destroy what was not taken: the first if it was not, the configs not built. */
  dispose(): void;
}

/** The heuristics' configs of the pass's operation graph, by mode (see the file's comment). */
export function quickEngines(core: PlanCore, graph: BackendDescriptor): QuickEngines {
  const { ctx } = core;
  const scope = ctx.scope;
  const destroy = (list: readonly EngineCandidate[]) => {
    for (const c of list) scope.destroyBackend(c.cfg);
  };
  const a = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_A]);
  const b = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_B]);
  const f = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_FALLBACK]);
  const seen = new Set(a.map((c) => configId(c.engineIndex, c.knobs)));
  const ranked = [...a];
  for (const c of b) {
    const id = configId(c.engineIndex, c.knobs);
    if (seen.has(id)) scope.destroyBackend(c.cfg);
    else {
      seen.add(id);
      ranked.push(c);
    }
  }
  /** The first of `list`'s first `max` that builds, taken out of it with those that did not. */
  const buildFirst = (list: EngineCandidate[], max: number): BuiltCandidate | null => {
    for (let tried = 0; tried < max && list.length > 0; tried++) {
      const c = list.shift()!;
      const built = finalizeAllowed(ctx, c);
      if (built !== null) return built;
      scope.destroyBackend(c.cfg);
    }
    return null;
  };
  const offeredAB = ranked.length > 0;
  // As selectGraph takes it: mode A's first that builds, else FALLBACK's first that builds.
  let first = buildFirst(ranked, a.length);
  if (first === null) first = buildFirst(f, f.length);
  const hasFirst = first !== null;
  // FALLBACK's other configs only where A and B offer none at all (their generic engines: engine
  // 1 took 3.4 s a call on the I3D stem's f32 backward-data); no reference engine; only configs
  // the preference allows (asked of their notes, before anything is built).
  const pool = offeredAB ? ranked : f;
  destroy(pool === f ? ranked : f);
  const next: EngineCandidate[] = [];
  for (const c of pool) {
    const wanted =
      next.length < QUICK_CONFIGS - (hasFirst ? 1 : 0) &&
      !isReferenceEngine(c.notes) &&
      engineRejection(c.notes, ctx.preference, ctx.desc.element) === null;
    if (wanted) next.push(c);
    else scope.destroyBackend(c.cfg);
  }
  return {
    hasFirst,
    next,
    takeFirst() {
      const taken = first;
      first = null;
      return taken;
    },
    dispose() {
      if (first !== null) {
        scope.destroyBackend(first.plan);
        scope.destroyBackend(first.c.cfg);
        first = null;
      }
      destroy(next.splice(0));
    },
  };
}

/** An engine config as a candidate: built when its turn comes (or given built). */
function engineRun(
  core: PlanCore,
  pass: Conv3dPass,
  bench: TuneBench,
  built: BuiltCandidate,
): QuickRun {
  const { ctx } = core;
  const scope = ctx.scope;
  const { x, w, y } = bench.sets[0]!;
  let pack: BackendDescriptor | null = variantPack(
    scope,
    x,
    w,
    y,
    bench.workspace(built.workspaceBytes),
  );
  const dropPack = () => {
    if (pack !== null) scope.destroyBackend(pack);
    pack = null;
  };
  return {
    name: engineName(built.c.engineIndex, built.c.knobs),
    run: () => {
      bindStream(scope.handle, bench.stream.raw, ctx.problem);
      return (
        pack !== null && cudnn.cudnnBackendExecute(scope.handle.handle, built.plan, pack) === 0
      );
    },
    choice: (timeMs) => ({
      kind: 'engine',
      engineIndex: built.c.engineIndex,
      knobs: built.c.knobs,
      timeMs,
    }),
    install: (choice) => {
      dropPack();
      core.cudnn(pass).install(graphExec(ctx, built, 1, 0, 16));
      core.install(pass, choice, { depthwise: null });
    },
    drop: () => {
      dropPack();
      scope.destroyBackend(built.plan);
      scope.destroyBackend(built.c.cfg);
    },
  };
}

/** Our depthwise kernel as a candidate. */
function depthwiseRun(core: PlanCore, pass: Conv3dPass, bench: TuneBench, dw: DepthwiseExecutor) {
  const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run: QuickRun = {
    name: dw.info().name,
    run: (set) => {
      dw.run(bench.sets[set]!, scalars);
      return true;
    },
    choice: (timeMs) => ({ kind: 'depthwise', timeMs }),
    install: (choice) => core.install(pass, choice, { depthwise: dw }),
    drop: () => {},
  };
  return run;
}

/** A route of ours (an executor of the pass) as a candidate. */
function routeRun(
  core: PlanCore,
  pass: Conv3dPass,
  bench: TuneBench,
  kind: 'layoutDetour' | 'spaceToDepth',
  executor: PassExecutor,
  drop: () => void,
): QuickRun {
  const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  return {
    name: executor.info().name,
    run: (set) => {
      executor.run(bench.sets[set]!, scalars);
      return true;
    },
    choice: (timeMs) => ({ kind, timeMs }),
    install: (choice) => core.install(pass, choice, { depthwise: null, executor }),
    drop,
  };
}

/** Waits on nothing. */
function* noEvents(): Generator<TimingEvent, void, void> {}

/** A candidate made without waiting on the GPU. */
function made(make: (bench: TuneBench) => QuickRun | null): QuickCandidate {
  return function* (bench) {
    yield* noEvents();
    return make(bench);
  };
}

/**
 * The space-to-depth route of `pass` made where the shape qualifies and the option is 'tuned', its
 * inner plan tuned by `tuneInner` (the quick tune's own pass: see makeSpaceToDepth).
 */
export function* spaceToDepthExecutor(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  tuneInner: TunePass,
) {
  if (spaceToDepthRouteFor(core, opts)?.option !== 'tuned') return null;
  return yield* makeSpaceToDepth(core, pass, opts, tuneInner);
}

/**
 * The quick tune's candidates for `pass` that apply, in order (see the file's comment), each made
 * when its turn comes; the first is the incumbent, which a challenger must beat by the quick
 * tune's minimum gain.
 */
export function quickCandidates(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  engines: QuickEngines,
  tuneInner: TunePass,
): { list: QuickCandidate[]; firstEngine: QuickCandidate } {
  const { ctx } = core;
  const list: QuickCandidate[] = [];
  const dw = depthwiseExecutor(ctx, pass);
  const ours: QuickCandidate | null =
    dw === null ? null : made((bench) => depthwiseRun(core, pass, bench, dw));
  const firstEngine = made((bench) => {
    const first = engines.takeFirst();
    return first === null ? null : engineRun(core, pass, bench, first);
  });
  if (ours !== null && depthwiseUntuned(dw!.call.launch)) list.push(ours);
  if (engines.hasFirst) list.push(firstEngine);
  if (ours !== null && !list.includes(ours)) list.push(ours);
  if (dw !== null && opts.layoutDetour === 'tuned' && core.detourAvailable()) {
    list.push(
      made((bench) => {
        const detour = core.ensureDetour().executor(pass);
        // Made once for the plan: select drops it when no pass takes it.
        return routeRun(core, pass, bench, 'layoutDetour', detour, () => {});
      }),
    );
  }
  if (spaceToDepthRouteFor(core, opts)?.option === 'tuned') {
    list.push(function* (bench) {
      const route = yield* spaceToDepthExecutor(core, pass, opts, tuneInner);
      return route === null
        ? null
        : routeRun(core, pass, bench, 'spaceToDepth', route, () => route.dispose());
    });
  }
  for (const c of [...engines.next]) {
    list.push(
      made((bench) => {
        const i = engines.next.indexOf(c);
        if (i < 0) return null;
        engines.next.splice(i, 1);
        const built = finalizeAllowed(ctx, c);
        if (built === null) {
          ctx.scope.destroyBackend(c.cfg);
          return null;
        }
        return engineRun(core, pass, bench, built);
      }),
    );
  }
  return { list, firstEngine };
}
