/**
 * The conformance suites on a real GPU, through the same runner functions as `check`. Skipped,
 * with the reason, where no NVIDIA GPU, driver or cuDNN 9 is found. Runs in one fork
 * (`pnpm test` runs this file on its own with --maxWorkers=1).
 */
import { describe, expect, it } from 'vitest';
import {
  checkAccumulate,
  checkAdjoint,
  checkBufferTooSmall,
  checkInvalidProblem,
  checkLeaks,
  checkReproducible,
  checkTwoStreams,
  checkWorkspaceTooSmall,
} from './check/extras.js';
import { formatRow } from './check/format.js';
import type { GpuApi, GpuStream } from './check/gpu-api.js';
import { freshSeed } from './check/host.js';
import type { CheckRow } from './check/rows.js';
import { buildCases, runCheck } from './check/run.js';
import { openGpu } from './check/stack.js';

const gpu = await openGpu();
const reason = gpu.available
  ? ''
  : ` — skipped: ${gpu.reason} (${gpu.details.filter((line) => !line.startsWith(' ')).join('; ')})`;
const seed = freshSeed();

function expectNoFailure(rows: readonly CheckRow[]): void {
  const failed = rows.filter((row) => row.status === 'fail');
  expect(failed.map(formatRow).join('\n'), `seed ${seed}`).toBe('');
  expect(rows.some((row) => row.status === 'pass')).toBe(true);
}

describe.skipIf(!gpu.available)(
  `conformance on the GPU (needs an NVIDIA GPU, its driver and cuDNN 9)${reason}`,
  () => {
    const api = (gpu as { api: GpuApi }).api;
    let stream: GpuStream;
    const open = () => {
      stream ??= api.createStream();
      return stream;
    };

    for (const suite of ['tiny', 'odd', 'grouped', 'shared-scaled'] as const) {
      it(`${suite}: every dtype × layout × pass × mode matches the f64 reference`, {
        timeout: 600_000,
      }, async () => {
        const report = await runCheck(api, {
          cases: buildCases({ suites: [suite] }),
          seed,
          extras: false,
        });
        expectNoFailure(report.rows);
      });
    }

    it('large f16/bf16 shapes (cuDNN 9.8–9.15 defect) are right or refused', {
      timeout: 600_000,
    }, async () => {
      const report = await runCheck(api, {
        cases: buildCases({ suites: ['large'] }),
        seed,
        algos: ['heuristic'],
        extras: false,
      });
      const failed = report.rows.filter((row) => row.status === 'fail');
      expect(failed.map(formatRow).join('\n'), `seed ${seed}`).toBe('');
    });

    it('adjoint identity on GPU results', async () => {
      expectNoFailure([
        await checkAdjoint(api, open(), 'ncdhw', seed),
        await checkAdjoint(api, open(), 'ndhwc', seed),
      ]);
    });

    it("'pinned' and deterministic plans are bit-identical across runs", async () => {
      const rows: CheckRow[] = [];
      for (const mode of ['pinned', 'deterministic'] as const) {
        for (const dtype of ['f32', 'f16'] as const) {
          for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
            rows.push(await checkReproducible(api, open(), mode, dtype, pass, seed));
          }
        }
      }
      expectNoFailure(rows);
    });

    it('beta = 1 accumulates', async () => {
      const rows: CheckRow[] = [];
      for (const dtype of ['f32', 'f64'] as const) {
        for (const pass of ['fw', 'bwData', 'bwFilter'] as const)
          rows.push(await checkAccumulate(api, open(), dtype, pass, seed));
      }
      expectNoFailure(rows);
    });

    it('WorkspaceTooSmall, BufferTooSmall and InvalidProblem are raised with nothing written', async () => {
      const rows = [
        await checkWorkspaceTooSmall(api, open(), seed),
        await checkBufferTooSmall(api, open(), 'fw', seed),
        await checkBufferTooSmall(api, open(), 'bwData', seed),
        await checkBufferTooSmall(api, open(), 'bwFilter', seed),
        ...(await checkInvalidProblem(api, open())),
      ];
      expectNoFailure(rows);
    });

    it('two plans on two streams', async () => {
      expectNoFailure([await checkTwoStreams(api, seed)]);
    });

    it('10,000 plan create/dispose cycles leak neither device nor host memory', {
      timeout: 600_000,
    }, async () => {
      expectNoFailure(await checkLeaks(api, open(), seed, 10_000, 100));
    });
  },
);
