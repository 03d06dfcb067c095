/**
 * Autotune times the fused graph against the unfused route (the convolution, then our kernel) and
 * keeps the faster, on the fake libcuda (whose events add FAKE_CUDA_LAUNCH_MS per kernel launched
 * between them: our kernel is a launch, the fake cuDNN's executes are not) and the fake cuDNN.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import { useFakeCuda, useFakeCudnn } from '../fake-cudnn.test-helpers.js';
import { fakeOperands, fakeTuning } from '../tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

const layer = () =>
  Conv3dDescriptor.create({
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
  })
    .withLayout('ndhwc')
    .withEpilogue({ bias: true, activation: 'relu' });

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune: fused against unfused (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache, executions } = fakeTuning('baracuda-epilogue-tune');

    it('keeps the fused graph when our kernel makes the unfused route slower', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '1';
      const { plan } = await tune(layer(), newCache(), ['fw']);
      expect(plan.algorithm('fw').name).toBe('engine 28 fused');
      plan.dispose();
    });

    it('takes the unfused route when it times faster, and runs it', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-1';
      // (With the layout detour allowed, its transposes would time faster too, and a detour
      // autotune installs for the convolution is never fused.)
      const { plan } = await tune(layer(), newCache(), ['fw'], { layoutDetour: 'never' });
      expect(plan.algorithm('fw').name).toBe('engine 28 + baracuda epilogue kernel');
      const before = executions().length;
      const { x, w, y } = fakeOperands(plan.descriptor);
      plan.runFw({ x, w, y, bias: { devicePtr: 0x40000n, byteLength: 16 } });
      await (stream() as unknown as { synchronize(): Promise<void> }).synchronize();
      // The convolution's own graph (three pointers), not the fused one (four).
      const last = executions().slice(before);
      expect(last).toHaveLength(1);
      const tokens = last[0]!.split(' ');
      expect(tokens.slice(0, 3)).toEqual(['10000', '20000', '30000']);
      expect(tokens[3]).toMatch(/^#/);
      plan.dispose();
    });

    it('does not time anything when fw is not among the tuned passes', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-1';
      const { plan } = await tune(layer(), newCache(), ['bwData']);
      expect(plan.algorithm('fw').name).toBe('engine 28 fused');
      plan.dispose();
    });
  },
);
