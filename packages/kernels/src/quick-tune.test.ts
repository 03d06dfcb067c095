/**
 * The default mode's quick tune, rule by rule, on the fake libcuda and libcudnn: which candidates
 * it times (by the shape's properties and the heuristics' modes), in what order, and that none of
 * them costs more than one run when hopeless. The fake's engines take the milliseconds the test
 * scripts (`~MS` in FAKE_CUDNN_ENGINES: the fake libcuda's events see them); our kernels take
 * FAKE_CUDA_LAUNCH_MS per launch (negative: faster than a launch-free run).
 */
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass, Conv3dPlanOptions } from './plan.js';
import { fakeTuning } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** cudnnBackendNumericalNote_t STRICT_NAN_PROP: cuDNN's reference engine. */
const STRICT_NAN_PROP = 9;
/** The heuristic modes' values (cudnnBackendHeurMode_t), for FAKE_CUDNN_HEUR_MODE_<N>. */
const MODE = { A: 3, B: 1, FALLBACK: 2 } as const;

/** Which scripted configs (by position) each heuristic mode offers; unset: all of them. */
function modes(offered: Partial<Record<keyof typeof MODE, string>>): void {
  for (const [name, value] of Object.entries(MODE)) {
    const list = offered[name as keyof typeof MODE];
    if (list === undefined) delete process.env[`FAKE_CUDNN_HEUR_MODE_${value}`];
    else process.env[`FAKE_CUDNN_HEUR_MODE_${value}`] = list;
  }
}

/** n=1, 4 channels, groups 4, 4×5×6, 3×3×3 pad 1: our depthwise kernels apply. */
function depthwise(layout: 'ncdhw' | 'ndhwc' = 'ncdhw'): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 4,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  })
    .withPadding(1, 1, 1)
    .withGroups(4)
    .withLayout(layout);
}

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

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'the quick tune (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, newCache, cacheEntries, executions } = fakeTuning('baracuda-quick');
    afterEach(() => modes({}));

    /** A default-mode plan of `passes`; the quick tune's lines without the problem's name. */
    async function quick(d: Conv3dDescriptor, passes: Conv3dPass[], options: Conv3dPlanOptions) {
      const { Conv3dPlan } = await import('./plan.js');
      const lines: string[] = [];
      const plan = await Conv3dPlan.select(stream(), d, undefined, {
        passes,
        autotuneCachePath: newCache(),
        onProgress: (m) => lines.push(m.replace(/^conv3d .*? (fw|bwData|bwFilter): /, '$1: ')),
        ...options,
      });
      return { plan, lines };
    }

    it("times A's first, then A and B's configs: never the reference engine, FALLBACK's only without A and B", async () => {
      // #0 A's first; #1 cuDNN's reference engine (5 s a call), offered second by A; #2 and #3
      // B's; #4 a generic engine FALLBACK alone offers (3 s a call).
      process.env.FAKE_CUDNN_ENGINES = `46~4;0~5000!${STRICT_NAN_PROP};25~6;61~1;1~3000`;
      modes({ A: '0,1', B: '0,2,3', FALLBACK: '4,1' });
      const { plan, lines } = await quick(smallProblem(ElementKind.F32), ['fw'], {});
      expect(lines).toEqual([
        'fw: quick 1/3 engine 46 4.000 ms',
        'fw: quick 2/3 engine 25 6.000 ms',
        'fw: quick 3/3 engine 61 1.000 ms',
        'fw: quick tune chose engine 61 (1.000 ms) of 3 timed',
      ]);
      expect(plan.algorithm('fw').name).toBe('engine 61');
      plan.dispose();

      // Neither A nor B offers a config: FALLBACK's first is the incumbent, its next the challenger.
      modes({ A: '', B: '', FALLBACK: '2,1,3' });
      const fallback = await quick(smallProblem(ElementKind.F32), ['fw'], {});
      expect(fallback.lines).toEqual([
        'fw: quick 1/2 engine 25 6.000 ms',
        'fw: quick 2/2 engine 61 1.000 ms',
        'fw: quick tune chose engine 61 (1.000 ms) of 2 timed',
      ]);
      fallback.plan.dispose();
    });

    it('runs a hopeless challenger once, and skips configs the preference does not allow', async () => {
      // #1 takes 5 s: its one warm-up run is 5000 ms past the give-up point (2 × 1 ms), so it is not
      // run again. #2 runs on TF32 tensor cores, which strict f32 does not allow: not even built.
      process.env.FAKE_CUDNN_ENGINES = '28~1;5~5000;70~0.5!0';
      const { plan, lines } = await quick(smallProblem(ElementKind.F32), ['fw'], {});
      expect(lines).toEqual([
        'fw: quick 1/2 engine 28 1.000 ms',
        'fw: quick 2/2 engine 5 5000.000 ms (warm-up run; not timed again)',
        'fw: quick tune chose engine 28 (1.000 ms) of 2 timed',
      ]);
      // Runs per execution plan, in the order they first ran: engine 5's plan ran once.
      const runs = new Map<string, number>();
      for (const line of executions()) {
        const planId = line.split(' ').at(-2)!;
        runs.set(planId, (runs.get(planId) ?? 0) + 1);
      }
      expect([...runs.values()]).toHaveLength(2);
      expect([...runs.values()][1]).toBe(1);
      plan.dispose();
    });

    it("where our depthwise kernel applies: it, mode B's engines and the layout detour", async () => {
      // As X3D's NDHWC backward-filter on cuDNN 9.19: no mode A config, FALLBACK's first slow, B's
      // first faster than our kernel (each launch of ours 0.5 ms).
      process.env.FAKE_CUDNN_ENGINES = '20~50;61~0.1;10~1.2';
      process.env.FAKE_CUDA_LAUNCH_MS = '0.5';
      modes({ A: '', B: '1,2', FALLBACK: '0,2' });
      const d = depthwise('ndhwc');
      const { plan, lines } = await quick(d, ['bwFilter'], {});
      expect(lines[0]).toMatch(/^bwFilter: quick 1\/5 baracuda depthwise wgradcl \d+\.\d+ ms$/);
      expect(lines.slice(1, 2)).toEqual([
        'bwFilter: quick 2/5 engine 20 50.000 ms (warm-up run; not timed again)',
      ]);
      expect(lines[2]).toMatch(/^bwFilter: quick 3\/5 baracuda depthwise wgradrow via NCDHW /);
      expect(lines.slice(3)).toEqual([
        'bwFilter: quick 4/5 engine 61 0.100 ms',
        'bwFilter: quick 5/5 engine 10 1.200 ms (warm-up run; not timed again)',
        'bwFilter: quick tune chose engine 61 (0.100 ms) of 5 timed',
      ]);
      expect(plan.algorithm('bwFilter').name).toBe('engine 61');
      plan.dispose();
      // layoutDetour 'never': no detour; a problem our kernel does not take: no detour either.
      const never = await quick(d, ['bwFilter'], { layoutDetour: 'never' });
      expect(never.lines.some((l) => l.includes(' via '))).toBe(false);
      never.plan.dispose();
      modes({});
      const plain = await quick(smallProblem(ElementKind.F32).withLayout('ndhwc'), ['fw'], {});
      expect(plain.lines.some((l) => l.includes(' via '))).toBe(false);
      plain.plan.dispose();
    });

    it('takes the layout detour when it times faster, keeps it in the cache, and reuses it', async () => {
      // Launches time negative: the detour (transposes + the other layout's kernel) is fastest.
      process.env.FAKE_CUDNN_ENGINES = '28~2';
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const { Conv3dPlan } = await import('./plan.js');
      const d = depthwise('ndhwc');
      const cachePath = newCache();
      const options = { passes: ['fw' as const], autotuneCachePath: cachePath };
      const plan = await Conv3dPlan.select(stream(), d, undefined, options);
      expect(plan.algorithm('fw').name).toMatch(/^baracuda depthwise tiled via NCDHW$/);
      plan.dispose();
      expect(cacheEntries(cachePath)).toEqual([
        [`${d.describe()} pass=fw`, { engineIndex: -3, knobs: [], timeMs: expect.any(Number) }],
      ]);
      const again = await Conv3dPlan.select(stream(), d, undefined, options);
      expect(again.algorithm('fw').name).toBe('baracuda depthwise tiled via NCDHW');
      expect(again.selectReport().passes).toEqual([
        expect.objectContaining({ pass: 'fw', how: 'cache', timed: 0 }),
      ]);
      again.dispose();
    });

    it('times the patch route where kernel = stride, takes it when 3% faster, and reuses it', async () => {
      process.env.FAKE_CUDNN_ENGINES = '28~2';
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const { Conv3dPlan } = await import('./plan.js');
      const d = patch();
      const cachePath = newCache();
      const lines: string[] = [];
      const options = { passes: ['bwData' as const], autotuneCachePath: cachePath };
      const plan = await Conv3dPlan.select(stream(), d, undefined, {
        ...options,
        onProgress: (m) => lines.push(m),
      });
      expect(plan.algorithm('bwData').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      // The heuristics' first config (the incumbent), then the route: no other config is offered.
      const route = 'patch GEMM: space-to-depth + engine 28 1×1×1';
      expect(lines).toEqual([
        `${d.describe()} bwData: quick 1/2 engine 28 2.000 ms`,
        `${d.describe()} bwData: quick 2/2 ${route} 1.750 ms`,
        `${d.describe()} bwData: quick tune chose ${route} (1.750 ms) of 2 timed`,
      ]);
      plan.dispose();
      const again = await Conv3dPlan.select(stream(), d, undefined, options);
      expect(again.algorithm('bwData').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      expect(again.selectReport().passes[0]).toMatchObject({ how: 'cache', timed: 0 });
      again.dispose();
      // 'never', or a shape that does not qualify (padding): not timed.
      for (const [shape, o] of [
        [d, { patchGemm: 'never' as const }],
        [d.withPadding(0, 1, 0), {}],
      ] as const) {
        const { plan: p, lines: l } = await quick(shape, ['bwData'], o);
        expect(l.some((x) => x.includes('space-to-depth'))).toBe(false);
        expect(p.algorithm('bwData').name).toBe('engine 28');
        p.dispose();
      }
    });

    it("quick-tunes a space-to-depth route's inner plan (not the inner heuristics' first alone)", async () => {
      // Both configs serve the outer and the inner problem; the inner's second is twice as fast.
      // Before the inner plan was quick-tuned, the route ran the inner heuristics' first (run 73:
      // the I3D stem's folded f32 backward-filter took 47.6 ms there where the second took 25.3).
      process.env.FAKE_CUDNN_ENGINES = '28~2;25~1';
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const d = patch();
      const { plan, lines } = await quick(d, ['bwData'], {});
      const route = 'patch GEMM: space-to-depth + engine 25 1×1×1';
      expect(plan.algorithm('bwData').name).toBe(route);
      // The outer's incumbent, then the route: made with its inner problem's own quick tune
      // (2 of 2 timed), timed with that choice; then the outer's next config.
      expect(lines).toEqual([
        'bwData: quick 1/3 engine 28 2.000 ms',
        'bwData: quick 1/2 engine 28 2.000 ms',
        'bwData: quick 2/2 engine 25 1.000 ms',
        'bwData: quick tune chose engine 25 (1.000 ms) of 2 timed',
        `bwData: quick 2/3 ${route} 0.750 ms`,
        'bwData: quick 3/3 engine 25 1.000 ms',
        `bwData: quick tune chose ${route} (0.750 ms) of 3 timed`,
      ]);
      plan.dispose();
    });

    it('makes no candidate after the budget is spent', async () => {
      process.env.FAKE_CUDNN_ENGINES = '28~1;5~2;6~3';
      const { budgetClock } = await import('./select/autotune/budget.js');
      const { vi } = await import('vitest');
      let t = 0;
      vi.spyOn(budgetClock, 'now').mockImplementation(() => {
        t += 100;
        return t;
      });
      try {
        const { plan, lines } = await quick(smallProblem(ElementKind.F32), ['fw'], {});
        // Read at the start (100), then before the 2nd (200: 100 spent) and 3rd (300: 200 spent).
        expect(lines).toEqual([
          'fw: quick 1/3 engine 28 1.000 ms',
          'fw: quick 2/3 engine 5 2.000 ms',
          'fw: quick tune: budget of 200 ms spent after 2 of 3',
          'fw: quick tune chose engine 28 (1.000 ms) of 2 timed; the budget of 200 ms cut it',
        ]);
        expect(plan.selectReport().passes[0]).toMatchObject({ budgetCut: true, timed: 2 });
        plan.dispose();
      } finally {
        vi.restoreAllMocks();
      }
    });
  },
);
