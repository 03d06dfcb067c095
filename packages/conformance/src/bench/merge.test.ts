import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ReportMismatchError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { matchTorch } from './compare.js';
import { PEAKS } from './fixtures.test-helpers.js';
import { runBench } from './index.js';
import { mergeReports, parseMergeArgs } from './merge.js';
import type { BenchReport, BenchRowResult } from './types.js';

const COMMIT = '8654548aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const GROUPS = ['a:f32:ncdhw', 'b:f32:ncdhw', 'c:f32:ncdhw'];

/** A row whose heuristic mode is `ratio` × PyTorch default's 1 ms in each of 3 rounds. */
function row(id: string, ratio: number): BenchRowResult {
  const [c, dtype, layout, pass] = id.split('|');
  const ours = [ratio, ratio, ratio];
  const [matched] = matchTorch(
    [
      {
        id,
        case: c,
        dtype,
        layout,
        pass,
        macs: 1,
        bytes: 1,
        sets: 1,
        modes: [{ mode: 'heuristic', status: 'ok', medianMs: ratio, reps: 90, roundsMs: ours }],
      } as BenchRowResult,
    ],
    { default: [{ id, status: 'ok', medianMs: 1, roundsMs: [1, 1, 1] }] },
  );
  return matched!;
}

function report(label: string, startedAt: string, rows: BenchRowResult[], commit = COMMIT) {
  return {
    label,
    startedAt,
    device: 'NVIDIA H200 (sm_90, 132 SMs)',
    ours: { cudnn: { version: '9.19.0', path: '/x/libcudnn.so.9' } },
    provenance: {
      commit,
      date: startedAt,
      gpu: 'NVIDIA H200 (sm_90, 132 SMs)',
      driver: '580.159.04',
      cudnnOurs: '9.19.0',
      cudnnTorch: '9.19.0',
    },
    autotuneCache: { state: 'cold', path: '/out/autotune-cache.json', entriesAtStart: 0 },
    suiteGroups: GROUPS,
    settings: {
      reps: 30,
      warmup: 5,
      dtypes: ['f32'],
      layouts: ['ncdhw'],
      passes: ['fw'],
      modes: ['heuristic'],
      f64MaxMacs: 4e9,
      pinnedBudgetMs: 1500,
      rotateBelowBytes: 1,
      outputs: 'shared',
      rounds: 3,
    },
    peaks: PEAKS,
    overhead: [],
    rows,
    notes: [],
  } as unknown as BenchReport;
}

const shard1 = () => report('shard-1', '2026-12-01T21:00:00Z', [row('a|f32|ncdhw|fw', 0.5)]);
const shard2 = () => report('shard-2', '2026-12-01T21:10:00Z', [row('b|f32|ncdhw|fw', 2)]);

describe('mergeReports', () => {
  it('joins disjoint shards of one commit, recomputes the summary and names what is missing', () => {
    const m = mergeReports([shard1(), shard2()], 'suite', ['s1.json', 's2.json']);
    expect(m.label).toBe('suite');
    expect(m.startedAt).toBe('2026-12-01T21:00:00Z');
    expect(m.rows.map((r) => [r.id, r.peers?.default?.verdict])).toEqual([
      ['a|f32|ncdhw|fw', 'win'],
      ['b|f32|ncdhw|fw', 'loss'],
    ]);
    const d = m.summary!.peers[0]!;
    expect([d.wins, d.losses, d.parity]).toEqual([1, 1, 0]);
    expect(d.geomeans[0]!.geomean).toBeCloseTo(1, 12);
    expect(m.notes[0]).toBe(
      `Merged from 2 reports of commit ${COMMIT}: shard-1 started 2026-12-01T21:00:00Z; shard-2 started 2026-12-01T21:10:00Z.`,
    );
    expect(m.notes[1]).toBe('Not measured: 1 of 3 suite groups (c:f32:ncdhw).');
    expect(m.rows.map((r) => r.source)).toEqual([
      'shard-1 started 2026-12-01T21:00:00Z',
      'shard-2 started 2026-12-01T21:10:00Z',
    ]);
    const all = mergeReports(
      [shard1(), shard2(), report('shard-3', '2026-12-01T21:20:00Z', [row('c|f32|ncdhw|fw', 1)])],
      'suite',
    );
    expect(all.notes[1]).toBe('Every one of the 3 suite groups was measured.');
  });

  it('refuses reports of different commits, naming both commits and both reports', () => {
    const other = report(
      'shard-2',
      't',
      [row('b|f32|ncdhw|fw', 1)],
      '31b3975bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    );
    const attempt = () => mergeReports([shard1(), other], 'x', ['s1.json', 's2.json']);
    expect(attempt).toThrow(ReportMismatchError);
    expect(attempt).toThrow(
      `Cannot merge bench reports of different commits: ${COMMIT} in s1.json, 31b3975bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb in s2.json`,
    );
  });

  it('refuses a report with no commit, even alone', () => {
    const old = shard1();
    delete old.provenance;
    expect(() => mergeReports([old], 'x', ['old.json'])).toThrow(
      'Cannot merge bench reports of an unknown commit: unknown in old.json, unknown in old.json',
    );
  });

  it('refuses overlapping groups instead of choosing between two measurements', () => {
    const again = report('rerun', 't', [row('a|f32|ncdhw|bwData', 0.9)]);
    expect(() => mergeReports([shard1(), shard2(), again], 'x', ['s1', 's2', 'rerun'])).toThrow(
      'Cannot merge bench reports of overlapping groups (each group is measured once): a:f32:ncdhw in s1, a:f32:ncdhw in rerun',
    );
  });

  it('lets another report measure a group that one skipped whole, dropping the skipped rows', () => {
    const cut = shard2();
    cut.rows.push({
      ...row('c|f32|ncdhw|fw', 1),
      modes: [{ mode: 'heuristic', status: 'skipped', note: 'time budget of 420 s reached' }],
    });
    const m1 = mergeReports([shard1(), cut], 'x');
    expect(m1.rows.map((r) => r.id)).toEqual(['a|f32|ncdhw|fw', 'b|f32|ncdhw|fw']);
    expect(m1.notes[1]).toBe('Not measured: 1 of 3 suite groups (c:f32:ncdhw).');
    const rerun = report('rerun', '2026-12-01T21:30:00Z', [row('c|f32|ncdhw|fw', 1)]);
    const m2 = mergeReports([shard1(), cut, rerun], 'x');
    expect(m2.rows.map((r) => [r.id, r.source])).toEqual([
      ['a|f32|ncdhw|fw', 'shard-1 started 2026-12-01T21:00:00Z'],
      ['b|f32|ncdhw|fw', 'shard-2 started 2026-12-01T21:10:00Z'],
      ['c|f32|ncdhw|fw', 'rerun started 2026-12-01T21:30:00Z'],
    ]);
  });

  it('takes a later report run on part of the suite (--groups), never one with groups outside it', () => {
    const cut = shard2();
    cut.rows.push({
      ...row('c|f32|ncdhw|fw', 1),
      modes: [{ mode: 'heuristic', status: 'skipped', note: 'time budget of 430 s reached' }],
    });
    cut.overhead = [];
    const first = shard1();
    first.overhead = [{ id: 'tiny', side: 'ours:heuristic', usPerCall: 10 } as never];
    const rest = report('rest', '2026-12-01T21:30:00Z', [row('c|f32|ncdhw|fw', 1)]);
    rest.suiteGroups = ['c:f32:ncdhw'];
    rest.overhead = [{ id: 'tiny', side: 'ours:heuristic', usPerCall: 12 } as never];
    const m = mergeReports([first, cut, rest], 'x');
    expect(m.rows.map((r) => r.id)).toEqual(['a|f32|ncdhw|fw', 'b|f32|ncdhw|fw', 'c|f32|ncdhw|fw']);
    expect(m.notes[1]).toBe('Every one of the 3 suite groups was measured.');
    // Host overhead once, as the first report that measured it has it.
    expect(m.overhead).toEqual(first.overhead);
    const outside = report('outside', '2026-12-01T21:40:00Z', [row('d|f32|ncdhw|fw', 1)]);
    outside.suiteGroups = ['c:f32:ncdhw', 'd:f32:ncdhw'];
    expect(() => mergeReports([first, outside], 'x', ['a', 'o'])).toThrow(
      "Cannot merge bench reports of different suite groups (a later report may only measure groups of the first one's suite): a:f32:ncdhw,b:f32:ncdhw,c:f32:ncdhw in a, d:f32:ncdhw in o",
    );
  });

  it('refuses other GPUs, cuDNNs, settings or cache states', () => {
    const b = shard2();
    b.ours = { cudnn: { version: '9.14.0', path: null } };
    expect(() => mergeReports([shard1(), b], 'x', ['a', 'b'])).toThrow(
      'Cannot merge bench reports of different our cuDNN: 9.19.0 in a, 9.14.0 in b',
    );
    const c = shard2();
    c.settings = { ...c.settings, rounds: 5 };
    expect(() => mergeReports([shard1(), c], 'x', ['a', 'c'])).toThrow(/different rounds: 3 in a/);
    const d = shard2();
    d.autotuneCache = { state: 'carried', path: null, entriesAtStart: 9 };
    expect(() => mergeReports([shard1(), d], 'x', ['a', 'd'])).toThrow(
      'Cannot merge bench reports of different autotune cache: cold in a, carried in d',
    );
    expect(() => mergeReports([], 'x')).toThrow(/at least one bench report/);
  });
});

describe('bench merge command', () => {
  it('writes the merged report', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-merge-'));
    writeFileSync(path.join(dir, 'one.json'), JSON.stringify(shard1()));
    writeFileSync(path.join(dir, 'two.json'), JSON.stringify(shard2()));
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t), cwd: dir };
    const argv = ['merge', '--label', 'both', '--out', 'o', 'one.json', 'two.json'];
    expect(await runBench(argv, io as never), err).toBe(0);
    const merged = JSON.parse(readFileSync(path.join(dir, 'o', 'bench-both.json'), 'utf8'));
    expect(merged.rows).toHaveLength(2);
    expect(out).toMatch(/Verdicts and geometric means/);
    expect(err).toMatch(/wrote .*bench-both\.md/);
  });

  it('exits 2 naming both files when the commits differ', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-merge-'));
    writeFileSync(path.join(dir, 'one.json'), JSON.stringify(shard1()));
    const other = report('two', 't', [row('b|f32|ncdhw|fw', 1)], 'abcdef1');
    writeFileSync(path.join(dir, 'two.json'), JSON.stringify(other));
    let err = '';
    const io = { stdout: () => {}, stderr: (t: string) => (err += t), cwd: dir };
    expect(await runBench(['merge', '--label', 'l', 'one.json', 'two.json'], io as never)).toBe(2);
    expect(err).toContain(
      `bench merge: Cannot merge bench reports of different commits: ${COMMIT} in one.json, abcdef1 in two.json`,
    );
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
