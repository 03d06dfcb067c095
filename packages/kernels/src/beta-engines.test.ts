/**
 * Engines that ignore beta (ENGINES_IGNORING_BETA, per pass: engine 78, run 78; the forward's
 * engine 71, run 84) keep a plan's beta-0 calls, and never run a call with another beta: that
 * call builds the next config. Fake libcuda and libcudnn; the native calls are recorded as in the
 * trace tests.
 */
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { recordDriver, startTrace, stopTrace } from './trace-recorder.test-helpers.js';
import { fakeOperands, fakeTuning, pointwiseProblem } from './tuning.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/**
 * The engine index of the execution plan the last BExecute in `lines` from `from` on ran: the
 * plan's engine config (set on it), that config's engine, the engine's global index; looked up in
 * all of `lines` (a plan may have been built at select).
 */
function engineRun(lines: readonly string[], from: number): number {
  const id = (re: RegExp, upTo = lines.length) => {
    for (let i = upTo - 1; i >= 0; i--) {
      const m = re.exec(lines[i]!);
      if (m) return m[1]!;
    }
    throw new Error(`no line matches ${re}`);
  };
  const exec = lines.slice(from).filter((l) => l.startsWith('BExecute('));
  const plan = /^BExecute\(#\d+, (#\d+), /.exec(exec.at(-1) ?? '')![1]!;
  const config = id(new RegExp(`^BSetAttribute\\(${plan}, \\d+, 15, \\[(#\\d+)\\]\\)`));
  const engine = id(new RegExp(`^BGetAttribute\\(${config}, 300, 15, 1, \\[(#\\d+)\\]\\)`));
  return Number(id(new RegExp(`^BGetAttribute\\(${engine}, 1301, .*i64\\[(\\d+)\\]`)));
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'engines that ignore beta (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream } = fakeTuning('baracuda-beta');
    afterEach(() => vi.restoreAllMocks());

    // Per pass: backward-data's engine 71 (another kernel than the forward's) keeps beta 0.5.
    it.each([
      [78, 'bwData', 28],
      [71, 'fw', 28],
      [71, 'bwData', 71],
    ] as const)('engine %i in %s: beta 0.5 runs on engine %i', async (engine, pass, other) => {
      recordDriver(await import('@baracuda/driver'));
      process.env.FAKE_CUDNN_ENGINES = `${engine}~1;28~2`;
      const { Conv3dPlan } = await import('./plan.js');
      const d = pointwiseProblem(ElementKind.F32).withLayout('ndhwc');
      const lines = startTrace();
      const plan = Conv3dPlan.selectSync(stream(), d, undefined, {
        passes: [pass],
        heuristic: 'first',
      });
      expect(plan.algorithm(pass).name).toBe(`engine ${engine}`);
      const { x, w, y } = fakeOperands(d);
      // The beta-0 plan keeps the engine; beta 0.5 builds the next config (engine 28) where the
      // pass refuses it.
      const runs = [0, 0.5, 0].map((beta) => {
        const from = lines.length;
        if (pass === 'fw') plan.runFw({ x, w, y, beta });
        else plan.runBwData({ w, dy: y, dx: x, beta });
        return engineRun(lines, from);
      });
      stopTrace();
      expect(runs).toEqual([engine, other, engine]);
      plan.dispose();
    });
  },
);
