import { describe, expect, it } from 'vitest';
import { BufferTooSmallError, InvalidArgumentError } from './errors.js';
import {
  bf16ArrayToF32,
  bf16BitsToF32,
  f16ArrayToF32,
  f16BitsToF32,
  f32ArrayToBf16,
  f32ArrayToF16,
  f32ToBf16Bits,
  f32ToF16Bits,
} from './half.js';

// -------------------------------------------------------------------------------------------
// Independent references: plain f64 arithmetic on the IEEE fields, no bit tricks shared with
// the implementation.
// -------------------------------------------------------------------------------------------

interface Format {
  readonly name: string;
  readonly exponentBits: number;
  readonly mantissaBits: number;
  readonly encode: (x: number) => number;
  readonly decode: (bits: number) => number;
  readonly encodeArray: typeof f32ArrayToF16;
  readonly decodeArray: typeof f16ArrayToF32;
}

const F16: Format = {
  name: 'f16',
  exponentBits: 5,
  mantissaBits: 10,
  encode: f32ToF16Bits,
  decode: f16BitsToF32,
  encodeArray: f32ArrayToF16,
  decodeArray: f16ArrayToF32,
};
const BF16: Format = {
  name: 'bf16',
  exponentBits: 8,
  mantissaBits: 7,
  encode: f32ToBf16Bits,
  decode: bf16BitsToF32,
  encodeArray: f32ArrayToBf16,
  decodeArray: bf16ArrayToF32,
};

function referenceDecode(format: Format, bits: number): number {
  const k = format.mantissaBits;
  const maxExponent = 2 ** format.exponentBits - 1;
  const bias = 2 ** (format.exponentBits - 1) - 1;
  const sign = Math.floor(bits / 2 ** 15) === 1 ? -1 : 1;
  const e = Math.floor(bits / 2 ** k) % 2 ** format.exponentBits;
  const m = bits % 2 ** k;
  if (e === maxExponent) return m === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  if (e === 0) return sign * 2 ** (1 - bias) * (m / 2 ** k);
  return sign * 2 ** (e - bias) * (1 + m / 2 ** k);
}

function isNanPattern(format: Format, bits: number): boolean {
  const k = format.mantissaBits;
  const e = Math.floor(bits / 2 ** k) % 2 ** format.exponentBits;
  return e === 2 ** format.exponentBits - 1 && bits % 2 ** k !== 0;
}

/** The f32 neighbours of an f32 value, found by stepping its bit pattern. */
const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
function f32Step(x: number, direction: 1 | -1): number {
  f32[0] = x;
  if (x === 0) {
    f32Bits[0] = 1;
    return direction * f32[0]!;
  }
  f32Bits[0] = f32Bits[0]! + (Math.sign(x) === direction ? 1 : -1);
  return f32[0]!;
}

/** Smallest f64 step away from a value (for checking that rounding is direct, not via f32). */
function f64Step(x: number, direction: 1 | -1): number {
  const f = new Float64Array([x]);
  const b = new BigUint64Array(f.buffer);
  b[0] = b[0]! + (Math.sign(x) === direction || x === 0 ? 1n : -1n);
  return x === 0 ? direction * f[0]! : f[0]!;
}

for (const format of [F16, BF16]) {
  const maxFinitePositive = 0x8000 - 2 ** format.mantissaBits - 1; // 0x7bff or 0x7f7f
  const infinityBits = maxFinitePositive + 1;

  describe(`${format.name} conversions, exhaustive over all 65,536 patterns`, () => {
    it('decodes every pattern like the independent reference', () => {
      let checked = 0;
      for (let bits = 0; bits < 65536; bits++) {
        const got = format.decode(bits);
        const want = referenceDecode(format, bits);
        if (!Object.is(got, want)) {
          expect({ bits: bits.toString(16), got }).toEqual({ bits: bits.toString(16), got: want });
        }
        checked++;
      }
      expect(checked).toBe(65536);
    });

    it('bulk decoding agrees with scalar decoding, NaN payloads included', () => {
      const all = new Uint16Array(65536).map((_, i) => i);
      const decoded = format.decodeArray(all);
      const decodedBits = new Uint32Array(decoded.buffer);
      for (let bits = 0; bits < 65536; bits++) {
        const value = decoded[bits]!;
        if (isNanPattern(format, bits)) {
          expect(value).toBeNaN();
          // sign and payload kept (shifted into the f32 mantissa); f16 NaNs come back quiet,
          // a bf16 is widened bit for bit
          expect(decodedBits[bits]! >>> 31).toBe(bits >>> 15);
          const quiet = format === F16 || (bits & 0x40) !== 0;
          expect(decodedBits[bits]! & 0x400000).toBe(quiet ? 0x400000 : 0);
          expect((decodedBits[bits]! >>> (23 - format.mantissaBits)) & 0x3f).toBe(bits & 0x3f);
        } else if (!Object.is(value, format.decode(bits))) {
          expect({ bits, value }).toEqual({ bits, value: format.decode(bits) });
        }
      }
    });

    it('encode(decode(b)) === b for every non-NaN pattern, through all three encoders', () => {
      const values = format.decodeArray(new Uint16Array(65536).map((_, i) => i));
      const viaF32 = format.encodeArray(values);
      const viaF64 = format.encodeArray(Float64Array.from(values));
      let checked = 0;
      for (let bits = 0; bits < 65536; bits++) {
        if (isNanPattern(format, bits)) continue;
        const scalar = format.encode(values[bits]!);
        if (scalar !== bits || viaF32[bits] !== bits || viaF64[bits] !== bits) {
          expect([scalar, viaF32[bits], viaF64[bits]]).toEqual([bits, bits, bits]);
        }
        checked++;
      }
      expect(checked).toBe(65536 - 2 * (2 ** format.mantissaBits - 1));
    });

    it('keeps NaN a NaN, with its sign, quiet', () => {
      const quietBit = 2 ** (format.mantissaBits - 1);
      for (let bits = 0; bits < 65536; bits++) {
        if (!isNanPattern(format, bits)) continue;
        const value = format.decode(bits);
        expect(Number.isNaN(value)).toBe(true);
        const encoded = format.encodeArray(format.decodeArray(new Uint16Array([bits])))[0]!;
        expect(isNanPattern(format, encoded)).toBe(true);
        expect(encoded >>> 15).toBe(bits >>> 15);
        expect(encoded & quietBit).toBe(quietBit);
        // a quiet NaN survives the round trip unchanged
        if (bits & quietBit) expect(encoded).toBe(bits);
      }
      // signalling NaNs whose payload sits only below the kept bits, through both array paths
      const wide = new Float64Array(2);
      const words = new Uint32Array(wide.buffer);
      const hi = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
      words[hi] = 0x7ff00000;
      words[1 - hi] = 1;
      words[2 + hi] = 0xfff00000;
      words[3 - hi] = 1;
      const narrow = new Float32Array(new Uint32Array([0x7f800001, 0xff800001]).buffer);
      for (const encoded of [format.encodeArray(wide), format.encodeArray(narrow)]) {
        expect([...encoded].map((b) => isNanPattern(format, b))).toEqual([true, true]);
        expect([encoded[0]! & quietBit, encoded[1]! & quietBit]).toEqual([quietBit, quietBit]);
        expect([encoded[0]! >>> 15, encoded[1]! >>> 15]).toEqual([0, 1]);
      }
      expect(isNanPattern(format, format.encode(Number.NaN))).toBe(true);
      expect(isNanPattern(format, format.encode(-Number.NaN))).toBe(true);
    });

    it('rounds every midpoint between adjacent finite values to the even one', () => {
      for (const sign of [0, 0x8000]) {
        for (let low = 0; low < maxFinitePositive; low++) {
          const a = sign | low;
          const b = a + 1;
          const va = referenceDecode(format, a);
          const vb = referenceDecode(format, b);
          const mid = (va + vb) / 2;
          // the midpoint needs one more significand bit than the format: always an exact f32
          expect(Math.fround(mid)).toBe(mid);
          const even = (a & 1) === 0 ? a : b;
          const towardA = sign ? 1 : -1; // the direction of smaller magnitude
          const encoded = format.encodeArray(
            new Float32Array([mid, f32Step(mid, towardA), f32Step(mid, -towardA as 1 | -1)]),
          );
          const scalar = [
            format.encode(mid),
            format.encode(f64Step(mid, towardA)),
            format.encode(f64Step(mid, -towardA as 1 | -1)),
          ];
          if (
            encoded[0] !== even ||
            encoded[1] !== a ||
            encoded[2] !== b ||
            scalar[0] !== even ||
            scalar[1] !== a ||
            scalar[2] !== b
          ) {
            expect({ a, f32: [...encoded], f64: scalar }).toEqual({
              a,
              f32: [even, a, b],
              f64: [even, a, b],
            });
          }
        }
      }
    });

    it('overflows to Infinity exactly at the midpoint past the largest finite value', () => {
      const max = referenceDecode(format, maxFinitePositive);
      const ulp = 2 ** (2 ** (format.exponentBits - 1) - 1 - format.mantissaBits);
      const threshold = max + ulp / 2;
      expect(format.encode(threshold)).toBe(infinityBits);
      expect(format.encode(-threshold)).toBe(0x8000 | infinityBits);
      expect(format.encode(f64Step(threshold, -1))).toBe(maxFinitePositive);
      expect(format.encode(Number.MAX_VALUE)).toBe(infinityBits);
      expect(format.encode(Number.POSITIVE_INFINITY)).toBe(infinityBits);
      expect(format.encode(Number.NEGATIVE_INFINITY)).toBe(0x8000 | infinityBits);
      if (Math.fround(threshold) === threshold) {
        expect(format.encodeArray(new Float32Array([threshold, f32Step(threshold, -1)]))).toEqual(
          new Uint16Array([infinityBits, maxFinitePositive]),
        );
      }
    });

    it('keeps signed zero and flushes only below half the smallest subnormal', () => {
      const smallest = referenceDecode(format, 1);
      expect(format.encode(0)).toBe(0);
      expect(format.encode(-0)).toBe(0x8000);
      expect(format.encode(smallest / 2)).toBe(0); // tie, to even (zero)
      expect(format.encode(f64Step(smallest / 2, 1))).toBe(1);
      expect(format.encode(-f64Step(smallest / 2, 1))).toBe(0x8001);
      expect(format.encode(Number.MIN_VALUE)).toBe(0);
      expect(format.encode(-Number.MIN_VALUE)).toBe(0x8000);
      expect(format.encode((smallest * 3) / 2)).toBe(2); // tie between 1 and 2, to even
    });
  });
}

describe('f16 known values', () => {
  it('matches the textbook patterns', () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(65519.99)).toBe(0x7bff);
    expect(f32ToF16Bits(65520)).toBe(0x7c00);
    expect(f32ToF16Bits(2 ** -14)).toBe(0x0400);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001);
    expect(f32ToF16Bits(0.1)).toBe(0x2e66);
    expect(f32ToF16Bits(1 / 3)).toBe(0x3555);
    expect(f16BitsToF32(0x3555)).toBe(0.333251953125);
    expect(f16BitsToF32(0x7c00)).toBe(Number.POSITIVE_INFINITY);
    expect(f16BitsToF32(0xfc00)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('rounds a number directly from f64, not through f32 (no double rounding)', () => {
    // 1 + 2^-11 is the midpoint between 1 and the next f16; 1 + 2^-11 + 2^-40 is just above it
    // but rounds to the midpoint in f32, where ties-to-even would give 1.
    const justAbove = 1 + 2 ** -11 + 2 ** -40;
    expect(Math.fround(justAbove)).toBe(1 + 2 ** -11);
    expect(f32ToF16Bits(justAbove)).toBe(0x3c01);
    expect(f32ArrayToF16(new Float64Array([justAbove]))[0]).toBe(0x3c01);
    expect(f32ArrayToF16(new Float32Array([justAbove]))[0]).toBe(0x3c00);
  });
});

describe('bf16 known values', () => {
  it('matches the textbook patterns', () => {
    expect(f32ToBf16Bits(1)).toBe(0x3f80);
    expect(f32ToBf16Bits(-2)).toBe(0xc000);
    expect(f32ToBf16Bits(3.140625)).toBe(0x4049);
    expect(f32ToBf16Bits(Math.PI)).toBe(0x4049);
    expect(f32ToBf16Bits(3.3895313892515355e38)).toBe(0x7f7f);
    expect(f32ToBf16Bits(3.4e38)).toBe(0x7f80);
    expect(bf16BitsToF32(0x4049)).toBe(3.140625);
    expect(bf16BitsToF32(0x0001)).toBe(2 ** -133);
  });
});

describe('the f32 and f64 encoder paths agree on random f32 patterns', () => {
  it('gives the same bits for 2^20 random f32 values of every exponent', () => {
    const n = 1 << 20;
    const bits = new Uint32Array(n);
    let seed = 0x2545f491;
    for (let i = 0; i < n; i++) {
      // xorshift32
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      bits[i] = seed >>> 0;
    }
    const values = new Float32Array(bits.buffer);
    const wide = Float64Array.from(values);
    for (const [encode, name] of [
      [f32ArrayToF16, 'f16'],
      [f32ArrayToBf16, 'bf16'],
    ] as const) {
      const a = encode(values);
      const b = encode(wide);
      let mismatches = 0;
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) mismatches++;
      expect({ name, mismatches }).toEqual({ name, mismatches: 0 });
    }
  });
});

describe('bulk conversion arguments', () => {
  it('writes into a given output array and returns it', () => {
    const out = new Uint16Array(4).fill(0xffff);
    expect(f32ArrayToF16(new Float32Array([1, 2]), out)).toBe(out);
    expect([...out]).toEqual([0x3c00, 0x4000, 0xffff, 0xffff]);
    const back = new Float32Array(3);
    expect(f16ArrayToF32(new Uint16Array([0x3c00, 0x4000]), back)).toBe(back);
    expect([...back]).toEqual([1, 2, 0]);
  });

  it('works on views at an offset into a larger buffer', () => {
    const buffer = new ArrayBuffer(64);
    const src = new Float64Array(buffer, 8, 2);
    src.set([1, -2]);
    expect([...f32ArrayToBf16(src)]).toEqual([0x3f80, 0xc000]);
    const src32 = new Float32Array(buffer, 4, 2);
    src32.set([0.5, 4]);
    expect([...f32ArrayToBf16(src32)]).toEqual([0x3f00, 0x4080]);
    const halves = new Uint16Array(buffer, 2, 2);
    halves.set([0x3f00, 0x4080]);
    expect([...bf16ArrayToF32(halves)]).toEqual([0.5, 4]);
  });

  it('rejects a wrong source type', () => {
    expect(() => f32ArrayToF16([1, 2] as unknown as Float32Array)).toThrow(
      new InvalidArgumentError('src', 'a Float32Array or Float64Array', [1, 2]),
    );
    expect(() => f32ArrayToF16([1, 2] as unknown as Float32Array)).toThrow(
      'Expected a Float32Array or Float64Array for src but received an array of length 2',
    );
    expect(() => f16ArrayToF32(new Int16Array(2) as unknown as Uint16Array)).toThrow(
      'Expected a Uint16Array of bit patterns for src but received an instance of Int16Array',
    );
  });

  it('rejects an output array that is too short or of the wrong type', () => {
    expect(() => f32ArrayToF16(new Float32Array(3), new Uint16Array(2))).toThrow(
      'out too small: needed 6 bytes but received 4 bytes',
    );
    expect(() => f32ArrayToF16(new Float32Array(3), new Uint16Array(2))).toThrow(
      BufferTooSmallError,
    );
    expect(() => bf16ArrayToF32(new Uint16Array(3), new Float32Array(1))).toThrow(
      'out too small: needed 12 bytes but received 4 bytes',
    );
    expect(() => f32ArrayToBf16(new Float32Array(1), new Int16Array(1) as never)).toThrow(
      'Expected a Uint16Array or undefined for out but received an instance of Int16Array',
    );
  });

  it('rejects bad scalars', () => {
    expect(() => f32ToF16Bits('1' as never)).toThrow(
      'Expected a number for x but received "1" of type string',
    );
    expect(() => f32ToBf16Bits(1n as never)).toThrow(
      'Expected a number for x but received 1n of type bigint',
    );
    expect(() => f16BitsToF32(65536)).toThrow(
      'Expected an integer between 0 and 65535 for bits but received 65536 of type number',
    );
    expect(() => bf16BitsToF32(1.5)).toThrow(
      'Expected an integer between 0 and 65535 for bits but received 1.5 of type number',
    );
  });

  it('bulk conversions agree with the scalar ones on a large array (timing: pnpm bench)', () => {
    const n = 100_000;
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = (i % 1000) * 0.37 - 100;
    const halves = f32ArrayToF16(values);
    const brain = f32ArrayToBf16(values);
    const back = f16ArrayToF32(halves);
    const brainBack = bf16ArrayToF32(brain);
    let mismatches = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      if (halves[i] !== f32ToF16Bits(v) || brain[i] !== f32ToBf16Bits(v)) mismatches++;
      if (back[i] !== f16BitsToF32(halves[i]!) || brainBack[i] !== bf16BitsToF32(brain[i]!)) {
        mismatches++;
      }
    }
    expect(mismatches).toBe(0);
  });
});
