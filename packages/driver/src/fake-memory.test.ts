// The fake libcuda behaves as a real driver with device pointers: it checks
// them against its live allocations and answers CUDA_ERROR_INVALID_VALUE, and
// its live counts show that dispose() frees every native object.
import { CudaError, DisposedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { Event } from './event.js';
import { Module } from './module.js';
import { PinnedHostBuffer } from './pinned.js';
import { buildFakeLibcuda, fakeCudaLiveCounts } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
const counts = () => fakeCudaLiveCounts(fake as string);
const PTX = '.version 8.0\n.target sm_80\n.visible .entry noop() { ret; }\n';

describe.skipIf(!fake)('the fake libcuda', () => {
  it('answers CUDA_ERROR_INVALID_VALUE for a device pointer it did not allocate', () => {
    const buffer = DeviceBuffer.alloc(64);
    let caught: unknown;
    try {
      buffer.copyFromSync({ devicePtr: 0x1000n, byteLength: 16 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CudaError);
    expect(caught).toMatchObject({
      call: 'cuMemcpyDtoDAsync_v2',
      result: 1,
      resultName: 'CUDA_ERROR_INVALID_VALUE',
    });
    // A range that starts inside an allocation but runs past its end.
    const other = DeviceBuffer.alloc(8);
    expect(() => buffer.copyFromSync({ devicePtr: other.devicePtr, byteLength: 16 })).toThrow(
      CudaError,
    );
    other.dispose();
    buffer.dispose();
  });

  it('counts live objects, and dispose() brings every count back', () => {
    const device = Device.get();
    const before = counts();
    expect(before.contexts).toBe(1); // the primary context, retained for the process
    const stream = device.createStream();
    const event = Event.create(device);
    const plain = DeviceBuffer.alloc(256);
    const ordered = DeviceBuffer.alloc(128, { stream });
    const pinned = PinnedHostBuffer.alloc(32);
    const module = Module.load(PTX);
    module.getFunction('noop');
    expect(counts()).toEqual({
      ...before,
      allocations: before.allocations + 2,
      allocatedBytes: before.allocatedBytes + 384,
      hostAllocations: before.hostAllocations + 1,
      streams: before.streams + 1,
      events: before.events + 1,
      modules: before.modules + 1,
      functions: before.functions + 1,
    });
    module.dispose();
    pinned.dispose();
    ordered.dispose();
    plain.dispose();
    event.dispose();
    stream.dispose();
    expect(counts()).toEqual(before);
    expect(() => plain.uploadSync(new Uint8Array(4))).toThrow(new DisposedError('DeviceBuffer'));
  });
});
