/**
 * Which engine config the graph API runs a pass with: the heuristics' first config that the
 * preference allows, that finalizes and fits the workspace limit (mode A then FALLBACK; plus B,
 * and the tuned config first, when autotune chose one). The candidates autotune times come from
 * here too.
 */
import type { Conv3dPass } from '../core/pass.js';
import type { AlgorithmInfo } from '../core/types.js';
import {
  type BuiltCandidate,
  buildConfig,
  configId,
  describeConfig,
  type EngineCandidate,
  finalizePlan,
  heuristicConfigs,
} from '../cudnn/engine-configs.js';
import { operationGraph } from '../cudnn/operation-graph.js';
import type { GraphExec } from '../exec/cudnn.js';
import type { ExecContext } from '../exec/executor.js';
import { PointerLru } from '../lru.js';
import { engineName, engineRejection, mathPrecisionOfEngine } from '../policy.js';
import { type BackendDescriptor, C } from '../sys.js';
import type { TunedChoice } from './autotune/cache-codec.js';

/** Variant packs kept per execution plan (one per operand-pointer set). */
const VARIANT_PACK_CACHE = 8;

/**
 * The candidate with its execution plan, when the preference allows its engine and the plan
 * fits the workspace limit (`onTooBig` hears of a plan that does not); null otherwise, with its
 * plan destroyed and its config left to the caller.
 */
export function finalizeAllowed(
  ctx: ExecContext,
  c: EngineCandidate,
  onTooBig?: (workspaceBytes: number) => void,
): BuiltCandidate | null {
  if (engineRejection(c.notes, ctx.preference, ctx.desc.element) !== null) return null;
  const built = finalizePlan(ctx.scope, c.cfg);
  if (built === null) return null;
  if (built.workspaceBytes <= ctx.preference.maxWorkspaceBytes) return { c, ...built };
  onTooBig?.(built.workspaceBytes);
  ctx.scope.destroyBackend(built.plan);
  return null;
}

/**
 * A config built from an engine index and knobs, read back, allowed by the preference and
 * finalized within the workspace limit; null otherwise (nothing is left allocated).
 */
export function buildCandidate(
  ctx: ExecContext,
  graph: BackendDescriptor,
  engineIndex: number,
  knobs: readonly (readonly [number, number])[],
): BuiltCandidate | null {
  const cfg = buildConfig(ctx.scope, graph, engineIndex, knobs);
  if (cfg === null) return null;
  const c = describeConfig(ctx.scope, cfg);
  const built = c === null ? null : finalizeAllowed(ctx, c);
  if (built === null) ctx.scope.destroyBackend(cfg);
  return built;
}

/** Candidates of the given heuristic modes, deduplicated by engine index + knobs, in order. */
export function candidates(
  ctx: ExecContext,
  graph: BackendDescriptor,
  modes: readonly number[],
): EngineCandidate[] {
  const seen = new Set<string>();
  const out: EngineCandidate[] = [];
  for (const mode of modes) {
    for (const cfg of heuristicConfigs(ctx.scope, graph, mode)) {
      const c = describeConfig(ctx.scope, cfg);
      const id = c ? configId(c.engineIndex, c.knobs) : '';
      if (c === null || seen.has(id)) {
        ctx.scope.destroyBackend(cfg);
        continue;
      }
      seen.add(id);
      out.push(c);
    }
  }
  return out;
}

export function graphInfo(
  ctx: ExecContext,
  c: EngineCandidate,
  workspaceBytes: number,
): AlgorithmInfo {
  return Object.freeze({
    path: 'graph' as const,
    name: engineName(c.engineIndex, c.knobs),
    engineIndex: c.engineIndex,
    knobs: Object.freeze(c.knobs.map(([knob, value]) => Object.freeze({ knob, value }))),
    numericalNotes: Object.freeze([...c.notes]),
    workspaceBytes,
    deterministic: !c.notes.includes('NONDETERMINISTIC'),
    mathPrecision: mathPrecisionOfEngine(c.notes, ctx.desc.element),
  });
}

/** A built candidate as the execution plan of a key. */
export function graphExec(
  ctx: ExecContext,
  built: BuiltCandidate,
  alpha: number,
  beta: number,
  align: number,
): GraphExec {
  return {
    alpha,
    beta,
    align,
    plan: built.plan,
    workspaceBytes: built.workspaceBytes,
    info: graphInfo(ctx, built.c, built.workspaceBytes),
    variantPacks: new PointerLru<BackendDescriptor>(VARIANT_PACK_CACHE, (vp) =>
      ctx.scope.destroyBackend(vp),
    ),
  };
}

/**
 * Engines never built for a plan whose beta is not 0, per pass (an engine's index names a
 * different kernel in each pass's operation graph). Each wrote as if beta were 0 on cuDNN 9.19
 * (H200), found by 3xTF32 over it, whose second and third calls accumulate with beta 1 and the
 * largest product last, so a lost beta leaves only hi·hi, TF32's error:
 * - engine 78, backward-data of a 1×1×1 NDHWC layer (run 78): 2.6e-4 off f64 with beta 0, 0.5
 *   off with beta 0.5; refused in every pass since;
 * - engine 71, forward of the suite's 1×1×1 NDHWC `pointwise` (run 84, autotune's choice):
 *   2.6e-4 off f64. Backward-data's engine 71 accumulates as it should (run 84: 3xTF32 over it on
 *   the dilated layer, 3.7e-6 off f64), and refusing it there made that backward-data 4.6× slower
 *   (run 85), so it stays.
 * The beta-0 plan keeps them; other betas take the next config.
 */
export const ENGINES_IGNORING_BETA: Readonly<Record<Conv3dPass, ReadonlySet<number>>> = {
  fw: new Set([71, 78]),
  bwData: new Set([78]),
  bwFilter: new Set([78]),
};

/**
 * Heuristic selection on the graph API: mode A then FALLBACK (plus B when matching a tuned
 * choice); the first config that is allowed by the preference, finalizes, and fits the
 * workspace budget, never one of the pass's {@link ENGINES_IGNORING_BETA} where beta is not
 * 0. Null when none
 * does (the caller falls back to the legacy API).
 */
export function selectGraph(
  ctx: ExecContext,
  pass: Conv3dPass,
  alpha: number,
  beta: number,
  align: number,
  preferred: TunedChoice | undefined,
): GraphExec | null {
  const { graph, parts } = operationGraph(ctx.scope, ctx.desc, pass, alpha, beta, align);
  // A tuned engine is built directly: autotune's knob search finds configs no heuristic mode
  // offers, and this skips the heuristics' queries.
  const tuned = preferred?.kind === 'engine' ? preferred : undefined;
  const refused = (engineIndex: number) =>
    beta !== 0 && ENGINES_IGNORING_BETA[pass].has(engineIndex);
  if (tuned !== undefined && tuned.engineIndex >= 0 && !refused(tuned.engineIndex)) {
    const direct = buildCandidate(ctx, graph, tuned.engineIndex, tuned.knobs);
    if (direct !== null) return graphExec(ctx, direct, alpha, beta, align);
  }
  const modes = preferred
    ? [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_B, C.CUDNN_HEUR_MODE_FALLBACK]
    : [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_FALLBACK];
  const found = candidates(ctx, graph, modes);
  if (tuned !== undefined) {
    const key = configId(tuned.engineIndex, tuned.knobs);
    const i = found.findIndex((c) => configId(c.engineIndex, c.knobs) === key);
    if (i > 0) found.unshift(...found.splice(i, 1));
  }
  let chosen: BuiltCandidate | null = null;
  for (const c of found) {
    if (chosen === null && !refused(c.engineIndex)) {
      chosen = finalizeAllowed(ctx, c);
      if (chosen !== null) continue; // keep its engine config alive with the plan
    }
    ctx.scope.destroyBackend(c.cfg);
  }
  if (chosen === null) {
    for (const p of parts) ctx.scope.destroyBackend(p);
    return null;
  }
  return graphExec(ctx, chosen, alpha, beta, align);
}
