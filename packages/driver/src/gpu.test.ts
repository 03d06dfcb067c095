// On a real GPU: data round trips, memset/fill, slices, waiting off the main
// thread while the event loop ticks, event timing, and a hand-written PTX
// kernel. Skipped without a GPU.
import { randomFillSync } from 'node:crypto';
import { CudaError, ElementKind } from '@baracuda/types';
import { afterAll, describe, expect, it } from 'vitest';
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

// Checked with `ptxas -arch=sm_90` (CUDA 13). Parameters (out: u64, n: u32,
// tag: u64) put `tag` at offset 16, after 4 bytes of padding: the launch only
// reads it back right if KernelParams pads like the compiler.
const INDEX_PTX = `.version 7.0
.target sm_52
.address_size 64

// out[i] = (blockIdx.x << 16) | threadIdx.x for i < n; out[n] and out[n + 1]
// get the low and high words of tag; threads past n + 1 write nothing.
.visible .entry baracuda_test_indices(
	.param .u64 out,
	.param .u32 n,
	.param .u64 tag
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<7>;

	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.u64 %rd4, %rd2, %rd3;
	setp.lt.u32 %p1, %r5, %r1;
	@%p1 bra INDEX;
	sub.u32 %r6, %r5, %r1;
	setp.gt.u32 %p2, %r6, 1;
	@%p2 bra DONE;
	ld.param.u64 %rd5, [tag];
	shl.b32 %r7, %r6, 5;
	shr.u64 %rd6, %rd5, %r7;
	cvt.u32.u64 %r8, %rd6;
	st.global.u32 [%rd4], %r8;
	bra.uni DONE;
INDEX:
	shl.b32 %r9, %r3, 16;
	or.b32 %r9, %r9, %r2;
	st.global.u32 [%rd4], %r9;
DONE:
	ret;
}
`;

/** What INDEX_PTX writes for `threads` threads in blocks of `blockSize`, given `n` and `tag`. */
function expectedIndices(threads: number, blockSize: number, n: number, tag: bigint): number[] {
  return Array.from({ length: threads }, (_, i) => {
    if (i < n) return ((Math.floor(i / blockSize) << 16) | (i % blockSize)) >>> 0;
    if (i === n) return Number(tag & 0xffffffffn);
    if (i === n + 1) return Number(tag >> 32n);
    return 0xffffffff;
  });
}

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
    expect(Array.from(values)).toEqual(expectedIndices(threads, blockSize, n, tag));

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
    expect(Array.from(values)).toEqual(expectedIndices(threads, 128, 100, 42n));
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
