/** The one place an NCCL result becomes an `NcclError`. @internal */
import {
  type NcclComm,
  ncclGetErrorString,
  ncclGetLastError,
  ncclResultName,
} from '@baracuda/nccl-sys';
import { NcclError } from '@baracuda/types';

/**
 * NCCL's string for `result`, with its last error (`ncclGetLastError`) when `withLastError`: right
 * after a call that failed, where it is that call's detail; never for an asynchronous error, where
 * it may describe an older failure. @internal
 */
export function ncclMessage(result: number, comm: NcclComm | null, withLastError: boolean): string {
  const text = ncclGetErrorString(result);
  if (!withLastError) return text;
  let last = '';
  try {
    last = ncclGetLastError(comm);
  } catch {
    // a destroyed communicator: the result's string is all there is
  }
  return last && last !== text ? `${text}; ${last}` : text;
}

/** Throws `NcclError` unless `result` is ncclSuccess. @internal */
export function ncclCheck(
  call: string,
  result: number,
  comm: NcclComm | null,
  where: string,
): void {
  if (result === 0) return;
  throw new NcclError(call, result, ncclResultName(result), ncclMessage(result, comm, true), where);
}
