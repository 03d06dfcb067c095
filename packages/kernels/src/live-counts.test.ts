/**
 * Dispose frees everything: after plans of every mode (heuristic, pinned, autotune) and every
 * detour (the layout detour, backward-data as a forward pass, the f16 via-NDHWC erratum) have run
 * each pass and been disposed, and the device's kept cuDNN handle has been released
 * (releaseCudnnHandles: cudnn/handle.ts keeps it on purpose), the fakes hold no cuDNN object and no
 * device allocation (fakeLiveCounts of scripts/testing/build-fake.mjs).
 */
import { ElementKind } from '@baracuda/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeLiveCounts } from '../../../scripts/testing/build-fake.mjs';
import type { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPass, Conv3dPlan } from './plan.js';
import { fakeOperands, fakeTuning, pointwiseProblem } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

const NO_CUDNN_OBJECTS = {
  handles: 0,
  tensors: 0,
  filters: 0,
  convolutions: 0,
  activations: 0,
  backendDescriptors: 0,
};

/** Runs each of `passes` once on fake operands. */
function runAll(plan: Conv3dPlan, d: Conv3dDescriptor, passes: readonly Conv3dPass[]): void {
  const { x, w, y } = fakeOperands(d);
  if (passes.includes('fw')) plan.runFw({ x, w, y });
  if (passes.includes('bwData')) plan.runBwData({ w, dy: y, dx: x });
  if (passes.includes('bwFilter')) plan.runDw({ x, dy: y, dw: w });
}

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'live native objects after dispose (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache } = fakeTuning('baracuda-live');
    const ALL: Conv3dPass[] = ['fw', 'bwData', 'bwFilter'];
    // Loaded up front, so the counts can be read before the first plan.
    beforeAll(async () => {
      (await import('@baracuda/cudnn-sys')).load();
    });

    async function expectAllFreed(): Promise<void> {
      const { releaseCudnnHandles } = await import('./index.js');
      releaseCudnnHandles();
      expect(fakeLiveCounts(fakeCudnn!)).toEqual(NO_CUDNN_OBJECTS);
      const cuda = fakeLiveCounts(fakeCuda!)!;
      expect({ allocations: cuda.allocations, allocatedBytes: cuda.allocatedBytes }).toEqual({
        allocations: 0,
        allocatedBytes: 0,
      });
    }

    const cases: [string, () => Promise<[Conv3dPlan, Conv3dDescriptor, Conv3dPass[]]>][] = [
      [
        'heuristic',
        async () => {
          const { Conv3dPlan } = await import('./plan.js');
          const d = smallProblem(ElementKind.F32);
          return [await Conv3dPlan.select(stream(), d), d, ALL];
        },
      ],
      [
        'pinned',
        async () => {
          const { Conv3dPlan } = await import('./plan.js');
          const d = smallProblem(ElementKind.F32);
          return [await Conv3dPlan.select(stream(), d, { algorithm: 'pinned' }), d, ALL];
        },
      ],
      [
        'autotune',
        async () => {
          const d = smallProblem(ElementKind.F32);
          return [(await tune(d, newCache(), ALL)).plan, d, ALL];
        },
      ],
      [
        'autotune, the layout detour chosen',
        async () => {
          process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
          const d = smallProblem(ElementKind.F32);
          const { plan } = await tune(d, newCache(), ['fw']);
          expect(plan.algorithm('fw').name).toBe('engine 28 via NDHWC');
          return [plan, d, ['fw']];
        },
      ],
      [
        'autotune, backward-data as a forward pass in the layout detour',
        async () => {
          process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
          const d = pointwiseProblem();
          const { plan } = await tune(d, newCache(), ['bwData']);
          expect(plan.algorithm('bwData').name).toBe(
            'engine 28 via NDHWC as forward on the flipped filter',
          );
          return [plan, d, ['bwData']];
        },
      ],
      [
        'heuristic, backward-data as a forward pass',
        async () => {
          const { Conv3dPlan } = await import('./plan.js');
          const d = pointwiseProblem();
          const plan = await Conv3dPlan.select(stream(), d, undefined, {
            passes: ['bwData'],
            bwDataAsForward: 'always',
          });
          expect(plan.algorithm('bwData').name).toMatch(/as forward on the flipped filter/);
          return [plan, d, ['bwData']];
        },
      ],
      [
        "math '3xtf32' (its inner TF32 plan and the split scratch)",
        async () => {
          const { Conv3dPlan } = await import('./plan.js');
          const d = smallProblem(ElementKind.F32);
          const plan = await Conv3dPlan.select(
            stream(),
            d,
            { math: '3xtf32' },
            { ignoreErrata: ['cudnn-9.10-conv3d-tf32'] },
          );
          expect(plan.algorithm('fw').name).toBe('3xTF32 over engine 28');
          return [plan, d, ALL];
        },
      ],
      [
        'heuristic, the f16 NCDHW erratum (via NDHWC)',
        async () => {
          const { Conv3dPlan } = await import('./plan.js');
          const d = smallProblem(ElementKind.F16);
          const plan = await Conv3dPlan.select(stream(), d);
          expect(plan.errataApplied).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
          return [plan, d, ALL];
        },
      ],
    ];

    for (const [name, make] of cases) {
      it(`${name}: every cuDNN object and device allocation is freed`, async () => {
        await expectAllFreed();
        const [plan, d, passes] = await make();
        runAll(plan, d, passes);
        const live = fakeLiveCounts(fakeCudnn!)!;
        expect(live.handles).toBe(1);
        plan.dispose();
        await expectAllFreed();
      });
    }
  },
);
