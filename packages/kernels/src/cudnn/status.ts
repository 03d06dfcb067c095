/** The one place a cuDNN status becomes a CudnnError. */
import { CudnnError } from '@baracuda/types';
import { lastErrorString, statusName } from '../sys.js';

/** Throw a CudnnError naming `call` and `problem` unless `status` is CUDNN_STATUS_SUCCESS. */
export function check(status: number, call: string, problem: string): void {
  if (status !== 0) {
    throw new CudnnError(call, status, statusName(status), lastErrorString(), problem);
  }
}

/** A CUDNN_STATUS_NOT_SUPPORTED* status (the 3000 family). */
export function isNotSupported(status: number): boolean {
  return status >= 3000 && status < 4000;
}
