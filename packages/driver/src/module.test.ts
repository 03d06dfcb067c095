// Modules, functions and launches end to end through the addon against the
// fake libcuda (test/fake-libcuda.c). Its "kernels" run on the host and write
// what the driver received into device memory (host memory in the fake), so
// these tests read launches back the way a real test reads kernel output.
import { CudaError, DisposedError, InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { KernelFunction, KernelParams, Module } from './module.js';
import type { FunctionHandle, ModuleHandle } from './native.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) {
  process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
  process.env.FAKE_CUDA_DEVICE_COUNT = '2';
}

const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry fake_record(.param .u64 out) { ret; }
.visible .entry fake_image(.param .u64 out) { ret; }
.visible .entry fake_iota(.param .u64 out) { ret; }
.visible .entry fake_fail() { ret; }
.visible .entry noop() { ret; }
`;

/** struct launch_record in test/fake-libcuda.c, then the parameter bytes. */
interface LaunchRecord {
  grid: number[];
  block: number[];
  sharedBytes: number;
  liveModules: number;
  stream: bigint;
  paramBytes: number;
  setCurrentCalls: bigint;
  extraLength: number;
  params: Uint8Array;
}

const RECORD_BYTES = 64;

function readRecord(buffer: DeviceBuffer): LaunchRecord {
  const bytes = new Uint8Array(buffer.byteLength);
  buffer.downloadSync(bytes);
  const view = new DataView(bytes.buffer);
  const u32 = (offset: number) => view.getUint32(offset, true);
  const paramBytes = Number(view.getBigUint64(40, true));
  return {
    grid: [u32(0), u32(4), u32(8)],
    block: [u32(12), u32(16), u32(20)],
    sharedBytes: u32(24),
    liveModules: u32(28),
    stream: view.getBigUint64(32, true),
    paramBytes,
    setCurrentCalls: view.getBigUint64(48, true),
    extraLength: Number(view.getBigUint64(56, true)),
    params: bytes.slice(RECORD_BYTES, RECORD_BYTES + paramBytes),
  };
}

function readImage(fn: KernelFunction, stream: Stream): Uint8Array {
  const out = DeviceBuffer.alloc(4096);
  out.memsetSync(0xee);
  fn.launch(stream, [1, 1, 1], [1, 1, 1], 0, new KernelParams().ptr(out.devicePtr).bytes());
  stream.synchronizeSync();
  const bytes = new Uint8Array(4096);
  out.downloadSync(bytes);
  out.dispose();
  const length = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  return bytes.slice(8, 8 + length);
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('KernelParams (no driver needed)', () => {
  it('packs each value at its natural alignment, little-endian', () => {
    const params = new KernelParams().u32(0xdeadbeef).u64(0x1122334455667788n);
    expect(params.byteLength).toBe(16);
    expect(Array.from(params.bytes())).toEqual([
      0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
    ]);
    const mixed = new KernelParams().ptr(0x1000n).u32(7).f32(1.5).i32(-2).f64(0.25).u64(9);
    // ptr@0, u32@8, f32@12, i32@16, (pad 20..23) f64@24, u64@32
    expect(mixed.byteLength).toBe(40);
    const view = new DataView(mixed.bytes().buffer, 0, 40);
    expect(view.getBigUint64(0, true)).toBe(0x1000n);
    expect(view.getUint32(8, true)).toBe(7);
    expect(view.getFloat32(12, true)).toBe(1.5);
    expect(view.getInt32(16, true)).toBe(-2);
    expect(view.getUint32(20, true)).toBe(0);
    expect(view.getFloat64(24, true)).toBe(0.25);
    expect(view.getBigUint64(32, true)).toBe(9n);
    expect(new KernelParams().ptr(1n).u32(2).byteLength).toBe(12);
    expect(new KernelParams().bytes().byteLength).toBe(0);
  });

  it('grows past its capacity, keeps what was packed, and zeroes padding after a reset', () => {
    const params = new KernelParams(4);
    for (let i = 0; i < 5; i++) params.u64(BigInt(i) + 0xff00n);
    expect(params.byteLength).toBe(40);
    const view = new DataView(params.bytes().buffer);
    for (let i = 0; i < 5; i++) expect(view.getBigUint64(8 * i, true)).toBe(BigInt(i) + 0xff00n);
    params.reset().u32(1).u64(2n);
    expect(Array.from(params.bytes().subarray(4, 8))).toEqual([0, 0, 0, 0]);
  });

  it('returns the same view while nothing changes (no allocation per launch)', () => {
    const params = new KernelParams().ptr(5n).u32(3);
    const first = params.bytes();
    expect(params.bytes()).toBe(first);
    params.reset().ptr(6n).u32(4);
    expect(params.bytes()).toBe(first);
    expect(new DataView(first.buffer).getBigUint64(0, true)).toBe(6n);
    params.u32(1);
    expect(params.bytes()).not.toBe(first);
    expect(params.bytes().byteLength).toBe(16);
  });

  it('rejects every out-of-range or mistyped value with an exact message', () => {
    const p = new KernelParams();
    const cases: [() => unknown, string][] = [
      [
        () => new KernelParams(0),
        'Expected an integer from 1 to 32768 (CUDA takes at most 32764 bytes of kernel parameters) for capacityBytes but received 0 of type number',
      ],
      [
        () => p.u32(-1),
        'Expected an integer from 0 to 4294967295 for u32 but received -1 of type number',
      ],
      [
        () => p.u32(2 ** 32),
        'Expected an integer from 0 to 4294967295 for u32 but received 4294967296 of type number',
      ],
      [
        () => p.u32(1.5),
        'Expected an integer from 0 to 4294967295 for u32 but received 1.5 of type number',
      ],
      [
        () => p.i32(2 ** 31),
        'Expected an integer from -2147483648 to 2147483647 for i32 but received 2147483648 of type number',
      ],
      [
        () => p.u64(-1n),
        'Expected a bigint from 0n to 2n ** 64n - 1n, or a non-negative safe integer for u64 but received -1n of type bigint',
      ],
      [
        () => p.u64(2n ** 64n),
        'Expected a bigint from 0n to 2n ** 64n - 1n, or a non-negative safe integer for u64 but received 18446744073709551616n of type bigint',
      ],
      [
        () => p.u64(1.5),
        'Expected a bigint from 0n to 2n ** 64n - 1n, or a non-negative safe integer for u64 but received 1.5 of type number',
      ],
      [() => p.f32('1' as never), 'Expected a number for f32 but received "1" of type string'],
      [() => p.f64(1n as never), 'Expected a number for f64 but received 1n of type bigint'],
      [
        () => p.ptr(1 as never),
        'Expected a device pointer as a 64-bit unsigned bigint for ptr but received 1 of type number',
      ],
      [
        () => p.ptr(-1n),
        'Expected a device pointer as a 64-bit unsigned bigint for ptr but received -1n of type bigint',
      ],
    ];
    for (const [run, message] of cases) {
      const error = thrown(run);
      expect(InvalidArgumentError.isInstance(error), message).toBe(true);
      expect((error as Error).message).toBe(message);
    }
    expect(p.byteLength).toBe(0); // nothing half-written
  });
});

describe.skipIf(!fake)('modules and launches against a fake libcuda', () => {
  it('loads PTX text and hands the driver a NUL-terminated copy', () => {
    const module = Module.load(PTX);
    expect(module.device).toBe(Device.get(0));
    const stream = Stream.create();
    const image = readImage(module.getFunction('fake_image'), stream);
    expect(new TextDecoder().decode(image)).toBe(`${PTX}\0`);
    module.dispose();
    stream.dispose();
  });

  it('NUL-terminates a Uint8Array image that is a view into a larger buffer', () => {
    const text = new TextEncoder().encode(PTX);
    // Bytes after the view are not NUL until the very end: reading past the
    // view would make the driver see a longer image.
    const backing = new Uint8Array(text.length + 64).fill(0x58);
    backing.set(text);
    backing[backing.length - 1] = 0;
    const module = Module.load(backing.subarray(0, text.length));
    const stream = Stream.create();
    const image = readImage(module.getFunction('fake_image'), stream);
    expect(image.length).toBe(text.length + 1);
    expect(Array.from(image)).toEqual([...text, 0]);
    module.dispose();
  });

  it('marshals grid, block, shared bytes, stream and the packed parameters', () => {
    const module = Module.load(PTX);
    const record = module.getFunction('fake_record');
    const stream = Stream.create(undefined, { nonBlocking: true });
    const outA = DeviceBuffer.alloc(256);
    const outB = DeviceBuffer.alloc(256);
    const params = new KernelParams()
      .ptr(outA.devicePtr)
      .u32(7)
      .u64(0x1122334455667788n)
      .f32(-2.5)
      .i32(-3)
      .f64(Math.PI);
    const packedA = params.bytes().slice();
    record.launch(stream, [3, 2, 1], [32, 4, 2], 1024, params.bytes());
    // The driver copied the parameters: reusing the buffer at once is safe.
    params.reset().ptr(outB.devicePtr).u32(8);
    const packedB = params.bytes().slice();
    record.launch({ raw: 0n }, [2 ** 31 - 1, 65535, 65535], [1, 1, 64], 0, params.bytes());

    const a = readRecord(outA);
    expect(a).toMatchObject({
      grid: [3, 2, 1],
      block: [32, 4, 2],
      sharedBytes: 1024,
      stream: stream.raw,
      paramBytes: 40,
      extraLength: 5,
    });
    expect(a.params).toEqual(packedA);
    const b = readRecord(outB);
    expect(b).toMatchObject({
      grid: [2 ** 31 - 1, 65535, 65535],
      block: [1, 1, 64],
      sharedBytes: 0,
      stream: 0n,
      paramBytes: 12,
    });
    expect(b.params).toEqual(packedB);
    // Back-to-back launches in the current context switch no context.
    expect(b.setCurrentCalls).toBe(a.setCurrentCalls);
    module.dispose();
  });

  it('runs a kernel whose output is read back from device memory', () => {
    const module = Module.load(new TextEncoder().encode(PTX));
    const iota = module.getFunction('fake_iota');
    const out = DeviceBuffer.alloc(256 * 4);
    out.memsetSync(0xff);
    iota.launch(
      Stream.create(),
      [4, 1, 1],
      [64, 1, 1],
      0,
      new KernelParams().ptr(out.devicePtr).bytes(),
    );
    const values = new Uint32Array(256);
    out.downloadSync(values);
    expect(Array.from(values)).toEqual(Array.from({ length: 256 }, (_, i) => i));
    module.dispose();
  });

  it('returns the same KernelFunction for the same name', () => {
    const module = Module.load(PTX);
    const fn = module.getFunction('noop');
    expect(fn).toBeInstanceOf(KernelFunction);
    expect(fn).toMatchObject({ name: 'noop', module });
    expect(module.getFunction('noop')).toBe(fn);
    fn.launch(Stream.create(), [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0));
    module.dispose();
  });

  it('loads on another device and refuses that device a stream of device 0', () => {
    const device1 = Device.get(1);
    const module = Module.load(PTX, device1);
    expect(module.device).toBe(device1);
    const fn = module.getFunction('noop');
    const stream0 = Stream.create(Device.get(0));
    expect(() => fn.launch(stream0, [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0))).toThrow(
      new InvalidArgumentError('stream', 'a Stream on device 1', stream0),
    );
    fn.launch(Stream.create(device1), [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0));
    module.dispose();
  });

  it('names the failed call and the CUDA error when a module does not load', () => {
    const invalid = thrown(() => Module.load('FAKE_INVALID_PTX and more'));
    expect(CudaError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({
      call: 'cuModuleLoadData',
      result: 218,
      resultName: 'CUDA_ERROR_INVALID_PTX',
    });
    expect((invalid as Error).message).toBe(
      '`cuModuleLoadData` failed: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed; loading a 25-byte module image on device 0',
    );
    const unsupported = thrown(() => Module.load('FAKE_UNSUPPORTED_PTX'));
    expect((unsupported as Error).message).toBe(
      '`cuModuleLoadData` failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222): the provided PTX was compiled with an unsupported toolchain.; loading a 20-byte module image on device 0',
    );
  });

  it('names the kernel that was not found, and explains a failed launch', () => {
    const module = Module.load(PTX);
    const missing = thrown(() => module.getFunction('fake_recor'));
    expect(CudaError.isInstance(missing)).toBe(true);
    expect(missing).toMatchObject({ call: 'cuModuleGetFunction', result: 500 });
    expect((missing as Error).message).toBe(
      '`cuModuleGetFunction` failed: CUDA_ERROR_NOT_FOUND (500): named symbol not found; no kernel named "fake_recor" in this module (a C++ kernel\'s name is mangled unless it is declared extern "C")',
    );
    const fail = module.getFunction('fake_fail');
    const launch = thrown(() =>
      fail.launch({ raw: 0n }, [2, 1, 1], [8, 1, 1], 16, new KernelParams().u32(1).bytes()),
    );
    expect(CudaError.isInstance(launch)).toBe(true);
    expect((launch as Error).message).toBe(
      '`cuLaunchKernel` failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): too many resources requested for launch; launching fake_fail with grid [2, 1, 1], block [8, 1, 1], 16 shared bytes and 4 parameter bytes',
    );
    module.dispose();
  });

  it('rejects every bad argument with an exact message, before calling the driver', () => {
    const module = Module.load(PTX);
    const fn = module.getFunction('noop');
    const stream = Stream.create();
    const ok = new Uint8Array(0);
    const imageExpected =
      'PTX text (a non-empty string) or a non-empty Uint8Array (PTX, cubin or fatbin)';
    const cases: [() => unknown, string][] = [
      [() => Module.load(''), `Expected ${imageExpected} for image but received "" of type string`],
      [
        () => Module.load(new Uint8Array(0)),
        `Expected ${imageExpected} for image but received an instance of Uint8Array`,
      ],
      [
        () => Module.load(42 as never),
        `Expected ${imageExpected} for image but received 42 of type number`,
      ],
      [
        () => Module.load(new Uint16Array(4) as never),
        `Expected ${imageExpected} for image but received an instance of Uint16Array`,
      ],
      [
        () => Module.load('a\0b'),
        'Expected PTX text without NUL characters for image but received "a\\u0000b" of type string',
      ],
      [
        () => Module.load(PTX, 0 as never),
        'Expected a Device for device but received 0 of type number',
      ],
      [
        () => module.getFunction(''),
        'Expected a non-empty string for name but received "" of type string',
      ],
      [
        () => module.getFunction(7 as never),
        'Expected a non-empty string for name but received 7 of type number',
      ],
      [
        () => fn.launch(null as never, [1, 1, 1], [1, 1, 1], 0, ok),
        'Expected a Stream or an object with a raw CUstream (bigint) for stream but received null',
      ],
      [
        () => fn.launch({ raw: 1 } as never, [1, 1, 1], [1, 1, 1], 0, ok),
        'Expected a CUstream as a 64-bit unsigned bigint for stream.raw but received 1 of type number',
      ],
      [
        () => fn.launch({ raw: -1n }, [1, 1, 1], [1, 1, 1], 0, ok),
        'Expected a CUstream as a 64-bit unsigned bigint for stream.raw but received -1n of type bigint',
      ],
      [
        () => fn.launch(stream, 1 as never, [1, 1, 1], 0, ok),
        'Expected an array of three positive integers for grid but received 1 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1] as never, [1, 1, 1], 0, ok),
        'Expected an array of three positive integers for grid but received an array of length 2',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1, 1] as never, 0, ok),
        'Expected an array of three positive integers for block but received an array of length 4',
      ],
      [
        () => fn.launch(stream, [0, 1, 1], [1, 1, 1], 0, ok),
        'Expected an integer from 1 to 2147483647 for grid[0] but received 0 of type number',
      ],
      [
        () => fn.launch(stream, [2 ** 31, 1, 1], [1, 1, 1], 0, ok),
        'Expected an integer from 1 to 2147483647 for grid[0] but received 2147483648 of type number',
      ],
      [
        () => fn.launch(stream, [1, 65536, 1], [1, 1, 1], 0, ok),
        'Expected an integer from 1 to 65535 for grid[1] but received 65536 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1.5], [1, 1, 1], 0, ok),
        'Expected an integer from 1 to 65535 for grid[2] but received 1.5 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1025, 1, 1], 0, ok),
        'Expected an integer from 1 to 1024 for block[0] but received 1025 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, Number.NaN, 1], 0, ok),
        'Expected an integer from 1 to 1024 for block[1] but received NaN of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 65], 0, ok),
        'Expected an integer from 1 to 64 for block[2] but received 65 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, '1'] as never, 0, ok),
        'Expected an integer from 1 to 64 for block[2] but received "1" of type string',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [32, 32, 2], 0, ok),
        'Expected at most 1024 threads for block[0] × block[1] × block[2] but received 2048 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1], -1, ok),
        'Expected an integer from 0 to 4294967295 for sharedBytes but received -1 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1], 2 ** 32, ok),
        'Expected an integer from 0 to 4294967295 for sharedBytes but received 4294967296 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1], 0.5, ok),
        'Expected an integer from 0 to 4294967295 for sharedBytes but received 0.5 of type number',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1], 0, [1, 2] as never),
        'Expected a Uint8Array (see KernelParams) for params but received an array of length 2',
      ],
      [
        () => fn.launch(stream, [1, 1, 1], [1, 1, 1], 0, new Float32Array(2) as never),
        'Expected a Uint8Array (see KernelParams) for params but received an instance of Float32Array',
      ],
    ];
    for (const [run, message] of cases) {
      const error = thrown(run);
      expect(InvalidArgumentError.isInstance(error), message).toBe(true);
      expect((error as Error).message).toBe(message);
    }
    module.dispose();
  });

  it('unloads idempotently; the module and its functions refuse use afterwards', () => {
    const stream = Stream.create();
    const keeper = Module.load(PTX);
    const record = keeper.getFunction('fake_record');
    const out = DeviceBuffer.alloc(256);
    const params = new KernelParams().ptr(out.devicePtr).bytes();
    record.launch(stream, [1, 1, 1], [1, 1, 1], 0, params);
    const before = readRecord(out).liveModules;

    const module = Module.load(PTX);
    const fn = module.getFunction('noop');
    record.launch(stream, [1, 1, 1], [1, 1, 1], 0, params);
    expect(readRecord(out).liveModules).toBe(before + 1);
    module.dispose();
    module.dispose();
    module[Symbol.dispose]();
    expect(module.disposed).toBe(true);
    record.launch(stream, [1, 1, 1], [1, 1, 1], 0, params);
    expect(readRecord(out).liveModules).toBe(before); // cuModuleUnload ran exactly once

    expect(() => module.getFunction('noop')).toThrow(new DisposedError('Module'));
    expect(() => module.handle).toThrow(new DisposedError('Module'));
    expect(() => fn.launch(stream, [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0))).toThrow(
      'Module of KernelFunction noop has been disposed and cannot be used',
    );
    const disposedStream = Stream.create();
    disposedStream.dispose();
    expect(() => record.launch(disposedStream, [1, 1, 1], [1, 1, 1], 0, params)).toThrow(
      new DisposedError('Stream'),
    );
    keeper.dispose();
  });

  it('the native layer refuses a function whose module is unloaded, and foreign handles', () => {
    const binding = loadAddon();
    const image = new TextEncoder().encode(PTX);
    const module = binding.moduleLoadData(0, image) as ModuleHandle;
    const fn = binding.moduleGetFunction(module, 'noop') as FunctionHandle;
    binding.launchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0n, new Uint8Array(0));
    binding.moduleUnload(module);
    binding.moduleUnload(module);
    expect(() => binding.launchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0n, new Uint8Array(0))).toThrow(
      new TypeError('The Module of the KernelFunction passed as fn has been unloaded'),
    );
    expect(() => binding.moduleGetFunction(module, 'noop')).toThrow(
      new TypeError('Module passed as module has been destroyed'),
    );
    const raw = binding as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect(() => raw.moduleGetFunction?.(fn, 'noop')).toThrow(
      new TypeError('Expected a native Module handle for module but received a foreign object'),
    );
    expect(() => raw.launchKernel?.(module, 1, 1, 1, 1, 1, 1, 0, 0n, new Uint8Array(0))).toThrow(
      new TypeError('Expected a native KernelFunction handle for fn but received a foreign object'),
    );
    const live = binding.moduleLoadData(0, image) as ModuleHandle;
    expect(() => raw.moduleGetFunction?.(live, 'no\0pe')).toThrow(
      new RangeError('name must not contain a NUL character'),
    );
    expect(() => raw.moduleGetFunction?.(live, '')).toThrow(
      new RangeError('name must not be empty'),
    );
    const liveFn = binding.moduleGetFunction(live, 'noop');
    expect(() => raw.launchKernel?.(liveFn, 1, 1, 1, 1, 1, 1, 0, 0, new Uint8Array(0))).toThrow(
      new TypeError('Expected a bigint for stream'),
    );
    expect(() => raw.launchKernel?.(liveFn, 1, 1, 1, 1, 1, 1, 0, -1n, new Uint8Array(0))).toThrow(
      new RangeError('stream does not fit in 64 bits'),
    );
    expect(() => raw.launchKernel?.(liveFn, 1, 1, 1, 1, 1, 1, 0, 0n, new Int8Array(0))).toThrow(
      new TypeError('Expected a Uint8Array for params'),
    );
    expect(() =>
      raw.launchKernel?.(liveFn, 2 ** 32, 1, 1, 1, 1, 1, 0, 0n, new Uint8Array(0)),
    ).toThrow(new RangeError('gridX is out of range [0, 4294967295]'));
    binding.moduleUnload(live);
  });
});
