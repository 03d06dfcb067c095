/**
 * Autotune's ranked candidates on the fake libcuda and libcudnn: the routes the shape qualifies for
 * (our depthwise kernels, the space-to-depth routes) are timed before the graph search's survey,
 * whose give-up point counts their time; cuDNN's reference engines come last in the survey; and
 * whatever wins, autotune never installs a route slower than the best cuDNN engine it timed.
 * Engine times are scripted (`~MS` in FAKE_CUDNN_ENGINES), our kernels' launches take
 * FAKE_CUDA_LAUNCH_MS each.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass } from './plan.js';
import { DETOUR_MIN_GAIN } from './tuning.js';
import { depthwiseProblem, fakeTuning } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** A patch embedding: kernel = stride 2×4×4, no padding (the patch route qualifies). */
function patch(): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 3,
    dIn: 4,
    hIn: 8,
    wIn: 8,
    cOut: 8,
    dFilt: 2,
    hFilt: 4,
    wFilt: 4,
    element: ElementKind.F32,
  }).withStride(2, 4, 4);
}

const depthwise = () => depthwiseProblem();

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune: ranked candidates first (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, newCache } = fakeTuning('baracuda-ranked');

    /** An autotuned plan of `pass` of `d`; the progress lines of `d` itself (not its inner plans). */
    async function tuned(d: Conv3dDescriptor, pass: Conv3dPass) {
      const { Conv3dPlan } = await import('./plan.js');
      const all: string[] = [];
      const plan = await Conv3dPlan.select(
        stream(),
        d,
        { algorithm: 'autotune' },
        {
          passes: [pass],
          autotuneCachePath: newCache(),
          layoutDetour: 'never',
          onProgress: (m) => all.push(m),
        },
      );
      const own = `${d.describe()} ${pass}: `;
      const lines = all.filter((l) => l.startsWith(own)).map((l) => l.slice(own.length));
      return { plan, lines };
    }

    it('times the patch route before the survey, whose give-up point counts it', async () => {
      // The route: two transforms (-0.25 ms each) around the inner plan's engine 28 (1 ms).
      process.env.FAKE_CUDNN_ENGINES = '5~50;28~1';
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const { plan, lines } = await tuned(patch(), 'fw');
      const route = lines.findIndex((l) => l.startsWith('patch GEMM: space-to-depth'));
      const first = lines.findIndex((l) => l.startsWith('candidate 1/2'));
      expect(route).toBeGreaterThanOrEqual(0);
      expect(first).toBeGreaterThan(route);
      // The survey's first config is given up on after its warm-up: the route timed 0.5 ms.
      expect(lines[first]).toBe('candidate 1/2 engine 5 50.000 ms (warm-up run; not timed again)');
      expect(plan.algorithm('fw').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      plan.dispose();
    });

    it("times cuDNN's reference engines only when nothing else ran", async () => {
      process.env.FAKE_CUDNN_ENGINES = '0!9~3;28~1';
      const { plan, lines } = await tuned(smallProblem(ElementKind.F32), 'fw');
      expect(lines.filter((l) => l.startsWith('candidate') || l.startsWith('passed over'))).toEqual(
        ['candidate 1/2 engine 28 1.000 ms', "passed over engine 0: cuDNN's reference engine"],
      );
      plan.dispose();
      // Where nothing else builds, the reference engine is timed (and chosen).
      process.env.FAKE_CUDNN_ENGINES = '0!9~3';
      const only = await tuned(smallProblem(ElementKind.F32), 'fw');
      expect(only.lines.filter((l) => l.startsWith('candidate'))).toEqual([
        'candidate 1/1 engine 0 3.000 ms',
      ]);
      expect(only.plan.algorithm('fw').name).toBe('engine 0');
      only.plan.dispose();
    });

    // `?0`: the engine notes RUNTIME_COMPILATION (its build compiles kernels).
    it.each([
      ['0.5', 'passed over'],
      ['0.999', 'passed over'],
      ['1', 'timed'],
      ['2', 'timed'],
    ])(
      'builds a config that compiles at run time after the precompiled ones, only when the fastest so far takes 1 ms or more (%s ms: %s)',
      async (fastest, what) => {
        process.env.FAKE_CUDNN_ENGINES = `70?0~0.2;28~${fastest}`;
        const { plan, lines } = await tuned(smallProblem(ElementKind.F32), 'fw');
        const survey = lines.filter((l) => l.startsWith('candidate') || l.startsWith('passed'));
        expect(survey[0]).toBe(`candidate 1/2 engine 28 ${Number(fastest).toFixed(3)} ms`);
        if (what === 'timed') {
          expect(survey[1]).toBe('candidate 2/2 engine 70 0.200 ms');
          expect(plan.algorithm('fw').name).toBe('engine 70');
        } else {
          expect(survey[1]).toBe(
            `passed over engine 70: compiles its kernels at run time, and the fastest so far takes ${Number(fastest).toFixed(3)} ms`,
          );
          expect(plan.algorithm('fw').name).toBe('engine 28');
        }
        expect(survey).toHaveLength(2);
        plan.dispose();
      },
    );

    it('builds a config that compiles at run time when no precompiled config runs', async () => {
      process.env.FAKE_CUDNN_ENGINES = '70?0~0.2';
      const { plan, lines } = await tuned(smallProblem(ElementKind.F32), 'fw');
      expect(lines.filter((l) => l.startsWith('candidate'))).toEqual([
        'candidate 1/1 engine 70 0.200 ms',
      ]);
      plan.dispose();
    });

    // The routes' launches at -0.2 to +0.5 ms against engine sets faster and slower than them.
    const cases: [string, string, Conv3dDescriptor, Conv3dPass][] = [];
    for (const launchMs of ['-0.2', '0', '0.05', '0.5']) {
      for (const engines of ['28~1;5~0.5', '28~0.3', '28~2;5~3;61~0.05']) {
        cases.push([launchMs, engines, patch(), 'fw']);
        cases.push([launchMs, engines, patch(), 'bwData']);
        cases.push([launchMs, engines, depthwise(), 'bwFilter']);
      }
    }
    it.each(cases)(
      'never installs a route slower than the best engine timed (launches %s ms, engines %s, %s %s)',
      async (launchMs, engines, d, pass) => {
        process.env.FAKE_CUDNN_ENGINES = engines;
        process.env.FAKE_CUDA_LAUNCH_MS = launchMs;
        const { plan, lines } = await tuned(d, pass);
        const engineTimes = lines
          .map((l) => /^(?:candidate|searched) \d+\/\d+ engine .* (-?\d+\.\d+) ms/.exec(l))
          .filter((m) => m !== null)
          .map((m) => Number(m![1]));
        expect(engineTimes.length).toBeGreaterThan(0);
        const bestEngine = Math.min(...engineTimes);
        const chosen = plan.selectReport().passes[0]!.chosenMs!;
        const { name } = plan.algorithm(pass);
        // The lines print 3 decimals; the events' times are f32.
        const margin = 0.0006;
        if (name.startsWith('engine ')) {
          expect(Math.abs(chosen - bestEngine), name).toBeLessThan(margin);
        } else if (name.startsWith('baracuda depthwise')) {
          expect(chosen, name).toBeLessThan(bestEngine + margin);
        } else {
          // A route of ours must beat the best engine by its minimum gain.
          expect(chosen, name).toBeLessThan(
            bestEngine - Math.abs(bestEngine) * DETOUR_MIN_GAIN + margin,
          );
        }
        plan.dispose();
      },
    );
  },
);
