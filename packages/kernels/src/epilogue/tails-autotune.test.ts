/**
 * Autotune times each tail's fused graph against its unfused route and keeps the faster, as it
 * does for a convolution's forward epilogue (autotune.test.ts): an input activation's backward
 * after Conv3dPlan's backward-data, and a ConvTranspose3dPlan's forward epilogue. On the fake
 * libcuda (its events add FAKE_CUDA_LAUNCH_MS per kernel launched between them: our kernel is a
 * launch, the fake cuDNN's executes are not) and the fake cuDNN.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import { useFakeCuda, useFakeCudnn } from '../fake-cudnn.test-helpers.js';
import { ConvTranspose3dDescriptor } from '../transpose-descriptor.js';
import { ConvTranspose3dPlan } from '../transpose-plan.js';
import { fakeTuning } from '../tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

const problem = {
  batch: 1,
  cIn: 8,
  dIn: 4,
  hIn: 4,
  wIn: 4,
  cOut: 8,
  dFilt: 1,
  hFilt: 1,
  wFilt: 1,
  element: ElementKind.F16,
};
const layer = () =>
  Conv3dDescriptor.create(problem).withLayout('ndhwc').withInputActivation({ activation: 'relu' });
const up = () =>
  ConvTranspose3dDescriptor.create(problem)
    .withLayout('ndhwc')
    .withEpilogue({ bias: true, activation: 'relu' });

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune of the tails: fused against unfused (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache } = fakeTuning('baracuda-tails-tune');

    it('runBwData with an input relu keeps the fused graph when our kernel is slower', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '1';
      const { plan } = await tune(layer(), newCache(), ['bwData']);
      expect(plan.algorithm('bwData').name).toBe('engine 28 fused');
      plan.dispose();
    });

    it('runBwData with an input relu takes the unfused route when it times faster', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-1';
      const { plan } = await tune(layer(), newCache(), ['bwData'], {
        layoutDetour: 'never',
        bwDataAsForward: 'never',
      });
      expect(plan.algorithm('bwData').name).toBe('engine 28 + baracuda activation-backward kernel');
      plan.dispose();
    });

    it('the transposed epilogue: fused when faster, unfused when faster, untimed when fw is not tuned', async () => {
      const select = async (passes: ('fw' | 'bwData')[]) =>
        ConvTranspose3dPlan.select(
          stream(),
          up(),
          { algorithm: 'autotune' },
          {
            passes,
            autotuneCachePath: newCache(),
            layoutDetour: 'never',
            // (Backward-data as forward, timed faster here too, would be installed and never fused.)
            bwDataAsForward: 'never',
          },
        );
      process.env.FAKE_CUDA_LAUNCH_MS = '1';
      const fused = await select(['fw']);
      expect(fused.algorithm('fw').name).toBe('engine 28 fused');
      fused.dispose();
      process.env.FAKE_CUDA_LAUNCH_MS = '-1';
      const unfused = await select(['fw']);
      expect(unfused.algorithm('fw').name).toBe('engine 28 + baracuda epilogue kernel');
      unfused.dispose();
      const untimed = await select(['bwData']);
      expect(untimed.algorithm('fw').name).toBe('engine 28 fused');
      untimed.dispose();
    });
  },
);
