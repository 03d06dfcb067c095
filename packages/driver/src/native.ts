/**
 * The one typed description of everything `baracuda_driver.node` exports.
 * `native.test.ts` enumerates the real exports and compares them with
 * `NATIVE_EXPORT_NAMES`, which the compiler keeps equal to `keyof NativeBinding`.
 *
 * Everything here is internal: the public API is the classes in this package.
 * @internal
 */
import type { LibrarySearchAttempt } from '@baracuda/types';

declare const handleBrand: unique symbol;
/** An opaque, type-tagged native handle (a JS external). @internal */
export type NativeHandle<Kind extends string> = object & { readonly [handleBrand]: Kind };
/** @internal */
export type StreamHandle = NativeHandle<'Stream'>;
/** @internal */
export type EventHandle = NativeHandle<'Event'>;
/** @internal */
export type AllocationHandle = NativeHandle<'DeviceBuffer'>;
/** @internal */
export type PinnedHandle = NativeHandle<'PinnedHostBuffer'>;
/** @internal */
export type ModuleHandle = NativeHandle<'Module'>;
/** @internal */
export type FunctionHandle = NativeHandle<'KernelFunction'>;

/** What the native loader found. Loading happens on the first call, once per process. @internal */
export interface NativeDriverStatus {
  loaded: boolean;
  initialized: boolean;
  libraryPath: string | null;
  /** BARACUDA_CUDA_DRIVER_LIBRARY at load time, or null when unset. */
  overridePath: string | null;
  searched: LibrarySearchAttempt[];
  /** cuInit's CUresult, or -1 when it was never called. */
  initResult: number;
  initResultName: string | null;
  initResultString: string | null;
  /** cuDriverGetVersion (e.g. 12080), or 0 when unknown. */
  driverVersion: number;
  deviceCount: number;
}

/** @internal */
export interface NativeDeviceInfo {
  name: string;
  major: number;
  minor: number;
  smCount: number;
  totalMemory: number;
  memoryPoolsSupported: boolean;
}

/** @internal */
export interface NativeAllocation {
  handle: AllocationHandle;
  pointer: bigint;
  /** Allocated with cuMemAllocAsync and freed with cuMemFreeAsync on its stream. */
  streamOrdered: boolean;
}

/** @internal */
export interface NativePinnedAllocation {
  handle: PinnedHandle;
  buffer: ArrayBuffer;
}

/**
 * The addon's exports. Errors from CUDA calls are Errors carrying `cudaCall`,
 * `cudaResult`, `cudaResultName` and `cudaResultString`; translateNativeError
 * (driver.ts) maps them to CudaError.
 * @internal
 */
export interface NativeBinding {
  /** Opens libcuda and calls cuInit once; never throws. */
  driverStatus(): NativeDriverStatus;
  deviceCount(): number;
  deviceInfo(ordinal: number): NativeDeviceInfo;
  deviceMemoryInfo(ordinal: number): { free: number; total: number };
  /** cuCtxSynchronize in the device's primary context. */
  deviceSynchronize(ordinal: number): void;
  /** Makes the primary context current on this thread; returns the CUcontext. */
  deviceMakeCurrent(ordinal: number): bigint;

  streamCreate(ordinal: number, nonBlocking: boolean): StreamHandle;
  streamRaw(stream: StreamHandle): bigint;
  streamQuery(stream: StreamHandle): boolean;
  streamSynchronize(stream: StreamHandle): void;
  streamSynchronizeAsync(stream: StreamHandle): Promise<void>;
  streamWaitEvent(stream: StreamHandle, event: EventHandle): void;
  streamDestroy(stream: StreamHandle): void;

  eventCreate(ordinal: number, timing: boolean, blockingSync: boolean): EventHandle;
  eventRecord(event: EventHandle, stream: StreamHandle): void;
  eventQuery(event: EventHandle): boolean;
  eventSynchronize(event: EventHandle): void;
  eventSynchronizeAsync(event: EventHandle): Promise<void>;
  eventElapsedTime(start: EventHandle, end: EventHandle): number;
  eventDestroy(event: EventHandle): void;

  memAlloc(ordinal: number, byteLength: number, stream: StreamHandle | null): NativeAllocation;
  memFree(allocation: AllocationHandle): void;
  memcpyHtoD(allocation: AllocationHandle, byteOffset: number, src: ArrayBufferView): void;
  memcpyDtoH(allocation: AllocationHandle, byteOffset: number, dst: ArrayBufferView): void;
  memcpyHtoDAsync(
    allocation: AllocationHandle,
    byteOffset: number,
    src: ArrayBufferView,
    stream: StreamHandle,
  ): Promise<void>;
  memcpyDtoHAsync(
    allocation: AllocationHandle,
    byteOffset: number,
    dst: ArrayBufferView,
    stream: StreamHandle,
  ): Promise<void>;
  memcpyDtoD(
    dst: AllocationHandle,
    dstOffset: number,
    srcPointer: bigint,
    byteLength: number,
    stream: StreamHandle | null,
  ): void;
  memset(
    allocation: AllocationHandle,
    byteOffset: number,
    width: 1 | 2 | 4,
    value: number,
    count: number,
    stream: StreamHandle | null,
  ): void;

  hostAlloc(ordinal: number, byteLength: number): NativePinnedAllocation;
  hostFree(handle: PinnedHandle, buffer: ArrayBuffer): void;

  /**
   * cuModuleLoadData in the device's primary context. The image is copied and
   * NUL-terminated (PTX is read as a C string).
   */
  moduleLoadData(ordinal: number, image: Uint8Array): ModuleHandle;
  /** cuModuleGetFunction; the handle refuses use once its module is unloaded. */
  moduleGetFunction(module: ModuleHandle, name: string): FunctionHandle;
  /** cuModuleUnload (after cuCtxSynchronize when the module launched anything). Idempotent. */
  moduleUnload(module: ModuleHandle): void;
  /**
   * cuLaunchKernel with kernelParams = NULL and `params` passed as
   * CU_LAUNCH_PARAM_BUFFER_POINTER / CU_LAUNCH_PARAM_BUFFER_SIZE in `extra`.
   * `stream` is the raw CUstream (0n: the legacy default stream).
   */
  launchKernel(
    fn: FunctionHandle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedBytes: number,
    stream: bigint,
    params: Uint8Array,
  ): void;
}

/**
 * Every key of NativeBinding, exactly: `satisfies` rejects a missing key and
 * the object literal rejects an extra one.
 * @internal
 */
export const NATIVE_EXPORT_NAMES = Object.keys({
  driverStatus: true,
  deviceCount: true,
  deviceInfo: true,
  deviceMemoryInfo: true,
  deviceSynchronize: true,
  deviceMakeCurrent: true,
  streamCreate: true,
  streamRaw: true,
  streamQuery: true,
  streamSynchronize: true,
  streamSynchronizeAsync: true,
  streamWaitEvent: true,
  streamDestroy: true,
  eventCreate: true,
  eventRecord: true,
  eventQuery: true,
  eventSynchronize: true,
  eventSynchronizeAsync: true,
  eventElapsedTime: true,
  eventDestroy: true,
  memAlloc: true,
  memFree: true,
  memcpyHtoD: true,
  memcpyDtoH: true,
  memcpyHtoDAsync: true,
  memcpyDtoHAsync: true,
  memcpyDtoD: true,
  memset: true,
  hostAlloc: true,
  hostFree: true,
  moduleLoadData: true,
  moduleGetFunction: true,
  moduleUnload: true,
  launchKernel: true,
} satisfies Record<keyof NativeBinding, true>) as (keyof NativeBinding)[];
