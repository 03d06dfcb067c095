/**
 * The bench on a real GPU: a tiny suite through the CUDA backend. Skips, saying why, where there
 * is no GPU (CI); runs in the GPU suites on the device machine.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputPaths, runBench } from './index.js';
import type { BenchReport } from './types.js';

let available = false;
let reason = '';
try {
  const driver = await import('@baracuda/driver');
  const probe = driver.probe();
  available = probe.available && probe.deviceCount > 0;
  reason = available ? '' : `no CUDA GPU: ${String(probe.reason).split('\n')[0]}`;
} catch (error) {
  reason = `@baracuda/driver could not be loaded: ${(error as Error).message.split('\n')[0]}`;
}

describe.skipIf(!available)(`bench on the GPU${available ? '' : ` (skipped: ${reason})`}`, () => {
  it('times a tiny suite in every mode and writes the reports', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-gpu-'));
    const suite = path.join(dir, 'suite.json');
    writeFileSync(
      suite,
      JSON.stringify({
        cases: [
          {
            name: 'tiny-gpu',
            n: 2,
            c_in: 16,
            c_out: 32,
            in: [8, 16, 16],
            k: [3, 3, 3],
            pad: [1, 1, 1],
          },
        ],
      }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await runBench(
      [
        '--suite',
        suite,
        '--dtypes',
        'f32,f16',
        '--reps',
        '5',
        '--warmup',
        '2',
        '--out',
        dir,
        '--label',
        'gpu-test',
      ],
      {
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
        openBackend: async () => (await import('./cuda-backend.js')).createCudaBackend(),
        cwd: dir,
      },
    );
    expect(code, err.join('')).toBe(0);
    const report = JSON.parse(
      readFileSync(outputPaths(dir, 'gpu-test').json, 'utf8'),
    ) as BenchReport;
    expect(report.peaks.copyBytesPerS).toBeGreaterThan(1e11);
    expect(report.peaks.gemmFlopsPerS.f16).toBeGreaterThan(1e12);
    expect(report.rows.length).toBe(3 * 3);
    for (const row of report.rows) {
      // Every row has a time from at least the heuristic mode; nothing is recorded as 0 ms.
      expect(row.bestMs, row.id).toBeGreaterThan(0);
      for (const m of row.modes)
        if (m.medianMs !== undefined) expect(m.medianMs).toBeGreaterThan(0);
    }
    expect(report.overhead.some((o) => o.side === 'ours:heuristic' && (o.usPerCall ?? 0) > 0)).toBe(
      true,
    );
  });
});
