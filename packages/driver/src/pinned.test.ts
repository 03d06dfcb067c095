// PinnedHostBuffer against the fake libcuda: the memory is freed exactly once,
// at dispose(), and V8 is told its size. The fake's live counts show what the
// driver still holds.
import { constants } from 'node:buffer';
import { InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { DeviceBuffer } from './buffer.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda, fakeCudaLiveCounts } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
const hostAllocations = () => fakeCudaLiveCounts(fake as string).hostAllocations;

describe.skipIf(!fake)('PinnedHostBuffer against a fake libcuda', () => {
  it('refuses a size over the largest ArrayBuffer with a typed error', () => {
    const size = constants.MAX_LENGTH + 1;
    expect(() => PinnedHostBuffer.alloc(size)).toThrow(
      Number.isSafeInteger(size)
        ? new InvalidArgumentError(
            'byteLength',
            `at most ${constants.MAX_LENGTH} bytes (the largest ArrayBuffer this Node.js makes)`,
            size,
          )
        : new InvalidArgumentError('byteLength', 'a positive integer', size),
    );
  });

  it('the native layer frees memory Node refuses as an ArrayBuffer exactly once', () => {
    // Node runs the ArrayBuffer's finalizer itself when it refuses the length;
    // this used to abort the process with "free(): double free".
    PinnedHostBuffer.alloc(1).dispose(); // loads the driver
    const binding = loadAddon();
    const before = hostAllocations();
    const size = 2 ** 32 + 1;
    if (size > constants.MAX_LENGTH) {
      let caught: unknown;
      try {
        binding.hostAlloc(0, size);
      } catch (error) {
        caught = error;
      }
      expect(caught).toEqual(
        new RangeError(
          'byteLength 4294967297 is more than this Node.js can expose as one ArrayBuffer',
        ),
      );
    } else {
      const native = binding.hostAlloc(0, size);
      expect(native.buffer.byteLength).toBe(size);
      binding.hostFree(native.handle, native.buffer);
    }
    expect(hostAllocations()).toBe(before);
  });

  it('dispose() returns the page-locked memory at once, not at the next GC', () => {
    PinnedHostBuffer.alloc(1).dispose();
    const before = hostAllocations();
    for (let i = 0; i < 10_000; i++) {
      const pinned = PinnedHostBuffer.alloc(64);
      pinned.bytes[0] = 1;
      pinned.dispose();
    }
    expect(hostAllocations()).toBe(before);
    const held = Array.from({ length: 3 }, () => PinnedHostBuffer.alloc(64));
    expect(hostAllocations()).toBe(before + 3);
    for (const pinned of held) pinned.dispose();
    expect(hostAllocations()).toBe(before);
  });

  it('V8 counts the page-locked memory as external until dispose()', () => {
    const size = 64 * 2 ** 20;
    const before = process.memoryUsage().external;
    const pinned = PinnedHostBuffer.alloc(size);
    expect(process.memoryUsage().external - before).toBeGreaterThanOrEqual(size);
    pinned.dispose();
    expect(process.memoryUsage().external - before).toBeLessThan(size);
  });

  it('a copy in flight keeps disposed page-locked memory until it completes', async () => {
    const stream = Stream.create();
    const buffer = DeviceBuffer.alloc(16);
    const pinned = PinnedHostBuffer.alloc(16);
    const before = hostAllocations();
    const copy = buffer.upload(pinned.bytes, stream);
    pinned.dispose();
    expect(pinned.disposed).toBe(true);
    expect(hostAllocations()).toBe(before);
    await copy;
    await new Promise((resolve) => setImmediate(resolve));
    expect(hostAllocations()).toBe(before - 1);
    buffer.dispose();
    stream.dispose();
  });
  // Last: the buffer it leaves is freed whenever the GC gets to it, so no count after it is exact.
  it('the native free keeps memory that a still-attached ArrayBuffer can reach', () => {
    PinnedHostBuffer.alloc(1).dispose();
    const binding = loadAddon();
    const before = hostAllocations();
    const native = binding.hostAlloc(0, 64);
    binding.hostFree(native.handle, new ArrayBuffer(64)); // not its buffer: nothing is detached
    expect(native.buffer.byteLength).toBe(64);
    new Uint8Array(native.buffer).fill(9); // still ours: under ASan a use after free would report
    expect(hostAllocations()).toBe(before + 1);
  });
});
