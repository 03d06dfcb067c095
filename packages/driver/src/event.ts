import { DisposedError, InvalidArgumentError } from '@baracuda/types';
import { type Device, resolveDevice } from './device.js';
import { callNative, callNativeAsync } from './driver.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { isEvent, markEvent } from './kinds.js';
import type { EventHandle } from './native.js';
import { guardReceivers } from './receivers.js';
import { requireStream, type Stream } from './stream.js';
import { optionalBoolean, requireOptions } from './validate.js';

/** Options for {@link Event.create}. */
export interface EventOptions {
  /** Record timestamps so {@link Event.elapsedMs} works. Defaults to `true`. */
  timing?: boolean;
  /**
   * Waiting threads sleep instead of spinning (`CU_EVENT_BLOCKING_SYNC`), which
   * frees a CPU core during long waits at the cost of some wake-up latency.
   * Defaults to `true`. For events that only time work, pass `false` (as
   * `torch.cuda.Event` does): on an H200 a blocking-sync pair added 0.6-0.9 µs
   * to the work it bracketed.
   */
  blockingSync?: boolean;
}

/** A CUDA event: a marker recorded in a stream. */
export class Event {
  /** The device the event belongs to. */
  readonly device: Device;
  /** Whether the event records timestamps. */
  readonly timing: boolean;
  /** Whether threads waiting on the event sleep (`CU_EVENT_BLOCKING_SYNC`). */
  readonly blockingSync: boolean;
  #handle: EventHandle | null;

  static {
    guardReceivers(Event, 'Event', (o) => typeof o === 'object' && o !== null && #handle in o);
  }

  private constructor(
    token: FactoryToken,
    device: Device,
    timing: boolean,
    blockingSync: boolean,
    handle: EventHandle,
  ) {
    requireFactoryToken(token, 'Event', 'Event.create(device, options)');
    this.device = device;
    this.timing = timing;
    this.blockingSync = blockingSync;
    this.#handle = handle;
    markEvent(this);
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /** Creates an event on `device`. */
  static create(device?: Device, options?: EventOptions): Event {
    const opts = requireOptions('options', options);
    const timing = optionalBoolean('options.timing', opts.timing, true);
    const blockingSync = optionalBoolean('options.blockingSync', opts.blockingSync, true);
    const target = resolveDevice('device', device);
    const handle = callNative((binding) =>
      binding.eventCreate(target.ordinal, timing, blockingSync),
    );
    return new Event(FACTORY_TOKEN, target, timing, blockingSync, handle);
  }

  /**
   * Milliseconds between two recorded, completed events (`cuEventElapsedTime`).
   * Both must have been created with `timing: true`.
   */
  static elapsedMs(start: Event, end: Event): number {
    const startHandle = requireTimingEvent('start', start);
    const endHandle = requireTimingEvent('end', end);
    if (start.device.ordinal !== end.device.ordinal) {
      throw new InvalidArgumentError('end', `an Event on device ${start.device.ordinal}`, end);
    }
    return callNative((binding) => binding.eventElapsedTime(startHandle, endHandle));
  }

  /** True once `dispose()` has been called. */
  get disposed(): boolean {
    return this.#handle === null;
  }

  /** @internal */
  get handle(): EventHandle {
    if (this.#handle === null) throw new DisposedError('Event');
    return this.#handle;
  }

  /** Records the event at the current end of `stream`'s queue. */
  record(stream: Stream): void {
    const handle = this.handle;
    const target = requireStream('stream', stream);
    if (target.device.ordinal !== this.device.ordinal) {
      throw new InvalidArgumentError('stream', `a Stream on device ${this.device.ordinal}`, stream);
    }
    const streamHandle = target.handle;
    callNative((binding) => binding.eventRecord(handle, streamHandle));
  }

  /** True when the work before the recorded point has completed (`cuEventQuery`). */
  query(): boolean {
    const handle = this.handle;
    return callNative((binding) => binding.eventQuery(handle));
  }

  /** Blocks the calling thread until the event has completed. */
  synchronizeSync(): void {
    const handle = this.handle;
    callNative((binding) => binding.eventSynchronize(handle));
  }

  /** Resolves when the event has completed; waits on a worker thread, not the event loop. */
  synchronize(): Promise<void> {
    let handle: EventHandle;
    try {
      handle = this.handle;
    } catch (error) {
      return Promise.reject(error);
    }
    return callNativeAsync((binding) => binding.eventSynchronizeAsync(handle));
  }

  /** Releases the event. Idempotent. */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    callNative((binding) => binding.eventDestroy(handle));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

function requireTimingEvent(name: string, value: unknown): EventHandle {
  if (!isEvent(value)) throw new InvalidArgumentError(name, 'an Event', value);
  const handle = value.handle;
  if (!value.timing) {
    throw new InvalidArgumentError(name, 'an Event created with timing: true', value);
  }
  return handle;
}
