import {
  BufferTooSmallError,
  type DeviceSlice,
  DisposedError,
  type ElementKind,
  elementInfo,
  InvalidArgumentError,
  parseElementKind,
} from '@baracuda/types';
import { type Device, resolveDevice } from './device.js';
import { callNative, callNativeAsync } from './driver.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import type { AllocationHandle, StreamHandle } from './native.js';
import { guardReceivers } from './receivers.js';
import { requireDeviceSlice } from './slice-arg.js';
import { requireStream, type Stream } from './stream.js';
import {
  requireArrayBufferView,
  requireIntegerInRange,
  requireNonNegativeInteger,
  requireOptions,
  requirePositiveInteger,
} from './validate.js';

/** Options for {@link DeviceBuffer.alloc}. */
export interface DeviceBufferOptions {
  /** The device to allocate on. Defaults to the stream's device, else device 0. */
  device?: Device;
  /**
   * Allocate in stream order on this stream (`cuMemAllocAsync`), and free in
   * stream order too: the memory is returned only after the work queued on
   * this stream before the free. On a device without memory pools this falls
   * back to a plain `cuMemAlloc`. Defaults to `undefined` (a plain `cuMemAlloc`).
   */
  stream?: Stream;
}

/** The shared allocation behind a buffer and its slices. */
interface AllocationRecord {
  handle: AllocationHandle | null;
  readonly base: bigint;
}

/**
 * A range of device memory: an allocation, or a slice of one.
 *
 * Lifetime: `dispose()` frees an allocation at once (idempotent); a buffer the
 * GC reaches is freed too. Either way the free is ordered after queued work:
 * - allocated with a `stream`: `cuMemFreeAsync` on that stream, so it runs after
 *   all work queued on that stream. Work using the buffer on *other* streams
 *   must be synchronized first (or keep the buffer referenced until it is).
 * - allocated without one: `cuMemFree`, which does not return memory the device
 *   may still be using (it synchronizes with the device first).
 * Pending `upload`/`download` promises keep their buffer alive.
 *
 * A slice shares its parent's memory, keeps the parent alive and never frees;
 * disposing the parent makes its slices unusable.
 */
export class DeviceBuffer implements DeviceSlice {
  /** The device the memory lives on. */
  readonly device: Device;
  /** Size in bytes. */
  readonly byteLength: number;
  /** The buffer this is a slice of, or null for an allocation. */
  readonly parent: DeviceBuffer | null;
  /** Offset in bytes from the start of the underlying allocation. */
  readonly allocationOffset: number;
  /** Whether the allocation is stream-ordered (`cuMemAllocAsync`). */
  readonly streamOrdered: boolean;
  readonly #allocation: AllocationRecord;
  #disposed = false;

  static {
    guardReceivers(
      DeviceBuffer,
      'DeviceBuffer',
      (o) => typeof o === 'object' && o !== null && #allocation in o,
    );
  }

  private constructor(
    token: FactoryToken,
    device: Device,
    allocation: AllocationRecord,
    allocationOffset: number,
    byteLength: number,
    parent: DeviceBuffer | null,
    streamOrdered: boolean,
  ) {
    requireFactoryToken(
      token,
      'DeviceBuffer',
      'DeviceBuffer.alloc(byteLength, options), DeviceBuffer.allocElements(kind, count, options) or buffer.slice(byteOffset, byteLength)',
    );
    this.device = device;
    this.#allocation = allocation;
    this.allocationOffset = allocationOffset;
    this.byteLength = byteLength;
    this.parent = parent;
    this.streamOrdered = streamOrdered;
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /** Allocates `byteLength` bytes of device memory (contents undefined). */
  static alloc(byteLength: number, options?: DeviceBufferOptions): DeviceBuffer {
    requirePositiveInteger('byteLength', byteLength);
    const opts = requireOptions('options', options);
    const stream =
      opts.stream === undefined ? undefined : requireStream('options.stream', opts.stream);
    const device: Device =
      opts.device === undefined && stream !== undefined
        ? stream.device
        : resolveDevice('options.device', opts.device);
    if (stream !== undefined && stream.device.ordinal !== device.ordinal) {
      throw new InvalidArgumentError(
        'options.stream',
        `a Stream on device ${device.ordinal} (the buffer's device)`,
        stream,
      );
    }
    if (byteLength > device.totalMemory) {
      throw new InvalidArgumentError(
        'byteLength',
        `at most ${device.totalMemory} bytes (the total memory of device ${device.ordinal}, ${device.name})`,
        byteLength,
      );
    }
    const streamHandle = stream === undefined ? null : stream.handle;
    const native = callNative((binding) =>
      binding.memAlloc(device.ordinal, byteLength, streamHandle),
    );
    return new DeviceBuffer(
      FACTORY_TOKEN,
      device,
      { handle: native.handle, base: native.pointer },
      0,
      byteLength,
      null,
      native.streamOrdered,
    );
  }

  /** Allocates room for `count` elements of `kind`. */
  static allocElements(
    kind: ElementKind,
    count: number,
    options?: DeviceBufferOptions,
  ): DeviceBuffer {
    const size = elementInfo(parseElementKind(kind, 'kind')).byteSize;
    requirePositiveInteger('count', count);
    const byteLength = count * size;
    if (!Number.isSafeInteger(byteLength)) {
      throw new InvalidArgumentError(
        'count',
        `at most ${Math.floor(Number.MAX_SAFE_INTEGER / size)} ${kind} elements`,
        count,
      );
    }
    return DeviceBuffer.alloc(byteLength, options);
  }

  /** The device address as a bigint (`CUdeviceptr`). */
  get devicePtr(): bigint {
    this.#handle();
    return this.#allocation.base + BigInt(this.allocationOffset);
  }

  /** True once this buffer, or the allocation it is a slice of, has been disposed. */
  get disposed(): boolean {
    return this.#disposed || this.#allocation.handle === null;
  }

  #handle(): AllocationHandle {
    const handle = this.#allocation.handle;
    if (this.#disposed || handle === null) throw new DisposedError('DeviceBuffer');
    return handle;
  }

  #sameDeviceStream(stream: unknown): StreamHandle {
    const target = requireStream('stream', stream);
    if (target.device.ordinal !== this.device.ordinal) {
      throw new InvalidArgumentError(
        'stream',
        `a Stream on device ${this.device.ordinal} (the buffer's device)`,
        stream,
      );
    }
    return target.handle;
  }

  #hostRange(name: string, view: unknown, byteOffset: unknown): [ArrayBufferView, number] {
    const host = requireArrayBufferView(name, view);
    const offset = requireNonNegativeInteger('byteOffset', byteOffset);
    if (offset > this.byteLength || host.byteLength > this.byteLength - offset) {
      throw new BufferTooSmallError('DeviceBuffer', offset + host.byteLength, this.byteLength);
    }
    return [host.view, offset];
  }

  /**
   * Copies all of `src` into this buffer at `byteOffset`; returns when the copy
   * is done. Like every `*Sync` method it runs on the legacy default stream, so
   * it does not wait for work queued on `nonBlocking` streams.
   */
  uploadSync(src: ArrayBufferView, byteOffset = 0): void {
    const [host, offset] = this.#hostRange('src', src, byteOffset);
    const handle = this.#handle();
    callNative((binding) => binding.memcpyHtoD(handle, this.allocationOffset + offset, host));
  }

  /** Fills all of `dst` from this buffer starting at `byteOffset`; returns when the copy is done. */
  downloadSync(dst: ArrayBufferView, byteOffset = 0): void {
    const [host, offset] = this.#hostRange('dst', dst, byteOffset);
    const handle = this.#handle();
    callNative((binding) => binding.memcpyDtoH(handle, this.allocationOffset + offset, host));
  }

  /**
   * Queues a copy of `src` into this buffer on `stream`; resolves when it has
   * completed. `src` must not be changed until then. Page-locked memory
   * (PinnedHostBuffer) makes the copy truly asynchronous.
   */
  upload(src: ArrayBufferView, stream: Stream, byteOffset = 0): Promise<void> {
    try {
      const [host, offset] = this.#hostRange('src', src, byteOffset);
      const streamHandle = this.#sameDeviceStream(stream);
      const handle = this.#handle();
      return callNativeAsync((binding) =>
        binding.memcpyHtoDAsync(handle, this.allocationOffset + offset, host, streamHandle),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Queues a copy from this buffer into `dst` on `stream`; resolves when `dst` holds the data. */
  download(dst: ArrayBufferView, stream: Stream, byteOffset = 0): Promise<void> {
    try {
      const [host, offset] = this.#hostRange('dst', dst, byteOffset);
      const streamHandle = this.#sameDeviceStream(stream);
      const handle = this.#handle();
      return callNativeAsync((binding) =>
        binding.memcpyDtoHAsync(handle, this.allocationOffset + offset, host, streamHandle),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #fill(
    width: 1 | 2 | 4,
    value: unknown,
    name: string,
    stream: unknown,
    streamRequired: boolean,
  ): void {
    const max = width === 1 ? 0xff : width === 2 ? 0xffff : 0xffffffff;
    const checked = requireIntegerInRange(name, value, 0, max);
    const streamHandle = streamRequired ? this.#sameDeviceStream(stream) : null;
    if (this.byteLength % width !== 0) {
      throw new InvalidArgumentError(
        'byteLength',
        `a multiple of ${width} (the element size of this fill)`,
        this.byteLength,
      );
    }
    const handle = this.#handle();
    if ((this.#allocation.base + BigInt(this.allocationOffset)) % BigInt(width) !== 0n) {
      throw new InvalidArgumentError(
        'devicePtr',
        `an address aligned to ${width} bytes`,
        this.devicePtr,
      );
    }
    callNative((binding) =>
      binding.memset(
        handle,
        this.allocationOffset,
        width,
        checked,
        this.byteLength / width,
        streamHandle,
      ),
    );
  }

  /** Sets every byte to `byte` (0–255); returns when done. */
  memsetSync(byte: number): void {
    this.#fill(1, byte, 'byte', undefined, false);
  }

  /** Queues setting every byte to `byte` (0–255) on `stream`. */
  memset(byte: number, stream: Stream): void {
    this.#fill(1, byte, 'byte', stream, true);
  }

  /** Sets every 32-bit word to `value`; returns when done. */
  fillSync32(value: number): void {
    this.#fill(4, value, 'value', undefined, false);
  }

  /** Queues setting every 32-bit word to `value` on `stream`. */
  fill32(value: number, stream: Stream): void {
    this.#fill(4, value, 'value', stream, true);
  }

  /** Sets every 16-bit word to `value`; returns when done. */
  fillSync16(value: number): void {
    this.#fill(2, value, 'value', undefined, false);
  }

  /** Queues setting every 16-bit word to `value` on `stream`. */
  fill16(value: number, stream: Stream): void {
    this.#fill(2, value, 'value', stream, true);
  }

  #copySource(src: unknown): { pointer: bigint; byteLength: number } {
    if (typeof src === 'object' && src !== null && #allocation in src) {
      if (src.device.ordinal !== this.device.ordinal) {
        throw new InvalidArgumentError(
          'src',
          `a DeviceSlice on device ${this.device.ordinal}`,
          src,
        );
      }
      return { pointer: src.devicePtr, byteLength: src.byteLength };
    }
    return requireDeviceSlice('src', src);
  }

  /** Copies all of `src` (same device) to the start of this buffer; returns when done. */
  copyFromSync(src: DeviceSlice): void {
    this.#copyFrom(src, undefined, false);
  }

  /** Queues a copy of all of `src` (same device) to the start of this buffer on `stream`. */
  copyFrom(src: DeviceSlice, stream: Stream): void {
    this.#copyFrom(src, stream, true);
  }

  #copyFrom(src: unknown, stream: unknown, streamRequired: boolean): void {
    const source = this.#copySource(src);
    const streamHandle = streamRequired ? this.#sameDeviceStream(stream) : null;
    if (source.byteLength > this.byteLength) {
      throw new BufferTooSmallError('DeviceBuffer', source.byteLength, this.byteLength);
    }
    const handle = this.#handle();
    callNative((binding) =>
      binding.memcpyDtoD(
        handle,
        this.allocationOffset,
        source.pointer,
        source.byteLength,
        streamHandle,
      ),
    );
  }

  /** A view of `byteLength` bytes starting at `byteOffset`; it keeps this buffer alive. */
  slice(byteOffset: number, byteLength: number): DeviceBuffer {
    requireNonNegativeInteger('byteOffset', byteOffset);
    requirePositiveInteger('byteLength', byteLength);
    if (byteOffset + byteLength > this.byteLength) {
      throw new InvalidArgumentError(
        'byteOffset + byteLength',
        `at most ${this.byteLength} (the size of the buffer being sliced)`,
        byteOffset + byteLength,
      );
    }
    this.#handle();
    return new DeviceBuffer(
      FACTORY_TOKEN,
      this.device,
      this.#allocation,
      this.allocationOffset + byteOffset,
      byteLength,
      this,
      this.streamOrdered,
    );
  }

  /**
   * Frees the allocation (see the class notes for ordering); on a slice, only
   * makes the slice unusable. Idempotent.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.parent !== null) return;
    const handle = this.#allocation.handle;
    if (handle === null) return;
    this.#allocation.handle = null;
    callNative((binding) => binding.memFree(handle));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
