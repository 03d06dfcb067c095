/**
 * Waiting for a communicator's work without blocking the event loop and without hanging on a
 * failed peer. An event recorded on the stream marks the work; the wait polls it (`cuEventQuery`)
 * and the communicator's asynchronous error (`ncclCommGetAsyncError`) from timers, backing off
 * from 1 ms to 16 ms. An asynchronous error, or the deadline passing, aborts the communicator
 * (`ncclCommAbort`, which ends its kernels so the stream drains) and rejects with `NcclError`.
 * No thread is parked on the GPU, so a wait that gives up leaves nothing behind.
 * @internal
 */
import type { Event } from '@baracuda/driver';
import { ncclResultName } from '@baracuda/nccl-sys';
import { NcclError } from '@baracuda/types';

const IN_PROGRESS = 7;

/** What a wait needs of its communicator. @internal */
export interface WaitTarget {
  /**
   * `ncclCommGetAsyncError`'s answer now; throws the abort's reason when another wait aborted the
   * communicator meanwhile (a sibling of the same initAll that gave up).
   */
  asyncError(): number;
  /** NCCL's string for an error result. */
  message(result: number): string;
  /** Aborts the communicator (and those it was made with), giving `reason` to their waits. */
  abort(reason: NcclError): void;
  readonly where: string;
}

type Step = 'done' | 'pending';

function step(target: WaitTarget, event: Event, started: number, timeoutMs: number): Step {
  const asyncError = target.asyncError();
  if (asyncError !== 0 && asyncError !== IN_PROGRESS) {
    const error = new NcclError(
      'ncclCommGetAsyncError',
      asyncError,
      ncclResultName(asyncError),
      `${target.message(asyncError)}; the communicator was aborted`,
      target.where,
    );
    target.abort(error);
    throw error;
  }
  if (asyncError === 0 && event.query()) return 'done';
  if (performance.now() - started >= timeoutMs) {
    const error = new NcclError(
      'ncclCommGetAsyncError',
      IN_PROGRESS,
      ncclResultName(IN_PROGRESS),
      `the work queued on the stream had not completed after ${timeoutMs} ms (a peer that failed or never called?); the communicator was aborted`,
      target.where,
    );
    target.abort(error);
    throw error;
  }
  return 'pending';
}

/** @internal */
export async function waitFor(target: WaitTarget, event: Event, timeoutMs: number): Promise<void> {
  const started = performance.now();
  let delay = 1;
  while (step(target, event, started, timeoutMs) === 'pending') {
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 16);
  }
}

/** @internal The same, blocking the calling thread (Atomics.wait between polls). */
export function waitForSync(target: WaitTarget, event: Event, timeoutMs: number): void {
  const started = performance.now();
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let delay = 1;
  while (step(target, event, started, timeoutMs) === 'pending') {
    Atomics.wait(sleeper, 0, 0, delay);
    delay = Math.min(delay * 2, 16);
  }
}
