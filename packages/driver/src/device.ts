import { type ArchSku, archSkuFromComputeCapability, InvalidArgumentError } from '@baracuda/types';
import { callNative, noDeviceError, requireDriver } from './driver.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { createStreamOn } from './kinds.js';
import type { NativeDeviceInfo } from './native.js';
import { type Brand, guardReceivers } from './receivers.js';
import type { Stream, StreamOptions } from './stream.js';
import { requireNonNegativeInteger } from './validate.js';

/** A CUDA compute capability, e.g. `{major: 9, minor: 0}` for Hopper. */
export interface ComputeCapability {
  readonly major: number;
  readonly minor: number;
}

/** Free and total device memory in bytes, as `cuMemGetInfo` reports them. */
export interface MemoryInfo {
  readonly free: number;
  readonly total: number;
}

const devices = new Map<number, Device>();
let isDeviceBrand: Brand = () => false;

/**
 * A CUDA device. Its primary context is retained on first use and made current
 * on the calling thread before every call, so cuDNN (runtime API) and our
 * allocations share one context.
 */
export class Device {
  /** The CUDA device ordinal. */
  readonly ordinal: number;
  /** The device name, e.g. `NVIDIA H200`. */
  readonly name: string;
  readonly computeCapability: ComputeCapability;
  /**
   * The compute capability as a kernel SKU names it, e.g. `sm90`; `unknown` for a
   * capability `@baracuda/types` does not list yet.
   */
  readonly arch: ArchSku;
  /** Number of streaming multiprocessors. */
  readonly smCount: number;
  /** Total device memory in bytes. */
  readonly totalMemory: number;
  /** The device supports stream-ordered allocation (cuMemAllocAsync). @internal */
  readonly memoryPoolsSupported: boolean;
  /** The brand: only this constructor adds it (look-alikes and Object.create copies lack it). */
  readonly #device = true;

  static {
    isDeviceBrand = (o) => typeof o === 'object' && o !== null && #device in o;
    guardReceivers(Device, 'Device', isDeviceBrand);
  }

  private constructor(token: FactoryToken, ordinal: number, info: NativeDeviceInfo) {
    requireFactoryToken(token, 'Device', 'Device.get(ordinal)');
    this.ordinal = ordinal;
    this.name = info.name;
    this.computeCapability = Object.freeze({ major: info.major, minor: info.minor });
    this.arch = archSkuFromComputeCapability(info.major, info.minor);
    this.smCount = info.smCount;
    this.totalMemory = info.totalMemory;
    this.memoryPoolsSupported = info.memoryPoolsSupported;
    // Frozen: no own property can shadow a getter this package reads (handle, disposed, ...).
    Object.freeze(this);
  }

  /** Number of CUDA devices the driver reports. */
  static count(): number {
    return requireDriver().status.deviceCount;
  }

  /** The device with this ordinal (the same object on every call). */
  static get(ordinal = 0): Device {
    requireNonNegativeInteger('ordinal', ordinal);
    const cached = devices.get(ordinal);
    if (cached) return cached;
    const { status } = requireDriver();
    if (status.deviceCount === 0) throw noDeviceError(status);
    if (ordinal >= status.deviceCount) {
      throw new InvalidArgumentError(
        'ordinal',
        `an integer from 0 to ${status.deviceCount - 1} (the CUDA device count is ${status.deviceCount})`,
        ordinal,
      );
    }
    const device = new Device(
      FACTORY_TOKEN,
      ordinal,
      callNative((binding) => binding.deviceInfo(ordinal)),
    );
    devices.set(ordinal, device);
    return device;
  }

  /** Every CUDA device, in ordinal order. */
  static all(): Device[] {
    const count = Device.count();
    return Array.from({ length: count }, (_, ordinal) => Device.get(ordinal));
  }

  /** Free and total memory now (`cuMemGetInfo`). */
  memoryInfo(): MemoryInfo {
    return callNative((binding) => binding.deviceMemoryInfo(this.ordinal));
  }

  /** Creates a stream on this device. */
  createStream(options?: StreamOptions): Stream {
    return createStreamOn(this, options);
  }

  /** Blocks the calling thread until all work on this device has completed (`cuCtxSynchronize`). */
  synchronizeSync(): void {
    callNative((binding) => binding.deviceSynchronize(this.ordinal));
  }

  /**
   * Makes this device's primary context current on the calling thread. Every
   * method here already does so; call it before using another library (cuDNN)
   * directly on this device.
   */
  makeCurrent(): void {
    callNative((binding) => binding.deviceMakeCurrent(this.ordinal));
  }

  toString(): string {
    const gib = (this.totalMemory / 2 ** 30).toFixed(1);
    return `Device ${this.ordinal}: ${this.name} (${this.arch}, ${this.smCount} SMs, ${gib} GiB)`;
  }
}

/** `undefined` → device 0; otherwise it must be a Device. @internal */
export function resolveDevice(name: string, value: unknown): Device {
  if (value === undefined) return Device.get(0);
  if (!isDevice(value)) throw new InvalidArgumentError(name, 'a Device', value);
  return value;
}

/** Whether `value` is a Device made by this package (a brand check, not `instanceof`). @internal */
export function isDevice(value: unknown): value is Device {
  return isDeviceBrand(value);
}
