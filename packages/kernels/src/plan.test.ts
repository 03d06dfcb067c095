import * as cudnnSys from '@baracuda/cudnn-sys';
import {
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  LibraryNotFoundError,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import type { Conv3dDescriptor } from './descriptor.js';
import { smallProblem } from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';

const cudnnAvailable = (() => {
  try {
    return (cudnnSys as unknown as { probe(): { available: boolean } }).probe().available;
  } catch {
    return false;
  }
})();

const desc = smallProblem(ElementKind.F32);
/** A stream-shaped object: enough to reach cuDNN loading without a GPU. */
const fakeStream = { raw: 0n };

describe('Conv3dPlan.select argument checks (before any library is loaded)', () => {
  it('rejects a non-descriptor', async () => {
    await expect(Conv3dPlan.select(fakeStream, {} as Conv3dDescriptor)).rejects.toThrow(
      new InvalidArgumentError('desc', 'a Conv3dDescriptor', {}),
    );
  });
  it('rejects an invalid descriptor with its validation error', async () => {
    await expect(Conv3dPlan.select(fakeStream, desc.withStride(0, 1, 1))).rejects.toThrow(
      InvalidProblemError,
    );
    expect(() => Conv3dPlan.selectSync(fakeStream, desc.withGroups(3))).toThrow(
      'Expected groups (3) to divide cIn (4) and cOut (4), but it does not divide cIn or cOut',
    );
  });
  it('rejects a bad preference and bad options', async () => {
    await expect(
      Conv3dPlan.select(fakeStream, desc, { algorithm: 'fastest' as 'pinned' }),
    ).rejects.toThrow(InvalidArgumentError);
    expect(() =>
      Conv3dPlan.selectSync(fakeStream, desc, undefined, { passes: ['fwd' as 'fw'] }),
    ).toThrow(
      "Expected an array of 'fw', 'bwData' and 'bwFilter' for options.passes but received an array of length 1",
    );
  });
  it('rejects something that is not a stream', () => {
    expect(() => Conv3dPlan.selectSync(42 as never, desc)).toThrow(
      'Expected a Stream from @baracuda/driver for stream but received 42 of type number',
    );
  });
});

describe.skipIf(cudnnAvailable)(
  'Conv3dPlan.select without cuDNN (skipped where cuDNN is installed)',
  () => {
    it('rejects with LibraryNotFoundError, and the process lives on', async () => {
      const error = await Conv3dPlan.select(fakeStream, desc).catch((e: unknown) => e);
      expect(LibraryNotFoundError.isInstance(error)).toBe(true);
      expect((error as LibraryNotFoundError).library).toMatch(/cudnn/i);
      // the async rejection carries the caller's stack
      expect((error as Error).stack).toContain('select() called from');
    });
    it('selectSync throws LibraryNotFoundError', () => {
      expect(() => Conv3dPlan.selectSync(fakeStream, desc, { algorithm: 'autotune' })).toThrow(
        LibraryNotFoundError,
      );
    });
  },
);
