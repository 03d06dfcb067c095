// A fake libcuda exporting only cuInit, cuDriverGetVersion and cuDeviceGetCount
// (0 devices): the probe reports the driver with its version and no devices.
import { UnsupportedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { probe } from './driver.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda({ minimal: true });
if (fake) {
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
  process.env.FAKE_CUDA_DEVICE_COUNT = '0';
}

describe.skipIf(!fake)('a minimal fake libcuda with no devices', () => {
  it('probe() reports it available with its version and 0 devices', () => {
    expect(probe()).toEqual({
      available: true,
      driverVersion: 12080,
      deviceCount: 0,
      libraryPath: fake,
      searched: [],
      reason: null,
    });
  });

  it('Device.count() is 0 and device entries throw UnsupportedError', () => {
    expect(Device.count()).toBe(0);
    expect(Device.all()).toEqual([]);
    const expected = `No CUDA device is present: the driver at ${fake} reports 0 devices (check nvidia-smi and CUDA_VISIBLE_DEVICES)`;
    expect(() => Device.get()).toThrow(new UnsupportedError(expected));
    expect(() => DeviceBuffer.alloc(16)).toThrow(new UnsupportedError(expected));
  });
});
