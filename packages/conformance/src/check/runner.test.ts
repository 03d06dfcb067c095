import { describe, expect, it } from 'vitest';
import { countConvRows } from '../cli/check.js';
import { TINY_SUITE } from '../suite/index.js';
import { checkConv, sampleIndices, toProblem } from './conv.js';
import {
  checkAccumulate,
  checkAdjoint,
  checkBufferTooSmall,
  checkInvalidProblem,
  checkLeaks,
  checkReproducible,
  checkTwoStreams,
  checkWorkspaceTooSmall,
  EXTRAS_CASE,
} from './extras.js';
import { FakeGpu } from './fake-gpu.js';
import { formatHeader, formatRow } from './format.js';
import { countNaNStored, decodeAt, encode, Rng, randomTensor } from './host.js';
import { countRows, summaryLine } from './rows.js';
import { buildCases, runCheck } from './run.js';
import { type CheckDtype, TOLERANCES } from './tolerances.js';

const SEED = '0123456789abcdef';
const CASE = TINY_SUITE.find((c) => c.k[0] === 3) ?? TINY_SUITE[0]!;

function spec(overrides: Partial<Parameters<typeof checkConv>[2]> = {}) {
  return {
    caseName: CASE.name,
    suiteCase: CASE,
    dtype: 'f32' as const,
    layout: 'ncdhw' as const,
    algorithm: 'heuristic' as const,
    passes: ['fw', 'bwData', 'bwFilter'] as const,
    maxMacs: 1e9,
    seed: SEED,
    ...overrides,
  };
}

describe('checkConv on a correct (fake) plan', () => {
  it.each(['f32', 'tf32', '3xtf32', 'f64', 'f16', 'bf16'] as const)(
    'passes every pass in %s',
    async (dtype) => {
      const gpu = new FakeGpu();
      for (const layout of ['ncdhw', 'ndhwc'] as const) {
        const rows = await checkConv(gpu, gpu.createStream(), spec({ dtype, layout }));
        expect(rows.map((r) => [r.pass, r.status, r.unwritten])).toEqual([
          ['fw', 'pass', 0],
          ['bwData', 'pass', 0],
          ['bwFilter', 'pass', 0],
        ]);
        for (const row of rows) expect(row.error!).toBeLessThanOrEqual(TOLERANCES[dtype].relL2);
      }
      expect(gpu.allocated).toBe(0);
      expect(gpu.plansAlive).toBe(0);
    },
  );

  it('compares on sampled points when the case is past the MAC budget', async () => {
    const gpu = new FakeGpu();
    const rows = await checkConv(gpu, gpu.createStream(), spec({ maxMacs: 0, samplePoints: 7 }));
    expect(rows.map((r) => r.status)).toEqual(['pass', 'pass', 'pass']);
    for (const row of rows) expect(row.sampledPoints).toBeGreaterThan(1);
    expect(rows[0]!.sampledPoints).toBeLessThanOrEqual(7);
  });
});

describe('checkConv catches wrong plans', () => {
  it('fails rows whose output was left partly unwritten (poison survives)', async () => {
    const gpu = new FakeGpu({ unwritten: 1 });
    const rows = await checkConv(gpu, gpu.createStream(), spec({ dtype: 'f16' }));
    expect(rows.every((r) => r.status === 'fail' && r.unwritten === 1)).toBe(true);
    expect(rows[0]!.detail).toMatch(/^1 of \d+ output elements unwritten or NaN/);
  });

  it('fails rows past the tolerance, with the error in the detail', async () => {
    const gpu = new FakeGpu({ perturb: 1e-3 });
    const rows = await checkConv(gpu, gpu.createStream(), spec());
    expect(rows[0]!.status).toBe('fail');
    expect(rows[0]!.detail).toBe('relative L2 error 1.00e-3 exceeds 1.00e-5');
    // The same perturbation is within the f16 tolerance: the table is per precision.
    const f16 = await checkConv(gpu, gpu.createStream(), spec({ dtype: 'f16' }));
    expect(f16.every((r) => r.status === 'pass')).toBe(true);
  });

  it('lists UnsupportedError as unsupported, never as a pass', async () => {
    const gpu = new FakeGpu();
    const rows = await checkConv(
      gpu,
      gpu.createStream(),
      spec({ algorithm: 'pinned', layout: 'ndhwc' }),
    );
    expect(rows.map((r) => [r.status, r.detail])).toEqual(
      Array(3).fill([
        'unsupported',
        'unsupported: pinned forward IMPLICIT_GEMM does not support NDHWC',
      ]),
    );
  });

  it('turns any other error into a FAIL row and keeps going', async () => {
    const gpu = new FakeGpu({
      runError: (pass) => (pass === 'bwData' ? new TypeError('boom') : undefined),
    });
    const rows = await checkConv(gpu, gpu.createStream(), spec());
    expect(rows.map((r) => r.status)).toEqual(['pass', 'fail', 'pass']);
    expect(rows[1]!.detail).toBe('TypeError: boom');
  });
});

describe('extra checks', () => {
  it('pass on a correct plan', async () => {
    const gpu = new FakeGpu();
    const stream = gpu.createStream();
    const rows = [
      await checkAdjoint(gpu, stream, 'ndhwc', SEED),
      await checkReproducible(gpu, stream, 'pinned', 'f16', 'bwFilter', SEED),
      await checkAccumulate(gpu, stream, 'f32', 'bwData', SEED),
      await checkWorkspaceTooSmall(gpu, stream, SEED),
      await checkBufferTooSmall(gpu, stream, 'fw', SEED),
      ...(await checkInvalidProblem(gpu, stream)),
      await checkTwoStreams(gpu, SEED),
      ...(await checkLeaks(gpu, stream, SEED, 50, 10)),
    ];
    for (const row of rows)
      expect([row.check, row.status, row.detail]).toEqual([row.check, 'pass', row.detail]);
    expect(rows[3]!.detail).toBe(
      'WorkspaceTooSmallError: workspace too small: needed 256 bytes but received 255 bytes; output untouched',
    );
    expect(gpu.allocated).toBe(0);
    expect(gpu.plansAlive).toBe(0);
  });

  it('catch non-reproducible plans', async () => {
    const gpu = new FakeGpu({ noise: 1e-6 });
    const row = await checkReproducible(
      gpu,
      gpu.createStream(),
      'deterministic',
      'f32',
      'fw',
      SEED,
    );
    expect(row.status).toBe('fail');
    expect(row.detail).toMatch(/^runs differ/);
  });

  it('catch a plan that ignores beta', async () => {
    const gpu = new FakeGpu();
    const stream = gpu.createStream();
    const honest = gpu.selectPlan.bind(gpu);
    gpu.selectPlan = async (s, request) => {
      const plan = await honest(s, request);
      return { ...plan, run: (pass, operands) => plan.run(pass, { ...operands, beta: 0 }) };
    };
    const row = await checkAccumulate(gpu, stream, 'f64', 'fw', SEED);
    expect(row.status).toBe('fail');
  });

  it('catch errors raised after writing the output', async () => {
    const gpu = new FakeGpu({ writeBeforeChecks: true });
    const stream = gpu.createStream();
    const workspace = await checkWorkspaceTooSmall(gpu, stream, SEED);
    expect(workspace.status).toBe('fail');
    expect(workspace.detail).toMatch(/output WRITTEN$/);
    const buffer = await checkBufferTooSmall(gpu, stream, 'fw', SEED);
    expect(buffer.status).toBe('fail');
  });

  it('catch plans that leak device memory', async () => {
    const gpu = new FakeGpu({ leakPerPlan: 1 << 20 });
    const [device] = await checkLeaks(gpu, gpu.createStream(), SEED, 100, 50);
    expect(device!.status).toBe('fail');
    expect(device!.detail).toMatch(/^device free memory changed by -100\.0 MiB/);
  });

  it('catch a problem that is accepted instead of refused', async () => {
    const gpu = new FakeGpu();
    gpu.selectPlan = async (s, request) =>
      new FakeGpu().selectPlan(s, { ...request, problem: toProblem(EXTRAS_CASE, 'ncdhw') });
    const rows = await checkInvalidProblem(gpu, gpu.createStream());
    expect(rows.map((r) => r.status)).toEqual(['fail', 'fail']);
    expect(rows[0]!.detail).toBe(
      'groups 2 does not divide cIn 5: nothing thrown (expected InvalidProblemError)',
    );
  });
});

describe('runCheck', () => {
  it('counts rows and prints the summary line', async () => {
    const gpu = new FakeGpu();
    const seen: string[] = [];
    const report = await runCheck(gpu, {
      cases: buildCases({ suites: ['tiny'] }).slice(0, 1),
      dtypes: ['f32', 'bf16'],
      seed: SEED,
      leakCycles: 20,
      onRow: (row) => seen.push(formatRow(row)),
    });
    // 2 dtypes × 2 layouts × 3 modes × 3 passes; pinned NDHWC is unsupported in the fake.
    const conv = report.rows.filter((r) => r.check === 'conv');
    expect(conv).toHaveLength(36);
    expect(countRows(conv)).toEqual({ passed: 30, failed: 0, unsupported: 6 });
    expect(report.failed).toBe(0);
    expect(summaryLine(report)).toBe(
      `${report.passed} passed, 0 failed, ${report.unsupported} unsupported`,
    );
    expect(seen).toHaveLength(report.rows.length);
    expect(formatHeader()).toMatch(/^status +case +dtype layout pass +algorithm +rel\.err +tol$/);
  });

  it('runs 3xtf32 only when named, on the cases f32 runs, and never pinned', async () => {
    const gpu = new FakeGpu();
    const cases = buildCases({ suites: ['tiny'] }).slice(0, 1);
    const defaults = await runCheck(gpu, { cases, seed: SEED, extras: false });
    expect(defaults.rows.some((r) => r.dtype === '3xtf32')).toBe(false);
    const dtypes: CheckDtype[] = ['3xtf32', 'f16'];
    const args = { dtypes, layouts: undefined, passes: undefined };
    const limited = [{ ...cases[0]!, dtypes: ['f32', 'f16'] as CheckDtype[] }];
    const report = await runCheck(gpu, { cases: limited, ...args, seed: SEED, extras: false });
    const rows = report.rows.filter((r) => r.dtype === '3xtf32');
    // 2 layouts × 2 modes (heuristic, autotune) × 3 passes.
    expect(rows).toHaveLength(12);
    expect(rows.some((r) => r.mode === 'pinned')).toBe(false);
    expect(rows.every((r) => r.status === 'pass' && r.tolerance === 1e-5)).toBe(true);
    expect(countConvRows(limited, { ...args, algos: undefined })).toBe(
      report.rows.filter((r) => r.check === 'conv').length,
    );
    expect(
      countConvRows([{ dtypes: ['f16'] as CheckDtype[] }], { ...args, algos: undefined }),
    ).toBe(18);
  });

  it('reduces suite-file cases and names how', () => {
    const cases = buildCases({
      suiteFile: {
        cases: [
          {
            name: 'big',
            n: 8,
            c_in: 64,
            c_out: 128,
            in: [16, 56, 56],
            k: [3, 3, 3],
            pad: [1, 1, 1],
          },
        ],
      },
      maxMacs: 1e6,
    });
    expect(cases).toHaveLength(1);
    expect(cases[0]!.name).toMatch(/^big \(reduced: .+\)$/);
    expect(cases[0]!.suite).toBe('file');
  });

  it('restricts the large suite to f16 and bf16', () => {
    const large = buildCases({ suites: ['large'] });
    expect(large.length).toBeGreaterThan(0);
    expect(large.every((c) => c.dtypes?.join() === 'f16,bf16')).toBe(true);
  });
});

describe('host data', () => {
  it('draws reproducible, label-dependent streams in [-1, 1)', () => {
    const a = randomTensor('f64', 1000, new Rng(SEED, 'x')).values;
    const b = randomTensor('f64', 1000, new Rng(SEED, 'x')).values;
    const c = randomTensor('f64', 1000, new Rng(SEED, 'y')).values;
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(-1);
    expect(Math.max(...a)).toBeLessThan(1);
    expect(Math.max(...a) - Math.min(...a)).toBeGreaterThan(1.9);
  });

  it('rounds to the dtype so the reference sees exactly what the GPU sees', () => {
    const source = Float64Array.of(1 + 2 ** -12, 1 / 3);
    expect([...encode('f16', source).values]).toEqual([1, 0.333251953125]);
    expect([...encode('bf16', source).values]).toEqual([1, 0.333984375]);
    expect(encode('f32', source).values[1]).toBe(Math.fround(1 / 3));
  });

  it('counts poison without widening, and decodes sampled points', () => {
    const f16 = Uint16Array.of(0x3c00, 0xffff, 0x7c00, 0x7e00);
    expect(countNaNStored('f16', f16)).toBe(2);
    expect(countNaNStored('bf16', Uint16Array.of(0x3f80, 0xffff, 0x7f80))).toBe(1);
    expect([...decodeAt('f16', f16, [0, 2])]).toEqual([1, Number.POSITIVE_INFINITY]);
  });

  it('samples distinct indices including both ends', () => {
    const indices = sampleIndices(1000, 50, new Rng(SEED));
    expect(new Set(indices).size).toBe(50);
    expect(indices[0]).toBe(0);
    expect(indices.at(-1)).toBe(999);
  });
});
