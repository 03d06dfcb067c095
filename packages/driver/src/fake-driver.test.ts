// End to end through the addon and the loader against a fake libcuda whose
// "device memory" is host memory: proves the plumbing (handles, offsets,
// promises, lifetimes, error translation) on machines without a GPU.
import {
  BufferTooSmallError,
  CudaError,
  DisposedError,
  ElementKind,
  InvalidArgumentError,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { probe } from './driver.js';
import { Event } from './event.js';
import type { AllocationHandle } from './native.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) {
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
  process.env.FAKE_CUDA_DEVICE_COUNT = '2';
}
const GIB = 2 ** 30;

describe.skipIf(!fake)('against a fake libcuda', () => {
  it('probes and describes devices', () => {
    expect(probe()).toMatchObject({ available: true, driverVersion: 12080, deviceCount: 2 });
    const device = Device.get();
    expect(Device.get(0)).toBe(device);
    expect(Device.all().map((d) => d.ordinal)).toEqual([0, 1]);
    expect(device).toMatchObject({
      ordinal: 0,
      name: 'Fake CUDA Device',
      computeCapability: { major: 8, minor: 6 },
      arch: 'sm86',
      smCount: 7,
      totalMemory: GIB,
    });
    expect(device.memoryInfo()).toEqual({ free: GIB, total: GIB });
    expect(String(device)).toBe('Device 0: Fake CUDA Device (sm86, 7 SMs, 1.0 GiB)');
    expect(() => Device.get(2)).toThrow(
      new InvalidArgumentError('ordinal', 'an integer from 0 to 1 (the CUDA device count is 2)', 2),
    );
    device.synchronizeSync();
    device.makeCurrent();
  });

  it('round-trips data synchronously and asynchronously, through slices', async () => {
    const stream = Stream.create(undefined, { nonBlocking: true });
    const buffer = DeviceBuffer.allocElements(ElementKind.F32, 64, { stream });
    expect(buffer.byteLength).toBe(256);
    expect(buffer.streamOrdered).toBe(true);
    expect(typeof buffer.devicePtr).toBe('bigint');
    const src = Float32Array.from({ length: 64 }, (_, i) => i * 0.25 - 3);
    buffer.uploadSync(src);
    const back = new Float32Array(64);
    buffer.downloadSync(back);
    expect(back).toEqual(src);

    const slice = buffer.slice(16, 32);
    expect(slice.parent).toBe(buffer);
    expect(slice.devicePtr).toBe(buffer.devicePtr + 16n);
    slice.fillSync32(0x3f800000);
    buffer.downloadSync(back);
    expect(Array.from(back.subarray(4, 12))).toEqual(new Array(8).fill(1));
    expect(back[3]).toBe(src[3]);
    expect(back[12]).toBe(src[12]);

    await buffer.upload(src, stream);
    const asyncBack = new Float32Array(64);
    await buffer.download(asyncBack, stream);
    expect(asyncBack).toEqual(src);

    const part = new Uint8Array(8);
    await slice.download(part, stream, 24);
    expect(Array.from(part)).toEqual(Array.from(new Uint8Array(src.buffer, 40, 8)));
    await stream.synchronize();
    expect(stream.query()).toBe(true);
    stream.synchronizeSync();
    buffer.dispose();
    stream.dispose();
  });

  it('memsets and fills by 8, 16 and 32 bits, sync and on a stream', () => {
    const stream = Stream.create();
    const buffer = DeviceBuffer.alloc(16);
    const bytes = new Uint8Array(16);
    buffer.memsetSync(0xab);
    buffer.downloadSync(bytes);
    expect(bytes.every((b) => b === 0xab)).toBe(true);
    buffer.fillSync16(0x1234);
    const words = new Uint16Array(8);
    buffer.downloadSync(words);
    expect(words.every((w) => w === 0x1234)).toBe(true);
    buffer.fill32(0xdeadbeef, stream);
    buffer.memset(7, stream);
    buffer.fill16(9, stream);
    stream.synchronizeSync();
    buffer.downloadSync(words);
    expect(words.every((w) => w === 9)).toBe(true);
    expect(() => buffer.memsetSync(256)).toThrow(
      'Expected an integer from 0 to 255 for byte but received 256 of type number',
    );
    expect(() => buffer.fillSync32(-1)).toThrow(
      'Expected an integer from 0 to 4294967295 for value but received -1 of type number',
    );
    expect(() => buffer.slice(0, 3).fillSync16(1)).toThrow(
      'Expected a multiple of 2 (the element size of this fill) for byteLength but received 3 of type number',
    );
    buffer.dispose();
  });

  it('copies device to device', () => {
    const a = DeviceBuffer.alloc(32);
    const b = DeviceBuffer.alloc(64);
    const stream = Stream.create();
    a.uploadSync(Uint8Array.from({ length: 32 }, (_, i) => i));
    b.memsetSync(0);
    b.copyFromSync(a);
    b.slice(32, 32).copyFrom(a.slice(0, 32), stream);
    stream.synchronizeSync();
    const out = new Uint8Array(64);
    b.downloadSync(out);
    expect(Array.from(out)).toEqual([...Array(32).keys(), ...Array(32).keys()]);
    expect(() => a.copyFromSync(b)).toThrow(new BufferTooSmallError('DeviceBuffer', 64, 32));
    expect(() => a.copyFromSync({ devicePtr: 1, byteLength: 4 } as never)).toThrow(
      'Expected a DeviceSlice ({devicePtr: bigint, byteLength: number}) for src but received an object',
    );
  });

  it('checks host arrays and slices against the buffer size', () => {
    const buffer = DeviceBuffer.alloc(16);
    expect(() => buffer.uploadSync(new Float64Array(3))).toThrow(
      new BufferTooSmallError('DeviceBuffer', 24, 16),
    );
    expect(() => buffer.downloadSync(new Uint8Array(8), 12)).toThrow(
      'DeviceBuffer too small: needed 20 bytes but received 16 bytes',
    );
    expect(() => buffer.uploadSync([1, 2] as never)).toThrow(
      'Expected a TypedArray or DataView for src but received an array of length 2',
    );
    expect(() => buffer.slice(8, 9)).toThrow(
      'Expected at most 16 (the size of the buffer being sliced) for byteOffset + byteLength but received 17 of type number',
    );
    expect(() => DeviceBuffer.alloc(GIB + 1)).toThrow(
      `Expected at most ${GIB} bytes (the total memory of device 0, Fake CUDA Device) for byteLength but received ${GIB + 1} of type number`,
    );
    buffer.dispose();
  });

  it('translates CUDA failures into CudaError', () => {
    const big = DeviceBuffer.alloc(GIB - 4096);
    let thrown: unknown;
    try {
      DeviceBuffer.alloc(8192);
    } catch (error) {
      thrown = error;
    }
    expect(CudaError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      '`cuMemAlloc_v2` failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory',
    );
    expect(thrown).toMatchObject({ call: 'cuMemAlloc_v2', result: 2 });
    big.dispose();
  });

  it('disposes idempotently and rejects use after dispose', async () => {
    const stream = Stream.create();
    const buffer = DeviceBuffer.alloc(64, { stream });
    const slice = buffer.slice(0, 8);
    buffer[Symbol.dispose]();
    buffer.dispose();
    expect(buffer.disposed).toBe(true);
    expect(slice.disposed).toBe(true);
    expect(() => buffer.devicePtr).toThrow(new DisposedError('DeviceBuffer'));
    expect(() => slice.uploadSync(new Uint8Array(4))).toThrow(
      'DeviceBuffer has been disposed and cannot be used',
    );
    await expect(buffer.upload(new Uint8Array(4), stream)).rejects.toThrow(DisposedError);
    stream.dispose();
    stream.dispose();
    expect(() => stream.raw).toThrow(new DisposedError('Stream'));
    await expect(stream.synchronize()).rejects.toThrow(new DisposedError('Stream'));
    expect(() => DeviceBuffer.alloc(8, { stream })).toThrow(new DisposedError('Stream'));
    const event = Event.create();
    event.dispose();
    event.dispose();
    expect(() => event.query()).toThrow(new DisposedError('Event'));
    const pinned = PinnedHostBuffer.alloc(16);
    const view = pinned.bytes;
    pinned.dispose();
    pinned.dispose();
    expect(view.length).toBe(0); // detached: no access to freed page-locked memory
    expect(() => pinned.bytes).toThrow(new DisposedError('PinnedHostBuffer'));
  });

  it('the native layer rejects a destroyed handle with a TypeError', () => {
    const buffer = DeviceBuffer.alloc(8);
    const binding = loadAddon();
    const { handle } = binding.memAlloc(0, 8, null) as { handle: AllocationHandle };
    binding.memFree(handle);
    binding.memFree(handle);
    expect(() => binding.memcpyHtoD(handle, 0, new Uint8Array(1))).toThrow(
      new TypeError('DeviceBuffer passed as buffer has been destroyed'),
    );
    expect(() => binding.memcpyHtoD(handle, 0, new Uint8Array(1))).toThrow(TypeError);
    buffer.dispose();
  });

  it('returns memory after many allocate/free cycles', () => {
    const device = Device.get();
    const stream = Stream.create();
    const before = device.memoryInfo().free;
    for (let i = 0; i < 2000; i++) {
      DeviceBuffer.alloc(4096 + i, i % 2 ? { stream } : undefined).dispose();
    }
    stream.synchronizeSync();
    expect(device.memoryInfo().free).toBe(before);
  });

  it('records events and measures elapsed time', async () => {
    const stream = Stream.create();
    const start = Event.create();
    const end = Event.create();
    start.record(stream);
    end.record(stream);
    end.record(stream);
    await end.synchronize();
    end.synchronizeSync();
    expect(end.query()).toBe(true);
    expect(Event.elapsedMs(start, end)).toBe(0.5);
    expect([start.timing, start.blockingSync]).toEqual([true, true]);
    const plain = Event.create(undefined, { blockingSync: false });
    expect([plain.timing, plain.blockingSync]).toEqual([true, false]);
    plain.dispose();
    const untimed = Event.create(undefined, { timing: false });
    expect(() => Event.elapsedMs(start, untimed)).toThrow(
      'Expected an Event created with timing: true for end but received an instance of Event',
    );
    stream.waitEvent(start);
    expect(() => start.record(Stream.create(Device.get(1)))).toThrow(
      'Expected a Stream on device 0 for stream but received an instance of Stream',
    );
  });

  it('page-locked host buffers work as upload sources', async () => {
    const stream = Stream.create();
    const pinned = PinnedHostBuffer.alloc(32);
    pinned.bytes.set(Uint8Array.from({ length: 32 }, (_, i) => 255 - i));
    const buffer = DeviceBuffer.alloc(32, { stream });
    await buffer.upload(pinned.bytes, stream);
    const out = new Uint8Array(32);
    buffer.downloadSync(out);
    expect(out).toEqual(pinned.bytes);
    pinned.dispose();
  });

  it('frees buffers the GC reaches', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    expect(gc, 'vitest.config.ts passes --expose-gc').toBeTypeOf('function');
    if (!gc) return;
    const collect = async () => {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const device = Device.get();
    await collect(); // buffers earlier tests dropped without dispose
    const before = device.memoryInfo().free;
    (() => {
      for (let i = 0; i < 64; i++) DeviceBuffer.alloc(1 << 20);
    })();
    expect(device.memoryInfo().free).toBe(before - 64 * (1 << 20));
    await collect();
    expect(device.memoryInfo().free).toBe(before);
  });
});
