import { describe, expect, it } from 'vitest';
import { ok, row } from './fixtures.test-helpers.js';
import {
  GOAL_THRESHOLDS,
  isDepthwise,
  isPatchEmbedding,
  isStem,
  judgeGoals,
  timeToPlanChecks,
} from './goals.js';
import type {
  BenchCase,
  BenchReport,
  BenchRowResult,
  PeerComparison,
  TorchRowResult,
} from './types.js';

const geometry = (name: string, over: Partial<BenchCase>): BenchCase => ({
  name,
  n: 2,
  cIn: 64,
  cOut: 64,
  in: [16, 32, 32],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
  ...over,
});

// Names that say nothing: the rules read the geometry only.
const PATCH = geometry('a', {
  cIn: 3,
  cOut: 768,
  k: [2, 16, 16],
  stride: [2, 16, 16],
  pad: [0, 0, 0],
});
const STEM = geometry('b', { cIn: 3, k: [7, 7, 7], stride: [2, 2, 2], pad: [3, 3, 3] });
const DEPTHWISE = geometry('c', { cIn: 192, cOut: 192, groups: 192 });
const PLAIN = geometry('d', {});

describe('the shape rules', () => {
  it('take patch embedding as kernel = stride, no padding, dilation 1, one group', () => {
    expect(isPatchEmbedding(PATCH)).toBe(true);
    expect(
      isPatchEmbedding(geometry('x', { k: [4, 4, 4], stride: [4, 4, 4], pad: [0, 0, 0] })),
    ).toBe(true);
    // A 1×1×1 convolution has kernel = stride = 1: no patches.
    expect(isPatchEmbedding(geometry('x', { k: [1, 1, 1], pad: [0, 0, 0] }))).toBe(false);
    expect(isPatchEmbedding({ ...PATCH, stride: [2, 16, 8] })).toBe(false);
    expect(isPatchEmbedding({ ...PATCH, pad: [0, 1, 0] })).toBe(false);
    expect(isPatchEmbedding({ ...PATCH, padAfter: [0, 0, 1] })).toBe(false);
    expect(isPatchEmbedding({ ...PATCH, dil: [1, 2, 1] })).toBe(false);
    expect(isPatchEmbedding({ ...PATCH, cOut: 768, groups: 3 })).toBe(false);
    expect(isPatchEmbedding(STEM)).toBe(false);
  });

  it('take a stem as ≤ 4 input channels, stride 2 and a kernel ≥ 5 on every axis', () => {
    expect(isStem(STEM)).toBe(true);
    expect(isStem({ ...STEM, cIn: 4 })).toBe(true);
    expect(isStem({ ...STEM, k: [5, 5, 5], pad: [2, 2, 2] })).toBe(true);
    expect(isStem({ ...STEM, cIn: 5 })).toBe(false);
    expect(isStem({ ...STEM, stride: [1, 2, 2] })).toBe(false);
    expect(isStem({ ...STEM, k: [3, 7, 7] })).toBe(false);
    expect(isStem(PATCH)).toBe(false);
  });

  it('take depthwise as groups = input channels = output channels', () => {
    expect(isDepthwise(DEPTHWISE)).toBe(true);
    expect(isDepthwise({ ...DEPTHWISE, cOut: 384 })).toBe(false);
    expect(isDepthwise({ ...DEPTHWISE, groups: 8 })).toBe(false);
    expect(isDepthwise(PLAIN)).toBe(false);
    expect(isDepthwise({ ...PLAIN, cIn: 1, cOut: 1 })).toBe(false);
  });
});

const torch = (medianMs: number, firstCallMs?: number): TorchRowResult => ({
  id: 'x',
  status: 'ok',
  medianMs,
  ...(firstCallMs === undefined ? {} : { firstCallMs }),
});

const peer = (ratio: number): PeerComparison => ({
  column: 'default',
  mode: 'heuristic',
  oursMs: ratio,
  torchMs: 1,
  ratio,
  roundRatios: [ratio],
  spread: 0,
  verdict: 'win',
});

/** A row of case `c` with our best time, PyTorch's columns and a floor. */
function measured(
  id: string,
  bestMs: number,
  columns: { default?: number; tuned?: number },
  floorMs = bestMs,
): BenchRowResult {
  return row(id, [ok('heuristic', bestMs)], {
    bestMs,
    floorMs,
    torch: {
      ...(columns.default === undefined ? {} : { default: torch(columns.default) }),
      ...(columns.tuned === undefined ? {} : { tuned: torch(columns.tuned) }),
    },
  });
}

function reportOf(rows: BenchRowResult[]): BenchReport {
  return { rows } as unknown as BenchReport;
}

const goal = (report: BenchReport, id: string, cases = [PATCH, STEM, DEPTHWISE, PLAIN]) =>
  judgeGoals(report, cases).find((g) => g.id === id)!;

describe('judgeGoals', () => {
  it('judges patch rows against the better PyTorch column and the floor, f16/bf16 fw and bwFilter only', () => {
    const rows = [
      // 0.3 ms against the better column 1.0: 0.30×; 2.5× the floor: met.
      measured('a|f16|ndhwc|fw', 0.3, { default: 1.5, tuned: 1.0 }, 0.12),
      // 0.32 against the better column 0.8: 0.40×: not met, though 3× faster than default.
      measured('a|bf16|ncdhw|bwFilter', 0.32, { default: 1.2, tuned: 0.8 }, 0.128),
      // Fast enough, but 4× the floor.
      measured('a|f16|ncdhw|fw', 0.4, { default: 2 }, 0.1),
      // Not in the goal: bwData, f32, and a case of another shape.
      measured('a|f16|ndhwc|bwData', 5, { default: 1 }),
      measured('a|f32|ncdhw|fw', 5, { default: 1 }),
      measured('d|f16|ndhwc|fw', 5, { default: 1 }),
    ];
    const g = goal(reportOf(rows), 'patch');
    expect(g.verdict).toBe('not met');
    expect(g.checks).toEqual([
      { label: 'a f16 ndhwc fw', value: '0.30× PyTorch, 2.50× floor', met: true },
      { label: 'a bf16 ncdhw bwFilter', value: '0.40× PyTorch, 2.50× floor', met: false },
      { label: 'a f16 ncdhw fw', value: '0.20× PyTorch, 4.00× floor', met: false },
    ]);
    expect(goal(reportOf(rows.slice(0, 1)), 'patch').verdict).toBe('met');
  });

  it('judges stem rows: f16/bf16 forward at most half of PyTorch', () => {
    const rows = [
      measured('b|f16|ncdhw|fw', 0.5, { default: 1 }),
      measured('b|bf16|ndhwc|fw', 0.51, { default: 1 }),
      measured('b|f16|ncdhw|bwData', 5, { default: 1 }),
      measured('a|f16|ncdhw|fw', 5, { default: 1 }),
    ];
    const g = goal(reportOf(rows), 'stem');
    expect(g.checks.map((c) => [c.label, c.met])).toEqual([
      ['b f16 ncdhw fw', true],
      ['b bf16 ndhwc fw', false],
    ]);
    expect(g.verdict).toBe('not met');
  });

  it('judges depthwise rows against PyTorch default, the f64 backward-filter row apart', () => {
    const rows = [
      row('c|f16|ndhwc|fw', [], { peers: { default: peer(0.5) } }),
      row('c|f32|ncdhw|bwStep', [], { peers: { default: peer(0.76) } }),
      row('c|f64|ncdhw|bwFilter', [], { peers: { default: peer(0.95) } }),
      row('d|f16|ndhwc|fw', [], { peers: { default: peer(0.9) } }),
    ];
    const g = goal(reportOf(rows), 'depthwise');
    expect(g.checks.map((c) => [c.label, c.value, c.met])).toEqual([
      ['c f16 ndhwc fw', '0.50× PyTorch default', true],
      ['c f32 ncdhw bwStep', '0.76× PyTorch default', false],
    ]);
    const f64 = goal(reportOf(rows), 'depthwiseF64BwFilter');
    expect(f64.verdict).toBe('met');
    expect(f64.checks.map((c) => c.label)).toEqual(['c f64 ncdhw bwFilter']);
    const atOne = [row('c|f64|ncdhw|bwFilter', [], { peers: { default: peer(1) } })];
    expect(goal(reportOf(atOne), 'depthwiseF64BwFilter').verdict).toBe('not met');
  });

  it('judges the default mode against autotune only where both ran', () => {
    const rows = [
      row('d|f16|ndhwc|fw', [ok('heuristic', 1.5), ok('autotune', 1)]),
      row('d|f16|ndhwc|bwData', [ok('heuristic', 1.51), ok('autotune', 1)]),
      row('d|f16|ncdhw|fw', [ok('heuristic', 9)]),
      row('d|f16|ncdhw|bwData', [ok('heuristic', 9), { mode: 'autotune', status: 'error' }]),
    ];
    const g = goal(reportOf(rows), 'defaultVsTuned');
    expect(g.checks.map((c) => [c.label, c.value, c.met])).toEqual([
      ['d f16 ndhwc fw', '1.50× tuned', true],
      ['d f16 ndhwc bwData', '1.51× tuned', false],
    ]);
    expect(g.verdict).toBe('not met');
  });

  it('judges time to a plan per group: autotune vs PyTorch tuned where it ran, else the default mode against its bound', () => {
    const select = (mode: 'heuristic' | 'autotune', selectMs: number) => ({
      ...ok(mode, 1),
      selectMs,
    });
    const tunedGroup = ['fw', 'bwData', 'bwFilter', 'bwStep'].map((pass) =>
      row(`d|f16|ndhwc|${pass}`, [select('heuristic', 200), select('autotune', 20_000)], {
        // bwStep's first call is not part of PyTorch's time to a plan.
        torch: { default: torch(1, 10), tuned: torch(1, pass === 'bwStep' ? 1e6 : 10_000) },
      }),
    );
    const defaultGroup = ['fw', 'bwData'].map((pass) =>
      row(`d|f32|ncdhw|${pass}`, [select('heuristic', 210)], { torch: { default: torch(1, 100) } }),
    );
    const slowGroup = ['fw'].map((pass) =>
      row(`e|f16|ncdhw|${pass}`, [select('heuristic', 3001)], { torch: { default: torch(1, 5) } }),
    );
    expect(timeToPlanChecks([...tunedGroup, ...defaultGroup, ...slowGroup])).toEqual([
      {
        label: 'd f16 ndhwc',
        value: 'autotune vs PyTorch tuned 20.0 s / 30.0 s = 0.67×',
        met: true,
      },
      {
        label: 'd f32 ncdhw',
        value: 'default 210 ms, bound 3.0 s (PyTorch default 200 ms)',
        met: true,
      },
      {
        label: 'e f16 ncdhw',
        value: 'default 3.0 s, bound 3.0 s (PyTorch default 5.0 ms)',
        met: false,
      },
    ]);
  });

  it('says the 3xTF32 goal is not in a run without its rows, and judges it with them', () => {
    const none = goal(reportOf([measured('d|f32|ncdhw|fw', 5, { default: 5 })]), 'tf32x3');
    expect(none.verdict).toBe('not measured');
    expect(none.note).toBe('not in this run (see the tf32x3 check)');
    const rows = [
      measured('d|f32|ncdhw|fw', 3.6, { default: 3.6 }),
      measured('d|3xtf32|ncdhw|fw', 2, { default: 3.6 }),
      measured('d|f32|ncdhw|bwData', 4, { default: 4 }),
      measured('d|3xtf32|ncdhw|bwData', 2.5, { default: 4 }),
      // Strict f32 under 1 ms: not a large row.
      measured('d|f32|ncdhw|bwFilter', 0.9, { default: 1 }),
      measured('d|3xtf32|ncdhw|bwFilter', 0.9, { default: 1 }),
    ];
    const g = goal(reportOf(rows), 'tf32x3');
    expect(g.checks.map((c) => [c.label, c.value, c.met])).toEqual([
      ['d 3xtf32 ncdhw fw', '1.80× faster than strict f32', true],
      ['d 3xtf32 ncdhw bwData', '1.60× faster than strict f32', false],
    ]);
  });

  it('says a goal is not measured when no row has its shape, naming cases without geometry', () => {
    const g = goal(reportOf([measured('e|f16|ndhwc|fw', 1, { default: 1 })]), 'patch');
    expect(g.verdict).toBe('not measured');
    expect(g.note).toBe('no row of this run has the shape (no geometry for e)');
  });

  it('keeps every threshold in the one table, with the issue’s wording', () => {
    expect(Object.keys(GOAL_THRESHOLDS)).toEqual(judgeGoals(reportOf([]), []).map((g) => g.id));
    expect(GOAL_THRESHOLDS.patch.maxVsTorch).toBeCloseTo(1 / 3, 12);
    expect(GOAL_THRESHOLDS.defaultVsTuned.wording).toContain('1.5×');
  });
});
