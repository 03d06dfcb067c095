import type { ElementKind } from './element.js';

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
