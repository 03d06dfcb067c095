/**
 * The layout detour as autotune's choice (options.layoutDetour), end to end without a GPU: the
 * fake libcuda of @baracuda/driver (FAKE_CUDA_LAUNCH_MS makes the runs that launch our transposes
 * time faster or slower) under the fake libcudnn.so.9 of @baracuda/cudnn-sys, which offers one
 * knob-less engine and logs each execution's data pointers (FAKE_CUDNN_EXECUTE_LOG).
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import type { Conv3dDescriptor } from './descriptor.js';
import {
  fakeAutotuneCache,
  smallProblem,
  useFakeCuda,
  useFakeCudnn,
} from './fake-cudnn.test-helpers.js';
import { detourMayWin } from './select/autotune/candidates.js';
import {
  depthwiseProblem,
  fakeOperands,
  fakeTuning,
  pointwiseProblem,
  selectFromCache,
} from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune times the layout detour (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const {
      stream: streamOf,
      tune,
      newCache,
      executions,
      cacheEntries,
    } = fakeTuning('baracuda-via');

    it('takes it when it times faster, runs the NDHWC plan on scratch and caches both choices', async () => {
      // Each run of the detour launches our transposes: -0.25 ms each makes it the faster.
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const cachePath = newCache();
      const d = smallProblem(ElementKind.F32);
      const { plan, lines } = await tune(d, cachePath, ['fw']);
      // x and w in, y back: three launches a run.
      expect(lines).toContain('fw: via NDHWC (engine 28) -0.750 ms, chosen');
      // The NDHWC problem tuned as its own plan.
      expect(lines.filter((l) => l.startsWith('fw: candidate '))).toEqual([
        'fw: candidate 1/1 engine 28 0.000 ms',
        'fw: candidate 1/1 engine 28 0.000 ms',
      ]);
      const info = plan.algorithm('fw');
      expect(info.name).toBe('engine 28 via NDHWC');
      expect(plan.queryFwWorkspaceSize()).toBe(info.workspaceBytes);
      expect(cacheEntries(cachePath)).toEqual([
        [
          `${d.withLayout('ndhwc').describe()} pass=fw`,
          expect.objectContaining({ engineIndex: 28 }),
        ],
        [`${d.describe()} pass=fw`, { engineIndex: -3, knobs: [], timeMs: -0.75 }],
      ]);
      // A run executes the NDHWC plan on plan-owned scratch, never on the caller's pointers.
      const { x, w, y } = fakeOperands(d);
      plan.runFw({ x, w, y });
      const run = executions().at(-1)!.split(' ').slice(0, 3);
      expect(run.some((p) => ['10000', '20000', '30000'].includes(p))).toBe(false);
      plan.dispose();
      // A second plan takes both choices from the cache: nothing is timed.
      delete process.env.FAKE_CUDA_LAUNCH_MS;
      const again = await tune(d, cachePath, ['fw']);
      expect(again.lines).toEqual([]);
      expect(again.plan.algorithm('fw').name).toBe(info.name);
      again.plan.dispose();
    });

    it('keeps the NCDHW engine when the detour is not 2% faster, and drops the detour', async () => {
      const cachePath = newCache();
      const d = smallProblem(ElementKind.F32);
      const { plan, lines } = await tune(d, cachePath, ['fw', 'bwData', 'bwFilter'], {
        bwDataAsForward: 'never',
      });
      expect(lines.filter((l) => l.includes('via NDHWC'))).toEqual([
        'fw: via NDHWC (engine 28) 0.000 ms',
        'bwData: via NDHWC (engine 28) 0.000 ms',
        'bwFilter: via NDHWC (engine 28) 0.000 ms',
      ]);
      const entries = cacheEntries(cachePath).filter(([k]) => String(k).includes('ncdhw'));
      expect(entries.map(([, v]) => (v as { engineIndex: number }).engineIndex)).toEqual([
        28, 28, 28,
      ]);
      // Every pass runs the NCDHW plan on the caller's pointers.
      const { x, w, y } = fakeOperands(d);
      plan.runFw({ x, w, y });
      expect(executions().at(-1)!.split(' ').slice(0, 3)).toEqual(['10000', '20000', '30000']);
      plan.runBwData({ w, dy: y, dx: x });
      expect(executions().at(-1)!.split(' ').slice(0, 3)).toEqual(['10000', '20000', '30000']);
      plan.runDw({ x, dy: y, dw: w });
      expect(executions().at(-1)!.split(' ').slice(0, 3)).toEqual(['10000', '20000', '30000']);
      for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
        expect(plan.algorithm(pass).name).toBe('engine 28');
      }
      plan.dispose();
    });

    it('nests in backward-data as a forward pass, and that in it', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const cachePath = newCache();
      const d = pointwiseProblem();
      const { plan, lines } = await tune(d, cachePath, ['bwData']);
      // The forward problem (dy → dx) takes its own NDHWC detour (dy and the filter in, dx back),
      // so backward-data as a forward pass is the flip and that: four launches.
      expect(lines).toContain('fw: via NDHWC (engine 28) -0.750 ms, chosen');
      expect(lines).toContain(
        'bwData: as forward on the flipped filter (engine 28 via NDHWC) -1.000 ms, chosen',
      );
      // The layer's own NDHWC detour: dy and w in, dx back, around its NDHWC plan, which took
      // backward-data as a forward pass (the flip). Four launches too: a tie keeps the first.
      expect(lines).toContain(
        'bwData: as forward on the flipped filter (engine 28) -0.250 ms, chosen',
      );
      expect(lines).toContain(
        'bwData: via NDHWC (engine 28 as forward on the flipped filter) -1.000 ms',
      );
      expect(plan.algorithm('bwData').name).toBe(
        'engine 28 via NDHWC as forward on the flipped filter',
      );
      const entries = cacheEntries(cachePath);
      const entry = (problem: Conv3dDescriptor, pass: string) =>
        entries.find(([k]) => k === `${problem.describe()} pass=${pass}`)![1];
      expect(entry(d, 'bwData')).toEqual({ engineIndex: -2, knobs: [], timeMs: -1 });
      expect(entry(d.withLayout('ndhwc'), 'bwData')).toEqual(
        expect.objectContaining({ engineIndex: -2 }),
      );
      // The run is the flip, then the forward problem through NDHWC scratch.
      const { x, w, y } = fakeOperands(d);
      plan.runBwData({ w, dy: y, dx: x });
      const run = executions().at(-1)!.split(' ').slice(0, 3);
      expect(run.some((p) => ['10000', '20000', '30000'].includes(p))).toBe(false);
      plan.dispose();
      // From the cache: the same plan, nothing timed.
      delete process.env.FAKE_CUDA_LAUNCH_MS;
      const again = await tune(d, cachePath, ['bwData']);
      expect(again.lines).toEqual([]);
      expect(again.plan.algorithm('bwData').name).toBe(
        'engine 28 via NDHWC as forward on the flipped filter',
      );
      again.plan.dispose();
    });

    it("is every pass's with 'always' (heuristic too), and never timed with 'never'", async () => {
      const { Conv3dPlan } = await import('./plan.js');
      const d = smallProblem(ElementKind.F32);
      const always = Conv3dPlan.selectSync(streamOf(), d, undefined, { layoutDetour: 'always' });
      for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
        expect(always.algorithm(pass).name).toBe('engine 28 via NDHWC');
      }
      const { x, w, y } = fakeOperands(d);
      always.runDw({ x, dy: y, dw: w });
      const run = executions().at(-1)!.split(' ').slice(0, 3);
      expect(run.some((p) => ['10000', '20000', '30000'].includes(p))).toBe(false);
      always.dispose();
      // 'never': not timed even where it would be the faster, and a cached choice of it is tuned
      // again without it.
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const cachePath = fakeAutotuneCache([[d, 'fw', { engineIndex: -3, knobs: [] }]]);
      const never = await tune(d, cachePath, ['fw'], { layoutDetour: 'never' });
      expect(never.lines.filter((l) => l.includes('NDHWC'))).toEqual([]);
      expect(never.lines).toContain('fw: candidate 1/1 engine 28 0.000 ms');
      expect(never.plan.algorithm('fw').name).toBe('engine 28');
      never.plan.dispose();
      await expect(
        Conv3dPlan.select(streamOf(), d, undefined, { layoutDetour: 'sometimes' as 'never' }),
      ).rejects.toThrow(
        `Expected 'tuned', 'always' or 'never' for options.layoutDetour but received "sometimes" of type string`,
      );
      process.env.BARACUDA_LAYOUT_DETOUR = 'always';
      try {
        const fromEnv = Conv3dPlan.selectSync(streamOf(), d);
        expect(fromEnv.algorithm('fw').name).toBe('engine 28 via NDHWC');
        fromEnv.dispose();
        process.env.BARACUDA_LAYOUT_DETOUR = 'often';
        expect(() => Conv3dPlan.selectSync(streamOf(), d)).toThrow(
          `Expected 'tuned', 'always' or 'never' for $BARACUDA_LAYOUT_DETOUR but received "often" of type string`,
        );
      } finally {
        delete process.env.BARACUDA_LAYOUT_DETOUR;
      }
    });

    it('takes an NDHWC problem through NCDHW, but not into an erratum', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const d = smallProblem(ElementKind.F32).withLayout('ndhwc');
      const cachePath = newCache();
      const { plan, lines } = await tune(d, cachePath, ['bwFilter']);
      // x and dy in, dw back; the NCDHW plan takes no layout detour of its own.
      expect(lines.filter((l) => l.includes(' via '))).toEqual([
        'bwFilter: via NCDHW (engine 28) -0.750 ms, chosen',
      ]);
      expect(plan.algorithm('bwFilter').name).toBe('engine 28 via NCDHW');
      expect(cacheEntries(cachePath).map(([k]) => k)).toEqual([
        `${d.withLayout('ncdhw').describe()} pass=bwFilter`,
        `${d.describe()} pass=bwFilter`,
      ]);
      const { x, w, y } = fakeOperands(d);
      plan.runDw({ x, dy: y, dw: w });
      const run = executions().at(-1)!.split(' ').slice(0, 3);
      expect(run.some((p) => ['10000', '20000', '30000'].includes(p))).toBe(false);
      plan.dispose();
      // The fake is cuDNN 9.14: f16 NCDHW with a 1×3×3 filter is the defect's, so an f16 NDHWC
      // problem never detours into it, tuned or 'always'.
      const half = smallProblem(ElementKind.F16).withLayout('ndhwc');
      const tuned = await tune(half, newCache(), ['fw']);
      expect(tuned.lines.filter((l) => l.includes(' via '))).toEqual([]);
      expect(tuned.plan.algorithm('fw').name).toBe('engine 28');
      tuned.plan.dispose();
      const { Conv3dPlan } = await import('./plan.js');
      const always = Conv3dPlan.selectSync(streamOf(), half, undefined, { layoutDetour: 'always' });
      expect(always.algorithm('fw').name).toBe('engine 28');
      always.dispose();
    });

    it('is not timed for f64 or by a heuristic plan', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      for (const d of [
        smallProblem(ElementKind.F64),
        smallProblem(ElementKind.F64).withLayout('ndhwc'),
      ]) {
        const { plan, lines } = await tune(d, newCache(), ['fw']);
        expect(lines.filter((l) => l.includes(' via '))).toEqual([]);
        expect(plan.algorithm('fw').name).toBe('engine 28');
        plan.dispose();
      }
      const { Conv3dPlan } = await import('./plan.js');
      const heuristic = Conv3dPlan.selectSync(streamOf(), smallProblem(ElementKind.F32));
      expect(heuristic.algorithm('fw').name).toBe('engine 28');
      heuristic.dispose();
    });
  },
);

describe.skipIf(fakeCudnn === null)(
  'a cached layout detour that does not apply (fake libcudnn)',
  () => {
    it('is stale: a warning, then the heuristics', async () => {
      const d = smallProblem(ElementKind.F64);
      const { warnings, name } = await selectFromCache(d, 'fw', { engineIndex: -3, knobs: [] });
      expect(warnings).toEqual([
        [
          'BARACUDA_AUTOTUNE_STALE',
          `The autotune cache's layout detour for ${d.describe()} fw does not apply here; using engine 28`,
        ],
      ]);
      expect(name).toBe('engine 28');
    });
  },
);

describe('detourMayWin: where autotune times the layout detour at all', () => {
  const dense = (element: ElementKind) => smallProblem(element);
  const depthwise = depthwiseProblem;
  const passes = ['fw', 'bwData', 'bwFilter'] as const;

  it("not from NDHWC in f16 or bf16 (the tensor cores' own layout) for a dense problem", () => {
    for (const element of [ElementKind.F16, ElementKind.Bf16]) {
      for (const pass of passes) {
        expect(detourMayWin(dense(element).withLayout('ndhwc'), pass)).toBe(false);
        expect(detourMayWin(dense(element), pass)).toBe(true);
      }
    }
  });

  it('from NDHWC in f16 or bf16 where our depthwise kernels run the pass, and in f32', () => {
    for (const pass of passes) {
      expect(detourMayWin(depthwise(ElementKind.F16).withLayout('ndhwc'), pass)).toBe(true);
      expect(detourMayWin(depthwise(ElementKind.Bf16).withLayout('ndhwc'), pass)).toBe(true);
      expect(detourMayWin(dense(ElementKind.F32).withLayout('ndhwc'), pass)).toBe(true);
    }
  });
});
