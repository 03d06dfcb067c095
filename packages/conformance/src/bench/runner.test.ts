import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';
import { PEAK_GEMM_CASE } from './backend.js';
import { FakeBackend } from './fake-backend.test-helpers.js';
import { BIG, SMALL } from './fixtures.test-helpers.js';
import { benchGroup, decideCap } from './group.js';
import { convFlops } from './math.js';
import { measureOverhead, measurePeaks } from './peaks-overhead.js';
import { planGroups } from './rows.js';
import { runBenchReport } from './runner.js';
import type { TorchTurns } from './torch-worker.js';
import type { BenchGroup, TorchColumn, TorchInfo } from './types.js';

const INFO: TorchInfo = {
  torchVersion: '2.11',
  cudaVersion: '13.0',
  cudnn: { version: '9.19.0', path: null },
  cudnnLibraries: [],
  cudnnEnabled: true,
  device: 'Fake',
};

/** A scripted PyTorch column: `ms(pass, round)` per row, every request logged in `seen`. */
function fakeTurns(
  column: TorchColumn,
  ms: (pass: string, round: number) => number,
  seen: string[],
): TorchTurns {
  return {
    start: async () => ({ info: { ...INFO, column }, notes: [] }),
    round: async (group, round) => {
      seen.push(`${column} ${group.case.name} ${group.layout} round ${round}`);
      return group.passes.map((pass) => ({
        id: `${group.case.name}|${group.dtype}|${group.layout}|${pass}`,
        status: 'ok' as const,
        medianMs: ms(pass, round),
        usedCudnn: true,
        ...(round === 0 ? { firstCallMs: column === 'tuned' ? 900 : 40 } : {}),
      }));
    },
    release: async () => {
      seen.push(`${column} release`);
    },
    finish: async () => ({ notes: [`${column} finished`] }),
    close: async () => {
      seen.push(`${column} closed`);
    },
  };
}

const group = (dtype: BenchGroup['dtype'], layout: BenchGroup['layout'] = 'ncdhw'): BenchGroup => ({
  case: SMALL,
  dtype,
  layout,
  passes: ['fw', 'bwData', 'bwFilter'],
  sets: 4,
});
const timing = { reps: 30, warmup: 5, pinnedBudgetMs: 1500 };

describe('decideCap', () => {
  it('runs in full when warm-up + reps fit the budget', () => {
    expect(decideCap(10, 1500, 5, 30)).toEqual({ action: 'full' });
    expect(decideCap(1500 / 35, 1500, 5, 30)).toEqual({ action: 'full' });
  });
  it('caps the reps to what fits, at least 3', () => {
    expect(decideCap(100, 1500, 5, 30)).toEqual({
      action: 'capped',
      warmup: 1,
      reps: 14,
      note: 'one call took 100.0 ms; 14 reps fit the 1500 ms budget per row',
    });
    expect(decideCap(375, 1500, 5, 30)).toMatchObject({ action: 'capped', reps: 3 });
  });
  it('skips when one call is over a quarter of the budget', () => {
    expect(decideCap(335, 1000, 5, 30)).toEqual({
      action: 'skip',
      note: 'one call took 335.0 ms, over a quarter of the 1000 ms budget per row',
    });
  });
});

describe('benchGroup', () => {
  it('times every pass in every mode with the warm-up and reps asked for', async () => {
    const backend = new FakeBackend({
      timeMs: (_g, pass, mode) => (mode === 'autotune' ? 0.5 : pass === 'fw' ? 1 : 2),
    });
    const results = await benchGroup(
      group('f16', 'ndhwc'),
      ['heuristic', 'autotune'],
      timing,
      backend,
    );
    expect(results.get('fw')).toEqual([
      {
        mode: 'heuristic',
        status: 'ok',
        medianMs: 1.01,
        reps: 30,
        algorithm: 'heuristic-fw-engine',
        selectMs: expect.any(Number),
      },
      {
        mode: 'autotune',
        status: 'ok',
        medianMs: 0.505,
        reps: 30,
        algorithm: 'autotune-fw-engine',
        selectMs: expect.any(Number),
      },
    ]);
    // One selection per mode, shared by the group's passes.
    const fw = results.get('fw')!;
    expect(results.get('bwFilter')!.map((m) => m.selectMs)).toEqual(fw.map((m) => m.selectMs));
    expect(results.get('bwData')![0]!.medianMs).toBeCloseTo(2.02, 12);
    expect(backend.calls).toContain('small f16 ndhwc bwFilter autotune warmup=5 reps=30');
    expect(backend.openSessions).toBe(0);
    expect(backend.openPlans).toBe(0);
    // In one round, the heuristic plan is gone before autotune selects beside it.
    expect(backend.openAtSelect).toEqual([0, 0]);
  });

  it('probes pinned first, then caps or skips it by the budget', async () => {
    const backend = new FakeBackend({
      timeMs: (_g, pass, mode) =>
        mode !== 'pinned' ? 0.3 : pass === 'fw' ? 2 : pass === 'bwData' ? 400 : 100,
    });
    const results = await benchGroup(group('bf16'), ['pinned', 'heuristic'], timing, backend);
    expect(results.get('fw')![0]).toMatchObject({ mode: 'pinned', status: 'ok', reps: 30 });
    expect(results.get('bwData')![0]).toEqual({
      mode: 'pinned',
      status: 'skipped',
      algorithm: 'pinned-bwData-engine',
      note: 'one call took 400.0 ms, over a quarter of the 1500 ms budget per row',
      selectMs: expect.any(Number),
    });
    expect(results.get('bwFilter')![0]).toMatchObject({
      mode: 'pinned',
      status: 'capped',
      reps: 14,
      note: 'one call took 100.0 ms; 14 reps fit the 1500 ms budget per row',
    });
    // Every pass is probed when the plan is selected, before any is timed.
    expect(backend.calls.filter((c) => c.includes('pinned'))).toEqual([
      'small bf16 ncdhw fw pinned warmup=0 reps=1',
      'small bf16 ncdhw bwData pinned warmup=0 reps=1',
      'small bf16 ncdhw bwFilter pinned warmup=0 reps=1',
      'small bf16 ncdhw fw pinned warmup=5 reps=30',
      'small bf16 ncdhw bwFilter pinned warmup=1 reps=14',
    ]);
    // Heuristic is never probed nor capped.
    expect(
      backend.calls
        .filter((c) => c.includes('heuristic'))
        .every((c) => c.endsWith('warmup=5 reps=30')),
    ).toBe(true);
  });

  it('records UnsupportedError as unsupported and other failures as errors, never as a time', async () => {
    const backend = new FakeBackend({
      selectFails: (_g, mode) =>
        mode === 'pinned' ? 'unsupported' : mode === 'autotune' ? 'error' : undefined,
      runFails: (_g, pass) =>
        pass === 'bwFilter' ? 'unsupported' : pass === 'bwData' ? 'error' : undefined,
    });
    const results = await benchGroup(
      group('f16', 'ndhwc'),
      ['pinned', 'heuristic', 'autotune'],
      timing,
      backend,
    );
    expect(results.get('fw')).toEqual([
      { mode: 'pinned', status: 'unsupported', note: 'pinned cannot run small' },
      {
        mode: 'heuristic',
        status: 'ok',
        medianMs: 1.01,
        reps: 30,
        algorithm: 'heuristic-fw-engine',
        selectMs: expect.any(Number),
      },
      // A failed selection has no selection time.
      { mode: 'autotune', status: 'error', note: 'select autotune exploded' },
    ]);
    expect(results.get('bwFilter')![1]).toEqual({
      mode: 'heuristic',
      status: 'unsupported',
      note: 'heuristic has no bwFilter algorithm',
      algorithm: 'heuristic-bwFilter-engine',
      selectMs: expect.any(Number),
    });
    expect(results.get('bwData')![1]).toMatchObject({ status: 'error', note: 'bwData failed' });
    expect(backend.openPlans).toBe(0);
  });

  it('marks every mode of every pass when the inputs cannot be allocated', async () => {
    const backend = new FakeBackend({ openFails: () => true });
    const results = await benchGroup(group('f32'), ['heuristic'], timing, backend);
    expect(results.get('fw')).toEqual([
      { mode: 'heuristic', status: 'error', note: 'allocating inputs: out of memory' },
    ]);
  });
});

describe('measurePeaks and measureOverhead', () => {
  it('takes the best GEMM-shaped time of the heuristic mode over the layouts per dtype', async () => {
    const backend = new FakeBackend({
      timeMs: (g, _p, mode) => (g.layout === 'ndhwc' ? 0.2 : mode === 'autotune' ? 0.4 : 0.5),
      copyBytesPerS: 3.9e12,
    });
    const { peaks, notes } = await measurePeaks(
      { dtypes: ['f16', 'f32'], modes: ['pinned', 'heuristic', 'autotune'], ...timing },
      backend,
      () => {},
    );
    expect(notes).toEqual([]);
    expect(peaks.copyBytesPerS).toBe(3.9e12);
    const flops = convFlops(PEAK_GEMM_CASE);
    expect(peaks.gemmFlopsPerS.f16).toBeCloseTo(flops / (0.202 * 1e-3), 0);
    expect(peaks.gemmNotes.f16).toBe('heuristic ndhwc, 0.2020 ms');
    expect(peaks.gemmFlopsPerS.f32).toBeCloseTo(flops / (0.505 * 1e-3), 0);
    // No cold autotune of the GEMM shape: it would cost every shard of a run a minute.
    expect(backend.calls.every((c) => c.includes(' heuristic '))).toBe(true);
  });

  it('says why a dtype has no peak', async () => {
    const backend = new FakeBackend({ selectFails: () => 'unsupported' });
    const { peaks, notes } = await measurePeaks(
      { dtypes: ['f64'], modes: ['heuristic'], ...timing },
      backend,
      () => {},
    );
    expect(peaks.gemmFlopsPerS.f64).toBeUndefined();
    expect(notes).toEqual([
      'No GEMM-shaped peak for f64: heuristic ncdhw: unsupported (heuristic cannot run peak-gemm-1x1x1)',
    ]);
  });

  it('measures 1,000 calls × 5 trials of every pass on both layouts of each tiny problem', async () => {
    const backend = new FakeBackend({
      selectFails: (g) => (g.dtype === 'f16' && g.layout === 'ncdhw' ? 'unsupported' : undefined),
      runFails: (g, pass) =>
        g.dtype === 'f32' && g.layout === 'ndhwc' && pass === 'bwStep' ? 'error' : undefined,
    });
    const overhead = await measureOverhead(backend, ['fw', 'bwStep']);
    expect(overhead.map((o) => [o.side, o.dtype, o.layout, o.pass, o.usPerCall ?? o.note])).toEqual(
      [
        ['ours:heuristic', 'f32', 'ncdhw', 'fw', 10],
        ['ours:heuristic', 'f32', 'ncdhw', 'bwStep', 10],
        ['ours:heuristic', 'f32', 'ndhwc', 'fw', 10],
        ['ours:heuristic', 'f32', 'ndhwc', 'bwStep', 'error: bwStep failed'],
        ['ours:heuristic', 'f16', 'ncdhw', 'fw', 'unsupported: heuristic cannot run tiny'],
        ['ours:heuristic', 'f16', 'ncdhw', 'bwStep', 'unsupported: heuristic cannot run tiny'],
        ['ours:heuristic', 'f16', 'ndhwc', 'fw', 10],
        ['ours:heuristic', 'f16', 'ndhwc', 'bwStep', 10],
      ],
    );
    expect(backend.calls).toContain('overhead f32 ncdhw bwStep heuristic calls=1000 trials=5');
  });
});

describe('runBenchReport', () => {
  it('builds rows with metrics and provenance, stops at the time budget, and compares both columns', async () => {
    let clock = 0;
    const options = parseBenchArgs([
      '--dtypes',
      'f16',
      '--algos',
      'heuristic,autotune',
      '--passes',
      'fw,bwData,bwFilter',
      '--time-budget-s',
      '10',
      '--vs-torch',
    ]);
    const { groups, notes } = planGroups([SMALL, BIG], options);
    expect(groups.length).toBe(4);
    const backend = new FakeBackend({
      timeMs: (_g, _p, mode) => {
        clock += 2000;
        return mode === 'autotune' ? 0.4 : 0.5;
      },
    });
    const seen: string[] = [];
    const report = await runBenchReport(
      groups,
      [SMALL, BIG],
      options,
      {
        backend,
        log: () => {},
        now: () => clock,
        openTorchTurns: (column) => fakeTurns(column, () => (column === 'tuned' ? 0.5 : 1), seen),
        runTorchOverhead: async (column, passes) => ({
          overhead: passes.map((pass) => ({
            id: 'tiny',
            side: `torch:${column}`,
            dtype: 'f32' as const,
            layout: 'ncdhw' as const,
            pass,
            usPerCall: 30,
          })),
          notes: [],
        }),
      },
      notes,
      {
        commit: 'abcdef1',
        driver: '580.159.04',
        autotuneCache: { state: 'cold', path: '/c.json', entriesAtStart: 0 },
        suiteGroups: ['x'],
      },
    );
    expect(report.rows.length).toBe(12);
    const skipped = report.rows.filter((r) => r.modes.every((m) => m.status === 'skipped'));
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]!.modes[0]!.note).toBe('time budget of 10 s reached');
    expect(skipped[0]!.torch?.tuned?.status).toBe('skipped');
    expect(report.notes.some((n) => n.startsWith('Time budget of 10 s reached after'))).toBe(true);
    const first = report.rows[0]!;
    expect(first.id).toBe('small|f16|ncdhw|fw');
    expect(first.peers?.default?.ratio).toBeCloseTo(0.505, 12);
    expect(first.peers?.tuned?.ratio).toBeCloseTo(0.404 / 0.5, 12);
    expect(first.torch?.tuned?.firstCallMs).toBe(900);
    // Each measured group's wall time on every row of it (the shard table learns from it); none
    // on a group the budget skipped.
    const walls = report.rows
      .filter(
        (r) => `${r.case}${r.dtype}${r.layout}` === `${first.case}${first.dtype}${first.layout}`,
      )
      .map((r) => r.groupWallMs);
    expect(walls).toHaveLength(3);
    expect(walls[0]).toBeGreaterThan(0);
    expect(new Set(walls).size).toBe(1);
    expect(skipped[0]!.groupWallMs).toBeUndefined();
    expect(first.tflops).toBeGreaterThan(0);
    expect(first.provenance).toEqual({
      commit: 'abcdef1',
      date: report.startedAt,
      gpu: 'Fake GPU (sm_90, 132 SMs)',
      driver: '580.159.04',
      cudnnOurs: '9.14.0',
      cudnnTorch: '9.19.0',
    });
    expect(report.rows.every((r) => r.provenance?.commit === 'abcdef1')).toBe(true);
    expect(report.summary?.peers.map((p) => p.column)).toEqual(['default', 'tuned']);
    expect(report.torch?.tuned?.column).toBe('tuned');
    expect(report.autotuneCache?.state).toBe('cold');
    // Our overhead (every pass, both layouts of f32 and f16), then each column's fresh process.
    expect(report.overhead.filter((o) => o.side === 'ours:heuristic')).toHaveLength(12);
    expect(report.overhead.filter((o) => o.side === 'torch:default')).toHaveLength(3);
    expect(report.overhead.filter((o) => o.side === 'torch:tuned')).toHaveLength(3);
    expect(report.notes).toContain('default finished');
    expect(seen.slice(0, 4)).toEqual([
      'default small ncdhw round 0',
      'tuned small ncdhw round 0',
      'default release',
      'tuned release',
    ]);
  });

  it('starts no group whose estimate would end past the time budget', async () => {
    const options = parseBenchArgs([
      '--dtypes',
      'f32,tf32',
      '--algos',
      'heuristic',
      '--time-budget-s',
      '100',
    ]);
    const { groups } = planGroups([SMALL], options);
    const report = await runBenchReport(groups, [SMALL], options, {
      backend: new FakeBackend(),
      log: () => {},
      now: () => 0,
      estimateS: (g) => (g.dtype === 'tf32' ? 101 : 99),
    });
    expect(
      report.rows.filter((r) => r.dtype === 'f32').every((r) => r.modes[0]!.status === 'ok'),
    ).toBe(true);
    expect(
      report.rows.filter((r) => r.dtype === 'tf32').every((r) => r.modes[0]!.status === 'skipped'),
    ).toBe(true);
  });

  it('measures host overhead only in shard 1 of a sharded run', async () => {
    const options = parseBenchArgs(['--dtypes', 'f32', '--algos', 'heuristic', '--passes', 'fw']);
    const { groups } = planGroups([SMALL], options);
    const identity = (index: number) => ({
      commit: 'abcdef1',
      driver: null,
      autotuneCache: { state: 'cold' as const, path: null, entriesAtStart: 0 },
      suiteGroups: ['small:f32:ncdhw'],
      shard: { index, count: 2, groups: ['small:f32:ncdhw'] },
    });
    const context = { backend: new FakeBackend(), log: () => {} };
    const second = await runBenchReport(groups, [SMALL], options, context, [], identity(2));
    expect(second.overhead).toEqual([]);
    expect(second.notes).toContain('Host overhead is measured in shard 1 of a sharded run.');
    expect(second.shard?.index).toBe(2);
    const firstShard = await runBenchReport(groups, [SMALL], options, context, [], identity(1));
    expect(firstShard.overhead.length).toBe(4);
  });
});

describe('--tuned-on', () => {
  it('runs autotune and PyTorch tuned only on the named dtype:layout groups', async () => {
    const options = parseBenchArgs(
      ['--dtypes', 'f16', '--algos', 'heuristic,autotune', '--passes', 'fw'].concat([
        '--vs-torch',
        '--rounds',
        '2',
        '--tuned-on',
        'f16:ndhwc',
      ]),
    );
    const { groups } = planGroups([SMALL], options);
    const seen: string[] = [];
    const backend = new FakeBackend();
    const report = await runBenchReport(groups, [SMALL], options, {
      backend,
      log: () => {},
      openTorchTurns: (column) => fakeTurns(column, () => 1, seen),
    });
    expect(seen.filter((s) => s.startsWith('tuned small'))).toEqual([
      'tuned small ndhwc round 0',
      'tuned small ndhwc round 1',
    ]);
    expect(backend.calls.filter((c) => c.includes('autotune'))).toEqual([
      'small f16 ndhwc fw autotune warmup=5 reps=30',
      'small f16 ndhwc fw autotune warmup=5 reps=30',
    ]);
    const nc = report.rows.find((r) => r.layout === 'ncdhw')!;
    expect(nc.modes.map((m) => m.mode)).toEqual(['heuristic']);
    expect(nc.peers?.tuned).toBeUndefined();
    expect(report.rows.find((r) => r.layout === 'ndhwc')!.peers?.tuned?.mode).toBe('autotune');
    expect(report.settings.tunedOn).toEqual(['f16:ndhwc']);
  });
});

describe('rounds taken in turns', () => {
  it('times every mode × pass once per round, hands over after each round, and reports the median of the rounds', async () => {
    const log: string[] = [];
    let call = 0;
    // Rounds of 1, 3 and 2 ms: the median of the rounds is 2 (× the fake's 1.01 spread).
    const perRound = [1, 3, 2];
    const backend = new FakeBackend({ timeMs: () => perRound[Math.floor(call++ / 6)]! });
    const results = await benchGroup(
      group('f16', 'ndhwc'),
      ['heuristic', 'autotune'],
      timing,
      backend,
      {
        rounds: 3,
        afterRound: async (round) => {
          log.push(`torch round ${round}`, `ours so far ${backend.calls.length}`);
        },
      },
    );
    expect(log).toEqual([
      'torch round 0',
      'ours so far 6',
      'torch round 1',
      'ours so far 12',
      'torch round 2',
      'ours so far 18',
    ]);
    for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
      for (const m of results.get(pass)!) {
        expect(m.roundsMs).toEqual([1.01, 3.0300000000000002, 2.02]);
        expect(m.medianMs).toBe(2.02);
        expect(m.spread).toBeCloseTo((3.03 - 1.01) / 2.02, 12);
        expect(m.reps).toBe(90);
      }
    }
    expect(backend.openPlans).toBe(0);
    expect(backend.openSessions).toBe(0);
    // In rounds, every mode's plan stays selected across them.
    expect(backend.openAtSelect).toEqual([0, 1]);
  });

  it('ends a timing that fails in a later round with the round named, and still gives PyTorch its turns', async () => {
    let calls = 0;
    const turns: number[] = [];
    const backend = new FakeBackend({
      runFails: (_g, pass) => (pass === 'bwData' && ++calls === 2 ? 'error' : undefined),
    });
    const results = await benchGroup(group('f32'), ['heuristic'], timing, backend, {
      rounds: 3,
      afterRound: async (r) => {
        turns.push(r);
      },
    });
    expect(results.get('bwData')![0]).toMatchObject({
      mode: 'heuristic',
      status: 'error',
      note: 'round 2 of 3: bwData failed',
    });
    expect(results.get('fw')![0]!.roundsMs).toHaveLength(3);
    expect(turns).toEqual([0, 1, 2]);
    // A group whose inputs cannot be allocated still gives PyTorch every round.
    const broken = new FakeBackend({ openFails: () => true });
    const later: number[] = [];
    await benchGroup(group('f32'), ['heuristic'], timing, broken, {
      rounds: 2,
      afterRound: async (r) => {
        later.push(r);
      },
    });
    expect(later).toEqual([0, 1]);
  });

  it('takes turns with both columns, pairs the rounds, and gives verdicts that respect noise', async () => {
    const options = parseBenchArgs([
      '--dtypes',
      'f16',
      '--algos',
      'heuristic',
      '--passes',
      'fw,bwData,bwFilter',
      '--vs-torch',
      '--rounds',
      '3',
    ]);
    const { groups } = planGroups([SMALL], options);
    const backend = new FakeBackend({ timeMs: (_g, pass) => (pass === 'fw' ? 1 : 0.5) });
    const seen: string[] = [];
    // PyTorch default: fw 0.9 ms every round (we lose every round, beyond the spread); bwData
    // 0.6, 0.4, 0.6 (we win on the median but lose round 2: parity); bwFilter 1 ms (we win).
    const torchMs: Record<string, number[]> = {
      fw: [0.9, 0.9, 0.9],
      bwData: [0.6, 0.4, 0.6],
      bwFilter: [1, 1, 1],
    };
    const report = await runBenchReport(groups, [SMALL], options, {
      backend,
      log: () => {},
      openTorchTurns: (column) => fakeTurns(column, (pass, round) => torchMs[pass]![round]!, seen),
    });
    // Without our autotune mode, PyTorch tuned (its peer) is never asked.
    expect(seen).toEqual([
      'default small ncdhw round 0',
      'default small ncdhw round 1',
      'default small ncdhw round 2',
      'default release',
      'default small ndhwc round 0',
      'default small ndhwc round 1',
      'default small ndhwc round 2',
      'default release',
    ]);
    expect(report.settings.rounds).toBe(3);
    const row = (id: string) => report.rows.find((r) => r.id === id)!;
    expect(row('small|f16|ncdhw|fw').torch?.default?.roundsMs).toEqual([0.9, 0.9, 0.9]);
    const fw = row('small|f16|ncdhw|fw').peers!.default!;
    expect(fw.roundRatios).toEqual([1.01 / 0.9, 1.01 / 0.9, 1.01 / 0.9]);
    expect(fw.verdict).toBe('loss');
    const bwData = row('small|f16|ncdhw|bwData').peers!.default!;
    expect(bwData.ratio).toBeCloseTo(0.505 / 0.6, 12);
    expect(bwData.verdict).toBe('parity');
    expect(row('small|f16|ncdhw|bwFilter').peers!.default!.verdict).toBe('win');
    // Only the heuristic mode ran: nothing is compared with the tuned column.
    expect(row('small|f16|ncdhw|fw').peers?.tuned).toBeUndefined();
    const d = report.summary!.peers.find((p) => p.column === 'default')!;
    expect([d.wins, d.losses, d.parity]).toEqual([2, 2, 2]);
    expect(d.lossRows).toEqual([
      'small|f16|ncdhw|fw 1.122× (rounds 1.122–1.122×, spread 0.0%)',
      'small|f16|ndhwc|fw 1.122× (rounds 1.122–1.122×, spread 0.0%)',
    ]);
    expect(report.notes).toEqual(expect.arrayContaining(['default finished', 'tuned finished']));
  });

  it('says why a PyTorch column could not take turns and still reports our rows', async () => {
    const options = parseBenchArgs([
      '--dtypes',
      'f32',
      '--algos',
      'heuristic',
      '--vs-torch',
      '--rounds',
      '2',
    ]);
    const { groups } = planGroups([SMALL], options);
    const closed: string[] = [];
    const report = await runBenchReport(groups, [SMALL], options, {
      backend: new FakeBackend(),
      log: () => {},
      openTorchTurns: (column) => ({
        start: async () => ({ error: 'python3 was not found', notes: [] }),
        round: async () => {
          throw new Error('no rounds after a failed start');
        },
        release: async () => {},
        finish: async () => {
          throw new Error('no finish after a failed start');
        },
        close: async () => {
          closed.push(column);
        },
      }),
    });
    expect(report.torchError).toBe(
      'default column: python3 was not found; tuned column: python3 was not found',
    );
    expect(closed).toEqual(['default', 'tuned']);
    expect(report.summary).toBeUndefined();
    expect(report.rows.every((r) => r.modes[0]!.roundsMs?.length === 2)).toBe(true);
  });
});
