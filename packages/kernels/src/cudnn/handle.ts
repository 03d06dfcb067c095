/** One cuDNN handle per device, shared by every plan, reference-counted. */
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

export function releaseHandle(shared: SharedHandle): void {
  shared.refs--;
  if (shared.refs <= 0 && handles.get(shared.ordinal) === shared) {
    handles.delete(shared.ordinal);
    try {
      cudnn.cudnnDestroy(shared.handle);
    } catch {
      // a safety net never throws
    }
  }
}

/** Bind the handle to `stream` unless it is bound to it already. */
export function bindStream(shared: SharedHandle, stream: bigint, problem: string): void {
  if (shared.boundStream !== stream) {
    check(cudnn.cudnnSetStream(shared.handle, stream), 'cudnnSetStream', problem);
    shared.boundStream = stream;
  }
}
