/**
 * The device's cuDNN handle is made by the first plan and kept after the last one is disposed
 * (cudnn/handle.ts says why: cuDNN leaks at every create/destroy pair); releaseCudnnHandles()
 * destroys the idle ones only.
 */
import { ElementKind } from '@baracuda/types';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { recordDriver, startTrace, stopTrace } from './trace-recorder.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fakes = useFakeCudnn() !== null && useFakeCuda() !== null;

describe.skipIf(!fakes)('the shared cuDNN handle (fake libcuda and libcudnn)', () => {
  let stream: { dispose(): void };
  beforeAll(async () => {
    const driver = await import('@baracuda/driver');
    recordDriver(driver);
    stream = driver.Stream.create();
  });
  const calls = (lines: string[], name: string) => lines.filter((l) => l.startsWith(name)).length;

  it('outlives its plans: plans made one after another share one handle', async () => {
    const { Conv3dPlan } = await import('./plan.js');
    const { releaseCudnnHandles } = await import('./index.js');
    const lines = startTrace();
    for (let i = 0; i < 3; i++) {
      const plan = Conv3dPlan.selectSync(stream as never, smallProblem(ElementKind.F32));
      plan.dispose();
    }
    expect(calls(lines, 'Create()')).toBe(1);
    expect(calls(lines, 'Destroy(')).toBe(0);
    expect(stopTrace()).toEqual(['cudnnCreate #2']);
    startTrace();
    expect(releaseCudnnHandles()).toBe(1);
    expect(releaseCudnnHandles()).toBe(0);
  });

  it('releaseCudnnHandles leaves a handle a live plan uses, and a later plan makes a new one', async () => {
    const { Conv3dPlan } = await import('./plan.js');
    const { releaseCudnnHandles } = await import('./index.js');
    const lines = startTrace();
    const plan = Conv3dPlan.selectSync(stream as never, smallProblem(ElementKind.F32));
    expect(releaseCudnnHandles()).toBe(0);
    expect(calls(lines, 'Destroy(')).toBe(0);
    plan.dispose();
    expect(releaseCudnnHandles()).toBe(1);
    expect(calls(lines, 'Destroy(')).toBe(1);
    const again = Conv3dPlan.selectSync(stream as never, smallProblem(ElementKind.F32));
    again.dispose();
    expect(calls(lines, 'Create()')).toBe(2);
    releaseCudnnHandles();
    expect(stopTrace()).toEqual([]);
  });
});
