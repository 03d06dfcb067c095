/**
 * How a plan reads graph-API engine configs (engine index + knob choices) and tells them apart,
 * against the fake libcudnn.so.9 of @baracuda/cudnn-sys with a scripted engine list
 * (FAKE_CUDNN_ENGINES). Like cuDNN 9.14 and 9.19, the fake reports no knob choices when asked for
 * their count alone: read that way, every config of an engine looked alike and all but the first
 * were dropped as duplicates.
 */
import { ElementKind } from '@baracuda/types';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  fakeDevice as device,
  fakeAutotuneCache,
  smallProblem,
  fakeStream as stream,
  useFakeCudnn,
} from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';
import { KNOB_NAMES } from './policy.js';
import { type CapturedWarning, captureWarnings } from './warnings.test-helpers.js';

const fake = useFakeCudnn();

// Two configs of engine 0 that differ only in their knobs, then a knob-less engine.
const ENGINES = '0:2=1,4=0;0:2=3;28';
const savedEngines = process.env.FAKE_CUDNN_ENGINES;
process.env.FAKE_CUDNN_ENGINES = ENGINES;

// f32: f16/bf16 NCDHW takes the erratum detour on the fake's cuDNN 9.14.
const problem = () => smallProblem(ElementKind.F32);

/** An autotune cache whose fw entry for `problem()` prefers an engine (0) with these knobs. */
function cachePreferring(knobs: [number, number][], engineIndex = 0): string {
  return fakeAutotuneCache([[problem(), 'fw', { engineIndex, knobs }]]);
}

async function autotuned(autotuneCachePath: string): Promise<Conv3dPlan> {
  const plan = await Conv3dPlan.select(
    stream,
    problem(),
    { algorithm: 'autotune' },
    { passes: ['fw'], autotuneCachePath },
  );
  expect(plan.cudnnVersion).toBe(91400);
  return plan;
}

let warnings: CapturedWarning[];
beforeEach(() => {
  warnings = captureWarnings();
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env.FAKE_CUDNN_ENGINES = ENGINES;
});
afterAll(() => {
  if (savedEngines === undefined) delete process.env.FAKE_CUDNN_ENGINES;
  else process.env.FAKE_CUDNN_ENGINES = savedEngines;
});

describe.skipIf(fake === null)(
  'graph-API engine configs (fake library; skipped where no C compiler is found)',
  () => {
    it('heuristics take the first config, named with its knob choices', () => {
      const plan = Conv3dPlan.selectSync(stream, problem());
      const fw = plan.algorithm('fw');
      expect(fw.name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      expect(fw.path).toBe('graph');
      expect(fw.knobs).toEqual([
        { knob: 2, value: 1 },
        { knob: 4, value: 0 },
      ]);
      expect(fw.engineIndex).toBe(0);
      plan.dispose();

      process.env.FAKE_CUDNN_ENGINES = `28@4096;${ENGINES}`;
      const first28 = Conv3dPlan.selectSync(stream, problem());
      expect(first28.algorithm('fw').name).toBe('engine 28');
      expect(first28.algorithm('fw').knobs).toEqual([]);
      expect(first28.queryFwWorkspaceSize()).toBe(4096);
      first28.dispose();
      expect(warnings).toEqual([]);
    });

    it('a second config of the same engine survives deduplication (autotune cache hit)', async () => {
      const plan = await autotuned(cachePreferring([[2, 3]]));
      expect(plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=3)');
      expect(plan.algorithm('fw').knobs).toEqual([{ knob: 2, value: 3 }]);
      // Neither BARACUDA_AUTOTUNE_STALE nor BARACUDA_AUTOTUNE_FAILED (a hit times nothing).
      expect(warnings).toEqual([]);
      plan.dispose();
    });

    it('a cached config no longer offered warns and falls back to the heuristic order', async () => {
      const plan = await autotuned(cachePreferring([[2, 5]]));
      expect(plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.code).toBe('BARACUDA_AUTOTUNE_STALE');
      expect(warnings[0]!.message).toContain('engine 0 (TILE_SIZE=5)');
      expect(warnings[0]!.message).toContain('using engine 0 (TILE_SIZE=1 EDGE=0)');
      plan.dispose();
    });

    it("a cached config no heuristic offers is built from its engine and knobs (autotune's knob search)", async () => {
      process.env.FAKE_CUDNN_KNOB_INFO = '0:2=0..5/1,4=0..1/1';
      try {
        const plan = await autotuned(
          cachePreferring([
            [2, 4],
            [4, 1],
          ]),
        );
        expect(plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=4 EDGE=1)');
        expect(plan.algorithm('fw').knobs).toEqual([
          { knob: 2, value: 4 },
          { knob: 4, value: 1 },
        ]);
        expect(warnings).toEqual([]);
        plan.dispose();
        // Outside the engine's range (TILE_SIZE 0..5): cuDNN refuses it, so the heuristics choose.
        const stale = await autotuned(cachePreferring([[2, 7]]));
        expect(stale.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
        expect(warnings.map((w) => w.code)).toEqual(['BARACUDA_AUTOTUNE_STALE']);
        stale.dispose();
      } finally {
        delete process.env.FAKE_CUDNN_KNOB_INFO;
      }
    });

    it('a cached scripted config built directly keeps its workspace', async () => {
      // Engine 29 comes last in the heuristic order; the cache's choice is built all the same.
      process.env.FAKE_CUDNN_ENGINES = `${ENGINES};29@4096`;
      const plan = await autotuned(cachePreferring([], 29));
      expect(plan.algorithm('fw').name).toBe('engine 29');
      expect(plan.queryFwWorkspaceSize()).toBe(4096);
      expect(warnings).toEqual([]);
      plan.dispose();
    });

    it('a config whose workspace is over maxWorkspaceBytes is passed over for the next', () => {
      process.env.FAKE_CUDNN_ENGINES = `28@4096;${ENGINES}`;
      const tight = Conv3dPlan.selectSync(stream, problem(), { maxWorkspaceBytes: 4095 });
      expect(tight.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      expect(tight.queryFwWorkspaceSize()).toBe(0);
      tight.dispose();
      const roomy = Conv3dPlan.selectSync(stream, problem(), { maxWorkspaceBytes: 4096 });
      expect(roomy.algorithm('fw').name).toBe('engine 28');
      roomy.dispose();
    });

    it("'auto' (the default) settles the limit from the problem and the device's free memory", () => {
      process.env.FAKE_CUDNN_ENGINES = `28@4096;${ENGINES}`;
      const onDevice = (memoryInfo: () => { free: number; total: number }) => ({
        raw: 0n,
        device: { ...device, memoryInfo },
      });
      // No memory reading (the fake device has none): 1 GiB for a small problem.
      const plain = Conv3dPlan.selectSync(stream, problem());
      expect(plain.preference.maxWorkspaceBytes).toBe(2 ** 30);
      expect(plain.algorithm('fw').name).toBe('engine 28');
      plain.dispose();
      // At most half the free memory: 8,192 bytes free leave engine 28 its 4,096; 8,190 do not.
      const roomy = Conv3dPlan.selectSync(
        onDevice(() => ({ free: 8192, total: 2 ** 34 })),
        problem(),
      );
      expect(roomy.preference.maxWorkspaceBytes).toBe(4096);
      expect(roomy.algorithm('fw').name).toBe('engine 28');
      roomy.dispose();
      const tight = Conv3dPlan.selectSync(
        onDevice(() => ({ free: 8190, total: 2 ** 34 })),
        problem(),
      );
      expect(tight.preference.maxWorkspaceBytes).toBe(4095);
      expect(tight.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
      tight.dispose();
      // A device that cannot say: no cap. A number given is kept, whatever is free.
      const silent = Conv3dPlan.selectSync(
        onDevice(() => {
          throw new Error('no reading');
        }),
        problem(),
      );
      expect(silent.preference.maxWorkspaceBytes).toBe(2 ** 30);
      silent.dispose();
      const given = Conv3dPlan.selectSync(
        onDevice(() => ({ free: 0, total: 2 ** 34 })),
        problem(),
        {
          maxWorkspaceBytes: 4096,
        },
      );
      expect(given.preference.maxWorkspaceBytes).toBe(4096);
      expect(given.algorithm('fw').name).toBe('engine 28');
      given.dispose();
    });

    it("passes over an engine whose numerical notes the preference does not allow, in every mode's selection", async () => {
      // Notes (cudnnBackendNumericalNote_t): 0 TENSOR_CORE (TF32 on f32 data; the fake's cuDNN
      // 9.14 has the TF32 erratum, so f32 stays strict even with allowTf32), 1 DOWN_CONVERT_INPUTS
      // (never allowed), 4 NONDETERMINISTIC.
      const f16 = smallProblem(ElementKind.F16).withLayout('ndhwc');
      const chosen = async (
        desc: ReturnType<typeof problem>,
        engines: string,
        preference: Parameters<typeof Conv3dPlan.select>[2],
      ) => {
        process.env.FAKE_CUDNN_ENGINES = engines;
        const plan = await Conv3dPlan.select(stream, desc, preference, {
          passes: ['fw'],
          autotuneCachePath: fakeAutotuneCache([]),
        });
        const { name, numericalNotes } = plan.algorithm('fw');
        plan.dispose();
        return [name, numericalNotes];
      };
      for (const algorithm of ['heuristic', 'autotune'] as const) {
        expect(await chosen(problem(), '28!0;70', { algorithm, allowTf32: true })).toEqual([
          'engine 70',
          [],
        ]);
        expect(await chosen(f16, '28!0;70', { algorithm })).toEqual(['engine 28', ['TENSOR_CORE']]);
        expect(await chosen(f16, '28!0,1;70', { algorithm })).toEqual(['engine 70', []]);
        expect(await chosen(problem(), '28!4;70', { algorithm, deterministic: true })).toEqual([
          'engine 70',
          [],
        ]);
        expect(await chosen(problem(), '28!4;70', { algorithm })).toEqual([
          'engine 28',
          ['NONDETERMINISTIC'],
        ]);
      }
    });

    it('a config with more knob choices than the first ask is read completely', () => {
      // Listed in descending type order: the plan reports them sorted by type.
      const types = Array.from({ length: 20 }, (_, i) => 19 - i);
      process.env.FAKE_CUDNN_ENGINES = `7:${types.map((t) => `${t}=${t + 100}`).join(',')}`;
      const plan = Conv3dPlan.selectSync(stream, problem());
      const fw = plan.algorithm('fw');
      const names = KNOB_NAMES.slice(0, 20).map((name, t) => `${name}=${t + 100}`);
      expect(fw.name).toBe(`engine 7 (${names.join(' ')})`);
      expect(fw.knobs).toEqual(Array.from({ length: 20 }, (_, t) => ({ knob: t, value: t + 100 })));
      plan.dispose();
    });
  },
);
