// A fake libcuda whose modules load but which lacks cuLaunchKernel: loading
// and looking up work, and only the launch fails, with a CudaError.
import { CudaError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Module } from './module.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda({ noLaunch: true });
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;

describe.skipIf(!fake)('a fake libcuda without cuLaunchKernel', () => {
  it('loads and looks up kernels, and throws CudaError when one is launched', () => {
    const module = Module.load('.visible .entry noop() { ret; }\n');
    const fn = module.getFunction('noop');
    let thrown: unknown;
    try {
      fn.launch({ raw: 0n }, [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0));
    } catch (error) {
      thrown = error;
    }
    expect(CudaError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      '`cuLaunchKernel` failed: CUDA_ERROR_NOT_FOUND (500): symbol cuLaunchKernel not found in libcuda',
    );
    module.dispose();
    expect(module.disposed).toBe(true);
  });
});
