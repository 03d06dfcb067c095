import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PEAKS } from './fixtures.test-helpers.js';
import { runBench } from './index.js';
import { mergeReports, parseMergeArgs } from './merge.js';
import type { BenchReport, BenchRowResult } from './types.js';

function row(id: string, ratio: number | undefined, torchMs = 1): BenchRowResult {
  const [c, dtype, layout, pass] = id.split('|');
  return {
    id,
    case: c,
    dtype,
    layout,
    pass,
    modes: [
      {
        mode: 'autotune',
        status: 'ok',
        medianMs: ratio === undefined ? 1 : ratio * torchMs,
        reps: 30,
      },
    ],
    ...(ratio === undefined
      ? {}
      : {
          bestMode: 'autotune',
          bestMs: ratio * torchMs,
          ratioBest: ratio,
          ratioByMode: { autotune: ratio },
          torch: { id, status: 'ok', medianMs: torchMs, reps: 30, usedCudnn: true },
        }),
  } as unknown as BenchRowResult;
}

function report(label: string, startedAt: string, rows: BenchRowResult[], notes: string[] = []) {
  return {
    label,
    startedAt,
    device: 'NVIDIA H200 (sm_90, 132 SMs)',
    ours: { cudnn: { version: '9.19.0', path: '/x/libcudnn.so.9' } },
    torch: {
      torchVersion: '2.11.0',
      cudaVersion: '13.0',
      cudnn: { version: '9.19.0', path: '/x/libcudnn.so.9' },
      cudnnLibraries: [],
      cudnnEnabled: true,
      device: 'NVIDIA H200',
    },
    settings: {
      reps: 30,
      warmup: 3,
      dtypes: ['f32'],
      layouts: ['ncdhw'],
      passes: ['fw'],
      modes: ['autotune'],
      f64MaxMacs: 4e9,
      pinnedBudgetMs: 1500,
      rotateBelowBytes: 1,
    },
    peaks: PEAKS,
    overhead: [{ id: 'tiny', side: 'torch', dtype: 'f32', layout: 'ncdhw', usPerCall: 20 }],
    rows,
    notes,
    summary: { best: [], byMode: [], losses: ['stale'], goalEveryRow: false, goalGeomean: false },
  } as unknown as BenchReport;
}

describe('mergeReports', () => {
  it('keeps every row, prefers a compared one, and recomputes the summary', () => {
    const a = report(
      'gpu0',
      '2026-11-30T16:22:52Z',
      [row('a|f32|ncdhw|fw', 0.5), row('b|f32|ncdhw|fw', undefined)],
      ['budget hit'],
    );
    const b = report('gpu1', '2026-11-30T16:22:50Z', [
      row('b|f32|ncdhw|fw', 2),
      row('a|f32|ncdhw|fw', undefined),
    ]);
    const m = mergeReports([a, b], 'both');
    expect(m.label).toBe('both');
    expect(m.startedAt).toBe('2026-11-30T16:22:50Z');
    expect(m.rows.map((r) => [r.id, r.ratioBest])).toEqual([
      ['a|f32|ncdhw|fw', 0.5],
      ['b|f32|ncdhw|fw', 2],
    ]);
    const all = m.summary!.best.find((e) => e.scope === 'all')!;
    expect(all.count).toBe(2);
    expect(all.geomean).toBeCloseTo(1, 12);
    expect(m.summary!.losses).toEqual(['b|f32|ncdhw|fw 2.000×']);
    expect(m.overhead).toHaveLength(2);
    expect(m.notes[0]).toMatch(/^Merged from 2 reports: gpu0 started .*; gpu1 started/);
    expect(m.notes[1]).toBe(
      'Rows taken from each: gpu0 started 2026-11-30T16:22:52Z: 1; gpu1 started 2026-11-30T16:22:50Z: 1.',
    );
    expect(m.notes[2]).toBe('gpu0 2026-11-30T16:22:52Z: budget hit');
    expect(m.rows.map((r) => r.source)).toEqual([
      'gpu0 started 2026-11-30T16:22:52Z',
      'gpu1 started 2026-11-30T16:22:50Z',
    ]);
    // Neither report recorded its outputs (both rotated): no note, and the setting says so.
    expect(m.settings.outputs).toBe('rotated');
  });

  it("keeps a row's source through a second merge, and notes outputs that differ", () => {
    const a = report('s4', '2026-11-30T16:00:00Z', [row('a|f32|ncdhw|fw', 1.02)]);
    const first = mergeReports([a], 'session4');
    const b = report('run18', '2026-11-30T18:00:00Z', [row('b|f32|ncdhw|fw', 0.9)]);
    b.settings = { ...b.settings, outputs: 'shared' };
    const m = mergeReports([first, b], 'session5');
    expect(m.rows.map((r) => r.source)).toEqual([
      's4 started 2026-11-30T16:00:00Z',
      'run18 started 2026-11-30T18:00:00Z',
    ]);
    expect(m.settings.outputs).toBe('mixed');
    expect(m.notes).toContain(
      'Our outputs: rotated in session4 started 2026-11-30T16:00:00Z; shared in run18 started 2026-11-30T18:00:00Z.',
    );
    // Rounds: absent means 1; reports that agree keep theirs, others are mixed with a note.
    expect(m.settings.rounds).toBeUndefined();
    const c = report('run24', '2026-11-30T19:00:00Z', [row('c|f32|ncdhw|fw', 0.95)]);
    c.settings = { ...c.settings, outputs: 'shared', rounds: 5 };
    expect(mergeReports([c], 'one').settings.rounds).toBe(5);
    const mixed = mergeReports([m, c], 'session6');
    expect(mixed.settings.rounds).toBe('mixed');
    expect(mixed.notes).toContain(
      'Rounds per group: 1 in session5 started 2026-11-30T16:00:00Z; 5 in run24 started 2026-11-30T19:00:00Z.',
    );
  });

  it('attributes each note to the report it came from, once, however often merged', () => {
    const a = report('run1', '2026-11-30T16:00:00Z', [row('a|f32|ncdhw|fw', 1)], ['f64 left out']);
    const b = report('run2', '2026-11-30T17:00:00Z', [row('b|f32|ncdhw|fw', 1)], ['f64 left out']);
    const first = mergeReports([a, b], 's1');
    const c = report('run3', '2026-11-30T18:00:00Z', [row('c|f32|ncdhw|fw', 1)], ['budget hit']);
    const second = mergeReports([first, c], 's2');
    const third = mergeReports([second], 's3');
    const attributedNotes = third.notes.filter((n) => /left out|budget hit/.test(n));
    expect(attributedNotes).toEqual([
      'run1 2026-11-30T16:00:00Z: f64 left out',
      'run2 2026-11-30T17:00:00Z: f64 left out',
      'run3 2026-11-30T18:00:00Z: budget hit',
    ]);
    // The inner merges' own notes are attributed to them, once.
    expect(third.notes).toContain(
      's1 2026-11-30T16:00:00Z: Merged from 2 reports: run1 started 2026-11-30T16:00:00Z; run2 started 2026-11-30T17:00:00Z.',
    );
    expect(third.notes.filter((n) => n.includes('Merged from 2 reports: run1'))).toHaveLength(1);
    // Merging the same report twice keeps its notes once.
    expect(mergeReports([c, c], 'twice').notes.filter((n) => n.includes('budget hit'))).toEqual([
      'run3 2026-11-30T18:00:00Z: budget hit',
    ]);
  });

  it('refuses reports of different cuDNN versions or GPUs', () => {
    const a = report('a', 't', [row('a|f32|ncdhw|fw', 1)]);
    const b = report('b', 't', [row('a|f32|ncdhw|fw', 1)]);
    b.ours = { cudnn: { version: '9.14.0', path: null } };
    expect(() => mergeReports([a, b], 'x')).toThrow(/one pair of cuDNN versions/);
    expect(() => mergeReports([], 'x')).toThrow(/at least one bench report/);
  });
});

describe('bench merge command', () => {
  it('writes the merged report', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-merge-'));
    writeFileSync(
      path.join(dir, 'one.json'),
      JSON.stringify(report('one', 't1', [row('a|f32|ncdhw|fw', 0.9)])),
    );
    writeFileSync(
      path.join(dir, 'two.json'),
      JSON.stringify(report('two', 't2', [row('b|f32|ncdhw|fw', 1.1)])),
    );
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t), cwd: dir };
    const argv = ['merge', '--label', 'both', '--out', 'o', 'one.json', 'two.json'];
    expect(await runBench(argv, io as never), err).toBe(0);
    const merged = JSON.parse(readFileSync(path.join(dir, 'o', 'bench-both.json'), 'utf8'));
    expect(merged.rows).toHaveLength(2);
    expect(out).toMatch(/Geometric means/);
    expect(err).toMatch(/wrote .*bench-both\.md/);
  });

  it('rejects missing labels, files and unreadable reports with exit status 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-merge-'));
    writeFileSync(path.join(dir, 'bad.json'), '{"rows": 3}');
    let err = '';
    const io = { stdout: () => {}, stderr: (t: string) => (err += t), cwd: dir };
    expect(await runBench(['merge', 'x.json'], io as never)).toBe(2);
    expect(err).toMatch(/--label/);
    err = '';
    expect(await runBench(['merge', '--label', 'l', 'bad.json'], io as never)).toBe(2);
    expect(err).toMatch(/Expected a bench JSON report \(rows, ours, settings\) for .*bad\.json/);
    err = '';
    expect(await runBench(['merge', '--label', 'l', 'missing.json'], io as never)).toBe(2);
    expect(err).toMatch(/missing\.json/);
    expect(() => parseMergeArgs(['--label'])).toThrow(/--label/);
    expect(() => parseMergeArgs(['--what', 'x'])).toThrow(/--what/);
  });
});
