import { ncclGroupEnd, ncclGroupStart } from '@baracuda/nccl-sys';
import { InvalidArgumentError, UnsupportedError } from '@baracuda/types';
import { ncclCheck } from './result.js';

/**
 * Runs `enqueue` between `ncclGroupStart` and `ncclGroupEnd`: the collectives it enqueues on
 * several communicators (one thread driving all GPUs of a process) or several send/recv pairs run
 * as one operation instead of deadlocking each other. The group is closed even when `enqueue`
 * throws. `enqueue` must enqueue synchronously: an async function would close the group before its
 * awaits run, so a returned promise is refused.
 */
export function group<T>(enqueue: () => T): T {
  if (typeof enqueue !== 'function') {
    throw new InvalidArgumentError('enqueue', 'a function', enqueue);
  }
  groupStart();
  let result: T;
  try {
    result = enqueue();
  } catch (error) {
    ncclGroupEnd();
    throw error;
  }
  groupEnd();
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    throw new UnsupportedError(
      'group(enqueue) got a promise from enqueue: NCCL groups are closed synchronously, so enqueue every call without awaiting inside the group',
    );
  }
  return result;
}

/** `ncclGroupStart`; pair it with {@link groupEnd} (or use {@link group}). */
export function groupStart(): void {
  ncclCheck('ncclGroupStart', ncclGroupStart(), null, '');
}

/** `ncclGroupEnd`: launches what was enqueued since the matching {@link groupStart}. */
export function groupEnd(): void {
  ncclCheck('ncclGroupEnd', ncclGroupEnd(), null, '');
}
