import { describe, expect, it } from 'vitest';
import {
  comparePeer,
  matchTorch,
  relativeSpread,
  summarize,
  timedModes,
  verdictOf,
  withMetrics,
} from './compare.js';
import { BIG, ok, PEAKS, row } from './fixtures.test-helpers.js';
import { convBytes, convFlops, median } from './math.js';
import type { BenchRowResult, ModeResult, TorchRowResult } from './types.js';

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

function rounds(mode: ModeResult['mode'], roundsMs: number[]): ModeResult {
  return { mode, status: 'ok', medianMs: median(roundsMs), reps: 30 * roundsMs.length, roundsMs };
}

function torchRounds(id: string, roundsMs: number[], extra: Partial<TorchRowResult> = {}) {
  return { id, status: 'ok' as const, medianMs: median(roundsMs), roundsMs, ...extra };
}

describe('the verdict rule', () => {
  it('is a win only when every round is under 1 and the margin exceeds the spread', () => {
    expect(verdictOf(0.9, [0.89, 0.9, 0.91], 0.02)).toBe('win');
    expect(verdictOf(1.1, [1.09, 1.1, 1.12], 0.02)).toBe('loss');
    // A margin inside the spread is parity, however every round agrees.
    expect(verdictOf(0.99, [0.985, 0.99, 0.995], 0.011)).toBe('parity');
    expect(verdictOf(1.01, [1.005, 1.01, 1.015], 0.012)).toBe('parity');
    expect(verdictOf(1.02, [1.015, 1.02, 1.025], 0.01)).toBe('loss');
    // Rounds that disagree are parity, however large the margin.
    expect(verdictOf(0.9, [0.85, 0.9, 1.01], 0.0)).toBe('parity');
    expect(verdictOf(1.2, [1.3, 1.2, 0.99], 0.0)).toBe('parity');
    // One round says nothing about the noise.
    expect(verdictOf(0.5, [0.5], 0)).toBe('parity');
    expect(verdictOf(0.5, [], 0)).toBe('parity');
  });

  it('takes the spread as the larger of the two sides’ (max − min) / median over rounds', () => {
    expect(relativeSpread([1, 1.02, 0.98])).toBeCloseTo(0.04, 12);
    expect(relativeSpread([2])).toBe(0);
    expect(relativeSpread(undefined)).toBe(0);
    const peer = comparePeer(
      'default',
      rounds('heuristic', [0.9, 0.91, 0.92]),
      torchRounds('r', [1, 1.1, 1.05]),
    )!;
    expect(peer.spread).toBeCloseTo(0.1 / 1.05, 12);
    expect(peer.roundRatios.map((r) => Number(r.toFixed(4)))).toEqual([0.9, 0.8273, 0.8762]);
    // margin 1 − 0.91/1.05 = 0.133 > spread 0.095, every round under 1.
    expect(peer.verdict).toBe('win');
    // The same ours against a noisier PyTorch: spread 0.2 swallows the margin.
    const noisy = comparePeer(
      'default',
      rounds('heuristic', [0.9, 0.91, 0.92]),
      torchRounds('r', [0.95, 1.05, 1.15]),
    )!;
    expect(noisy.verdict).toBe('parity');
  });
});

describe('matchTorch and summarize', () => {
  const ours: BenchRowResult[] = [
    row('a|f16|ndhwc|fw', [
      rounds('heuristic', [0.8, 0.8, 0.8]),
      rounds('autotune', [0.5, 0.5, 0.5]),
    ]),
    row('a|f16|ndhwc|bwData', [
      rounds('heuristic', [2, 2, 2]),
      rounds('autotune', [1, 1.01, 0.99]),
    ]),
    row('b|f32|ncdhw|fw', [rounds('heuristic', [0.1, 0.1, 0.1])]),
    row('b|f32|ncdhw|bwFilter', [{ mode: 'heuristic', status: 'unsupported' }]),
  ];
  const torchDefault: TorchRowResult[] = [
    torchRounds('a|f16|ndhwc|fw', [1, 1, 1]),
    torchRounds('a|f16|ndhwc|bwData', [1, 1, 1]),
    torchRounds('b|f32|ncdhw|fw', [0.1, 0.1, 0.1]),
    torchRounds('b|f32|ncdhw|bwFilter', [4, 4, 4]),
    torchRounds('zzz|f16|ndhwc|fw', [1, 1, 1]),
  ];
  const torchTuned: TorchRowResult[] = [
    torchRounds('a|f16|ndhwc|fw', [0.25, 0.25, 0.25]),
    torchRounds('a|f16|ndhwc|bwData', [1, 1, 1]),
  ];
  const matched = matchTorch(ours, { default: torchDefault, tuned: torchTuned });

  it('compares each PyTorch column with its peer mode only', () => {
    expect(matched.map((r) => r.peers?.default?.ratio)).toEqual([0.8, 2, 1, undefined]);
    expect(matched.map((r) => r.peers?.tuned?.ratio)).toEqual([2, 1, undefined, undefined]);
    expect(matched[0]!.peers?.default?.mode).toBe('heuristic');
    expect(matched[0]!.peers?.tuned?.mode).toBe('autotune');
    // b has no autotune time: no tuned comparison, though PyTorch tuned has none either.
    expect(matched[3]!.torch?.default?.medianMs).toBe(4);
    expect(matched[3]!.peers).toBeUndefined();
  });

  it('keeps no comparison when PyTorch has no time for the row', () => {
    const r = matchTorch([ours[0]!], {
      default: [{ id: 'a|f16|ndhwc|fw', status: 'error', note: 'OOM' }],
    });
    expect(r[0]!.peers).toBeUndefined();
    expect(r[0]!.torch?.default?.note).toBe('OOM');
    expect(matchTorch([ours[0]!], {})[0]!.torch).toBeUndefined();
  });

  it('counts wins, losses and parity apart and takes geomeans over all rows and ≥ 0.2 ms', () => {
    const s = summarize(matched);
    const d = s.peers.find((p) => p.column === 'default')!;
    expect([d.wins, d.losses, d.parity]).toEqual([1, 1, 1]);
    const scope = (p: typeof d, name: string) => p.geomeans.find((e) => e.scope === name);
    expect(scope(d, 'all')!.geomean).toBeCloseTo((0.8 * 2 * 1) ** (1 / 3), 12);
    expect(scope(d, 'all')!.count).toBe(3);
    // b's PyTorch takes 0.1 ms: left out of the GPU-bound mean.
    expect(scope(d, 'torch ≥ 0.2 ms')).toEqual({
      scope: 'torch ≥ 0.2 ms',
      geomean: Math.sqrt(0.8 * 2),
      count: 2,
    });
    expect(scope(d, 'pass=bwData')!.geomean).toBe(2);
    expect(d.lossRows).toEqual(['a|f16|ndhwc|bwData 2.000× (rounds 2.000–2.000×, spread 0.0%)']);
    const t = s.peers.find((p) => p.column === 'tuned')!;
    // bwData: 1.00 with a 2% spread of ours is parity; fw at 2× in every round is a loss.
    expect([t.wins, t.losses, t.parity]).toEqual([0, 1, 1]);
    expect(t.mode).toBe('autotune');
  });

  it('has no entry for a column nothing was compared with', () => {
    const s = summarize(matchTorch(ours, { default: torchDefault }));
    expect(s.peers.map((p) => p.column)).toEqual(['default']);
  });
});
