// A driver that loads but whose cuInit fails (no GPU visible): probe gives the
// reason; entries throw CudaError for cuInit.
import { CudaError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Device } from './device.js';
import { probe } from './driver.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) {
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
  process.env.FAKE_CUDA_INIT_RESULT = '100';
}

const MESSAGE =
  '`cuInit` failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected; ' +
  `the driver at ${fake} could not initialize; no CUDA-capable GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)`;

describe.skipIf(!fake)('a driver whose cuInit fails', () => {
  it('probe() is unavailable with the CUresult in the reason', () => {
    expect(probe()).toEqual({
      available: false,
      driverVersion: 12080,
      deviceCount: 0,
      libraryPath: fake,
      searched: [],
      reason: MESSAGE,
    });
  });

  it('entries throw CudaError(cuInit)', () => {
    for (const run of [() => Device.count(), () => Device.get(), () => Stream.create()]) {
      let thrown: unknown;
      try {
        run();
      } catch (error) {
        thrown = error;
      }
      expect(CudaError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({
        call: 'cuInit',
        result: 100,
        resultName: 'CUDA_ERROR_NO_DEVICE',
      });
      expect((thrown as Error).message).toBe(MESSAGE);
    }
  });
});
