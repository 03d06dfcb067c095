/**
 * Argument checks shared by every entry point. They run before anything
 * touches the addon or the driver, so they work (and are tested) without a GPU.
 * @internal
 */
import { InvalidArgumentError } from '@baracuda/types';

/** @internal */
export function requirePositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidArgumentError(name, 'a positive integer', value);
  }
  return value;
}

/** @internal */
export function requireNonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidArgumentError(name, 'a non-negative integer', value);
  }
  return value;
}

/** @internal */
export function requireIntegerInRange(
  name: string,
  value: unknown,
  min: number,
  max: number,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(name, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

/** `undefined`, or a plain options object. @internal */
export function requireOptions(name: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(name, 'an options object or undefined', value);
  }
  return value as Record<string, unknown>;
}

/** @internal */
export function optionalBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'a boolean', value);
  return value;
}

/** @internal */
export function requireArrayBufferView(name: string, value: unknown): ArrayBufferView {
  if (!ArrayBuffer.isView(value)) {
    throw new InvalidArgumentError(name, 'a TypedArray or DataView', value);
  }
  return value;
}
