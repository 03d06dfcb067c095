/**
 * A device range given as a plain object ({devicePtr, byteLength}), as a copy's source may be:
 * each property read once, and checked to name a non-null range that ends below 2^64.
 */
import { type DeviceSlice, InvalidArgumentError } from '@baracuda/types';

const MAX_DEVICE_POINTER = 2n ** 64n - 1n;

/** `src`'s pointer and length, or an `InvalidArgumentError` naming `name` and what was wrong. */
export function requireDeviceSlice(
  name: string,
  src: unknown,
): { pointer: bigint; byteLength: number } {
  const expected = 'a DeviceSlice ({devicePtr: bigint, byteLength: number})';
  if (typeof src !== 'object' || src === null) throw new InvalidArgumentError(name, expected, src);
  // Each property is read once: a getter cannot pass the checks with one value and the copy
  // with another.
  const { devicePtr, byteLength } = src as Partial<DeviceSlice>;
  if (typeof devicePtr !== 'bigint' || typeof byteLength !== 'number') {
    throw new InvalidArgumentError(name, expected, src);
  }
  if (devicePtr <= 0n || devicePtr > MAX_DEVICE_POINTER) {
    throw new InvalidArgumentError(
      `${name}.devicePtr`,
      'a device pointer from 1n to 2n ** 64n - 1n',
      devicePtr,
    );
  }
  if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
    throw new InvalidArgumentError(`${name}.byteLength`, 'a non-negative integer', byteLength);
  }
  if (devicePtr + BigInt(byteLength) - 1n > MAX_DEVICE_POINTER) {
    throw new InvalidArgumentError(
      `${name}.byteLength`,
      `at most ${MAX_DEVICE_POINTER - devicePtr + 1n} (the range must end below 2n ** 64n)`,
      byteLength,
    );
  }
  return { pointer: devicePtr, byteLength };
}
