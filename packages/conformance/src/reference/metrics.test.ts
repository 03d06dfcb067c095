import { describe, expect, it } from 'vitest';
import { adjointMismatch, dot, maxAbsDiff, relL2 } from './metrics.js';
import { randomArray, seededRandom } from './random.js';

describe('relL2', () => {
  it('is ‖got − ref‖ / ‖ref‖', () => {
    expect(relL2([1, 1], [1, 0])).toBe(1);
    expect(relL2([3, 4], [3, 4])).toBe(0);
    expect(relL2(Float64Array.from([1.5, 2]), Float64Array.from([3, 4]))).toBeCloseTo(0.5, 15);
    expect(relL2([0, 0], [3, 4])).toBe(1);
  });
  it('gives Infinity for NaN or Infinity in got', () => {
    expect(relL2([1, Number.NaN], [1, 2])).toBe(Number.POSITIVE_INFINITY);
    expect(relL2([Number.NEGATIVE_INFINITY, 0], [1, 2])).toBe(Number.POSITIVE_INFINITY);
  });
  it('falls back to the absolute norm when ref is all zero', () => {
    expect(relL2([3, 4], [0, 0])).toBe(5);
    expect(relL2([0, 0], [0, 0])).toBe(0);
  });
  it('does not overflow on huge values', () => {
    expect(relL2([3e200, 4e200], [3e200, 0])).toBeCloseTo(4 / 3, 12);
  });
  it('rejects arrays of different lengths', () => {
    expect(() => relL2([1, 2, 3], [1, 2])).toThrow(
      'Expected an array of length 2 (as ref) for got but received an array of length 3',
    );
    expect(() => relL2(null as never, [1])).toThrow(
      'Expected an array or typed array of numbers for got but received null',
    );
  });
});

describe('maxAbsDiff and dot', () => {
  it('compute what they say', () => {
    expect(maxAbsDiff([1, 5, 3], [1, 2, 4])).toBe(3);
    expect(maxAbsDiff([Number.NaN], [1])).toBe(Number.POSITIVE_INFINITY);
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
  });
});

describe('seededRandom', () => {
  it('replays the same stream from a seed and stays in [-1, 1)', () => {
    const a = randomArray(1000, seededRandom(42));
    const b = randomArray(1000, seededRandom(42));
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Math.min(...a)).toBeGreaterThanOrEqual(-1);
    expect(Math.max(...a)).toBeLessThan(1);
    expect(Array.from(randomArray(4, seededRandom(43)))).not.toEqual(Array.from(a.subarray(0, 4)));
    expect(() => seededRandom(1.5)).toThrow(
      'Expected an integer for seed but received 1.5 of type number',
    );
  });
});

describe('adjointMismatch', () => {
  it('is 0 for equal inner products and returns them', () => {
    const r = adjointMismatch([
      [
        [1, 2],
        [3, 4],
      ],
      [
        [2, 1],
        [4, 3],
      ],
    ]);
    expect(r.products).toEqual([11, 11]);
    expect(r.mismatch).toBe(0);
  });

  it('measures the spread against the size of the terms, not of a sum that cancels', () => {
    // The sums are 1 and 1.5, their terms about 2^27: the 0.5 apart is measured against 2^28 - 1.
    const big = 2 ** 27;
    const r = adjointMismatch([
      [
        [big, -big + 1],
        [1, 1],
      ],
      [
        [big, -big + 1.5],
        [1, 1],
      ],
    ]);
    expect(r.products).toEqual([1, 1.5]);
    expect(r.mismatch).toBe(0.5 / (2 ** 28 - 1));
  });

  it('takes the largest spread from the first product and the largest scale', () => {
    const r = adjointMismatch([
      [[1], [10]],
      [[1], [10.5]],
      [[1], [9]],
    ]);
    expect(r.mismatch).toBeCloseTo(1 / 10.5, 15);
  });

  it('rejects no pairs, a pair that is not two arrays, and arrays of different lengths', () => {
    expect(() => adjointMismatch([])).toThrow(
      'Expected a non-empty array of [a, b] pairs for pairs but received an array of length 0',
    );
    expect(() => adjointMismatch([[[1], [2], [3]]] as never)).toThrow(
      /^Expected a pair \[a, b\] of equal-length arrays for pairs\[0\] but received/,
    );
    expect(() => adjointMismatch('x' as never)).toThrow(/for pairs but received "x"/);
    expect(() => adjointMismatch([[[1, 2], [1]]])).toThrow(/length/);
  });
});
