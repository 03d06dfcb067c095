import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIG, SMALL } from './fixtures.test-helpers.js';
import { buildTorchJob, readTorchResults, spawnTorchScript } from './torch.js';
import { combineTorchRounds, parseReply, TorchWorker, workerTurns } from './torch-worker.js';
import type { BenchGroup } from './types.js';

const scriptPath = path.resolve(__dirname, '../../bench/torch_conv3d_bench.py');
const fakeTorch = path.resolve(__dirname, '../../test/fake-torch');
const group: BenchGroup = {
  case: SMALL,
  dtype: 'f16',
  layout: 'ndhwc',
  passes: ['fw', 'bwData', 'bwFilter'],
  sets: 2,
};
const settings = { warmup: 1, reps: 3, timeoutMs: 20_000 };
const withStep: BenchGroup = { ...group, passes: ['fw', 'bwData', 'bwFilter', 'bwStep'] };

describe('parseReply', () => {
  it('takes an ok object and names what the worker said otherwise', () => {
    expect(parseReply('{"ok": true, "rows": []}')).toEqual({
      ok: true,
      reply: { ok: true, rows: [] },
    });
    expect(parseReply('{"ok": false, "error": "Expected x but received y"}')).toEqual({
      ok: false,
      error: 'Expected x but received y',
    });
    expect(parseReply('[1]')).toEqual({ ok: false, error: 'the PyTorch worker replied [1]' });
    expect(parseReply('Traceback (most recent call last):')).toEqual({
      ok: false,
      error: 'the PyTorch worker wrote a line that is not JSON: Traceback (most recent call last):',
    });
  });
});

describe('combineTorchRounds', () => {
  it('takes the median of the rounds, keeps each, and the first round’s first call', () => {
    expect(
      combineTorchRounds([
        { id: 'r', status: 'ok', medianMs: 2, reps: 30, usedCudnn: true, firstCallMs: 900 },
        { id: 'r', status: 'ok', medianMs: 1, reps: 30 },
        { id: 'r', status: 'ok', medianMs: 3, reps: 30 },
      ]),
    ).toEqual({
      id: 'r',
      status: 'ok',
      medianMs: 2,
      reps: 90,
      roundsMs: [2, 1, 3],
      spread: 1,
      usedCudnn: true,
      firstCallMs: 900,
    });
  });
  it('keeps the rounds it has and says how many failed; with none, the first failure', () => {
    expect(
      combineTorchRounds([
        { id: 'r', status: 'ok', medianMs: 2, reps: 30 },
        { id: 'r', status: 'error', note: 'RuntimeError: boom' },
      ]),
    ).toMatchObject({
      status: 'ok',
      medianMs: 2,
      note: '1 of 2 rounds failed: RuntimeError: boom',
    });
    const failed = { id: 'r', status: 'error' as const, note: 'out of memory' };
    expect(combineTorchRounds([failed, { id: 'r', status: 'error' }])).toBe(failed);
  });
});

describe('TorchWorker failures (no python needed)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-worker-'));
  it('says how to fix a missing interpreter', async () => {
    const turns = workerTurns(new TorchWorker('/no/such/python3', 'x.py'), settings);
    expect(await turns.start()).toEqual({
      error: '/no/such/python3 was not found; pass --python with the interpreter that has torch',
      notes: [],
    });
  });

  it('kills a worker that gives no reply in time, and every later request says so', async () => {
    const silent = path.join(dir, 'silent.js');
    writeFileSync(silent, 'process.stdin.resume();');
    const worker = new TorchWorker(process.execPath, silent);
    const first = await worker.request({ op: 'hello' }, 200);
    expect(first).toEqual({
      ok: false,
      error: 'the PyTorch worker gave no reply to hello in 200 ms',
    });
    expect(await worker.request({ op: 'group' }, 200)).toEqual(first);
    await worker.close(500);
  });

  it('reports a worker that dies, with the end of its stderr', async () => {
    const dying = path.join(dir, 'dying.js');
    writeFileSync(dying, 'console.error("ImportError: no torch"); process.exit(3);');
    const worker = new TorchWorker(process.execPath, dying);
    expect(await worker.request({ op: 'hello' }, 5_000)).toEqual({
      ok: false,
      error: 'the PyTorch worker exited (3): ImportError: no torch',
    });
  });
});

const python = spawnSync('python3', ['--version']).status === 0;
describe.skipIf(!python)('torch_conv3d_bench.py with a stand-in torch (needs python3)', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.PYTHONPATH = fakeTorch;
  });
  afterEach(() => {
    for (const key of Object.keys(process.env))
      if (key.startsWith('FAKE_TORCH')) delete process.env[key];
    process.env.PYTHONPATH = saved.PYTHONPATH ?? fakeTorch;
  });

  it('serves rounds of a group: the first calls timed on the first round, the same tensors after', async () => {
    process.env.FAKE_TORCH_MS_bwData = '0.75';
    const lines: string[] = [];
    const worker = new TorchWorker('python3', scriptPath, (l) => lines.push(l), 'default');
    const turns = workerTurns(worker, settings);
    const started = await turns.start();
    expect(started.error).toBeUndefined();
    expect(started.info).toMatchObject({
      torchVersion: '0.0-fake',
      device: 'Fake GPU',
      cudnn: { version: '9.19.0' },
      column: 'default',
      benchmark: false,
    });
    const first = await turns.round(withStep, 0);
    expect(first.map((r) => [r.id, r.status, r.medianMs, r.reps])).toEqual([
      ['small|f16|ndhwc|fw', 'ok', 0.5, 3],
      ['small|f16|ndhwc|bwData', 'ok', 0.75, 3],
      ['small|f16|ndhwc|bwFilter', 'ok', 0.5, 3],
      ['small|f16|ndhwc|bwStep', 'ok', 0.5, 3],
    ]);
    expect(first.every((r) => typeof r.firstCallMs === 'number' && r.firstCallMs >= 0)).toBe(true);
    const second = await turns.round(withStep, 1);
    expect(second.every((r) => r.firstCallMs === undefined)).toBe(true);
    expect(second[1]!.medianMs).toBe(0.75);
    await turns.release();
    const finished = await turns.finish();
    expect(finished.info?.column).toBe('default');
    expect(worker.dead).toMatch(/^the PyTorch worker exited \(0\)/);
    expect(lines).toContain('  default bwData: 0.7500 ms (cuDNN: None)');
  });

  it.each([
    ['default', 'benchmark=False limit=10'],
    ['tuned', 'benchmark=True limit=0'],
  ] as const)(
    'times the %s column with %s and never imports the profiler',
    async (column, settingsText) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-torch-log-'));
      const log = path.join(dir, 'calls.log');
      process.env.FAKE_TORCH_LOG = log;
      const worker = new TorchWorker('python3', scriptPath, () => {}, column);
      const turns = workerTurns(worker, settings);
      expect((await turns.start()).info).toMatchObject({
        column,
        benchmark: column === 'tuned',
        benchmarkLimit: column === 'tuned' ? 0 : 10,
      });
      for (let round = 0; round < 2; round++)
        expect((await turns.round(withStep, round)).map((r) => r.status)).toEqual([
          'ok',
          'ok',
          'ok',
          'ok',
        ]);
      await turns.finish();
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      // Two rounds of (warm-up 1 + 3 reps) per pass, one first call per pass, and bwStep's graph.
      expect(calls.length).toBeGreaterThan(30);
      expect(new Set(calls.map((c) => c.replace(/^\S+ /, '')))).toEqual(
        new Set([`${settingsText} profiler=False`]),
      );
      expect(calls.filter((c) => c.startsWith('bwStep '))).toHaveLength(2 * (1 + 3) + 1);
    },
  );

  it('answers a bad request with what it expected, and keeps serving', async () => {
    process.env.FAKE_TORCH_FAIL = 'bwFilter';
    const worker = new TorchWorker('python3', scriptPath);
    const mixed = workerTurns(worker, settings);
    const bad = await worker.request({ op: 'group', rows: [], warmup: 1, reps: 3 }, 20_000);
    expect(bad).toEqual({ ok: false, error: 'Expected a non-empty list for rows but received []' });
    expect(await worker.request({ op: 'sideways' }, 20_000)).toEqual({
      ok: false,
      error:
        "Expected a request object with op one of hello, group, release, overhead, quit but received {'op': 'sideways'}",
    });
    // A failing pass is an error row; the others are timed.
    const rows = await mixed.round(group, 1);
    expect(rows.map((r) => r.status)).toEqual(['ok', 'ok', 'error']);
    expect(rows[2]!.note).toBe('RuntimeError: fake failure in bwFilter');
    await worker.close();
  });

  it('keeps what libraries print to stdout off its reply channel', async () => {
    process.env.FAKE_TORCH_NOISE = '1';
    const lines: string[] = [];
    const worker = new TorchWorker('python3', scriptPath, (l) => lines.push(l));
    const turns = workerTurns(worker, settings);
    expect((await turns.start()).error).toBeUndefined();
    expect((await turns.round(group, 0)).map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(lines).toContain('a C library printing to stdout');
    await worker.close();
  });

  it('refuses to serve without CUDA, saying so', async () => {
    process.env.FAKE_TORCH_CUDA = '0';
    const turns = workerTurns(new TorchWorker('python3', scriptPath), settings);
    expect(await turns.start()).toEqual({ error: 'torch.cuda.is_available() is False', notes: [] });
  });

  it('runs a whole job in one go (the batch run) with the same timing code', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-batch-'));
    const job = buildTorchJob(
      [group, { case: BIG, dtype: 'tf32', layout: 'ncdhw', passes: ['bwFilter'], sets: 1 }],
      { label: 'x', warmup: 1, reps: 4, timeBudgetS: 0, column: 'default' },
    );
    writeFileSync(path.join(dir, 'job.json'), JSON.stringify(job));
    process.env.FAKE_TORCH_MS = '0.25';
    const outcome = await spawnTorchScript(
      'python3',
      scriptPath,
      path.join(dir, 'job.json'),
      path.join(dir, 'out.json'),
      20_000,
    );
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    const parsed = readTorchResults(path.join(dir, 'out.json'));
    expect(parsed.rows.map((r) => [r.id, r.status, r.medianMs, r.reps])).toEqual([
      ['small|f16|ndhwc|fw', 'ok', 0.25, 4],
      ['small|f16|ndhwc|bwData', 'ok', 0.25, 4],
      ['small|f16|ndhwc|bwFilter', 'ok', 0.25, 4],
      ['big|tf32|ncdhw|bwFilter', 'ok', 0.25, 4],
    ]);
    expect(parsed.info.device).toBe('Fake GPU');
    expect(parsed.info.benchmark).toBe(false);
    // Every pass on both layouts of f32 and f16, in this (fresh) process, as the default column.
    expect(parsed.overhead).toHaveLength(16);
    expect(new Set(parsed.overhead.map((o) => o.side))).toEqual(new Set(['torch:default']));
    expect(parsed.overhead.every((o) => (o.usPerCall ?? 0) > 0)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8')).finished).toBe(true);
  });
});
