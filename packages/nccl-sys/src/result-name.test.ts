/** ncclResultName: names for every int32, a TypeError / RangeError for anything else. */
import { describe, expect, it } from 'vitest';
import { ncclResultName } from './index.js';

describe('ncclResultName', () => {
  it('names known and unknown results, and refuses what is not an int32', () => {
    expect(ncclResultName(2)).toBe('ncclSystemError');
    expect(ncclResultName(99)).toBe('ncclResult_t(99)');
    expect(ncclResultName(-1)).toBe('ncclResult_t(-1)');
    expect(() => ncclResultName('2' as never)).toThrow(
      new TypeError('Expected an int32 for result but received a value of type string'),
    );
    expect(() => ncclResultName(1.5)).toThrow(
      new TypeError('Expected an int32 for result but received 1.5'),
    );
    expect(() => ncclResultName(2 ** 31)).toThrow(
      new RangeError(
        'Expected an int32 from -2147483648 to 2147483647 for result but received 2147483648',
      ),
    );
  });
});
