// The public surface refuses misuse with typed errors, against the fake libcuda:
// factory-only classes refuse `new`, and sizes, pointers, names and host views
// that the native layer would refuse (untyped) are refused first, by name.
import {
  BufferTooSmallError,
  DisposedError,
  InvalidArgumentError,
  UnsupportedError,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { Event } from './event.js';
import { KernelFunction, KernelParams, Module } from './module.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
const PTX = '.version 8.0\n.target sm_80\n.visible .entry noop() { ret; }\n';

type Constructor = new (...args: unknown[]) => unknown;
const construct =
  (type: unknown, ...args: unknown[]) =>
  () =>
    new (type as Constructor)(...args);

describe('factory-only classes', () => {
  it('refuse `new` with a typed error naming the factory', () => {
    const cases: [unknown, string][] = [
      [Device, 'Device cannot be constructed with new: use Device.get(ordinal)'],
      [
        Stream,
        'Stream cannot be constructed with new: use Stream.create(device, options) or device.createStream(options)',
      ],
      [Event, 'Event cannot be constructed with new: use Event.create(device, options)'],
      [
        DeviceBuffer,
        'DeviceBuffer cannot be constructed with new: use DeviceBuffer.alloc(byteLength, options), DeviceBuffer.allocElements(kind, count, options) or buffer.slice(byteOffset, byteLength)',
      ],
      [
        PinnedHostBuffer,
        'PinnedHostBuffer cannot be constructed with new: use PinnedHostBuffer.alloc(byteLength, options)',
      ],
      [Module, 'Module cannot be constructed with new: use Module.load(image, device)'],
      [
        KernelFunction,
        'KernelFunction cannot be constructed with new: use module.getFunction(name)',
      ],
    ];
    for (const [type, text] of cases) {
      expect(construct(type)).toThrow(new UnsupportedError(text));
      // Arguments that look right do not help: only the package's factories hold the token.
      expect(construct(type, Symbol('@baracuda/driver factory'), 0, {})).toThrow(
        new UnsupportedError(text),
      );
    }
    let caught: unknown;
    try {
      construct(Device)();
    } catch (error) {
      caught = error;
    }
    expect(UnsupportedError.isInstance(caught)).toBe(true);
  });

  it('KernelParams keeps its constructor, with a bounded capacity', () => {
    expect(new KernelParams(64).byteLength).toBe(0);
    expect(() => new KernelParams(2 ** 40)).toThrow(
      new InvalidArgumentError(
        'capacityBytes',
        'an integer from 1 to 32768 (CUDA takes at most 32764 bytes of kernel parameters)',
        2 ** 40,
      ),
    );
  });
});

describe.skipIf(!fake)('typed errors where the native layer would throw untyped ones', () => {
  it('copyFrom checks the slice pointer, its range and its length, reading each once', () => {
    const buffer = DeviceBuffer.alloc(64);
    const pointerError = (value: bigint) =>
      new InvalidArgumentError(
        'src.devicePtr',
        'a device pointer from 1n to 2n ** 64n - 1n',
        value,
      );
    expect(() => buffer.copyFromSync({ devicePtr: 2n ** 64n, byteLength: 4 })).toThrow(
      pointerError(2n ** 64n),
    );
    expect(() => buffer.copyFromSync({ devicePtr: -8n, byteLength: 4 })).toThrow(pointerError(-8n));
    expect(() => buffer.copyFromSync({ devicePtr: 0n, byteLength: 4 })).toThrow(pointerError(0n));
    expect(() => buffer.copyFromSync({ devicePtr: 16n, byteLength: Number.NaN })).toThrow(
      new InvalidArgumentError('src.byteLength', 'a non-negative integer', Number.NaN),
    );
    expect(() => buffer.copyFromSync({ devicePtr: 2n ** 64n - 2n, byteLength: 4 })).toThrow(
      new InvalidArgumentError(
        'src.byteLength',
        'at most 2 (the range must end below 2n ** 64n)',
        4,
      ),
    );
    // A getter that answers differently on a second read gets no second read.
    const source = DeviceBuffer.alloc(16);
    source.uploadSync(new Uint8Array(16).fill(7));
    let reads = 0;
    const shifty = {
      get devicePtr() {
        reads++;
        return reads === 1 ? source.devicePtr : 'not a pointer';
      },
      byteLength: 16,
    };
    buffer.copyFromSync(shifty as never);
    expect(reads).toBe(1);
    const back = new Uint8Array(16);
    buffer.downloadSync(back);
    expect([...back]).toEqual(new Array(16).fill(7));
    source.dispose();
    buffer.dispose();
  });

  it('sizes and offsets past 2^31, 2^32 and 2^53, and NaN, are typed errors', () => {
    const total = Device.get().totalMemory;
    const tooBig = (size: number) =>
      new InvalidArgumentError(
        'byteLength',
        `at most ${total} bytes (the total memory of device 0, Fake CUDA Device)`,
        size,
      );
    expect(() => DeviceBuffer.alloc(2 ** 31)).toThrow(tooBig(2 ** 31));
    expect(() => DeviceBuffer.alloc(2 ** 32)).toThrow(tooBig(2 ** 32));
    expect(() => DeviceBuffer.alloc(2 ** 53)).toThrow(
      new InvalidArgumentError('byteLength', 'a positive integer', 2 ** 53),
    );
    expect(() => DeviceBuffer.allocElements('f32', 2 ** 52)).toThrow(
      new InvalidArgumentError('count', 'at most 2251799813685247 f32 elements', 2 ** 52),
    );
    const buffer = DeviceBuffer.alloc(64);
    expect(() => buffer.slice(2 ** 32, 1)).toThrow(
      new InvalidArgumentError(
        'byteOffset + byteLength',
        'at most 64 (the size of the buffer being sliced)',
        2 ** 32 + 1,
      ),
    );
    expect(() => buffer.uploadSync(new Uint8Array(4), 2 ** 53)).toThrow(
      new InvalidArgumentError('byteOffset', 'a non-negative integer', 2 ** 53),
    );
    expect(() => buffer.uploadSync(new Uint8Array(4), Number.NaN)).toThrow(
      new InvalidArgumentError('byteOffset', 'a non-negative integer', Number.NaN),
    );
    expect(() => buffer.fillSync32(2 ** 32)).toThrow(
      new InvalidArgumentError('value', 'an integer from 0 to 4294967295', 2 ** 32),
    );
    expect(() => PinnedHostBuffer.alloc(Number.NaN)).toThrow(
      new InvalidArgumentError('byteLength', 'a positive integer', Number.NaN),
    );
    buffer.dispose();
  });

  it('copies through DataViews over a SharedArrayBuffer', async () => {
    const buffer = DeviceBuffer.alloc(16);
    const shared = new DataView(new SharedArrayBuffer(16));
    shared.setUint32(4, 0xdeadbeef, true);
    buffer.uploadSync(shared);
    const back = new DataView(new SharedArrayBuffer(16));
    buffer.downloadSync(back);
    expect(back.getUint32(4, true)).toBe(0xdeadbeef);
    const stream = Stream.create();
    const later = new DataView(new SharedArrayBuffer(16));
    await buffer.download(later, stream);
    expect(later.getUint32(4, true)).toBe(0xdeadbeef);
    stream.dispose();
    buffer.dispose();
  });

  it('refuses views over a detached buffer, and reads a view length the getter cannot fake', () => {
    const buffer = DeviceBuffer.alloc(16);
    const backing = new ArrayBuffer(8);
    const view = new Uint8Array(backing);
    structuredClone(backing, { transfer: [backing] });
    expect(() => buffer.uploadSync(view)).toThrow(
      new InvalidArgumentError(
        'src',
        'a TypedArray or DataView over a live (not detached) buffer',
        view,
      ),
    );
    const big = new Uint8Array(64);
    Object.defineProperty(big, 'byteLength', { value: 4 });
    expect(() => buffer.uploadSync(big)).toThrow(new BufferTooSmallError('DeviceBuffer', 64, 16));
    buffer.dispose();
  });

  it('setters on Object.prototype never run inside a native call', () => {
    const calls: string[] = [];
    for (const key of ['handle', 'pointer', 'buffer', 'streamOrdered']) {
      Object.defineProperty(Object.prototype, key, {
        configurable: true,
        set() {
          calls.push(key);
        },
      });
    }
    try {
      const buffer = DeviceBuffer.alloc(16);
      const pinned = PinnedHostBuffer.alloc(16);
      pinned.bytes.fill(3);
      buffer.uploadSync(pinned.bytes);
      const back = new Uint8Array(16);
      buffer.downloadSync(back);
      expect(back[15]).toBe(3);
      pinned.dispose();
      buffer.dispose();
    } finally {
      for (const key of ['handle', 'pointer', 'buffer', 'streamOrdered']) {
        delete (Object.prototype as Record<string, unknown>)[key];
      }
    }
    expect(calls).toEqual([]);
  });

  it('launch checks its module again after reading user values', () => {
    const module = Module.load(PTX);
    const noop = module.getFunction('noop');
    const stream = {
      get raw() {
        module.dispose();
        return 0n;
      },
    };
    expect(() => noop.launch(stream, [1, 1, 1], [1, 1, 1], 0, new Uint8Array(0))).toThrow(
      new DisposedError('Module of KernelFunction noop'),
    );
  });

  it('objects are frozen: an own property cannot shadow what the package reads', () => {
    const stream = Stream.create();
    const buffer = DeviceBuffer.alloc(16);
    expect(() => Object.defineProperty(stream, 'handle', { value: {} })).toThrow(TypeError);
    expect(() => Object.defineProperty(buffer, 'disposed', { value: false })).toThrow(TypeError);
    expect(Object.isFrozen(Device.get())).toBe(true);
    buffer.dispose();
    stream.dispose();
  });

  it('getFunction refuses a name with a NUL character', () => {
    const module = Module.load(PTX);
    expect(() => module.getFunction('a\0b')).toThrow(
      new InvalidArgumentError('name', 'a kernel name without NUL characters', 'a\0b'),
    );
    const params = new Uint8Array(new ArrayBuffer(8));
    structuredClone(params.buffer, { transfer: [params.buffer] });
    expect(() =>
      module.getFunction('noop').launch({ raw: 0n }, [1, 1, 1], [1, 1, 1], 0, params),
    ).toThrow(
      new InvalidArgumentError(
        'params',
        'a TypedArray or DataView over a live (not detached) buffer',
        params,
      ),
    );
    module.dispose();
  });
});
