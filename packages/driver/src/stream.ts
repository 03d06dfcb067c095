import { DisposedError, InvalidArgumentError } from '@baracuda/types';
import { type Device, resolveDevice } from './device.js';
import { callNative, callNativeAsync } from './driver.js';
import type { Event } from './event.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { isEvent, registerStreamFactory } from './kinds.js';
import type { StreamHandle } from './native.js';
import { type Brand, guardReceivers } from './receivers.js';
import { optionalBoolean, requireOptions } from './validate.js';

/** Options for {@link Stream.create}. */
export interface StreamOptions {
  /**
   * Create the stream with `CU_STREAM_NON_BLOCKING`: its work does not
   * synchronize with the legacy default stream (stream 0).
   * Defaults to `false`.
   */
  nonBlocking?: boolean;
}

let isStreamBrand: Brand = () => false;

/** A CUDA stream on one device. Work queued on it runs in order. */
export class Stream {
  /** The device the stream belongs to. */
  readonly device: Device;
  /** Whether the stream was created with `CU_STREAM_NON_BLOCKING`. */
  readonly nonBlocking: boolean;
  #handle: StreamHandle | null;
  readonly #raw: bigint;

  static {
    isStreamBrand = (o) => typeof o === 'object' && o !== null && #raw in o;
    guardReceivers(Stream, 'Stream', isStreamBrand);
  }

  private constructor(
    token: FactoryToken,
    device: Device,
    nonBlocking: boolean,
    handle: StreamHandle,
  ) {
    requireFactoryToken(
      token,
      'Stream',
      'Stream.create(device, options) or device.createStream(options)',
    );
    this.device = device;
    this.nonBlocking = nonBlocking;
    this.#handle = handle;
    this.#raw = callNative((binding) => binding.streamRaw(handle));
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /** Creates a stream on `device`. */
  static create(device?: Device, options?: StreamOptions): Stream {
    const opts = requireOptions('options', options);
    const nonBlocking = optionalBoolean('options.nonBlocking', opts.nonBlocking, false);
    const target = resolveDevice('device', device);
    const handle = callNative((binding) => binding.streamCreate(target.ordinal, nonBlocking));
    return new Stream(FACTORY_TOKEN, target, nonBlocking, handle);
  }

  /** The CUstream as a bigint, for libraries that take a raw stream (cudnn-sys). */
  get raw(): bigint {
    this.handle;
    return this.#raw;
  }

  /** True once `dispose()` has been called. */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /** The live native handle; throws DisposedError after dispose. @internal */
  get handle(): StreamHandle {
    if (this.#handle === null) throw new DisposedError('Stream');
    return this.#handle;
  }

  /**
   * Resolves when all work queued so far has completed. The wait happens on a
   * worker thread, so the event loop keeps running.
   */
  synchronize(): Promise<void> {
    let handle: StreamHandle;
    try {
      handle = this.handle;
    } catch (error) {
      return Promise.reject(error);
    }
    return callNativeAsync((binding) => binding.streamSynchronizeAsync(handle));
  }

  /** Blocks the calling thread until all queued work has completed. */
  synchronizeSync(): void {
    const handle = this.handle;
    callNative((binding) => binding.streamSynchronize(handle));
  }

  /** True when all queued work has completed (`cuStreamQuery`). */
  query(): boolean {
    const handle = this.handle;
    return callNative((binding) => binding.streamQuery(handle));
  }

  /** Makes future work on this stream wait until `event` completes (`cuStreamWaitEvent`). */
  waitEvent(event: Event): void {
    const handle = this.handle;
    if (!isEvent(event)) throw new InvalidArgumentError('event', 'an Event', event);
    if (event.device.ordinal !== this.device.ordinal) {
      throw new InvalidArgumentError('event', `an Event on device ${this.device.ordinal}`, event);
    }
    const eventHandle = event.handle;
    callNative((binding) => binding.streamWaitEvent(handle, eventHandle));
  }

  /**
   * Releases the stream. Work already queued still runs; buffers allocated on
   * the stream keep it alive until they are freed. Idempotent.
   */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    callNative((binding) => binding.streamDestroy(handle));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** A live stream's handle, or an InvalidArgumentError / DisposedError. @internal */
export function requireStream(name: string, value: unknown): Stream {
  if (!isStream(value)) throw new InvalidArgumentError(name, 'a Stream', value);
  if (value.disposed) throw new DisposedError('Stream');
  return value;
}

/** Whether `value` is a Stream made by this package (a brand check, not `instanceof`). @internal */
export function isStream(value: unknown): value is Stream {
  return isStreamBrand(value);
}

registerStreamFactory((device, options) => Stream.create(device, options));
