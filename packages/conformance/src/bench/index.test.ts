import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from './fake-backend.test-helpers.js';
import { type BenchIo, defaultOutDir, outputPaths, runBench } from './index.js';
import type { BenchReport } from './types.js';

function io(backend: FakeBackend | null, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const value: BenchIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    openBackend: async () =>
      backend
        ? { backend }
        : { unavailable: 'No CUDA GPU: libcuda.so.1 not found. Searched: libcuda.so.1.' },
    cwd,
    identify: async () => ({
      commit: 'abcdef1',
      driver: '580.159.04',
      autotuneCache: { state: 'cold', path: '/tmp/cache.json', entriesAtStart: 0 },
    }),
  };
  return { value, out, err };
}

describe('runBench', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'bench-run-'));

  it('prints the usage for --help and exits 0 without opening a GPU', async () => {
    const t = io(null, cwd);
    expect(await runBench(['--help'], t.value)).toBe(0);
    expect(t.out.join('')).toContain('Usage: bench [options]');
  });

  it('exits 2 with the exact message for a bad flag', async () => {
    const t = io(null, cwd);
    expect(await runBench(['--reps', 'x'], t.value)).toBe(2);
    expect(t.err.join('')).toBe(
      'bench: Expected a positive integer for --reps but received "x" of type string\nRun bench --help for the options.\n',
    );
  });

  it('exits 2 for an unreadable suite, naming it', async () => {
    const t = io(null, cwd);
    expect(await runBench(['--suite', 'missing.json'], t.value)).toBe(2);
    expect(t.err.join('')).toContain(
      `bench: Expected a readable suite file or JSON text for suite but received "${path.join(cwd, 'missing.json')}`,
    );
  });

  it('exits 2 when the filters leave nothing to run', async () => {
    const t = io(null, cwd);
    expect(await runBench(['--cases', 'nope'], t.value)).toBe(2);
    expect(t.err.join('')).toMatch(/^bench: nothing to run\. Unknown case names ignored: nope/);
  });

  it('hands --max-workspace-mib (as bytes) and --outputs to the backend', async () => {
    const seen: unknown[] = [];
    const t = io(null, cwd);
    const open = t.value.openBackend;
    t.value.openBackend = (options) => {
      seen.push([options.maxWorkspaceBytes, options.outputs]);
      return open(options);
    };
    await runBench(
      ['--dtypes', 'f16', '--max-workspace-mib', '2048', '--outputs=rotated'],
      t.value,
    );
    await runBench(['--dtypes', 'f16'], t.value);
    expect(seen).toEqual([
      [2048 * 2 ** 20, 'rotated'],
      [undefined, 'shared'],
    ]);
  });

  it('says there is no GPU and exits 1, measuring nothing', async () => {
    const t = io(null, cwd);
    expect(await runBench(['--dtypes', 'f16'], t.value)).toBe(1);
    expect(t.err.join('')).toBe(
      'bench: no GPU to benchmark on, so nothing was measured.\nNo CUDA GPU: libcuda.so.1 not found. Searched: libcuda.so.1.\n',
    );
  });

  it('runs the shared suite on a backend and writes markdown, JSON and SVG with the label', async () => {
    const backend = new FakeBackend({ timeMs: (g) => (g.dtype === 'f64' ? 3 : 0.5) });
    const t = io(backend, cwd);
    const out = path.join(cwd, 'results');
    const code = await runBench(
      [
        '--cases',
        'pointwise,x3d-depthwise',
        '--algos',
        'heuristic,autotune',
        '--reps',
        '3',
        '--out',
        out,
        '--label',
        'system',
      ],
      t.value,
    );
    expect(code).toBe(0);
    expect(backend.disposed).toBe(true);
    const paths = outputPaths(out, 'system');
    for (const p of [paths.markdown, paths.json, paths.svg]) expect(existsSync(p)).toBe(true);
    const report = JSON.parse(readFileSync(paths.json, 'utf8')) as BenchReport;
    expect(report.label).toBe('system');
    // 2 cases × (f32, tf32, f16×2, bf16×2, f64) × 4 passes: both cases are under the f64 budget.
    expect(report.rows.length).toBe(2 * 7 * 4);
    expect(report.provenance?.commit).toBe('abcdef1');
    expect(report.suiteGroups).toHaveLength(14);
    expect(report.rows[0]!.id).toBe('x3d-depthwise|f32|ncdhw|fw');
    expect(report.rows.every((r) => r.modes.length === 2)).toBe(true);
    expect(t.out.join('')).toBe(readFileSync(paths.markdown, 'utf8'));
    expect(t.out.join('')).toContain('# conv3d benchmark — system');
  });

  it('with --vs-torch but no working python, still writes our results and exits 1', async () => {
    const backend = new FakeBackend();
    const t = io(backend, cwd);
    const out = path.join(cwd, 'results-torch');
    const code = await runBench(
      [
        '--cases',
        'pointwise',
        '--dtypes',
        'f16',
        '--layouts',
        'ndhwc',
        '--algos',
        'heuristic',
      ].concat(
        ['--passes', 'fw,bwData,bwFilter', '--reps', '3', '--out', out, '--vs-torch'],
        ['--python', '/no/python'],
      ),
      t.value,
    );
    expect(code).toBe(1);
    const why = '/no/python was not found; pass --python with the interpreter that has torch';
    expect(t.err.join('')).toContain(
      `bench: PyTorch was not compared: default column: ${why}; tuned column: ${why}`,
    );
    const report = JSON.parse(readFileSync(outputPaths(out, '').json, 'utf8')) as BenchReport;
    expect(report.torchError).toBe(`default column: ${why}; tuned column: ${why}`);
    expect(report.rows.length).toBe(3);
    expect(report.notes).toContain(`PyTorch's host overhead (default) was not measured: ${why}`);
  });

  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    'with --vs-torch --rounds, takes turns with both PyTorch columns (python3 with a stand-in torch)',
    async () => {
      const backend = new FakeBackend({ timeMs: () => 0.5 });
      const t = io(backend, cwd);
      const out = path.join(cwd, 'results-turns');
      const saved = process.env.PYTHONPATH;
      process.env.PYTHONPATH = path.resolve(__dirname, '../../test/fake-torch');
      process.env.FAKE_TORCH_MS = '0.4';
      try {
        const code = await runBench(
          ['--cases', 'pointwise', '--dtypes', 'f32', '--algos', 'heuristic,autotune'].concat([
            '--reps',
            '3',
            '--rounds',
            '3',
            '--out',
            out,
            '--vs-torch',
            '--label',
            'turns',
          ]),
          t.value,
        );
        expect(code).toBe(0);
      } finally {
        process.env.PYTHONPATH = saved;
        delete process.env.FAKE_TORCH_MS;
      }
      const report = JSON.parse(
        readFileSync(outputPaths(out, 'turns').json, 'utf8'),
      ) as BenchReport;
      expect(report.settings.rounds).toBe(3);
      expect(report.torch?.default).toMatchObject({ device: 'Fake GPU', benchmark: false });
      expect(report.torch?.tuned).toMatchObject({ benchmark: true, benchmarkLimit: 0 });
      expect(report.rows).toHaveLength(4);
      for (const row of report.rows) {
        expect(row.torch?.default?.roundsMs).toEqual([0.4, 0.4, 0.4]);
        expect(row.torch?.tuned?.roundsMs).toEqual([0.4, 0.4, 0.4]);
        expect(row.peers?.default?.roundRatios).toEqual([0.505 / 0.4, 0.505 / 0.4, 0.505 / 0.4]);
        // ours 0.505 in every round, PyTorch 0.4: beyond a 0 spread, a loss in every round.
        expect(row.peers?.default?.verdict).toBe('loss');
        expect(row.peers?.tuned?.verdict).toBe('loss');
      }
      const sides = new Set(report.overhead.map((o) => o.side));
      expect(sides).toEqual(new Set(['ours:heuristic', 'torch:default', 'torch:tuned']));
      expect(report.overhead.filter((o) => o.side === 'torch:tuned')).toHaveLength(16);
      const md = readFileSync(outputPaths(out, 'turns').markdown, 'utf8');
      expect(md).toContain('per round, the median of 3 rounds');
      expect(md).toContain('- heuristic / torch default: 0 wins, 4 losses, 0 parity');
    },
  );

  it('runs only its shard, says which, and refuses a shard that holds nothing', async () => {
    const t = io(new FakeBackend(), cwd);
    const out = path.join(cwd, 'results-shard');
    const args = ['--cases', 'pointwise', '--dtypes', 'f32,f16', '--algos', 'heuristic'];
    expect(
      await runBench([...args, '--shard', '2/3', '--out', out, '--label', 's2'], t.value),
    ).toBe(0);
    const report = JSON.parse(readFileSync(outputPaths(out, 's2').json, 'utf8')) as BenchReport;
    expect(report.suiteGroups).toEqual([
      'pointwise:f32:ncdhw',
      'pointwise:f16:ncdhw',
      'pointwise:f16:ndhwc',
    ]);
    expect(report.shard?.index).toBe(2);
    expect(report.shard?.groups).toHaveLength(1);
    expect(report.notes.some((n) => n.startsWith('Shard 2 of 3: 1 of 3 groups, estimated'))).toBe(
      true,
    );
    const empty = io(new FakeBackend(), cwd);
    expect(await runBench([...args, '--shard', '4/4', '--out', out], empty.value)).toBe(2);
    expect(empty.err.join('')).toBe('bench: shard 4 of 4 holds no group (3 groups in all)\n');
  });

  it('defaults the output folder to the package when run from the repo root', () => {
    const repoRoot = path.resolve(__dirname, '../../../..');
    expect(defaultOutDir(repoRoot)).toBe(
      path.join(repoRoot, 'packages', 'conformance', 'bench-results'),
    );
    expect(defaultOutDir('/tmp')).toBe('/tmp/bench-results');
  });
});
