// On a real GPU: data round trips, memset/fill, slices, waiting off the main
// thread while the event loop ticks, event timing, and a hand-written PTX
// kernel. Skipped without a GPU.
import { randomFillSync } from 'node:crypto';
import { CudaError, ElementKind } from '@baracuda/types';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedIndices, INDEX_PTX } from '../scripts/index-ptx.mjs';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { probe } from './driver.js';
import { Event } from './event.js';
import { KernelParams, Module } from './module.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';

const gpu = probe();
const reason = gpu.available ? '' : `no CUDA GPU: ${gpu.reason?.split('\n')[0]}`;
const hasGpu = gpu.available && gpu.deviceCount > 0;

describe.skipIf(!hasGpu)(`on the GPU${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const disposables: { dispose(): void }[] = [];
  afterAll(() => {
    for (const d of disposables.reverse()) d.dispose();
  });

  it('describes the device', () => {
    const device = Device.get();
    expect(device.name.length).toBeGreaterThan(0);
    expect(device.arch).toBe(
      `sm${device.computeCapability.major * 10 + device.computeCapability.minor}`,
    );
    expect(device.smCount).toBeGreaterThan(0);
    const info = device.memoryInfo();
    expect(info.total).toBe(device.totalMemory);
    expect(info.free).toBeLessThanOrEqual(info.total);
  });

  it('round-trips 64 MiB of random data bit-exactly, sync and async', async () => {
    const stream = Stream.create(undefined, { nonBlocking: true });
    disposables.push(stream);
    const bytes = 64 << 20;
    const src = randomFillSync(new Uint8Array(bytes));
    const buffer = DeviceBuffer.alloc(bytes, { stream });
    disposables.push(buffer);
    buffer.uploadSync(src);
    const back = new Uint8Array(bytes);
    buffer.downloadSync(back);
    expect(Buffer.compare(back, src)).toBe(0);

    randomFillSync(src);
    await buffer.upload(src, stream);
    const asyncBack = new Uint8Array(bytes);
    await buffer.download(asyncBack, stream);
    expect(Buffer.compare(asyncBack, src)).toBe(0);
  });

  it('memsets, fills and slices', () => {
    const buffer = DeviceBuffer.allocElements(ElementKind.U32, 1024);
    disposables.push(buffer);
    buffer.fillSync32(0xdeadbeef);
    buffer.slice(64, 128).memsetSync(0);
    buffer.slice(256, 64).fillSync16(0x1234);
    const out = new Uint32Array(1024);
    buffer.downloadSync(out);
    expect(out[15]).toBe(0xdeadbeef);
    expect(Array.from(out.subarray(16, 48))).toEqual(new Array(32).fill(0));
    expect(Array.from(out.subarray(64, 80))).toEqual(new Array(16).fill(0x12341234));
    expect(out[80]).toBe(0xdeadbeef);
    const copy = DeviceBuffer.alloc(buffer.byteLength);
    disposables.push(copy);
    copy.copyFromSync(buffer);
    const copied = new Uint32Array(1024);
    copy.downloadSync(copied);
    expect(copied).toEqual(out);
  });

  it('synchronize() keeps the event loop running during a long GPU job', async () => {
    const stream = Stream.create(undefined, { nonBlocking: true });
    disposables.push(stream);
    const a = DeviceBuffer.alloc(1 << 30, { stream });
    const b = DeviceBuffer.alloc(1 << 30, { stream });
    disposables.push(a, b);
    const start = Event.create();
    const end = Event.create();
    disposables.push(start, end);
    start.record(stream);
    for (let i = 0; i < 200; i++) {
      b.copyFrom(a, stream);
      a.memset(i & 0xff, stream);
    }
    end.record(stream);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const began = performance.now();
    await stream.synchronize();
    const waited = performance.now() - began;
    clearInterval(timer);
    const gpuMs = Event.elapsedMs(start, end);
    expect(gpuMs).toBeGreaterThan(50);
    // The loop ticked while we waited: at least a third of the possible ticks.
    expect(ticks).toBeGreaterThan(Math.floor(waited / 5 / 3));
    expect(stream.query()).toBe(true);
  });

  it('measures elapsed time between events', async () => {
    const stream = Stream.create();
    disposables.push(stream);
    const buffer = DeviceBuffer.alloc(256 << 20);
    disposables.push(buffer);
    const start = Event.create();
    const end = Event.create();
    disposables.push(start, end);
    start.record(stream);
    for (let i = 0; i < 20; i++) buffer.memset(i, stream);
    end.record(stream);
    await end.synchronize();
    expect(end.query()).toBe(true);
    const ms = Event.elapsedMs(start, end);
    expect(ms).toBeGreaterThan(0);
    expect(ms).toBeLessThan(10_000);
  });

  it('uploads from page-locked memory', async () => {
    const stream = Stream.create();
    disposables.push(stream);
    const pinned = PinnedHostBuffer.alloc(1 << 20);
    randomFillSync(pinned.bytes);
    const buffer = DeviceBuffer.alloc(1 << 20, { stream });
    disposables.push(buffer);
    await buffer.upload(pinned.bytes, stream);
    const out = new Uint8Array(1 << 20);
    await buffer.download(out, stream);
    expect(Buffer.compare(out, pinned.bytes)).toBe(0);
    pinned.dispose();
  });

  it('loads a hand-written PTX kernel, launches it and reads its output', async () => {
    const stream = Stream.create(undefined, { nonBlocking: true });
    disposables.push(stream);
    const module = Module.load(INDEX_PTX);
    disposables.push(module);
    const fn = module.getFunction('baracuda_test_indices');
    const blockSize = 256;
    const threads = 4 * blockSize;
    const n = 1000;
    const tag = 0x0123456789abcdefn;
    const out = DeviceBuffer.alloc(threads * 4);
    disposables.push(out);
    out.fillSync32(0xffffffff);
    const params = new KernelParams().ptr(out.devicePtr).u32(n).u64(tag);
    expect(params.byteLength).toBe(24);
    fn.launch(stream, [threads / blockSize, 1, 1], [blockSize, 1, 1], 0, params.bytes());
    await stream.synchronize();
    const values = new Uint32Array(threads);
    out.downloadSync(values);
    expect(Array.from(values)).toEqual(Array.from(expectedIndices(threads, blockSize, n, tag)));

    // Again on the legacy default stream, with other dimensions and a Uint8Array image.
    const bytesModule = Module.load(new TextEncoder().encode(INDEX_PTX));
    disposables.push(bytesModule);
    out.fillSync32(0xffffffff);
    params.reset().ptr(out.devicePtr).u32(100).u64(42n);
    bytesModule
      .getFunction('baracuda_test_indices')
      .launch({ raw: 0n }, [8, 1, 1], [128, 1, 1], 0, params.bytes());
    Device.get().synchronizeSync();
    out.downloadSync(values);
    expect(Array.from(values)).toEqual(Array.from(expectedIndices(threads, 128, 100, 42n)));
  });

  it('reports PTX and lookup failures as CudaError naming the call', () => {
    let thrown: unknown;
    try {
      Module.load('this is not PTX');
    } catch (error) {
      thrown = error;
    }
    expect(CudaError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ call: 'cuModuleLoadData' });
    expect((thrown as Error).message).toMatch(
      /^`cuModuleLoadData` failed: CUDA_ERROR_[A-Z_]+ \(\d+\)/,
    );
    const module = Module.load(INDEX_PTX);
    disposables.push(module);
    expect(() => module.getFunction('missing_kernel')).toThrow(
      /^`cuModuleGetFunction` failed: CUDA_ERROR_NOT_FOUND \(500\): .*no kernel named "missing_kernel" in this module/,
    );
  });

  it('returns device memory after 1,000 allocate/free cycles', () => {
    const device = Device.get();
    const stream = Stream.create();
    disposables.push(stream);
    device.synchronizeSync();
    const before = device.memoryInfo().free;
    for (let i = 0; i < 1000; i++) DeviceBuffer.alloc(1 << 20).dispose();
    device.synchronizeSync();
    expect(device.memoryInfo().free).toBe(before);
  });
});
