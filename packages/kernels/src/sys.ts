/**
 * The ONLY module of @baracuda/kernels that touches @baracuda/cudnn-sys and @baracuda/driver.
 * cuDNN's calls, objects and constants are cudnn-sys's own, typed by its declarations (its
 * NativeBinding); what kernels uses of the driver is stated here as interfaces. The raw results
 * (`{status, ...outputs}`) are adapted here, so that integration fixes stay in this one file.
 * @internal
 */
import * as cudnnSys from '@baracuda/cudnn-sys';
import * as driverModule from '@baracuda/driver';
import type { DeviceSlice, ElementKind } from '@baracuda/types';

/** cuDNN's objects as cudnn-sys types them (type-tagged native objects). */
export type CudnnHandle = cudnnSys.CudnnHandle;
export type BackendDescriptor = cudnnSys.CudnnBackendDescriptor;
export type TensorDescriptor = cudnnSys.CudnnTensorDescriptor;
export type FilterDescriptor = cudnnSys.CudnnFilterDescriptor;
export type ConvolutionDescriptor = cudnnSys.CudnnConvolutionDescriptor;
/** What cudnnBackendSetAttribute takes. */
export type AttributeValues = cudnnSys.CudnnBackendAttributeValues;

/** What kernels uses of the driver. */
export interface StreamLike {
  readonly raw: bigint;
  readonly device?: DeviceLike;
}
export interface DeviceLike {
  readonly ordinal: number;
  readonly name: string;
  readonly computeCapability: { major: number; minor: number };
  readonly arch?: string;
  /** Make the device's primary context current on this thread (cuDNN uses the current context). */
  makeCurrent?(): void;
  /** Free and total device memory now (`cuMemGetInfo`). */
  memoryInfo?(): { readonly free: number; readonly total: number };
}
export interface OwnedBuffer extends DeviceSlice {
  dispose(): void;
  uploadSync(src: ArrayBufferView, byteOffset?: number): void;
  /** Queue a copy of all of `src` (same device) to the start of this buffer. */
  copyFrom(src: DeviceSlice, stream: StreamLike): void;
  /** A view of `byteLength` bytes from `byteOffset`; it keeps this buffer alive, frees nothing. */
  slice(byteOffset: number, byteLength: number): OwnedBuffer;
  /** Set every 16-bit word to `value`; returns when done. */
  fillSync16(value: number): void;
  /** Set every 32-bit word to `value`; returns when done. */
  fillSync32(value: number): void;
  /** Queue setting every byte to `byte` on `stream`. */
  memset(byte: number, stream: StreamLike): void;
}
export interface TimingEvent {
  record(stream: StreamLike): void;
  synchronizeSync(): void;
  synchronize(): Promise<void>;
  dispose(): void;
}
/** A kernel of a loaded module (driver's KernelFunction). */
export interface KernelFunctionLike {
  launch(
    stream: StreamLike,
    grid: readonly [number, number, number],
    block: readonly [number, number, number],
    sharedBytes: number,
    params: Uint8Array,
  ): void;
}
/** Kernel parameters packed at their natural alignment (driver's KernelParams). */
export interface KernelParamsLike {
  reset(): this;
  ptr(v: bigint): this;
  u64(v: bigint | number): this;
  i32(v: number): this;
  f32(v: number): this;
  f64(v: number): this;
  bytes(): Uint8Array;
}
interface DriverSys {
  Device: { get(ordinal?: number): DeviceLike };
  KernelParams: new (capacityBytes?: number) => KernelParamsLike;
  Module: {
    load(
      image: string | Uint8Array,
      device?: DeviceLike,
    ): {
      getFunction(name: string): KernelFunctionLike;
    };
  };
  DeviceBuffer: {
    alloc(byteLength: number, opts?: { device?: DeviceLike; stream?: StreamLike }): OwnedBuffer;
  };
  Event: {
    create(device?: DeviceLike, opts?: { timing?: boolean; blockingSync?: boolean }): TimingEvent;
    elapsedMs(start: TimingEvent, end: TimingEvent): number;
  };
}

/** @internal cudnn-sys itself: its raw calls and constants, typed by its own declarations. */
export const cudnn = cudnnSys;
/** @internal */
export const driver = driverModule as unknown as DriverSys;

/** The names of cudnn-sys's numeric constants (cuDNN's enums under their C names). */
export type ConstantName = {
  [K in keyof typeof cudnnSys]: K extends `CUDNN_${string}`
    ? (typeof cudnnSys)[K] extends number
      ? K
      : never
    : never;
}[keyof typeof cudnnSys];

/** cuDNN's constants, as cudnn-sys exports them (checked there against cudnn.h). */
export const C: { readonly [K in ConstantName]: number } = cudnnSys;

/** The one output of a raw call that returns `{status, <output>}`. */
export function outputOf<T>(result: object, preferred?: string): T {
  const r = result as Record<string, unknown>;
  if (preferred !== undefined && preferred in r) return r[preferred] as T;
  for (const [key, value] of Object.entries(r)) {
    if (key !== 'status') return value as T;
  }
  return undefined as T;
}

/** The name of a cudnnStatus_t value. */
export function statusName(status: number): string {
  try {
    const name = cudnn.cudnnStatusName(status);
    if (typeof name === 'string' && name) return name;
  } catch {
    // fall through
  }
  return `CUDNN_STATUS_${status}`;
}

/** cuDNN's last error string ('' when none or unavailable). */
export function lastErrorString(): string {
  try {
    const r: unknown = cudnn.cudnnGetLastErrorString();
    if (typeof r === 'string') return r;
    if (r && typeof r === 'object') {
      const v = outputOf<unknown>(r, 'message');
      if (typeof v === 'string') return v;
    }
  } catch {
    // never let diagnostics hide the real error
  }
  return '';
}

/** The cuDNN data type of an element kind. */
export function cudnnDataType(element: ElementKind): number {
  switch (element) {
    case 'f32':
      return C.CUDNN_DATA_FLOAT;
    case 'f64':
      return C.CUDNN_DATA_DOUBLE;
    case 'f16':
      return C.CUDNN_DATA_HALF;
    default:
      return C.CUDNN_DATA_BFLOAT16;
  }
}

/** Loaded cuDNN's version code (major*10000 + minor*100 + patch); loads cuDNN (may throw LibraryNotFoundError). */
export function loadCudnn(): number {
  cudnn.load();
  return Number(cudnn.cudnnGetVersion());
}

/**
 * Whether `stream` is a driver Stream (not merely stream-like): what the default mode's quick
 * tune allocates its scratch and times on. Heuristic plans on another stream-like object take the
 * heuristics' first choice.
 */
export function isDriverStream(stream: StreamLike): boolean {
  const Stream = (driverModule as { Stream?: unknown }).Stream;
  return typeof Stream === 'function' && stream instanceof Stream;
}

/** The device of a stream: its own `device`, else device 0. */
export function deviceOf(stream: StreamLike): DeviceLike {
  return stream.device ?? driver.Device.get(0);
}
