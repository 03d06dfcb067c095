/**
 * select's own arguments: null is a wrong value (only undefined takes a default), an array is not
 * an options object, a sparse array hides no hole, and a stream's raw handle must be a CUstream.
 * All checked before any library is loaded.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { smallProblem } from './fake-cudnn.test-helpers.js';
import { Conv3dPlan, type Conv3dPlanOptions } from './plan.js';

const desc = smallProblem(ElementKind.F32);
const stream = { raw: 0n };

function sparse(value: string): string[] {
  const array = new Array<string>(2);
  array[1] = value;
  return array;
}

async function refusals(options: unknown, s: unknown = stream): Promise<[string, string]> {
  let sync = 'accepted';
  try {
    Conv3dPlan.selectSync(s as never, desc, undefined, options as Conv3dPlanOptions);
  } catch (error) {
    sync = (error as Error).message;
  }
  const async = await Conv3dPlan.select(
    s as never,
    desc,
    undefined,
    options as Conv3dPlanOptions,
  ).then(
    () => 'accepted',
    (error: Error) => error.message,
  );
  return [sync, async];
}

describe('select arguments', () => {
  it.each([
    [[], 'Expected an object or undefined for options but received an array of length 0'],
    [
      { autotuneCachePath: null },
      'Expected a non-empty string for options.autotuneCachePath but received null',
    ],
    [
      { passes: null },
      "Expected an array of 'fw', 'bwData' and 'bwFilter' for options.passes but received null",
    ],
    [
      { passes: sparse('fw') },
      "Expected an array of 'fw', 'bwData' and 'bwFilter' for options.passes but received an array of length 2",
    ],
    [
      { ignoreErrata: null },
      'Expected an array of erratum ids for options.ignoreErrata but received null',
    ],
    [
      { ignoreErrata: sparse('x') },
      'Expected an array of erratum ids for options.ignoreErrata but received an array of length 2',
    ],
    [
      { bwDataAsForward: null },
      "Expected 'tuned', 'always' or 'never' for options.bwDataAsForward but received null",
    ],
    [
      { layoutDetour: null },
      "Expected 'tuned', 'always' or 'never' for options.layoutDetour but received null",
    ],
  ])('refuses options %o', async (options, message) => {
    expect(await refusals(options)).toEqual([message, message]);
  });

  it('refuses a stream whose raw handle is not a CUstream', async () => {
    for (const [raw, shown] of [
      [-1n, '-1n of type bigint'],
      [1n << 64n, '18446744073709551616n of type bigint'],
    ] as const) {
      const message = `Expected a bigint from 0 to 2^64 - 1 (a CUstream) for stream.raw but received ${shown}`;
      expect(await refusals(undefined, { raw })).toEqual([message, message]);
    }
  });
});
