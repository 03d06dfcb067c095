/**
 * One cuDNN handle per device, shared by every plan, reference-counted, and kept once made.
 *
 * Why kept: cuDNN loses memory at every cudnnCreate/cudnnDestroy pair, with nothing of ours in
 * between: 2.4 KiB of device memory and about 12-14 KiB of host memory a pair on 9.14.0, twice that
 * on 9.19.0 (RESULTS.md, runs 56-57: 10,000 pairs lost 24 and 48 MiB of device memory). A program
 * that makes and drops plans one at a time made a new handle for each and leaked that much; with
 * one handle kept, the same 10,000 plan cycles lost no device memory. A pair also costs about
 * 2.5 ms. PyTorch keeps its handles for the thread's lifetime too. `releaseCudnnHandles()` destroys
 * the idle ones; the addon's safety net destroys any left at process or worker exit.
 */
import { type CudnnHandle, cudnn, outputOf } from '../sys.js';
import { check } from './status.js';

/** @internal */
export interface SharedHandle {
  readonly ordinal: number;
  readonly handle: CudnnHandle;
  refs: number;
  /** The stream last bound with cudnnSetStream (null before the first). */
  boundStream: bigint | null;
}
const handles = new Map<number, SharedHandle>();

export function acquireHandle(ordinal: number, problem: string): SharedHandle {
  const existing = handles.get(ordinal);
  if (existing) {
    // An idle handle may still be bound to a stream destroyed since: bind it again before use.
    if (existing.refs === 0) existing.boundStream = null;
    existing.refs++;
    return existing;
  }
  const r = cudnn.cudnnCreate();
  check(r.status, 'cudnnCreate', problem);
  const shared: SharedHandle = {
    ordinal,
    handle: outputOf<CudnnHandle>(r, 'handle'),
    refs: 1,
    boundStream: null,
  };
  handles.set(ordinal, shared);
  return shared;
}

/** A plan is done with the handle; an idle handle stays for the next plan of its device. */
export function releaseHandle(shared: SharedHandle): void {
  if (shared.refs > 0) shared.refs--;
}

/**
 * Destroy every cuDNN handle that no live plan uses and return how many were destroyed. The next
 * plan on such a device makes a new one. For programs that are done with the GPU for a long time,
 * and for tests that count native objects: each create/destroy pair leaks inside cuDNN (see above),
 * so calling this between plans costs memory rather than saving it.
 */
export function releaseCudnnHandles(): number {
  let destroyed = 0;
  for (const [ordinal, shared] of handles) {
    if (shared.refs > 0) continue;
    handles.delete(ordinal);
    destroyed++;
    try {
      cudnn.cudnnDestroy(shared.handle);
    } catch {
      // a safety net never throws
    }
  }
  return destroyed;
}

/** Bind the handle to `stream` unless it is bound to it already. */
export function bindStream(shared: SharedHandle, stream: bigint, problem: string): void {
  if (shared.boundStream !== stream) {
    check(cudnn.cudnnSetStream(shared.handle, stream), 'cudnnSetStream', problem);
    shared.boundStream = stream;
  }
}
