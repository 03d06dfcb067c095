/**
 * The autotune cache's entries decoded into what autotune chose, and encoded back. The file keeps
 * its format (autotune-cache.ts, version 5): an engine index and knobs, where indices below zero
 * name our own routes. Those numbers are known here and nowhere else.
 */
import { ElementKind } from '@baracuda/types';
import { type AutotuneEntry, autotuneKey } from '../../autotune-cache.js';
import type { Conv3dPass } from '../../core/pass.js';
import type { PlanCore } from '../core.js';
import type { TuneBudget } from './budget.js';

/** What autotune chose for a pass. */
export type TunedChoice =
  | {
      readonly kind: 'engine';
      readonly engineIndex: number;
      readonly knobs: readonly (readonly [number, number])[];
      readonly timeMs?: number;
    }
  | {
      readonly kind:
        | 'depthwise'
        | 'bwDataAsForward'
        | 'layoutDetour'
        | 'spaceToDepth'
        | 'patchGemmLt';
      readonly timeMs?: number;
    };

/** Our own routes' engine indices in the file (cuDNN's indices are ≥ 0). */
const SENTINELS = {
  depthwise: -1,
  bwDataAsForward: -2,
  layoutDetour: -3,
  /** The patch-embedding GEMM or the stem, whichever the shape takes (they never both apply). */
  spaceToDepth: -8,
  /** The patch-embedding route with its product on cuBLASLt. */
  patchGemmLt: -9,
} as const;

/**
 * An entry as a choice. An index below zero that names none of our routes (a newer version's)
 * reads as an engine no cuDNN offers, so the pass is chosen again with a stale warning.
 */
export function decodeEntry(entry: AutotuneEntry): TunedChoice {
  const { engineIndex, knobs, timeMs } = entry;
  const time = timeMs === undefined ? {} : { timeMs };
  for (const kind of Object.keys(SENTINELS) as (keyof typeof SENTINELS)[]) {
    if (engineIndex === SENTINELS[kind]) return { kind, ...time };
  }
  return { kind: 'engine', engineIndex, knobs, ...time };
}

/** A choice as the file's entry. */
export function encodeChoice(choice: TunedChoice): AutotuneEntry {
  const time = choice.timeMs === undefined ? {} : { timeMs: choice.timeMs };
  if (choice.kind === 'engine') {
    return {
      engineIndex: choice.engineIndex,
      knobs: choice.knobs.map(([k, v]) => [k, v]),
      ...time,
    };
  }
  return { engineIndex: SENTINELS[choice.kind], knobs: [], ...time };
}

/** The autotune cache's key of a pass of `core` (`select`: the quick tune's own key). */
export function passKey(core: PlanCore, pass: Conv3dPass, select?: 'quick-tune'): string {
  const { ctx } = core;
  const d = ctx.desc;
  return autotuneKey({
    problem: d.describe(),
    pass,
    scalingKind: d.element === ElementKind.F64 ? 'f64' : 'f32',
    deterministic: ctx.preference.deterministic,
    allowTf32: ctx.preference.allowTf32,
    deviceName: ctx.device.name,
    computeCapability: ctx.device.computeCapability,
    cudnnVersion: ctx.cudnnVersion,
    ...(select === undefined ? {} : { select }),
  });
}

/** An entry for the cache: the choice, and the budget when it cut the search. */
export function entryOf(choice: TunedChoice, budget: TuneBudget): AutotuneEntry {
  const entry = encodeChoice(choice);
  return budget.cut ? { ...entry, budgetMs: budget.limitMs } : entry;
}
