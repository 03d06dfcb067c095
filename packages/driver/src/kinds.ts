/**
 * What one of the driver's classes needs of another without importing it: which values are
 * Events (Stream.waitEvent checks its argument), and how a Device makes a Stream. event.ts and
 * stream.ts register here; so device.ts, stream.ts and event.ts import each other one way only
 * (event -> stream -> device).
 */
import type { Device } from './device.js';
import type { Event } from './event.js';
import type { Stream, StreamOptions } from './stream.js';

const events = new WeakSet<object>();

/** Record that `event` is an Event (its constructor calls this). */
export function markEvent(event: object): void {
  events.add(event);
}

/** Whether `value` is an Event of this package. */
export function isEvent(value: unknown): value is Event {
  return typeof value === 'object' && value !== null && events.has(value);
}

let makeStream: ((device: Device, options?: StreamOptions) => Stream) | undefined;

/** stream.ts registers how a stream is made (Stream.create). */
export function registerStreamFactory(
  make: (device: Device, options?: StreamOptions) => Stream,
): void {
  makeStream = make;
}

/** A new stream on `device` (Device.createStream). */
export function createStreamOn(device: Device, options?: StreamOptions): Stream {
  if (makeStream === undefined) throw new Error('@baracuda/driver: stream.js was not loaded');
  return makeStream(device, options);
}
