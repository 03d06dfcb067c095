// Argument validation runs before the addon or the driver is touched, so these
// exact messages hold on every machine, GPU or not.
import { ElementKind, InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { Event } from './event.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('argument validation (no GPU needed)', () => {
  it('rejects byte lengths that are not positive safe integers', () => {
    expect(message(() => DeviceBuffer.alloc(3.5))).toBe(
      'Expected a positive integer for byteLength but received 3.5 of type number',
    );
    expect(message(() => DeviceBuffer.alloc(-1))).toBe(
      'Expected a positive integer for byteLength but received -1 of type number',
    );
    expect(message(() => DeviceBuffer.alloc(0))).toBe(
      'Expected a positive integer for byteLength but received 0 of type number',
    );
    expect(message(() => DeviceBuffer.alloc(Number.NaN))).toBe(
      'Expected a positive integer for byteLength but received NaN of type number',
    );
    expect(message(() => DeviceBuffer.alloc('16' as unknown as number))).toBe(
      'Expected a positive integer for byteLength but received "16" of type string',
    );
    expect(message(() => DeviceBuffer.alloc(16n as unknown as number))).toBe(
      'Expected a positive integer for byteLength but received 16n of type bigint',
    );
    expect(message(() => DeviceBuffer.alloc(2 ** 53))).toBe(
      'Expected a positive integer for byteLength but received 9007199254740992 of type number',
    );
    expect(message(() => PinnedHostBuffer.alloc(1.25))).toBe(
      'Expected a positive integer for byteLength but received 1.25 of type number',
    );
  });

  it('rejects bad element kinds and counts', () => {
    expect(message(() => DeviceBuffer.allocElements('f128' as ElementKind, 4))).toBe(
      'Expected one of f16, bf16, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, bool for kind but received "f128" of type string',
    );
    expect(message(() => DeviceBuffer.allocElements(ElementKind.F32, -4))).toBe(
      'Expected a positive integer for count but received -4 of type number',
    );
    expect(message(() => DeviceBuffer.allocElements(ElementKind.F64, 2 ** 52))).toBe(
      'Expected at most 1125899906842623 f64 elements for count but received 4503599627370496 of type number',
    );
  });

  it('rejects foreign objects where ours belong', () => {
    expect(message(() => Stream.create({} as Device))).toBe(
      'Expected a Device for device but received an object',
    );
    expect(message(() => Event.create(0 as unknown as Device))).toBe(
      'Expected a Device for device but received 0 of type number',
    );
    expect(message(() => DeviceBuffer.alloc(16, { stream: {} as Stream }))).toBe(
      'Expected a Stream for options.stream but received an object',
    );
    expect(message(() => DeviceBuffer.alloc(16, { device: new Map() as unknown as Device }))).toBe(
      'Expected a Device for options.device but received an instance of Map',
    );
    expect(message(() => Event.elapsedMs({} as Event, {} as Event))).toBe(
      'Expected an Event for start but received an object',
    );
  });

  it('rejects malformed options', () => {
    expect(message(() => Stream.create(undefined, { nonBlocking: 1 as unknown as boolean }))).toBe(
      'Expected a boolean for options.nonBlocking but received 1 of type number',
    );
    expect(message(() => Event.create(undefined, { timing: 'yes' as unknown as boolean }))).toBe(
      'Expected a boolean for options.timing but received "yes" of type string',
    );
    expect(message(() => DeviceBuffer.alloc(16, [] as never))).toBe(
      'Expected an options object or undefined for options but received an array of length 0',
    );
  });

  it('rejects bad device ordinals', () => {
    expect(message(() => Device.get(-1))).toBe(
      'Expected a non-negative integer for ordinal but received -1 of type number',
    );
    expect(message(() => Device.get(0.5))).toBe(
      'Expected a non-negative integer for ordinal but received 0.5 of type number',
    );
  });
});

describe('element sizes', () => {
  it('allocElements sizes every ElementKind by its byte size', () => {
    // Validation happens before the driver is needed; a count that overflows
    // proves the per-kind byte size without a GPU.
    const sizes = Object.values(ElementKind).map((kind) => {
      try {
        DeviceBuffer.allocElements(kind, 2 ** 53 - 1);
      } catch (error) {
        // "Expected at most N <kind> elements for count": only kinds wider than a byte overflow.
        const match = /^Expected at most (\d+) \w+ elements for count/.exec(
          (error as Error).message,
        );
        return [kind, match ? Math.round((2 ** 53 - 1) / Number(match[1])) : 1];
      }
      return [kind, 1];
    });
    expect(sizes).toEqual([
      ['f16', 2],
      ['bf16', 2],
      ['f32', 4],
      ['f64', 8],
      ['i8', 1],
      ['u8', 1],
      ['i16', 2],
      ['u16', 2],
      ['i32', 4],
      ['u32', 4],
      ['i64', 8],
      ['u64', 8],
      ['bool', 1],
    ]);
  });
});
