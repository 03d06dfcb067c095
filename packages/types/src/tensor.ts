import { type ElementKind, elementInfo, parseElementKind } from './element.js';
import { BufferTooSmallError, InvalidArgumentError } from './errors.js';
import { expectIntegerArray } from './validate.js';

/**
 * A range of device memory. `@baracuda/driver`'s DeviceBuffer implements it;
 * this package stays free of native code.
 */
export interface DeviceSlice {
  /** The device address (CUdeviceptr) as a bigint. */
  readonly devicePtr: bigint;
  /** Size of the range in bytes. */
  readonly byteLength: number;
}

/** A read-only view of a tensor in device memory. `shape.length` is the rank. */
export interface TensorRef {
  readonly element: ElementKind;
  readonly shape: readonly number[];
  /** Strides in elements, one per dimension. */
  readonly strides: readonly number[];
  readonly data: DeviceSlice;
}

/** A writable view of a tensor in device memory. */
export interface TensorMut extends TensorRef {
  readonly writable: true;
}

/** Largest rank a tensor view may have (cuDNN's `CUDNN_DIM_MAX`). */
export const MAX_TENSOR_RANK = 8;

/** Largest device address: a CUdeviceptr is 64 bits wide. */
const MAX_DEVICE_PTR = (1n << 64n) - 1n;

/**
 * True when `value` looks like a {@link DeviceSlice}: an object whose `devicePtr` is a bigint in
 * 0..2^64-1 and whose `byteLength` is a non-negative safe integer. Reads the two properties once;
 * a getter that throws (a disposed buffer) propagates its error.
 */
export function isDeviceSlice(value: unknown): value is DeviceSlice {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const { devicePtr, byteLength } = value as { devicePtr?: unknown; byteLength?: unknown };
  return (
    typeof devicePtr === 'bigint' &&
    devicePtr >= 0n &&
    devicePtr <= MAX_DEVICE_PTR &&
    typeof byteLength === 'number' &&
    Number.isSafeInteger(byteLength) &&
    byteLength >= 0
  );
}

/** The "expected" words for a device slice, for `InvalidArgumentError` messages in every package. */
export const DEVICE_SLICE_EXPECTED =
  'a DeviceSlice (an object with devicePtr: bigint and byteLength: non-negative integer)';

function checkShape(shape: unknown, name = 'shape'): number[] {
  return expectIntegerArray(name, shape, { min: 0, maxLength: MAX_TENSOR_RANK });
}

function checkStrides(strides: unknown, rank: number, name = 'strides'): number[] {
  return expectIntegerArray(name, strides, { min: 0, length: rank });
}

/**
 * Row-major (C order) strides, in elements, for a dense tensor of `shape`:
 * `contiguousStrides([2, 3, 4])` is `[12, 4, 1]`. The last dimension is the fastest.
 */
export function contiguousStrides(shape: readonly number[]): number[] {
  const dims = checkShape(shape);
  const strides = new Array<number>(dims.length);
  let stride = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= Math.max(dims[i]!, 1);
  }
  return strides;
}

/** True when both stride lists have the same length and the same value in every position. */
export function stridesEqual(a: readonly number[], b: readonly number[]): boolean {
  if (!Array.isArray(a)) throw new InvalidArgumentError('a', 'an array of strides', a);
  if (!Array.isArray(b)) throw new InvalidArgumentError('b', 'an array of strides', b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Number of elements in a tensor of `shape` (1 for rank 0, 0 when any extent is 0). */
export function elementCount(shape: readonly number[]): number {
  const dims = checkShape(shape);
  let count = 1;
  for (const d of dims) count *= d;
  return count;
}

/**
 * Bytes a strided view touches, from its first element to just past its last:
 * `(1 + Σ (shape[i] - 1) · strides[i]) · byteSize`, or 0 when any extent is 0.
 * A buffer at least this long holds the whole view.
 */
export function denseByteLength(
  element: ElementKind,
  shape: readonly number[],
  strides: readonly number[],
): number {
  const { byteSize } = elementInfo(element);
  const dims = checkShape(shape);
  const steps = checkStrides(strides, dims.length);
  let maxOffset = 0;
  for (let i = 0; i < dims.length; i++) {
    if (dims[i] === 0) return 0;
    maxOffset += (dims[i]! - 1) * steps[i]!;
  }
  const bytes = (maxOffset + 1) * byteSize;
  if (!Number.isSafeInteger(bytes)) {
    throw new InvalidArgumentError(
      'shape',
      `a shape and strides spanning at most ${Number.MAX_SAFE_INTEGER} bytes`,
      shape,
    );
  }
  return bytes;
}

function makeView(
  element: unknown,
  shape: unknown,
  strides: unknown,
  data: unknown,
): {
  element: ElementKind;
  shape: readonly number[];
  strides: readonly number[];
  data: DeviceSlice;
} {
  const kind = parseElementKind(element);
  const dims = checkShape(shape);
  const steps =
    strides === undefined ? contiguousStrides(dims) : checkStrides(strides, dims.length);
  if (!isDeviceSlice(data)) throw new InvalidArgumentError('data', DEVICE_SLICE_EXPECTED, data);
  const needed = denseByteLength(kind, dims, steps);
  if (data.byteLength < needed) throw new BufferTooSmallError('data', needed, data.byteLength);
  return { element: kind, shape: Object.freeze(dims), strides: Object.freeze(steps), data };
}

/**
 * A checked, frozen {@link TensorRef}. The element must be an {@link ElementKind}, the shape an
 * array of at most {@link MAX_TENSOR_RANK} non-negative integers, the strides (in elements)
 * non-negative integers, one per dimension, and `data` must hold {@link denseByteLength} bytes.
 * Throws `InvalidArgumentError` or `BufferTooSmallError` naming the argument at fault.
 * @param strides Defaults to `contiguousStrides(shape)` when `undefined`.
 */
export function makeTensorRef(
  element: ElementKind,
  shape: readonly number[],
  strides: readonly number[] | undefined,
  data: DeviceSlice,
): TensorRef {
  return Object.freeze(makeView(element, shape, strides, data));
}

/** A checked, frozen {@link TensorMut}: as {@link makeTensorRef}, marked writable. */
export function makeTensorMut(
  element: ElementKind,
  shape: readonly number[],
  strides: readonly number[] | undefined,
  data: DeviceSlice,
): TensorMut {
  return Object.freeze({ ...makeView(element, shape, strides, data), writable: true as const });
}
