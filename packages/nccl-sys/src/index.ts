/**
 * @baracuda/nccl-sys: raw NCCL 2 bindings, one function per C function, same name and parameter
 * order (docs/ARCHITECTURE.md). libnccl.so.2 is loaded at the first call, never by `import`.
 */
import { LibraryNotFoundError, type LibrarySearchAttempt, UnsupportedError } from '@baracuda/types';
import { loadAddon } from './addon.js';
import type { NativeBinding } from './native.js';

export * from './constants.js';
export type { NativeBinding, NativeProbe, NcclComm, StatusResult } from './native.js';

/** NCCL's version, decoded as NCCL 2.9+ encodes it: `major * 10000 + minor * 100 + patch`. */
export interface NcclVersion {
  major: number;
  minor: number;
  patch: number;
  /** What `ncclGetVersion()` gave, e.g. 22703 for 2.27.3. */
  raw: number;
}

/** What {@link probe} found. */
export interface NcclProbe {
  available: boolean;
  version: NcclVersion | null;
  /** The libnccl.so.2 file loaded, or null. */
  libraryPath: string | null;
  /** Every path tried, in order, with its error ("" for the one that loaded). */
  tried: LibrarySearchAttempt[];
  /** Functions this addon binds that the loaded library does not export. */
  missingSymbols: string[];
  /** Why NCCL is unavailable, or null. */
  reason: string | null;
}

function decode(raw: number): NcclVersion {
  return {
    major: Math.floor(raw / 10000),
    minor: Math.floor((raw % 10000) / 100),
    patch: raw % 100,
    raw,
  };
}

const NCCL_LIBRARY = 'libnccl.so.2 (NCCL 2.10 or newer)';
const NCCL_SOLUTIONS = [
  'Install NCCL 2 for your CUDA version: sudo apt install libnccl2 (from the CUDA apt repository)',
  'Or install the Python wheel: pip install nvidia-nccl-cu13 (or nvidia-nccl-cu12); it is found under site-packages/nvidia/nccl/lib (PyTorch installs it)',
  'Or set BARACUDA_NCCL_LIBRARY=/path/to/libnccl.so.2 (or the directory holding it)',
];

/**
 * Loads NCCL if that was not tried yet, and reports what happened. Never throws: a missing addon
 * or library is reported as `available: false` with every path tried.
 */
export function probe(): NcclProbe {
  let native: NativeBinding;
  try {
    native = loadAddon();
  } catch (error) {
    return {
      available: false,
      version: null,
      libraryPath: null,
      tried: LibraryNotFoundError.isInstance(error) ? [...error.searched] : [],
      missingSymbols: [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
  const found = native.probe();
  return {
    available: found.available,
    version: found.available ? decode(found.version) : null,
    libraryPath: found.available ? found.libraryPath : null,
    tried: found.tried,
    missingSymbols: found.missingSymbols,
    reason: found.available ? null : found.reason,
  };
}

/**
 * Loads NCCL (once) and returns the probe. Throws `LibraryNotFoundError` listing every path tried
 * and how to install NCCL when it cannot be loaded.
 */
export function load(): NcclProbe {
  const found = probe();
  if (!found.available) {
    throw new LibraryNotFoundError(NCCL_LIBRARY, found.tried, NCCL_SOLUTIONS, {
      cause: new Error(found.reason ?? 'NCCL is unavailable'),
    });
  }
  return found;
}

let loaded: NativeBinding | undefined;
let missing: { names: ReadonlySet<string>; library: string } | undefined;

function lib(): NativeBinding {
  if (loaded) return loaded;
  const found = load();
  const version = found.version;
  missing = {
    names: new Set(found.missingSymbols),
    library: `${found.libraryPath} (NCCL ${version ? `${version.major}.${version.minor}.${version.patch}` : 'unknown'})`,
  };
  loaded = loadAddon();
  return loaded;
}

/** The addon's constant table (`native/nccl_decls.h`). Needs the addon, not NCCL. */
export function nativeConstants(): Record<string, number> {
  return loadAddon().nativeConstants();
}

/** The addon's exports that are NCCL calls. */
type RawName = Extract<keyof NativeBinding, `nccl${string}`>;

/** The C function behind each export (the async variant is ncclCommInitRank on a worker). */
const C_NAME: Partial<Record<RawName, string>> = { ncclCommInitRankAsync: 'ncclCommInitRank' };

/**
 * The raw function `name`: loads NCCL on its first call (throwing `LibraryNotFoundError` when it
 * cannot, and trying again on the next call); a function the loaded library does not export is
 * an `UnsupportedError` naming it, before any argument is read.
 */
function raw<K extends RawName>(name: K): NativeBinding[K] {
  let native: ((...args: unknown[]) => unknown) | undefined;
  const forward = (...args: unknown[]): unknown => {
    if (native === undefined) {
      const binding = lib();
      const cName = C_NAME[name] ?? name;
      if (missing?.names.has(cName)) {
        throw new UnsupportedError(
          `${cName} is not exported by ${missing.library}: this NCCL cannot run it (probe().missingSymbols lists every such function)`,
        );
      }
      native = binding[name] as (...args: unknown[]) => unknown;
    }
    return native(...args);
  };
  Object.defineProperty(forward, 'name', { value: name });
  return forward as NativeBinding[K];
}

/** [ncclGetVersion](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetversion). */
export const ncclGetVersion = raw('ncclGetVersion');
/** [ncclGetUniqueId](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetuniqueid): `uniqueId` is a fresh Uint8Array(128). */
export const ncclGetUniqueId = raw('ncclGetUniqueId');
/**
 * [ncclCommInitRank](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitrank).
 * Blocks until all `nranks` ranks have joined. `cudaDevice` (a baracuda extension) makes that
 * device's primary context current for the call; without it NCCL takes the thread's current device.
 */
export const ncclCommInitRank = raw('ncclCommInitRank');
/** `ncclCommInitRank` on a libuv worker thread: the event loop keeps running while ranks join. */
export const ncclCommInitRankAsync = raw('ncclCommInitRankAsync');
/** [ncclCommInitAll](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitall): one communicator per device of `devlist`, in one process. */
export const ncclCommInitAll = raw('ncclCommInitAll');
/** [ncclCommDestroy](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommdestroy). Marks the object destroyed whatever the result. */
export const ncclCommDestroy = raw('ncclCommDestroy');
/** [ncclCommAbort](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommabort): frees the communicator without waiting for peers. */
export const ncclCommAbort = raw('ncclCommAbort');
/** [ncclCommGetAsyncError](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommgetasyncerror). */
export const ncclCommGetAsyncError = raw('ncclCommGetAsyncError');
/** [ncclCommCount](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommcount). */
export const ncclCommCount = raw('ncclCommCount');
/** [ncclCommCuDevice](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommcudevice). */
export const ncclCommCuDevice = raw('ncclCommCuDevice');
/** [ncclCommUserRank](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommuserrank). */
export const ncclCommUserRank = raw('ncclCommUserRank');
/** [ncclAllReduce](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallreduce). */
export const ncclAllReduce = raw('ncclAllReduce');
/** [ncclBroadcast](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclbroadcast). */
export const ncclBroadcast = raw('ncclBroadcast');
/** [ncclReduceScatter](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreducescatter). */
export const ncclReduceScatter = raw('ncclReduceScatter');
/** [ncclAllGather](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallgather). */
export const ncclAllGather = raw('ncclAllGather');
/** [ncclSend](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclsend). */
export const ncclSend = raw('ncclSend');
/** [ncclRecv](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclrecv). */
export const ncclRecv = raw('ncclRecv');
/** [ncclGroupStart](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html#ncclgroupstart). */
export const ncclGroupStart = raw('ncclGroupStart');
/** [ncclGroupEnd](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html#ncclgroupend). */
export const ncclGroupEnd = raw('ncclGroupEnd');
/** [ncclGetErrorString](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgeterrorstring). */
export const ncclGetErrorString = raw('ncclGetErrorString');
/** [ncclGetLastError](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetlasterror): `comm` may be null. */
export const ncclGetLastError = raw('ncclGetLastError');
