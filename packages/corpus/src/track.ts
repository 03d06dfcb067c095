/**
 * Objects a case made (streams, buffers, descriptors): freed after the case, whatever it did to
 * them. The list lives in the package's fixtures so value makers and targets share it.
 */
import type { Fixtures } from './model.js';

type Cleanup = () => void;

function list(fixtures: Fixtures): Cleanup[] {
  let cleanups = fixtures.cleanups as Cleanup[] | undefined;
  if (cleanups === undefined) {
    cleanups = [];
    fixtures.cleanups = cleanups;
  }
  return cleanups;
}

/** Remembers `free` to run after the current case; returns `value`. */
export function track<T>(fixtures: Fixtures, value: T, free: (value: T) => void): T {
  list(fixtures).push(() => free(value));
  return value;
}

/** Runs and forgets every cleanup, newest first; a cleanup that throws is ignored. */
export function drain(fixtures: Fixtures): void {
  const cleanups = list(fixtures);
  while (cleanups.length > 0) {
    try {
      cleanups.pop()?.();
    } catch {
      // Already disposed or destroyed by the case: nothing left to free.
    }
  }
}
