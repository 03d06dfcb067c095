import { describe, expect, it } from 'vitest';
import { matchTorch, summarize, timedModes, withMetrics } from './compare.js';
import { BIG, ok, PEAKS, row } from './fixtures.test-helpers.js';
import { convBytes, convFlops } from './math.js';
import type { BenchRowResult, TorchRowResult } from './types.js';

describe('withMetrics', () => {
  it('picks the fastest timed mode and derives TFLOP/s and the floor fraction', () => {
    const r = withMetrics(
      row('big|f16|ndhwc|fw', [
        ok('pinned', 3),
        ok('heuristic', 0.5),
        { mode: 'autotune', status: 'error', note: 'boom' },
      ]),
      BIG,
      PEAKS,
    );
    expect(r.bestMode).toBe('heuristic');
    expect(r.bestMs).toBe(0.5);
    const flops = convFlops(BIG);
    expect(r.tflops).toBeCloseTo(flops / 0.5e-3 / 1e12, 9);
    const floor = Math.max(flops / 600e12, convBytes(BIG, 'f16') / 4e12) * 1e3;
    expect(r.floorMs).toBeCloseTo(floor, 12);
    expect(r.floorFraction).toBeCloseTo(floor / 0.5, 12);
  });

  it('counts capped modes but never unsupported, skipped or errors', () => {
    const modes = [
      { mode: 'pinned' as const, status: 'capped' as const, medianMs: 0.2, reps: 4, note: 'slow' },
      { mode: 'heuristic' as const, status: 'unsupported' as const, note: 'no engine' },
      { mode: 'autotune' as const, status: 'skipped' as const, medianMs: 0.01 },
    ];
    expect(timedModes(modes).map((m) => m.mode)).toEqual(['pinned']);
    const r = withMetrics(row('big|f16|ndhwc|fw', modes), BIG, PEAKS);
    expect(r.bestMode).toBe('pinned');
  });

  it('leaves best/TFLOP/s empty when no mode produced a time, but still has a floor', () => {
    const r = withMetrics(
      row('big|f32|ncdhw|bwData', [{ mode: 'pinned', status: 'unsupported' }]),
      BIG,
      PEAKS,
    );
    expect(r.bestMs).toBeUndefined();
    expect(r.tflops).toBeUndefined();
    expect(r.floorFraction).toBeUndefined();
    expect(r.floorMs).toBeGreaterThan(0);
  });
});

describe('matchTorch and summarize', () => {
  const ours: BenchRowResult[] = [
    row('a|f16|ndhwc|fw', [ok('heuristic', 0.8), ok('autotune', 0.5)], { bestMs: 0.5 }),
    row('a|f16|ndhwc|bwData', [ok('heuristic', 2)], { bestMs: 2 }),
    row('b|f32|ncdhw|fw', [ok('heuristic', 1)], { bestMs: 1 }),
    row('b|f32|ncdhw|bwFilter', [{ mode: 'heuristic', status: 'unsupported' }]),
    row('c|bf16|ncdhw|fw', [ok('pinned', 4)], { bestMs: 4 }),
  ];
  const torch: TorchRowResult[] = [
    { id: 'a|f16|ndhwc|fw', status: 'ok', medianMs: 1, usedCudnn: true },
    { id: 'a|f16|ndhwc|bwData', status: 'ok', medianMs: 1, usedCudnn: true },
    { id: 'b|f32|ncdhw|fw', status: 'ok', medianMs: 4, usedCudnn: null },
    { id: 'b|f32|ncdhw|bwFilter', status: 'ok', medianMs: 4, usedCudnn: true },
    {
      id: 'c|bf16|ncdhw|fw',
      status: 'ok',
      medianMs: 2,
      usedCudnn: false,
      backend: 'ConvBackend.Slow3d',
    },
    { id: 'zzz|f16|ndhwc|fw', status: 'ok', medianMs: 1 },
  ];
  const matched = matchTorch(ours, torch);

  it('matches by id and computes best and per-mode ratios', () => {
    expect(matched.map((r) => r.ratioBest)).toEqual([0.5, 2, 0.25, undefined, 2]);
    expect(matched[0]!.ratioByMode).toEqual({ heuristic: 0.8, autotune: 0.5 });
    expect(matched[3]!.torch?.medianMs).toBe(4);
    expect(matched[3]!.ratioByMode).toBeUndefined();
  });

  it('keeps no ratio when PyTorch has no time for the row', () => {
    const r = matchTorch([ours[0]!], [{ id: 'a|f16|ndhwc|fw', status: 'error', note: 'OOM' }]);
    expect(r[0]!.ratioBest).toBeUndefined();
    expect(r[0]!.torch?.note).toBe('OOM');
    expect(matchTorch([ours[0]!], [])[0]!.torch).toBeUndefined();
  });

  it('summarizes geometric means per scope, losses and the goals', () => {
    const s = summarize(matched);
    const byScope = Object.fromEntries(
      s.best.map((e) => [e.scope, [Number(e.geomean.toFixed(6)), e.count]]),
    );
    // all: (0.5 · 2 · 0.25 · 2)^(1/4) = 0.5^(1/4)
    expect(byScope.all).toEqual([Number((0.5 ** 0.25).toFixed(6)), 4]);
    // cuDNN rows (unknown counts as cuDNN): 0.5, 2, 0.25
    expect(byScope['torch-used-cudnn']).toEqual([Number((0.25 ** (1 / 3)).toFixed(6)), 3]);
    expect(byScope['torch-used-cudnn, torch ≥ 0.2 ms']).toEqual(byScope['torch-used-cudnn']);
    expect(byScope['dtype=f16']).toEqual([1, 2]);
    expect(byScope['pass=fw']).toEqual([Number((0.25 ** (1 / 3)).toFixed(6)), 3]);
    expect(byScope['layout=ncdhw']).toEqual([Number((0.5 ** 0.5).toFixed(6)), 2]);
    expect(s.byMode.map((e) => e.scope)).toEqual([
      'mode=pinned',
      'mode=heuristic',
      'mode=autotune',
    ]);
    // The bf16 row loses 2× but PyTorch did not use cuDNN there, so only the f16 bwData row counts.
    expect(s.losses).toEqual(['a|f16|ndhwc|bwData 2.000×']);
    expect(s.goalEveryRow).toBe(false);
    expect(s.goalGeomean).toBe(true);
  });

  it('counts only rows where PyTorch takes at least 0.2 ms as GPU-bound', () => {
    const fast = { ...torch[1]!, medianMs: 0.1 };
    const s = summarize(matchTorch([ours[0]!, ours[1]!], [torch[0]!, fast]));
    const gpu = s.best.find((e) => e.scope === 'torch-used-cudnn, torch ≥ 0.2 ms');
    expect(gpu).toEqual({ scope: 'torch-used-cudnn, torch ≥ 0.2 ms', geomean: 0.5, count: 1 });
    expect(s.best.find((e) => e.scope === 'torch-used-cudnn')?.count).toBe(2);
  });

  it('meets both goals when every cuDNN row is faster and the geomean is ≤ 0.90', () => {
    const s = summarize(matchTorch([ours[0]!, ours[2]!], [torch[0]!, torch[2]!]));
    expect(s.goalEveryRow).toBe(true);
    expect(s.goalGeomean).toBe(true);
    const slow = summarize(matchTorch([ours[0]!], [{ ...torch[0]!, medianMs: 0.54 }]));
    expect(slow.goalEveryRow).toBe(true);
    expect(slow.goalGeomean).toBe(false);
  });
});
