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

// The engine's own accessors, taken before any user code runs: a view's
// `byteLength` read through them cannot be faked by a getter on the instance.
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayByteLength = accessor(typedArrayPrototype, 'byteLength');
const typedArrayBuffer = accessor(typedArrayPrototype, 'buffer');
const dataViewByteLength = accessor(DataView.prototype, 'byteLength');
const dataViewBuffer = accessor(DataView.prototype, 'buffer');
const arrayBufferByteLength = accessor(ArrayBuffer.prototype, 'byteLength');
const arrayBufferDetached = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached')?.get;

function accessor(prototype: object, key: string): (this: unknown) => unknown {
  const get = Object.getOwnPropertyDescriptor(prototype, key)?.get;
  if (!get) throw new Error(`no ${key} accessor`);
  return get;
}

/** True for an ArrayBuffer that has been detached (transferred, or a disposed PinnedHostBuffer's). */
function isDetached(buffer: unknown): boolean {
  if (!(buffer instanceof ArrayBuffer)) return false; // a SharedArrayBuffer never detaches
  if (arrayBufferDetached) return arrayBufferDetached.call(buffer) === true;
  if (arrayBufferByteLength.call(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer); // Node 20 has no `detached`: constructing over one throws
    return false;
  } catch {
    return true;
  }
}

/** A host view (TypedArray or DataView, over an ArrayBuffer or a SharedArrayBuffer). @internal */
export interface HostView {
  readonly view: ArrayBufferView;
  /** Its length in bytes, read through the engine's accessor. */
  readonly byteLength: number;
}

/** A TypedArray or DataView whose buffer is not detached. @internal */
export function requireArrayBufferView(name: string, value: unknown): HostView {
  if (!ArrayBuffer.isView(value)) {
    throw new InvalidArgumentError(name, 'a TypedArray or DataView', value);
  }
  const isDataView = value instanceof DataView;
  const buffer = (isDataView ? dataViewBuffer : typedArrayBuffer).call(value);
  if (isDetached(buffer)) {
    throw new InvalidArgumentError(
      name,
      'a TypedArray or DataView over a live (not detached) buffer',
      value,
    );
  }
  const byteLength = (isDataView ? dataViewByteLength : typedArrayByteLength).call(value) as number;
  return { view: value, byteLength };
}
