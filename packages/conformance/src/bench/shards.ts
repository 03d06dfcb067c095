/**
 * Splitting a run's groups into disjoint shards of about equal estimated time, so that the whole
 * suite fits in device calls of limited length (`bench --shard k/M`, joined by `bench merge`).
 * Pure: the estimate comes from a cost table measured in earlier runs (group-costs.ts).
 */
import type { BenchOptions } from './args.js';
import type { GroupCost, PassMs } from './costs.js';
import { GROUP_COSTS } from './group-costs.js';
import { groupKey, isTunedGroup, modesFor } from './rows.js';
import { type BenchGroup, type BenchPass, TORCH_COLUMNS } from './types.js';

/**
 * Host seconds of a group beyond its selects, first calls and timed calls, where the table has no
 * measured figure (hostS): runs 64, 65 and 67 (d79497d) took 347 s for 30 groups, 442 s for 29
 * and 61 s for 5, of which their selects, first calls and timed calls account for 305, 429 and
 * 23 s; the three fit 0.17 s a group with the two fixed costs below.
 */
export const GROUP_FIXED_S = 0.2;
/** What every shard costs beyond its groups: node, the two PyTorch workers, the copy and GEMM peaks. */
export const SHARD_FIXED_S = 10;
/**
 * What shard 1 costs on top: the host-overhead runs (ours, then a fresh PyTorch process per
 * column); runs 64 and 67, the two that measured it, fit 29 s.
 */
export const OVERHEAD_S = 30;
/**
 * A shard fits a time budget when its estimate times this is within it: the estimate is of the
 * commit the table was measured on, and selection changes between runs (autotune also times the
 * space-to-depth routes since 6ead85f; the default mode's quick tune is being bounded).
 */
export const PLAN_MARGIN = 1.3;
/**
 * PyTorch's benchmark search with `benchmark_limit = 0`, where the table has no measured figure:
 * this fraction of our cold autotune.
 */
export const TORCH_SEARCH_GUESS = 0.5;

/** A cost for a group the table does not know: from its MACs, like the table's median group. */
function fallbackCost(group: BenchGroup): GroupCost {
  const c = group.case;
  const macs = c.n * c.cOut * c.cIn * c.in[0]! * c.in[1]! * c.in[2]!;
  const ms = Math.max(0.05, macs / 2e12);
  return {
    autotuneS: 10,
    heuristicSelectS: 1,
    ms: { fw: [ms, ms, ms], bwData: [ms, ms, ms], bwFilter: [ms, ms, ms] },
  };
}

function passMs(cost: GroupCost, pass: BenchPass): PassMs {
  if (pass === 'bwStep') {
    if (cost.ms.bwStep) return cost.ms.bwStep;
    const d = cost.ms.bwData;
    const f = cost.ms.bwFilter;
    return [d[0] + f[0], d[1] + f[1], d[2] + f[2]];
  }
  return cost.ms[pass];
}

type EstimateOptions = Pick<BenchOptions, 'modes' | 'reps' | 'warmup' | 'rounds' | 'vsTorch'> &
  Partial<Pick<BenchOptions, 'tunedOn'>>;

/**
 * Estimated seconds of one group under the options: its host time, plan selection in each of our
 * modes (autotune cold unless the cache is carried), PyTorch's first calls in each column, and
 * `rounds` × (warm-up + reps) calls of every pass on each of our modes and each PyTorch column.
 */
export function estimateGroupSeconds(
  group: BenchGroup,
  options: EstimateOptions,
  costs: Readonly<Record<string, GroupCost>> = GROUP_COSTS,
  carriedCache = false,
): number {
  const cost = costs[groupKey(group)] ?? fallbackCost(group);
  const tunedPair = isTunedGroup(group, options);
  const modes = modesFor(group, options);
  const columns = TORCH_COLUMNS.filter((c) => c === 'default' || tunedPair).length;
  let seconds = cost.hostS ?? GROUP_FIXED_S;
  if (modes.includes('heuristic')) seconds += cost.heuristicSelectS ?? 0;
  if (tunedPair && !carriedCache) seconds += cost.autotuneS;
  if (options.vsTorch) seconds += cost.torchFirstS ?? 0;
  if (options.vsTorch && tunedPair)
    seconds += cost.torchSearchS ?? TORCH_SEARCH_GUESS * cost.autotuneS;
  const calls = Math.max(1, options.rounds) * (options.warmup + options.reps);
  for (const pass of group.passes) {
    const [heuristic, tuned, torch] = passMs(cost, pass);
    let ms = 0;
    for (const mode of modes) ms += mode === 'autotune' ? tuned : heuristic;
    if (options.vsTorch) ms += columns * torch;
    seconds += (calls * ms) / 1e3;
  }
  return seconds;
}

/**
 * The groups split into `count` shards: longest estimate first, the first `count` one to each
 * shard, then each to the shard with the least estimated time so far (ties to the lower shard;
 * `startLoad` is each shard's time before its groups), then each shard in the run's order. Every group lands in exactly one shard; the split
 * depends only on the groups, the options and the table.
 */
export function splitIntoShards(
  groups: readonly BenchGroup[],
  count: number,
  estimate: (group: BenchGroup) => number,
  startLoad: readonly number[] = [],
): BenchGroup[][] {
  const order = new Map(groups.map((g, i) => [g, i]));
  const sorted = [...groups].sort(
    (a, b) => estimate(b) - estimate(a) || order.get(a)! - order.get(b)!,
  );
  const shards: BenchGroup[][] = Array.from({ length: count }, () => []);
  const load = Array.from({ length: count }, (_, i) => startLoad[i] ?? 0);
  for (const [index, group] of sorted.entries()) {
    // The longest groups first fill every shard, so that no shard is left empty by its start load.
    let target = index < count ? index : 0;
    if (index >= count) for (let i = 1; i < count; i++) if (load[i]! < load[target]!) target = i;
    shards[target]!.push(group);
    load[target]! += estimate(group);
  }
  for (const shard of shards) shard.sort((a, b) => order.get(a)! - order.get(b)!);
  return shards;
}

/** A shard's fixed seconds: SHARD_FIXED_S, and OVERHEAD_S in shard 1 (index 0). */
const fixedSeconds = (index: number) => SHARD_FIXED_S + (index === 0 ? OVERHEAD_S : 0);

/**
 * The shards of a run with their estimated seconds (the groups', SHARD_FIXED_S, and OVERHEAD_S in
 * shard 1), for `bench shards` and the run's log.
 */
export function planShards(
  groups: readonly BenchGroup[],
  count: number,
  options: EstimateOptions,
  carriedCache = false,
  costs: Readonly<Record<string, GroupCost>> = GROUP_COSTS,
): { groups: BenchGroup[]; seconds: number }[] {
  const estimate = (g: BenchGroup) => estimateGroupSeconds(g, options, costs, carriedCache);
  const start = Array.from({ length: count }, (_, i) => fixedSeconds(i));
  return splitIntoShards(groups, count, estimate, start).map((shard, i) => ({
    groups: shard,
    seconds: fixedSeconds(i) + shard.reduce((sum, g) => sum + estimate(g), 0),
  }));
}

/** Whether a shard's estimate, with PLAN_MARGIN, is within a time budget in seconds. */
export function fitsBudget(seconds: number, budgetS: number): boolean {
  return seconds * PLAN_MARGIN <= budgetS;
}

/**
 * The fewest shards (at most `maxCount`) whose every shard fits `budgetS` with the margin, or
 * undefined when even `maxCount` do not (one group alone over the budget).
 */
export function shardCountFor(
  groups: readonly BenchGroup[],
  budgetS: number,
  options: EstimateOptions,
  carriedCache = false,
  maxCount = 64,
  costs: Readonly<Record<string, GroupCost>> = GROUP_COSTS,
): number | undefined {
  for (let count = 1; count <= maxCount; count++) {
    const shards = planShards(groups, count, options, carriedCache, costs);
    if (shards.every((s) => fitsBudget(s.seconds, budgetS))) return count;
  }
  return undefined;
}
