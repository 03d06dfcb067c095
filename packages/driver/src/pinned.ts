import { constants } from 'node:buffer';
import { DisposedError, InvalidArgumentError } from '@baracuda/types';
import { type Device, resolveDevice } from './device.js';
import { callNative } from './driver.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import type { PinnedHandle } from './native.js';
import { guardReceivers } from './receivers.js';
import { requireOptions, requirePositiveInteger } from './validate.js';

/** Options for {@link PinnedHostBuffer.alloc}. */
export interface PinnedHostBufferOptions {
  /** The device whose context allocates the memory (it is usable from every context). Defaults to device 0. */
  device?: Device;
}

/**
 * Page-locked host memory (`cuMemHostAlloc`, portable). Copies from and to it
 * run at full bus speed and are truly asynchronous.
 *
 * `dispose()` returns the page-locked memory at once (an `upload`/`download`
 * still using it keeps it until that copy completes). V8 counts the bytes as
 * external memory while the buffer lives, so buffers left to the GC are
 * weighed as what they are.
 */
export class PinnedHostBuffer {
  /** Size in bytes. */
  readonly byteLength: number;
  #handle: PinnedHandle | null;
  #buffer: ArrayBuffer;
  #bytes: Uint8Array;

  static {
    guardReceivers(
      PinnedHostBuffer,
      'PinnedHostBuffer',
      (o) => typeof o === 'object' && o !== null && #buffer in o,
    );
  }

  private constructor(
    token: FactoryToken,
    byteLength: number,
    handle: PinnedHandle,
    buffer: ArrayBuffer,
  ) {
    requireFactoryToken(token, 'PinnedHostBuffer', 'PinnedHostBuffer.alloc(byteLength, options)');
    this.byteLength = byteLength;
    this.#handle = handle;
    this.#buffer = buffer;
    this.#bytes = new Uint8Array(buffer);
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /** Allocates `byteLength` bytes of page-locked host memory. */
  static alloc(byteLength: number, options?: PinnedHostBufferOptions): PinnedHostBuffer {
    requirePositiveInteger('byteLength', byteLength);
    if (byteLength > constants.MAX_LENGTH) {
      throw new InvalidArgumentError(
        'byteLength',
        `at most ${constants.MAX_LENGTH} bytes (the largest ArrayBuffer this Node.js makes)`,
        byteLength,
      );
    }
    const opts = requireOptions('options', options);
    const device = resolveDevice('options.device', opts.device);
    const native = callNative((binding) => binding.hostAlloc(device.ordinal, byteLength));
    return new PinnedHostBuffer(FACTORY_TOKEN, byteLength, native.handle, native.buffer);
  }

  /** The memory as bytes. Make other views with `new Float32Array(pinned.bytes.buffer)`. */
  get bytes(): Uint8Array {
    if (this.#handle === null) throw new DisposedError('PinnedHostBuffer');
    return this.#bytes;
  }

  /** True once `dispose()` has been called. */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /**
   * Frees the memory now (after the `upload`/`download` still using it, if
   * any); every view over it becomes zero-length (detached). Idempotent.
   */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    const buffer = this.#buffer;
    callNative((binding) => binding.hostFree(handle, buffer));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
