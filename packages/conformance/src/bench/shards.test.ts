import { describe, expect, it } from 'vitest';
import { SHARED_SUITE } from '../suite/index.js';
import { parseBenchArgs } from './args.js';
import type { GroupCost } from './costs.js';
import { groupCostsFromReports } from './costs.js';
import { GROUP_COSTS } from './group-costs.js';
import { groupKey, planGroups } from './rows.js';
import { estimateGroupSeconds, planShards, splitIntoShards } from './shards.js';
import type { BenchReport } from './types.js';

const suiteGroups = (argv: string[] = []) =>
  planGroups(
    SHARED_SUITE.map((c) => ({ ...c })),
    parseBenchArgs(argv),
  ).groups;

describe('splitIntoShards', () => {
  it.each([1, 2, 3, 4, 7])(
    'puts every group of the shared suite in exactly one of %i shards',
    (count) => {
      const groups = suiteGroups();
      const options = parseBenchArgs([
        '--rounds',
        '3',
        '--vs-torch',
        '--algos',
        'heuristic,autotune',
      ]);
      const shards = planShards(groups, count, options);
      expect(shards).toHaveLength(count);
      const keys = shards.flatMap((s) => s.groups.map(groupKey));
      expect(keys).toHaveLength(groups.length);
      expect(new Set(keys)).toEqual(new Set(groups.map(groupKey)));
      // Each shard keeps the run's order.
      const order = groups.map(groupKey);
      for (const s of shards) {
        const idx = s.groups.map((g) => order.indexOf(groupKey(g)));
        expect(idx).toEqual([...idx].sort((a, b) => a - b));
      }
    },
  );

  it('balances by the estimate: longest first, each to the least loaded shard', () => {
    const groups = suiteGroups(['--cases', 'pointwise']);
    const cost = new Map(groups.map((g, i) => [g, [50, 40, 30, 20, 10, 10, 10][i] ?? 1]));
    const shards = splitIntoShards(groups, 2, (g) => cost.get(g)!);
    const load = shards.map((s) => s.reduce((sum, g) => sum + cost.get(g)!, 0));
    expect(load).toEqual([90, 80]);
    // The same inputs give the same split: the device and this machine agree on the shards.
    expect(splitIntoShards(groups, 2, (g) => cost.get(g)!)).toEqual(shards);
  });

  it('has a cost for every group of the shared suite', () => {
    for (const g of suiteGroups()) expect(GROUP_COSTS[groupKey(g)], groupKey(g)).toBeDefined();
  });
});

describe('estimateGroupSeconds', () => {
  const cost: GroupCost = {
    autotuneS: 100,
    ms: { fw: [1, 1, 2], bwData: [2, 2, 2], bwFilter: [1, 1, 1] },
  };
  const group = suiteGroups(['--cases', 'pointwise', '--dtypes', 'f32'])[0]!;
  const costs = { [groupKey(group)]: cost };

  it('adds cold autotune, PyTorch’s search and the timed calls of every side', () => {
    const options = parseBenchArgs([
      '--algos',
      'heuristic,autotune',
      '--vs-torch',
      '--rounds',
      '3',
      '--reps',
      '30',
      '--warmup',
      '5',
    ]);
    // 2 s fixed + 100 s autotune + 50 s PyTorch search (half of ours, not yet measured) +
    // 3 × 35 calls × (fw 1+1+2·2, bwData 2+2+2·2, bwFilter 1+1+2·1, bwStep 3+3+2·3) ms.
    const calls = 3 * 35 * (6 + 8 + 4 + 12);
    expect(estimateGroupSeconds(group, options, costs)).toBeCloseTo(2 + 100 + 50 + calls / 1e3, 9);
    // A carried cache drops the autotune; a measured search replaces the guess.
    expect(estimateGroupSeconds(group, options, costs, true)).toBeCloseTo(2 + 50 + calls / 1e3, 9);
    const measured = { [groupKey(group)]: { ...cost, torchSearchS: 7 } };
    expect(estimateGroupSeconds(group, options, measured)).toBeCloseTo(
      2 + 100 + 7 + calls / 1e3,
      9,
    );
  });
});

describe('groupCostsFromReports', () => {
  it('takes each figure from the latest report, autotune only from a cold select', () => {
    const rowOf = (pass: string, selectMs: number, ms: number, firstCallMs?: number) => ({
      id: `pointwise|f32|ncdhw|${pass}`,
      case: 'pointwise',
      dtype: 'f32',
      layout: 'ncdhw',
      pass,
      modes: [
        { mode: 'heuristic', status: 'ok', medianMs: ms, selectMs: 3 },
        { mode: 'autotune', status: 'ok', medianMs: ms * 0.9, selectMs },
      ],
      torch: {
        default: { id: 'x', status: 'ok', medianMs: ms * 1.1 },
        tuned: { id: 'x', status: 'ok', medianMs: ms, ...(firstCallMs ? { firstCallMs } : {}) },
      },
    });
    const old = {
      startedAt: '2026-11-30T10:00:00Z',
      rows: [rowOf('fw', 9000, 1)],
    } as unknown as BenchReport;
    const carried = {
      startedAt: '2026-12-01T10:00:00Z',
      rows: [rowOf('fw', 20, 2, 400), rowOf('bwData', 20, 3, 600)],
    } as unknown as BenchReport;
    const costs = groupCostsFromReports([carried, old]);
    const c = costs['pointwise:f32:ncdhw']!;
    expect(c.autotuneS).toBe(9);
    expect(c.torchSearchS).toBeCloseTo(1, 12);
    expect(c.ms.fw).toEqual([2, 1.8, 2]);
    expect(c.ms.bwData[0]).toBe(3);
    // A pass no report measured takes the largest known figure of nothing: 0.1 ms.
    expect(c.ms.bwFilter).toEqual([0.1, 0.1, 0.1]);
  });
});
