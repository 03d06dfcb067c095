/**
 * The transform kernels' magic numbers give exact quotients (BigInt against BigInt division):
 * every divisor up to 2^16, powers of two and their neighbours, sampled large divisors up to
 * 2^31 − 1, at the numerators where a wrong m or shift shows first (0, d − 1, d, multiples of d
 * and their neighbours, the largest multiple below 2^31, 2^31 − 1) and at random ones.
 * cuda/space-to-depth.cu's own division (the same m and shift, on host C++) is checked on these
 * magic numbers in space-to-depth-cuda-host.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FAST_DIVISION_MAX_NUMERATOR, fastDivisor, fastQuotient } from './fast-division.js';

const MAX = FAST_DIVISION_MAX_NUMERATOR;
let seed = 0x2545f491;
function random(below: number): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  const hi = (Math.imul(seed, 2654435761) >>> 0) / 2 ** 32;
  return Math.floor(((seed / 2 ** 32 + hi / 2 ** 32) * below) % below);
}

/** Numerators at the edges for divisor d, all within [0, 2^31 − 1]. */
function numerators(d: number): number[] {
  const top = Math.floor(MAX / d) * d;
  const v = [0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, 3 * d - 1, top - 1, top, MAX - 1, MAX];
  for (const k of [7, 255, 65_535, 1 << 20]) v.push(k * d - 1, k * d, k * d + 1);
  for (let i = 0; i < 4; i++) v.push(random(MAX + 1));
  return v.filter((n) => n >= 0 && n <= MAX);
}

/** The divisors whose quotients are wrong, with their first bad numerator (empty when exact). */
function mismatches(divisors: Iterable<number>): string[] {
  const bad: string[] = [];
  for (const d of divisors) {
    const magic = fastDivisor(d);
    for (const n of numerators(d)) {
      if (BigInt(fastQuotient(n, d, magic)) !== BigInt(n) / BigInt(d)) {
        bad.push(`${n} / ${d}`);
        break;
      }
    }
  }
  return bad;
}

function* range(from: number, to: number): Generator<number> {
  for (let d = from; d <= to; d++) yield d;
}

describe('fast division by a launch-time divisor', () => {
  it('is exact for every divisor from 1 to 2^16', () => {
    expect(mismatches(range(1, 2 ** 16))).toEqual([]);
  });

  it('is exact for powers of two, their neighbours and divisors up to 2^31 − 1', () => {
    const divisors = new Set<number>([MAX, MAX - 1, 2 ** 30 + 1, 3 * 2 ** 29, 1_000_000_007]);
    for (let k = 1; k <= 30; k++) for (const e of [-1, 0, 1]) divisors.add(2 ** k + e);
    for (let i = 0; i < 20_000; i++) divisors.add(2 ** 16 + random(MAX - 2 ** 16));
    expect(mismatches(divisors)).toEqual([]);
  });

  it('packs a 32-bit m and the shift ceil(log2 d) − 1, and 0 for d = 1', () => {
    expect(fastDivisor(1)).toBe(0n);
    // d = 3: l = 2, m = ceil(2^33 / 3) = 2863311531.
    expect(fastDivisor(3)).toBe(2863311531n | (1n << 32n));
    // A power of two: m = 2^31, shift l − 1, so the quotient is n >> l.
    expect(fastDivisor(16)).toBe((2n ** 31n) | (3n << 32n));
    for (const d of [2, 3, 7, 14, 224, 65_537, MAX]) {
      const magic = fastDivisor(d);
      expect(magic & 0xffffffffn, `m of ${d}`).toBeGreaterThanOrEqual(2n ** 31n);
      expect(magic >> 32n, `shift of ${d}`).toBe(BigInt(Math.ceil(Math.log2(d)) - 1));
    }
    // Divisors the 32-bit path never sees need none; a divisor below 1 is refused.
    expect(fastDivisor(2 ** 31)).toBe(0n);
    expect(() => fastDivisor(0)).toThrow(RangeError);
    expect(() => fastDivisor(2.5)).toThrow(RangeError);
  });

  it('would catch a wrong magic number (the check can fail)', () => {
    // m one too small for d = 7 gives a wrong quotient at some edge numerator.
    const d = 7;
    const off = fastDivisor(d) - 1n;
    const wrong = numerators(d).some((n) => fastQuotient(n, d, off) !== Math.floor(n / d));
    expect(wrong).toBe(true);
  });
});
