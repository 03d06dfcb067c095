/**
 * Splitting a run's groups into disjoint shards of about equal estimated time, so that the whole
 * suite fits in device calls of limited length (`bench --shard k/M`, joined by `bench merge`).
 * Pure: the estimate comes from a cost table measured in earlier runs (group-costs.ts).
 */
import type { BenchOptions } from './args.js';
import type { GroupCost } from './costs.js';
import { GROUP_COSTS } from './group-costs.js';
import { groupKey, isTunedGroup, modesFor } from './rows.js';
import { type BenchGroup, type BenchPass, TORCH_COLUMNS } from './types.js';

/** Host-side cost of a group beyond its GPU work: allocating and filling inputs, worker requests. */
export const GROUP_FIXED_S = 2;
/**
 * What a shard costs beyond its groups: starting node and two PyTorch workers (CUDA and cuDNN
 * initialisation), the copy and GEMM peaks, and in shard 1 the host-overhead runs (ours, then a
 * fresh PyTorch process per column).
 */
export const SHARD_FIXED_S = 60;
/**
 * PyTorch's benchmark search with `benchmark_limit = 0` was never measured before issue 22; until
 * a run records it (firstCallMs), it is estimated as this fraction of our cold autotune.
 */
export const TORCH_SEARCH_GUESS = 0.5;

/** A cost for a group the table does not know: from its MACs, like the table's median group. */
function fallbackCost(group: BenchGroup): GroupCost {
  const c = group.case;
  const macs = c.n * c.cOut * c.cIn * c.in[0]! * c.in[1]! * c.in[2]!;
  const ms = Math.max(0.05, macs / 2e12);
  return { autotuneS: 10, ms: { fw: [ms, ms, ms], bwData: [ms, ms, ms], bwFilter: [ms, ms, ms] } };
}

function passMs(cost: GroupCost, pass: BenchPass): [number, number, number] {
  if (pass === 'bwStep') {
    const d = cost.ms.bwData;
    const f = cost.ms.bwFilter;
    return [d[0] + f[0], d[1] + f[1], d[2] + f[2]];
  }
  return cost.ms[pass];
}

/**
 * Estimated seconds of one group under the options: plan selection (autotune cold unless the cache
 * is carried), PyTorch's search, and `rounds` × (warm-up + reps) calls of every pass on each of our
 * modes and each PyTorch column.
 */
export function estimateGroupSeconds(
  group: BenchGroup,
  options: Pick<BenchOptions, 'modes' | 'reps' | 'warmup' | 'rounds' | 'vsTorch'> &
    Partial<Pick<BenchOptions, 'tunedOn'>>,
  costs: Readonly<Record<string, GroupCost>> = GROUP_COSTS,
  carriedCache = false,
): number {
  const cost = costs[groupKey(group)] ?? fallbackCost(group);
  const tunedPair = isTunedGroup(group, options);
  const modes = modesFor(group, options);
  const columns = TORCH_COLUMNS.filter((c) => c === 'default' || tunedPair).length;
  let seconds = GROUP_FIXED_S;
  if (tunedPair && !carriedCache) seconds += cost.autotuneS;
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
 * The groups split into `count` shards: longest estimate first, each to the shard with the least
 * estimated time so far (ties to the lower shard), then each shard in the run's order. Every group
 * lands in exactly one shard; the split depends only on the groups, the options and the table.
 */
export function splitIntoShards(
  groups: readonly BenchGroup[],
  count: number,
  estimate: (group: BenchGroup) => number,
): BenchGroup[][] {
  const order = new Map(groups.map((g, i) => [g, i]));
  const sorted = [...groups].sort(
    (a, b) => estimate(b) - estimate(a) || order.get(a)! - order.get(b)!,
  );
  const shards: BenchGroup[][] = Array.from({ length: count }, () => []);
  const load = new Array<number>(count).fill(0);
  for (const group of sorted) {
    let target = 0;
    for (let i = 1; i < count; i++) if (load[i]! < load[target]!) target = i;
    shards[target]!.push(group);
    load[target]! += estimate(group);
  }
  for (const shard of shards) shard.sort((a, b) => order.get(a)! - order.get(b)!);
  return shards;
}

/**
 * The shards of a run with their estimated seconds (the groups' and SHARD_FIXED_S), for `bench
 * shards` and the run's log.
 */
export function planShards(
  groups: readonly BenchGroup[],
  count: number,
  options: Pick<BenchOptions, 'modes' | 'reps' | 'warmup' | 'rounds' | 'vsTorch'> &
    Partial<Pick<BenchOptions, 'tunedOn'>>,
  carriedCache = false,
): { groups: BenchGroup[]; seconds: number }[] {
  const estimate = (g: BenchGroup) => estimateGroupSeconds(g, options, GROUP_COSTS, carriedCache);
  return splitIntoShards(groups, count, estimate).map((shard) => ({
    groups: shard,
    seconds: SHARD_FIXED_S + shard.reduce((sum, g) => sum + estimate(g), 0),
  }));
}
