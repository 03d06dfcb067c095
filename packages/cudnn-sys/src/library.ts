/**
 * Finding and loading cuDNN: the probe that never throws, the load that throws a typed error, and
 * the loaded binding the raw functions forward to (with the functions the library lacks).
 */
import {
  describeValue,
  LibraryNotFoundError,
  type LibrarySearchAttempt,
  UnsupportedError,
} from '@baracuda/types';
import { loadAddon } from './addon.js';
import type { NativeBinding } from './native.js';

/** cuDNN's version, decoded the way cuDNN 9 encodes it: `major * 10000 + minor * 100 + patch`. */
export interface CudnnVersion {
  major: number;
  minor: number;
  patch: number;
  /** What `cudnnGetVersion()` returned, e.g. 91400 for 9.14.0. */
  raw: number;
}

/** What {@link probe} found. */
export interface CudnnProbe {
  available: boolean;
  version: CudnnVersion | null;
  /** `cudnnGetCudartVersion()`: the CUDA runtime cuDNN was built with, e.g. 13000. */
  cudartVersion: number | null;
  /** The libcudnn.so.9 file loaded, or null. */
  libraryPath: string | null;
  /** Every path tried, in order, with its error ("" for the one that loaded). */
  tried: LibrarySearchAttempt[];
  /**
   * Sibling libraries (libcudnn_*.so.9, cuBLASLt, NVRTC) loaded by full path ahead of a
   * libcudnn.so.9 found by path, so that cuDNN's own dlopen calls resolve to the same directory.
   */
  preloaded: LibrarySearchAttempt[];
  /** Functions this addon binds that the loaded library does not export. */
  missingSymbols: string[];
  /** Why cuDNN is unavailable, or null. */
  reason: string | null;
}

/** Decodes a `cudnnGetVersion()` value: 91400 → `{major: 9, minor: 14, patch: 0, raw: 91400}`. */
export function decodeCudnnVersion(raw: number): CudnnVersion {
  if (typeof raw !== 'number' || !Number.isInteger(raw)) {
    throw new TypeError(
      `Expected a non-negative integer for raw but received ${describeValue(raw)}`,
    );
  }
  if (raw < 0 || !Number.isSafeInteger(raw)) {
    throw new RangeError(
      `Expected an integer from 0 to ${Number.MAX_SAFE_INTEGER} for raw but received ${raw}`,
    );
  }
  return {
    major: Math.floor(raw / 10000),
    minor: Math.floor((raw % 10000) / 100),
    patch: raw % 100,
    raw,
  };
}

const CUDNN_LIBRARY = 'libcudnn.so.9 (cuDNN 9)';
const CUDNN_SOLUTIONS = [
  'Install cuDNN 9 for your CUDA version: sudo apt install libcudnn9-cuda-13 (or libcudnn9-cuda-12)',
  'Or install the Python wheel: pip install nvidia-cudnn-cu13 (or nvidia-cudnn-cu12); it is found under site-packages/nvidia/cudnn/lib',
  'Or set BARACUDA_CUDNN_LIBRARY=/path/to/libcudnn.so.9 (or the directory holding it)',
];

/**
 * Loads cuDNN if that was not tried yet, and reports what happened. Never throws: a missing addon
 * or library is reported as `available: false` with every path tried.
 */
export function probe(): CudnnProbe {
  let native: NativeBinding;
  try {
    native = loadAddon();
  } catch (error) {
    return {
      available: false,
      version: null,
      cudartVersion: null,
      libraryPath: null,
      tried: LibraryNotFoundError.isInstance(error) ? [...error.searched] : [],
      preloaded: [],
      missingSymbols: [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
  const found = native.probe();
  return {
    available: found.available,
    version: found.available ? decodeCudnnVersion(found.version) : null,
    cudartVersion: found.available ? found.cudartVersion : null,
    libraryPath: found.available ? found.libraryPath : null,
    tried: found.tried,
    preloaded: found.preloaded,
    missingSymbols: found.missingSymbols,
    reason: found.available ? null : found.reason,
  };
}

/**
 * Loads cuDNN (once) and returns the probe. Throws `LibraryNotFoundError` listing every path
 * tried and how to install cuDNN 9 when it cannot be loaded.
 */
export function load(): CudnnProbe {
  const found = probe();
  if (!found.available) {
    throw new LibraryNotFoundError(CUDNN_LIBRARY, found.tried, CUDNN_SOLUTIONS, {
      cause: new Error(found.reason ?? 'cuDNN is unavailable'),
    });
  }
  return found;
}

let loaded: NativeBinding | undefined;
/** The functions the loaded library lacks, and what to name it by in the error. */
let missing: { names: ReadonlySet<string>; library: string } | undefined;

export function lib(): NativeBinding {
  if (loaded) return loaded;
  const found = load();
  const version = found.version;
  missing = {
    names: new Set(found.missingSymbols),
    library: `${found.libraryPath} (cuDNN ${version ? `${version.major}.${version.minor}.${version.patch}` : 'unknown'})`,
  };
  loaded = loadAddon();
  return loaded;
}

/**
 * A bound function the loaded cuDNN does not export (an older or partial library) is an
 * `UnsupportedError` naming the function and the library, before any argument is read.
 */
export function requireExported(name: string): void {
  if (missing?.names.has(name)) {
    throw new UnsupportedError(
      `${name} is not exported by ${missing.library}: this cuDNN cannot run it (probe().missingSymbols lists every such function)`,
    );
  }
}

/**
 * The addon's constant table (`native/cudnn_decls.h`), which `native/abi_check.cc` proves against
 * `<cudnn.h>`. Needs the addon, not cuDNN.
 */
export function nativeConstants(): Record<string, number> {
  return loadAddon().nativeConstants();
}
