import { describe, expect, it } from 'vitest';
import { dot, maxAbsDiff, relL2 } from './metrics.js';
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
