/**
 * Loading the driver, the probe, and turning native failures into the typed
 * errors of `@baracuda/types`.
 */
import {
  CudaError,
  LibraryNotFoundError,
  type LibrarySearchAttempt,
  UnsupportedError,
} from '@baracuda/types';
import { loadAddon } from './addon.js';
import type { NativeBinding, NativeDriverStatus } from './native.js';

/** The result of {@link probe}. */
export interface DriverProbe {
  /** True when libcuda was loaded and `cuInit(0)` succeeded. */
  readonly available: boolean;
  /** `cuDriverGetVersion`, e.g. `12080` for CUDA 12.8; null when the driver was not found. */
  readonly driverVersion: number | null;
  /** CUDA devices the driver reports; 0 when unavailable. */
  readonly deviceCount: number;
  /** The library that was loaded, or null. */
  readonly libraryPath: string | null;
  /** Every library tried before `libraryPath` (or all of them), with the reason each failed. */
  readonly searched: readonly LibrarySearchAttempt[];
  /** Why the driver is unavailable, with what to install; null when available. */
  readonly reason: string | null;
}

const LIBRARY = 'libcuda.so.1 (NVIDIA driver)';

/** @internal */
export function driverNotFoundError(status: NativeDriverStatus): LibraryNotFoundError {
  const solutions: string[] = [];
  if (status.overridePath !== null) {
    solutions.push(
      `BARACUDA_CUDA_DRIVER_LIBRARY is set to ${status.overridePath}: point it at a real libcuda.so.1, or unset it to search the default locations`,
    );
  }
  solutions.push(
    'Install an NVIDIA driver r525 or newer (CUDA 12.0+), e.g. `sudo apt install nvidia-driver-580` on Ubuntu, then reboot; `nvidia-smi` should list your GPU',
    'If libcuda.so.1 is installed somewhere unusual, set BARACUDA_CUDA_DRIVER_LIBRARY=/path/to/libcuda.so.1',
    'In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
  );
  const causes = status.searched.map((attempt) => new Error(`${attempt.path}: ${attempt.error}`));
  return new LibraryNotFoundError(LIBRARY, status.searched, solutions, {
    cause: new AggregateError(causes, 'dlopen failures'),
  });
}

function initFailedError(status: NativeDriverStatus): CudaError {
  const name = status.initResultName ?? `CUresult ${status.initResult}`;
  const detail = [
    status.initResultString,
    `the driver at ${status.libraryPath} could not initialize`,
    status.initResult === 100
      ? 'no CUDA-capable GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES)'
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  return new CudaError('cuInit', status.initResult, name, detail);
}

let status: NativeDriverStatus | undefined;

/**
 * Reports whether the CUDA driver can be used, loading it on the first call.
 * Never throws.
 */
export function probe(): DriverProbe {
  try {
    status ??= loadAddon().driverStatus();
  } catch (error) {
    return {
      available: false,
      driverVersion: null,
      deviceCount: 0,
      libraryPath: null,
      searched: LibraryNotFoundError.isInstance(error) ? error.searched : [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
  const base = {
    available: false,
    driverVersion: status.driverVersion > 0 ? status.driverVersion : null,
    libraryPath: status.libraryPath,
    searched: status.searched,
  };
  if (!status.loaded) {
    return { ...base, deviceCount: 0, reason: driverNotFoundError(status).message };
  }
  if (!status.initialized) {
    return { ...base, deviceCount: 0, reason: initFailedError(status).message };
  }
  return { ...base, available: true, deviceCount: status.deviceCount, reason: null };
}

let ready: { binding: NativeBinding; status: NativeDriverStatus } | undefined;

/**
 * The addon with a loaded, initialized driver; throws LibraryNotFoundError or
 * CudaError('cuInit') otherwise.
 * @internal
 */
export function requireDriver(): { binding: NativeBinding; status: NativeDriverStatus } {
  if (ready) return ready;
  const binding = loadAddon();
  status ??= binding.driverStatus();
  if (!status.loaded) throw driverNotFoundError(status);
  if (!status.initialized) throw initFailedError(status);
  ready = { binding, status };
  return ready;
}

/** @internal */
export function noDeviceError(status: NativeDriverStatus): UnsupportedError {
  return new UnsupportedError(
    `No CUDA device is present: the driver at ${status.libraryPath} reports 0 devices (check nvidia-smi and CUDA_VISIBLE_DEVICES)`,
  );
}

interface NativeCudaFailure {
  cudaCall: string;
  cudaResult: number;
  cudaResultName: string;
  cudaResultString?: string;
}

function isNativeCudaFailure(error: unknown): error is Error & NativeCudaFailure {
  return (
    error instanceof Error &&
    typeof (error as Partial<NativeCudaFailure>).cudaCall === 'string' &&
    typeof (error as Partial<NativeCudaFailure>).cudaResult === 'number'
  );
}

/** Turns an error thrown by the addon into the typed error users see. @internal */
export function translateNativeError(error: unknown): unknown {
  if (isNativeCudaFailure(error)) {
    return new CudaError(
      error.cudaCall,
      error.cudaResult,
      error.cudaResultName,
      error.cudaResultString || undefined,
      { cause: error },
    );
  }
  if (error instanceof Error && (error as { driverNotLoaded?: unknown }).driverNotLoaded === true) {
    return status ? driverNotFoundError(status) : error;
  }
  return error;
}

/** Runs a native call, translating what it throws. @internal */
export function callNative<T>(call: (binding: NativeBinding) => T): T {
  const { binding } = requireDriver();
  try {
    return call(binding);
  } catch (error) {
    throw translateNativeError(error);
  }
}

/**
 * Runs a native call that returns a promise. The JS stack is captured before
 * the work goes off-thread and attached to a rejection, so the error points at
 * the caller, not at the event loop.
 * @internal
 */
export async function callNativeAsync(
  call: (binding: NativeBinding) => Promise<void>,
): Promise<void> {
  const trace = new Error('async call site');
  const { binding } = requireDriver();
  let pending: Promise<void>;
  try {
    pending = call(binding);
  } catch (error) {
    throw translateNativeError(error);
  }
  try {
    await pending;
  } catch (error) {
    const translated = translateNativeError(error);
    if (translated instanceof Error && trace.stack) {
      const callerFrames = trace.stack.split('\n').slice(1).join('\n');
      translated.stack = `${translated.name}: ${translated.message}\n${callerFrames}`;
    }
    throw translated;
  }
}
