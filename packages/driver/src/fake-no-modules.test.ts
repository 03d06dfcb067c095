// An older fake libcuda without cuModuleLoadData, cuModuleUnload,
// cuModuleGetFunction and cuLaunchKernel: the addon still loads and everything
// else works; modules fail with a CudaError only when used.
import { CudaError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { probe } from './driver.js';
import { KernelParams, Module } from './module.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda({ noModules: true });
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;

describe.skipIf(!fake)('a fake libcuda without module and launch entry points', () => {
  it('loads, and everything but modules works', () => {
    expect(probe()).toMatchObject({ available: true, deviceCount: 1 });
    expect(Device.get().name).toBe('Fake CUDA Device');
    const buffer = DeviceBuffer.alloc(16);
    buffer.memsetSync(1);
    buffer.dispose();
    // Packing parameters needs no driver at all.
    expect(new KernelParams().u32(1).u64(2n).byteLength).toBe(16);
  });

  it('Module.load throws CudaError CUDA_ERROR_NOT_FOUND naming cuModuleLoadData', () => {
    let thrown: unknown;
    try {
      Module.load('.version 8.0\n.target sm_80\n');
    } catch (error) {
      thrown = error;
    }
    expect(CudaError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      call: 'cuModuleLoadData',
      result: 500,
      resultName: 'CUDA_ERROR_NOT_FOUND',
    });
    expect((thrown as Error).message).toBe(
      '`cuModuleLoadData` failed: CUDA_ERROR_NOT_FOUND (500): symbol cuModuleLoadData not found in libcuda',
    );
  });
});
