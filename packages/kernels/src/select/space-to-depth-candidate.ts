/**
 * The space-to-depth routes (patch embedding as a GEMM, the stem as a stride-1 convolution) as
 * select makes them: for every select where the option is `'always'`, and as the autotune
 * candidate that times them against the best so far (kept when faster by DETOUR_MIN_GAIN).
 * Where they apply is the shape's business alone (see space-to-depth.ts).
 */
import { UnsupportedError } from '@baracuda/types';
import type { Conv3dPass } from '../core/pass.js';
import type { ResolvedOptions, RunScalars } from '../core/types.js';
import type { InnerPlan } from '../exec/executor.js';
import { SpaceToDepthExecutor } from '../exec/space-to-depth.js';
import { patchRoute, type SpaceToDepthRoute, stemRoute } from '../space-to-depth.js';
import { SpaceToDepthKernels } from '../space-to-depth-kernels.js';
import type { TimingEvent } from '../sys.js';
import { DETOUR_MIN_GAIN } from '../tuning.js';
import type { TuneBudget } from './autotune/budget.js';
import type { TimeCandidate, TuneCandidate, TunePass } from './autotune/candidates.js';
import { TUNE_ROUNDS, timeAsFinalist } from './autotune/timing.js';
import type { PlanCore } from './core.js';
import { createCore } from './create.js';

/** The route that applies to the plan's problem and its option (`'tuned'` or `'always'`). */
export function spaceToDepthRouteFor(
  core: PlanCore,
  opts: ResolvedOptions,
): { route: SpaceToDepthRoute; option: 'tuned' | 'always' } | null {
  if (core.ctx.preference.algorithm === 'pinned') return null;
  const d = core.ctx.desc;
  const patch = opts.patchGemm !== 'never' ? patchRoute(d) : null;
  if (patch !== null) return { route: patch, option: opts.patchGemm as 'tuned' | 'always' };
  const stem = opts.stemSpaceToDepth !== 'never' ? stemRoute(d) : null;
  return stem === null
    ? null
    : { route: stem, option: opts.stemSpaceToDepth as 'tuned' | 'always' };
}

/**
 * The route of `pass` made, its inner problem a plan of its own, which `tuneInner` tunes for
 * `pass` under its own cache entry: autotune's tunePass (within `budget` when given: the outer
 * pass's, as a layout detour's inner plan shares it, so that one pass's autotune stays within its
 * budget), or the default mode's quick tune (the inner problem's heuristics' first choice ran the
 * I3D stem's folded f32 backward-filter in 47.6 ms where their second took 25.3 ms: run 73), or
 * nothing. Null where no route applies, our transform kernels do not load, or an erratum refuses
 * the inner problem.
 */
export function* makeSpaceToDepth(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
  tuneInner: TunePass,
  budget?: TuneBudget,
): Generator<TimingEvent, SpaceToDepthExecutor<PlanCore> | null, void> {
  const applies = spaceToDepthRouteFor(core, opts);
  if (applies === null) return null;
  const { ctx } = core;
  const kernels = SpaceToDepthKernels.forDevice(ctx.device);
  if (kernels instanceof Error) return null;
  let inner: PlanCore;
  try {
    inner = createCore(ctx.stream, applies.route.inner, ctx.preference, opts);
  } catch (error) {
    // An erratum that refuses the inner problem: the pass stays on cuDNN as if no route applied.
    if (UnsupportedError.isInstance(error)) return null;
    throw error;
  }
  try {
    yield* tuneInner(inner, pass, opts, budget);
  } catch (error) {
    inner.dispose();
    throw error;
  }
  return new SpaceToDepthExecutor(ctx, pass, applies.route, inner, kernels);
}

/** The route timed as one call sees it (transforms and inner plan), like a finalist. */
export function* timeSpaceToDepth(
  route: SpaceToDepthExecutor<InnerPlan>,
  bench: Parameters<TimeCandidate>[2],
): Generator<TimingEvent, number, void> {
  const args: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run = (set: number) => {
    route.run(bench.sets[set]!, args);
    return true;
  };
  return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
}

/** The candidate's entry in autotune's list (see candidates.ts). */
export function spaceToDepthCandidate(tunePass: TunePass): TuneCandidate {
  const time: TimeCandidate = function* (core, pass, bench, opts, progress, budget) {
    if (spaceToDepthRouteFor(core, opts) === null) return null;
    let route: SpaceToDepthExecutor<PlanCore> | null;
    let ms: number;
    try {
      route = yield* makeSpaceToDepth(core, pass, opts, tunePass, budget);
      if (route === null) return null;
    } catch (error) {
      progress(
        `${core.ctx.problem} ${pass}: space-to-depth not timed (${error instanceof Error ? error.message : String(error)})`,
      );
      return null;
    }
    try {
      ms = yield* timeSpaceToDepth(route, bench);
    } catch (error) {
      route.dispose();
      progress(
        `${core.ctx.problem} ${pass}: space-to-depth not timed (${error instanceof Error ? error.message : String(error)})`,
      );
      return null;
    }
    const made = route;
    return {
      kind: 'spaceToDepth',
      ms,
      minGain: DETOUR_MIN_GAIN,
      label: () => `${core.ctx.problem} ${pass}: ${made.info().name}`,
      route: { executor: made },
      drop: () => made.dispose(),
    };
  };
  return {
    kind: 'spaceToDepth',
    time,
    // Timed even when the budget is spent: on the H200 (run 62) the routes ran VideoMAE's patch
    // backward-data in 0.30 ms against cuDNN's 4.5 ms, and run 64's autotune, its 2 s budget
    // spent on three slow engine configs, never reached the route (3.2× PyTorch tuned's time).
    alwaysTimed: true,
    *fromCache(core, pass, opts) {
      return yield* makeSpaceToDepth(core, pass, opts, tunePass);
    },
    stale: ['space-to-depth route', 'does not apply'],
  };
}
