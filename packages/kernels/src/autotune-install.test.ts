/**
 * Autotune installs a pass's result in one step: when tuning fails part way (here the filter flip
 * of backward-data-as-forward, timed after the graph search found its winner), the pass is
 * exactly as a heuristic plan makes it, call for call, and the warning says the heuristic choice
 * runs. Fake libcuda and libcudnn; the native calls are recorded as in the trace tests.
 */
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bwDataAsForward } from './bwdata-forward.js';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { LayoutKernels } from './layout.js';
import type { Conv3dPlan } from './plan.js';
import { compact } from './plan-trace.test-helpers.js';
import { recordDriver, startTrace, stopTrace } from './trace-recorder.test-helpers.js';
import { fakeOperands, fakeTuning, pointwiseProblem } from './tuning.test-helpers.js';
import { captureWarnings } from './warnings.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** The native calls of what a caller does with a plan's backward-data pass after select. */
function bwDataCalls(plan: Conv3dPlan): string[] {
  const d = plan.descriptor;
  const { x, w, y } = fakeOperands(d);
  const lines = startTrace();
  const name = plan.algorithm('bwData').name;
  plan.runBwData({ w, dy: y, dx: x });
  plan.runBwData({ w, dy: y, dx: x, alpha: 2, beta: 1 });
  stopTrace();
  // Binding the shared handle to the stream is the handle's state, not the pass's: a tuned plan
  // bound it while timing. Pointers are renamed in order of appearance without it.
  const names = new Map<string, string>();
  const calls = compact(lines.filter((l) => !l.startsWith('SetStream(')));
  return [
    name,
    ...calls.map((l) =>
      l.replace(/@\d+/g, (p) => {
        if (!names.has(p)) names.set(p, `@${names.size + 1}`);
        return names.get(p)!;
      }),
    ),
  ];
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune installs nothing when tuning fails part way (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache, cacheEntries } = fakeTuning('baracuda-install');
    afterEach(() => vi.restoreAllMocks());

    it('leaves the pass as the heuristics make it, and says so', async () => {
      recordDriver(await import('@baracuda/driver'));
      const d = pointwiseProblem(ElementKind.F32);
      const { Conv3dPlan } = await import('./plan.js');
      // As the heuristics' first choice makes it (the default mode's quick tune builds it at select).
      const heuristic = Conv3dPlan.selectSync(stream(), d, undefined, { heuristic: 'first' });
      const expected = bwDataCalls(heuristic);
      heuristic.dispose();

      const warnings = captureWarnings();
      vi.spyOn(LayoutKernels.prototype, 'flipFilter').mockImplementation(() => {
        throw new Error('flip failed');
      });
      const cachePath = newCache();
      const { plan, lines } = await tune(d, cachePath, ['bwData']);
      // The graph search had timed its candidates before backward-data-as-forward was timed
      // (our routes are timed between its finalists and its knob search).
      expect(lines).toContain('bwData: candidate 1/1 engine 28 0.000 ms');
      expect(lines).not.toContain('bwData: chose engine 28 (0.000 ms) of 1');
      expect(warnings.map((w) => [w.code, w.message])).toEqual([
        [
          'BARACUDA_AUTOTUNE_FAILED',
          `Could not autotune ${d.describe()} bwData (flip failed); it uses the heuristic choice instead`,
        ],
      ]);
      expect(bwDataCalls(plan)).toEqual(expected);
      // Nothing of the pass was written (the forward problem tuned as its own plan).
      const forward = bwDataAsForward(d)!;
      expect(cacheEntries(cachePath).map(([k]) => k)).toEqual([
        `${forward.withLayout('ndhwc').describe()} pass=fw`,
        `${forward.describe()} pass=fw`,
      ]);
      plan.dispose();
    });
  },
);
