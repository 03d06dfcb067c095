/**
 * @baracuda/nccl-sys: raw NCCL 2 bindings, one function per C function, same name and parameter
 * order (docs/ARCHITECTURE.md). libnccl.so.2 is loaded at the first call, never by `import`.
 */
import { type LibraryVersion, NativeLibrary, type NativeLibraryProbe } from '@baracuda/types';
import { loadAddon } from './addon.js';
import type { NativeBinding } from './native.js';

export * from './constants.js';
export type { NativeBinding, NativeProbe, NcclComm, StatusResult } from './native.js';

/** NCCL's version, decoded as NCCL 2.9+ encodes it: `major * 10000 + minor * 100 + patch`. */
export type NcclVersion = LibraryVersion;

/** What {@link probe} found. */
export type NcclProbe = NativeLibraryProbe;

const NCCL_LIBRARY = 'libnccl.so.2 (NCCL 2.10 or newer)';
const NCCL_SOLUTIONS = [
  'Install NCCL 2 for your CUDA version: sudo apt install libnccl2 (from the CUDA apt repository)',
  'Or install the Python wheel: pip install nvidia-nccl-cu13 (or nvidia-nccl-cu12); it is found under site-packages/nvidia/nccl/lib (PyTorch installs it)',
  'Or set BARACUDA_NCCL_LIBRARY=/path/to/libnccl.so.2 (or the directory holding it)',
];

/** The C function behind each export (the async variant is ncclCommInitRank on a worker). */
const C_NAME: Partial<Record<RawName, string>> = { ncclCommInitRankAsync: 'ncclCommInitRank' };

/** NCCL, loaded at the first call (probe, load and the raw functions share it). */
const library = new NativeLibrary<NativeBinding>({
  name: 'NCCL',
  library: NCCL_LIBRARY,
  solutions: NCCL_SOLUTIONS,
  loadAddon,
  cName: (exportName) => C_NAME[exportName as RawName] ?? exportName,
});

/**
 * Loads NCCL if that was not tried yet, and reports what happened. Never throws: a missing
 * addon or library is reported as `available: false` with every path tried.
 */
export function probe(): NcclProbe {
  return library.probe();
}

/**
 * Loads NCCL (once) and returns the probe. Throws `LibraryNotFoundError` listing every path
 * tried and how to install NCCL when it cannot be loaded.
 */
export function load(): NcclProbe {
  return library.load();
}

/** The addon's constant table (`native/nccl_decls.h`). Needs the addon, not NCCL. */
export function nativeConstants(): Record<string, number> {
  return loadAddon().nativeConstants();
}

/** The addon's exports that are NCCL calls. */
type RawName = Extract<keyof NativeBinding, `nccl${string}`>;

/**
 * The raw function `name`: loads the library on its first call, and refuses a function the loaded
 * library does not export (see NativeLibrary in @baracuda/types).
 */
function raw<K extends RawName>(name: K): NativeBinding[K] {
  return library.raw(name);
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
