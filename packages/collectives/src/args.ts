/** Argument checks of the collectives: buffers, streams, counts, ranks. @internal */
import { Device, DeviceBuffer, Stream } from '@baracuda/driver';
import { BufferTooSmallError, DisposedError, InvalidArgumentError } from '@baracuda/types';
import { uniqueIdBytes } from './unique-id.js';

/** @internal */
export function requireOptions(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(name, 'an object', value);
  }
  return value as Record<string, unknown>;
}

/** A live DeviceBuffer on `device`. @internal */
export function requireBuffer(name: string, value: unknown, device: Device): DeviceBuffer {
  if (!(value instanceof DeviceBuffer))
    throw new InvalidArgumentError(name, 'a DeviceBuffer', value);
  if (value.disposed) throw new DisposedError('DeviceBuffer');
  if (value.device.ordinal !== device.ordinal) {
    throw new InvalidArgumentError(
      name,
      `a DeviceBuffer on device ${device.ordinal} (the communicator's device)`,
      value,
    );
  }
  return value;
}

/** A live Stream on `device`. @internal */
export function requireStream(name: string, value: unknown, device: Device): Stream {
  if (!(value instanceof Stream)) throw new InvalidArgumentError(name, 'a Stream', value);
  if (value.disposed) throw new DisposedError('Stream');
  if (value.device.ordinal !== device.ordinal) {
    throw new InvalidArgumentError(
      name,
      `a Stream on device ${device.ordinal} (the communicator's device)`,
      value,
    );
  }
  return value;
}

/** @internal */
export function requireDevice(name: string, value: unknown): Device {
  if (!(value instanceof Device)) throw new InvalidArgumentError(name, 'a Device', value);
  return value;
}

/** @internal An integer in [0, nRanks). */
export function requireRank(name: string, value: unknown, nRanks: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= nRanks) {
    throw new InvalidArgumentError(
      name,
      `an integer from 0 to ${nRanks - 1} (the communicator has ${nRanks} ranks)`,
      value,
    );
  }
  return value;
}

/** @internal */
export function requirePositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError(name, 'a positive integer', value);
  }
  return value;
}

/**
 * The element count: `given` when set (a positive integer), else what `fits` holds (floor of its
 * bytes over `byteSize * per`). @internal
 */
export function elementCount(
  given: unknown,
  fits: DeviceBuffer,
  fitsName: string,
  byteSize: number,
  per = 1,
): number {
  if (given !== undefined) return requirePositiveInteger('options.count', given);
  const count = Math.floor(fits.byteLength / (byteSize * per));
  if (count < 1) {
    throw new BufferTooSmallError(fitsName, byteSize * per, fits.byteLength);
  }
  return count;
}

/** Throws `BufferTooSmallError` unless `buffer` holds `needed` bytes. @internal */
export function requireBytes(name: string, buffer: DeviceBuffer, needed: number): void {
  if (buffer.byteLength < needed) throw new BufferTooSmallError(name, needed, buffer.byteLength);
}

/** @internal Milliseconds for a wait: a positive number up to 2^31 - 1 (setTimeout's limit). */
export function requireTimeout(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || value > 2147483647) {
    throw new InvalidArgumentError(name, 'a number of milliseconds from 1 to 2147483647', value);
  }
  return value;
}

/** `rank 0 of 2 on device 0`: where an NcclError happened. @internal */
export function rankText(rank: number, nRanks: number, device: Device): string {
  return `rank ${rank} of ${nRanks} on device ${device.ordinal}`;
}

/** The checked options of initRank. @internal */
export function initRankArgs(options: unknown): {
  id: Uint8Array;
  rank: number;
  nRanks: number;
  device: Device;
} {
  const opts = requireOptions('options', options);
  const id = uniqueIdBytes('options.id', opts.id);
  const nRanks = requirePositiveInteger('options.nRanks', opts.nRanks);
  if (nRanks > 2147483647) {
    throw new InvalidArgumentError(
      'options.nRanks',
      'a positive int32 (NCCL counts ranks in an int)',
      nRanks,
    );
  }
  const rank = requireRank('options.rank', opts.rank, nRanks);
  const device =
    opts.device === undefined ? Device.get(0) : requireDevice('options.device', opts.device);
  return { id, rank, nRanks, device };
}
