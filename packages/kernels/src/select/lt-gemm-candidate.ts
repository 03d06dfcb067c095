/**
 * The patch-embedding route with its inner 1×1×1 convolution run by cuBLASLt (exec/lt-gemm.ts),
 * as autotune's candidate next to the route on cuDNN (space-to-depth-candidate.ts): made where the
 * patch route applies, the plan's math is the element kind's own, cuBLASLt loads and has an
 * algorithm for the product; otherwise it is not a candidate, never an error.
 */
import { UnsupportedError } from '@baracuda/types';
import type { Conv3dPass } from '../core/pass.js';
import type { ResolvedOptions } from '../core/types.js';
import { LtGemmPlan } from '../exec/lt-gemm.js';
import { SpaceToDepthExecutor } from '../exec/space-to-depth.js';
import { SpaceToDepthKernels } from '../space-to-depth-kernels.js';
import { cublasLtAvailable } from '../sys-cublaslt.js';
import { DETOUR_MIN_GAIN } from '../tuning.js';
import type { TimeCandidate, TuneCandidate } from './autotune/candidates.js';
import type { PlanCore } from './core.js';
import { spaceToDepthRouteFor, timeSpaceToDepth } from './space-to-depth-candidate.js';

/** Whether the cuBLASLt patch route could apply to the plan's problem (the shape and the math). */
export function ltPatchApplies(core: PlanCore, opts: ResolvedOptions): boolean {
  const applies = spaceToDepthRouteFor(core, opts);
  return applies?.route.kind === 'patch' && core.ctx.preference.math === 'default';
}

/** The route of `pass` on cuBLASLt, or null where it cannot be made here. */
export function makeLtPatchGemm(
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
): SpaceToDepthExecutor<LtGemmPlan> | null {
  if (!ltPatchApplies(core, opts) || !cublasLtAvailable()) return null;
  const { ctx } = core;
  const applies = spaceToDepthRouteFor(core, opts);
  if (applies === null) return null;
  const kernels = SpaceToDepthKernels.forDevice(ctx.device);
  if (kernels instanceof Error) return null;
  let plan: LtGemmPlan;
  try {
    plan = new LtGemmPlan(ctx, applies.route.inner, pass, kernels);
  } catch (error) {
    // No algorithm within the workspace cap, or a refused descriptor: the route stays on cuDNN.
    if (UnsupportedError.isInstance(error)) return null;
    throw error;
  }
  return new SpaceToDepthExecutor(ctx, pass, applies.route, plan, kernels);
}

/** The candidate's entry in autotune's list (see candidates.ts). */
export function ltPatchGemmCandidate(): TuneCandidate {
  const time: TimeCandidate = function* (core, pass, bench, opts, progress) {
    const route = makeLtPatchGemm(core, pass, opts);
    if (route === null) return null;
    let ms: number;
    try {
      ms = yield* timeSpaceToDepth(route, bench);
    } catch (error) {
      route.dispose();
      progress(
        `${core.ctx.problem} ${pass}: the cuBLASLt patch GEMM not timed (${error instanceof Error ? error.message : String(error)})`,
      );
      return null;
    }
    return {
      kind: 'patchGemmLt',
      ms,
      minGain: DETOUR_MIN_GAIN,
      label: () => `${core.ctx.problem} ${pass}: ${route.info().name}`,
      route: { executor: route },
      drop: () => route.dispose(),
    };
  };
  return {
    kind: 'patchGemmLt',
    time,
    // One product and two transforms: cheap to time, and where it applies it is the candidate
    // most likely to win (issue 24), so it is timed even when the budget is spent.
    alwaysTimed: true,
    // biome-ignore lint/correctness/useYield: the route is made without timing anything
    *fromCache(core, pass, opts) {
      return makeLtPatchGemm(core, pass, opts);
    },
    stale: ['cuBLASLt patch GEMM', 'does not apply (or cuBLASLt does not load here)'],
  };
}
