import { f32ToBf16Bits, f32ToF16Bits } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { makeRandom, randomBytes } from './random.js';

function f16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

describe('f16 / bf16 encoding', () => {
  it('encodes known values exactly', () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(0.5)).toBe(0x3800);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(1e6)).toBe(0x7c00);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001);
    expect(f32ToF16Bits(0)).toBe(0);
    expect(f32ToBf16Bits(1)).toBe(0x3f80);
    expect(f32ToBf16Bits(-2)).toBe(0xc000);
  });
  it('round-trips random values in [-1, 1) within half an f16 ulp', () => {
    const random = makeRandom(7);
    for (let i = 0; i < 10_000; i++) {
      const v = random() * 2 - 1;
      const back = f16ToNumber(f32ToF16Bits(v));
      const ulp =
        Math.abs(v) < 2 ** -14 ? 2 ** -24 : 2 ** (Math.floor(Math.log2(Math.abs(v))) - 10);
      // The value is rounded to f32 first, so allow one f32 rounding on top of half an f16 ulp.
      expect(Math.abs(back - v)).toBeLessThanOrEqual(ulp / 2 + Math.abs(v) * 2 ** -24);
    }
  });
});

describe('randomBytes', () => {
  it('fills every dtype with non-zero values in [-1, 1)', () => {
    const f32 = new Float32Array(randomBytes('f32', 4096, 1).buffer);
    const f64 = new Float64Array(randomBytes('f64', 4096, 2).buffer);
    const f16 = new Uint16Array(randomBytes('f16', 4096, 3).buffer);
    for (const v of [...f32, ...f64]) {
      expect(v).not.toBe(0);
      expect(Math.abs(v)).toBeLessThanOrEqual(1);
    }
    for (const bits of f16) {
      const v = f16ToNumber(bits);
      expect(v).not.toBe(0);
      expect(Math.abs(v)).toBeLessThanOrEqual(1);
    }
    expect(new Set(f32).size).toBeGreaterThan(1000);
  });
  it('is deterministic per seed and differs across seeds', () => {
    expect(randomBytes('bf16', 64, 5)).toEqual(randomBytes('bf16', 64, 5));
    expect(randomBytes('bf16', 64, 5)).not.toEqual(randomBytes('bf16', 64, 6));
  });
});
