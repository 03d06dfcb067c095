/**
 * The conv-family suites (`asym-pad`, `transpose`) through the runner on the CPU fake: every
 * row passes on a correct stack, the refusal the kernels make becomes `unsupported` rows (pinned
 * with asymmetric padding), and a wrong transposed result fails.
 */
import { describe, expect, it } from 'vitest';
import { ASYM_PAD_SUITE, TRANSPOSE_SUITE } from '../suite/index.js';
import { FakeGpu } from './fake-gpu.js';
import type { GpuApi } from './gpu-api.js';
import { buildCases, DEFAULT_CHECK_SUITES, runCheck, SUITE_NAMES } from './run.js';

const SEED = '00112233445566ff';
// The large volume and the depthwise case cost the CPU reference most; the runner rules are the
// same for every case, so CI checks the small ones in two dtypes.
const small = (name: string) => !name.startsWith('large');

async function run(gpu: GpuApi, suites: ('asym-pad' | 'transpose')[]) {
  const cases = buildCases({ suites }).filter((c) => small(c.name));
  return runCheck(gpu, {
    cases,
    dtypes: ['f32', 'bf16'],
    extras: false,
    seed: SEED,
  });
}

describe('the conv-family suites', () => {
  it('are named for --suites and kept out of the default check', () => {
    expect(SUITE_NAMES).toContain('asym-pad');
    expect(SUITE_NAMES).toContain('transpose');
    expect(DEFAULT_CHECK_SUITES).not.toContain('transpose');
    expect(buildCases({ suites: ['transpose'] }).map((c) => c.name)).toEqual(
      TRANSPOSE_SUITE.map((c) => c.name),
    );
    expect(buildCases({ suites: ['asym-pad'] }).map((c) => c.name)).toEqual(
      ASYM_PAD_SUITE.map((c) => c.name),
    );
  });

  it('pass on a correct stack (outputPadding > padAfter included); pinned asymmetric rows are unsupported', async () => {
    const report = await run(new FakeGpu(), ['asym-pad', 'transpose']);
    const bad = report.rows.filter((r) => r.status === 'fail');
    expect(
      bad.map((r) => `${r.case} ${r.dtype} ${r.layout} ${r.pass} ${r.mode}: ${r.detail}`),
    ).toEqual([]);
    const unsupported = report.rows.filter((r) => r.status === 'unsupported');
    for (const r of unsupported) {
      const transposePinnedAsym = r.check === 'transpose' && r.mode === 'pinned';
      expect(
        (r.check === 'conv' && r.mode === 'pinned') || transposePinnedAsym,
        `${r.check} ${r.case} ${r.mode}`,
      ).toBe(true);
    }
    // Each transposed case × 2 dtypes × 2 layouts × 3 modes × 3 passes, and the conv cases likewise.
    const transposeRows = report.rows.filter((r) => r.check === 'transpose');
    expect(transposeRows.length).toBe((TRANSPOSE_SUITE.length - 1) * 2 * 2 * 3 * 3);
    expect(transposeRows.filter((r) => r.status === 'pass').length).toBeGreaterThan(100);
    expect(
      report.rows.filter((r) => r.case === 'outpad-gt-pad').every((r) => r.status === 'pass'),
    ).toBe(true);
  });

  it('fail a transposed result that is off by 10%', async () => {
    const report = await run(new FakeGpu({ perturb: 0.1 }), ['transpose']);
    const ran = report.rows.filter((r) => r.status !== 'unsupported');
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.every((r) => r.status === 'fail')).toBe(true);
  });

  it('fail unwritten transposed outputs', async () => {
    const report = await run(new FakeGpu({ unwritten: 1 }), ['transpose']);
    const ran = report.rows.filter((r) => r.status !== 'unsupported');
    expect(ran.every((r) => r.status === 'fail' && /unwritten/.test(r.detail))).toBe(true);
  });
});
