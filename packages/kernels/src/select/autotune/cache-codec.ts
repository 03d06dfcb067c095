/**
 * The autotune cache's entries decoded into what autotune chose, and encoded back. The file keeps
 * its format (autotune-cache.ts, version 5): an engine index and knobs, where indices below zero
 * name our own routes. Those numbers are known here and nowhere else.
 */
import type { AutotuneEntry } from '../../autotune-cache.js';

/** What autotune chose for a pass. */
export type TunedChoice =
  | {
      readonly kind: 'engine';
      readonly engineIndex: number;
      readonly knobs: readonly (readonly [number, number])[];
      readonly timeMs?: number;
    }
  | {
      readonly kind: 'depthwise' | 'bwDataAsForward' | 'layoutDetour' | 'spaceToDepth';
      readonly timeMs?: number;
    };

/** Our own routes' engine indices in the file (cuDNN's indices are ≥ 0). */
const SENTINELS = {
  depthwise: -1,
  bwDataAsForward: -2,
  layoutDetour: -3,
  /** The patch-embedding GEMM or the stem, whichever the shape takes (they never both apply). */
  spaceToDepth: -8,
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
