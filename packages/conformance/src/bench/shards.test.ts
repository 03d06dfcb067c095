import { describe, expect, it } from 'vitest';
import { SHARED_SUITE } from '../suite/index.js';
import { parseBenchArgs } from './args.js';
import type { GroupCost } from './costs.js';
import { groupCostsFromReports } from './costs.js';
import { GROUP_COSTS } from './group-costs.js';
import { groupKey, planGroups } from './rows.js';
import {
  estimateGroupSeconds,
  fitsBudget,
  GROUP_FIXED_S,
  OVERHEAD_S,
  PLAN_MARGIN,
  planShards,
  SHARD_FIXED_S,
  shardCountFor,
  splitIntoShards,
} from './shards.js';
import type { BenchGroup, BenchReport } from './types.js';

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
    heuristicSelectS: 11,
    torchFirstS: 0.5,
    ms: { fw: [1, 1, 2], bwData: [2, 2, 2], bwFilter: [1, 1, 1] },
  };
  const group = suiteGroups(['--cases', 'pointwise', '--dtypes', 'f32'])[0]!;
  const costs = { [groupKey(group)]: cost };
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
  // 3 × 35 calls × (fw 1+1+2·2, bwData 2+2+2·2, bwFilter 1+1+2·1, bwStep 3+3+2·3) ms.
  const calls = (3 * 35 * (6 + 8 + 4 + 12)) / 1e3;

  it('adds both selects, both columns’ first calls and the timed calls of every side', () => {
    // fixed + heuristic select 11 + autotune 100 + PyTorch default 0.5 + tuned search (half of
    // our autotune, not yet measured) 50.
    expect(estimateGroupSeconds(group, options, costs)).toBeCloseTo(
      GROUP_FIXED_S + 11 + 100 + 0.5 + 50 + calls,
      9,
    );
    // A carried cache drops the autotune; a measured search replaces the guess.
    expect(estimateGroupSeconds(group, options, costs, true)).toBeCloseTo(
      GROUP_FIXED_S + 11 + 0.5 + 50 + calls,
      9,
    );
    const measured = { [groupKey(group)]: { ...cost, torchSearchS: 7 } };
    expect(estimateGroupSeconds(group, options, measured)).toBeCloseTo(
      GROUP_FIXED_S + 11 + 100 + 0.5 + 7 + calls,
      9,
    );
  });

  it('takes a measured host time and bwStep in place of the fixed figure and the sum', () => {
    const measured = {
      [groupKey(group)]: {
        ...cost,
        torchSearchS: 7,
        hostS: 3,
        ms: { ...cost.ms, bwStep: [1, 1, 1] },
      },
    } as Record<string, GroupCost>;
    const bwStep = (3 * 35 * (1 + 1 + 2 * 1)) / 1e3;
    expect(estimateGroupSeconds(group, options, measured)).toBeCloseTo(
      3 + 11 + 100 + 0.5 + 7 + calls - (3 * 35 * 12) / 1e3 + bwStep,
      9,
    );
  });
});

describe('planShards with the table of the last run', () => {
  const fit = parseBenchArgs([
    '--vs-torch',
    '--algos',
    'heuristic,autotune',
    '--rounds',
    '3',
    '--reps',
    '30',
    '--warmup',
    '5',
    '--tuned-on',
    'f16:ndhwc',
  ]);
  const groups = suiteGroups(['--tuned-on', 'f16:ndhwc']);

  it('counts the shard costs: fixed in each, the host-overhead runs in shard 1', () => {
    const estimate = (g: BenchGroup) => estimateGroupSeconds(g, fit);
    const shards = planShards(groups, 3, fit);
    for (const [i, s] of shards.entries()) {
      const groupsS = s.groups.reduce((t, g) => t + estimate(g), 0);
      expect(s.seconds).toBeCloseTo(SHARD_FIXED_S + (i === 0 ? OVERHEAD_S : 0) + groupsS, 9);
    }
  });

  it('splits the shared suite into 2 shards that each fit 450 s with the margin, not 1', () => {
    // Session 17's costs (runs 87-88 took 333 and 216 s in two shards).
    const two = planShards(groups, 2, fit);
    for (const s of two) expect(fitsBudget(s.seconds, 450), `${s.seconds}`).toBe(true);
    const one = planShards(groups, 1, fit);
    expect(one.some((s) => !fitsBudget(s.seconds, 450))).toBe(true);
    expect(shardCountFor(groups, 450, fit)).toBe(2);
  });

  it('fits a budget only with the margin, and finds no count for a group over the budget', () => {
    expect(fitsBudget(100, 100 * PLAN_MARGIN)).toBe(true);
    expect(fitsBudget(100.01, 100 * PLAN_MARGIN)).toBe(false);
    expect(shardCountFor(groups, 60, fit, false, 8)).toBeUndefined();
  });

  it('leaves no shard empty when shard 1 starts with the host-overhead runs', () => {
    const tiny = suiteGroups(['--cases', 'pointwise']);
    for (const s of planShards(tiny, 3, fit)) expect(s.groups.length).toBeGreaterThan(0);
  });
});

describe('groupCostsFromReports', () => {
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
      default: { id: 'x', status: 'ok', medianMs: ms * 1.1, firstCallMs: 5 },
      tuned: { id: 'x', status: 'ok', medianMs: ms, ...(firstCallMs ? { firstCallMs } : {}) },
    },
  });
  const settings = { rounds: 3, warmup: 5, reps: 30 };

  it('takes each figure from the latest report, autotune only from a cold select', () => {
    const old = {
      startedAt: '2026-11-30T10:00:00Z',
      settings,
      rows: [rowOf('fw', 9000, 1)],
    } as unknown as BenchReport;
    const carried = {
      startedAt: '2026-12-01T10:00:00Z',
      settings,
      rows: [rowOf('fw', 20, 2, 400), rowOf('bwData', 20, 3, 600), rowOf('bwStep', 20, 4, 700)],
    } as unknown as BenchReport;
    const costs = groupCostsFromReports([carried, old]);
    const c = costs['pointwise:f32:ncdhw']!;
    expect(c.autotuneS).toBe(9);
    expect(c.heuristicSelectS).toBeCloseTo(0.003, 12);
    // Every pass's first call, bwStep's too: PyTorch searches again for the autograd backward.
    expect(c.torchSearchS).toBeCloseTo(1.7, 12);
    expect(c.torchFirstS).toBeCloseTo(0.015, 12);
    expect(c.ms.fw).toEqual([2, 1.8, 2.2]);
    expect(c.ms.bwData[0]).toBe(3);
    expect(c.ms.bwStep).toEqual([4, 3.6, 4.4]);
    // A pass no report measured takes the largest known figure of nothing: 0.1 ms.
    expect(c.ms.bwFilter).toEqual([0.1, 0.1, 0.1]);
    // No group wall time recorded: no host figure (the estimate uses GROUP_FIXED_S).
    expect(c.hostS).toBeUndefined();
  });

  it('learns a group’s host time from its recorded wall time, and skips skipped groups', () => {
    const fw = { ...rowOf('fw', 2000, 1, 400), groupWallMs: 10_000 };
    const skipped = {
      ...rowOf('fw', 0, 0),
      case: 'dilated',
      modes: [{ mode: 'heuristic', status: 'skipped' }],
    };
    const report = {
      startedAt: '2026-12-02T10:00:00Z',
      settings,
      rows: [fw, skipped],
    } as unknown as BenchReport;
    const costs = groupCostsFromReports([report]);
    expect(Object.keys(costs)).toEqual(['pointwise:f32:ncdhw']);
    // 10 s wall - selects (3 ms + 2 s) - first calls (5 + 400 ms) - 105 calls × (1 + 0.9 + 1.1 + 1) ms.
    const accounted = (3 + 2000 + 5 + 400 + 105 * 4) / 1e3;
    expect(costs['pointwise:f32:ncdhw']!.hostS).toBeCloseTo(10 - accounted, 9);
  });
});
