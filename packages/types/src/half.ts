/**
 * Host conversions between JS numbers / Float32Array / Float64Array and the bit patterns of
 * IEEE binary16 (`f16`) and bfloat16 (`bf16`), which have no JS typed array of their own.
 *
 * Rounding is round-to-nearest, ties-to-even, the IEEE default and what CUDA's `__float2half_rn`
 * and `__float2bfloat16_rn` do. Subnormals are produced and read exactly (no flush to zero).
 * A value past the largest finite number rounds to ±Infinity; ±Infinity stays ±Infinity.
 * A NaN stays a NaN: its sign and the top bits of its payload are kept and the quiet bit is set.
 *
 * Numbers are rounded once, directly from their f64 value: no detour through f32, so no double
 * rounding. For a number that is already an f32 (any element of a Float32Array, any
 * `Math.fround` result) this is the same result as rounding the f32. `f32ToF16Bits(x)` therefore
 * accepts every JS number, and `f32ArrayToF16` accepts a Float64Array as well.
 *
 * The bulk functions read the input through an integer view of its own buffer and allocate
 * nothing per element; they convert 10^7 elements in well under a second.
 */
import { BufferTooSmallError, InvalidArgumentError } from './errors.js';
import { expectInteger } from './validate.js';

/** Scratch for splitting one f64 into its two 32-bit words. */
const scratchF64 = new Float64Array(1);
const scratchWords = new Uint32Array(scratchF64.buffer);
/** Index of the high (sign/exponent) word of an f64 in a Uint32Array view: 1 on little-endian. */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

const scratchF32 = new Float32Array(1);
const scratchF32Bits = new Uint32Array(scratchF32.buffer);

// ---------------------------------------------------------------------------------------------
// Encoders. Each works on the raw IEEE fields, so the rounding is exact integer arithmetic.
// ---------------------------------------------------------------------------------------------

/** f64 (as its high and low words) to f16 bits. */
function f64WordsToF16(hi: number, lo: number): number {
  const sign = (hi >>> 16) & 0x8000;
  const biased = (hi >>> 20) & 0x7ff;
  const mantHi = hi & 0xfffff; // top 20 of the 52 mantissa bits; `lo` holds the other 32
  if (biased === 0x7ff) {
    if (mantHi === 0 && lo === 0) return sign | 0x7c00;
    return sign | 0x7e00 | (mantHi >>> 10);
  }
  const e = biased - 1023;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Normal f16: keep 10 mantissa bits; the 10 bits below them and `lo` decide the rounding.
    const h = sign | ((e + 15) << 10) | (mantHi >>> 10);
    const rest = mantHi & 0x3ff;
    // A carry out of the mantissa bumps the exponent, and past 30 gives exactly Infinity.
    if (rest > 0x200 || (rest === 0x200 && (lo !== 0 || (h & 1) !== 0))) return h + 1;
    return h;
  }
  if (e < -25) return sign; // below half the smallest subnormal (2^-25): rounds to ±0
  // Subnormal f16 m·2^-24: shift the 21-bit high part of the significand right by 11..21.
  const sig = mantHi | 0x100000;
  const shift = -4 - e;
  const m = sig >>> shift;
  const rest = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (lo !== 0 || (m & 1) !== 0))) return sign | (m + 1);
  return sign | m;
}

/** f32 bits to f16 bits. Same rounding as {@link f64WordsToF16}, on the 23-bit mantissa. */
function f32BitsToF16(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const biased = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (biased === 0xff) return mant === 0 ? sign | 0x7c00 : sign | 0x7e00 | (mant >>> 13);
  const e = biased - 127;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    const h = sign | ((e + 15) << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1) !== 0)) return h + 1;
    return h;
  }
  if (e < -25) return sign; // also every f32 subnormal
  const sig = mant | 0x800000;
  const shift = -1 - e; // 14..24
  const m = sig >>> shift;
  const rest = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (m & 1) !== 0)) return sign | (m + 1);
  return sign | m;
}

/** f64 (as its high and low words) to bf16 bits. */
function f64WordsToBf16(hi: number, lo: number): number {
  const sign = (hi >>> 16) & 0x8000;
  const biased = (hi >>> 20) & 0x7ff;
  const mantHi = hi & 0xfffff;
  if (biased === 0x7ff) {
    if (mantHi === 0 && lo === 0) return sign | 0x7f80;
    return sign | 0x7fc0 | (mantHi >>> 13);
  }
  const e = biased - 1023;
  if (e > 127) return sign | 0x7f80;
  if (e >= -126) {
    const h = sign | ((e + 127) << 7) | (mantHi >>> 13);
    const rest = mantHi & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (lo !== 0 || (h & 1) !== 0))) return h + 1;
    return h;
  }
  if (e < -134) return sign; // below half the smallest subnormal (2^-134)
  // Subnormal bf16 m·2^-133: shift the 21-bit high part right by 14..21.
  const sig = mantHi | 0x100000;
  const shift = -113 - e;
  const m = sig >>> shift;
  const rest = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (rest > half || (rest === half && (lo !== 0 || (m & 1) !== 0))) return sign | (m + 1);
  return sign | m;
}

/** f32 bits to bf16 bits: bf16 is the top half of an f32, so rounding is one add. */
function f32BitsToBf16(x: number): number {
  if ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0) return (x >>> 16) | 0x40;
  // Adding 0x7fff plus the kept lowest bit rounds to nearest even; a carry runs into the
  // exponent (and to Infinity past the largest finite), and f32 subnormals work unchanged.
  return (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
}

// ---------------------------------------------------------------------------------------------
// Decoders.
// ---------------------------------------------------------------------------------------------

/** f16 bits to the bits of the f32 holding the same value (every f16 is exact in f32). */
function f16ToF32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const biased = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (biased === 0x1f) {
    return (sign | 0x7f800000 | (mant === 0 ? 0 : 0x400000 | (mant << 13))) >>> 0;
  }
  if (biased !== 0) return (sign | ((biased + 112) << 23) | (mant << 13)) >>> 0;
  if (mant === 0) return sign >>> 0;
  // Subnormal f16: normalise. The leading 1 of `mant` sits at bit p (0..9); value 2^(p-24)·1.f
  const p = 31 - Math.clz32(mant);
  const frac = (mant << (10 - p)) & 0x3ff;
  return (sign | ((p - 24 + 127) << 23) | (frac << 13)) >>> 0;
}

let f16DecodeTable: Uint32Array | undefined;
let f16DecodeTableF32: Float32Array | undefined;

/** The f32 bits of all 65,536 f16 patterns, built on first use (256 KiB). */
function decodeTable(): Uint32Array {
  if (f16DecodeTable === undefined) {
    const table = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = f16ToF32Bits(h);
    f16DecodeTable = table;
    f16DecodeTableF32 = new Float32Array(table.buffer);
  }
  return f16DecodeTable;
}

// ---------------------------------------------------------------------------------------------
// Public scalar API.
// ---------------------------------------------------------------------------------------------

function expectNumber(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new InvalidArgumentError(name, 'a number', value);
  return value;
}

/**
 * Round a number to the nearest f16 (ties to even) and return its 16-bit pattern (0..65535).
 * The number is rounded once from its f64 value (see the module notes), so
 * `f32ToF16Bits(65519.99) === 0x7bff` (65504) and `f32ToF16Bits(65520) === 0x7c00` (Infinity).
 */
export function f32ToF16Bits(x: number): number {
  scratchF64[0] = expectNumber('x', x);
  return f64WordsToF16(scratchWords[HI]!, scratchWords[LO]!);
}

/** The value of an f16 bit pattern (an integer 0..65535) as a number. Every f16 is exact in f32. */
export function f16BitsToF32(bits: number): number {
  decodeTable();
  return f16DecodeTableF32![expectInteger('bits', bits, { min: 0, max: 0xffff })]!;
}

/** Round a number to the nearest bf16 (ties to even) and return its 16-bit pattern (0..65535). */
export function f32ToBf16Bits(x: number): number {
  scratchF64[0] = expectNumber('x', x);
  return f64WordsToBf16(scratchWords[HI]!, scratchWords[LO]!);
}

/** The value of a bf16 bit pattern (an integer 0..65535) as a number. Every bf16 is exact in f32. */
export function bf16BitsToF32(bits: number): number {
  scratchF32Bits[0] = expectInteger('bits', bits, { min: 0, max: 0xffff }) << 16;
  return scratchF32[0]!;
}

// ---------------------------------------------------------------------------------------------
// Public bulk API.
// ---------------------------------------------------------------------------------------------

/** Float input of the bulk encoders. */
export type FloatHostArray = Float32Array | Float64Array;

function checkFloatSource(src: unknown): FloatHostArray {
  if (!(src instanceof Float32Array) && !(src instanceof Float64Array)) {
    throw new InvalidArgumentError('src', 'a Float32Array or Float64Array', src);
  }
  return src;
}

function outputArray<T extends Uint16Array | Float32Array>(
  out: unknown,
  ctor: { new (length: number): T; readonly name: string },
  length: number,
  bytesPerElement: number,
): T {
  if (out === undefined) return new ctor(length);
  if (!(out instanceof ctor)) {
    throw new InvalidArgumentError('out', `a ${ctor.name} or undefined`, out);
  }
  if (out.length < length) {
    throw new BufferTooSmallError('out', length * bytesPerElement, out.byteLength);
  }
  return out as T;
}

function encodeBulk(
  src: unknown,
  out: unknown,
  fromF32: (x: number) => number,
  fromF64: (hi: number, lo: number) => number,
): Uint16Array {
  const input = checkFloatSource(src);
  const n = input.length;
  const result = outputArray(out, Uint16Array, n, 2);
  if (input instanceof Float32Array) {
    const bits = new Uint32Array(input.buffer, input.byteOffset, n);
    for (let i = 0; i < n; i++) result[i] = fromF32(bits[i]!);
  } else {
    const words = new Uint32Array(input.buffer, input.byteOffset, 2 * n);
    for (let i = 0; i < n; i++) result[i] = fromF64(words[2 * i + HI]!, words[2 * i + LO]!);
  }
  return result;
}

/**
 * Convert every element of `src` to f16 bits (round to nearest even). A Float64Array is rounded
 * directly from f64, without passing through f32.
 * @param out where to write; its first `src.length` elements are written. Defaults to a new
 *   `Uint16Array(src.length)`.
 * @returns `out`, or the new array.
 */
export function f32ArrayToF16(src: FloatHostArray, out?: Uint16Array): Uint16Array {
  return encodeBulk(src, out, f32BitsToF16, f64WordsToF16);
}

/**
 * Convert every element of `src` to bf16 bits (round to nearest even). A Float64Array is rounded
 * directly from f64, without passing through f32.
 * @param out where to write; its first `src.length` elements are written. Defaults to a new
 *   `Uint16Array(src.length)`.
 */
export function f32ArrayToBf16(src: FloatHostArray, out?: Uint16Array): Uint16Array {
  return encodeBulk(src, out, f32BitsToBf16, f64WordsToBf16);
}

function checkHalfSource(src: unknown): Uint16Array {
  if (!(src instanceof Uint16Array)) {
    throw new InvalidArgumentError('src', 'a Uint16Array of bit patterns', src);
  }
  return src;
}

/**
 * Convert f16 bit patterns to f32 values (exact). NaN payloads are kept, with the quiet bit set.
 * @param out where to write; its first `src.length` elements are written. Defaults to a new
 *   `Float32Array(src.length)`.
 */
export function f16ArrayToF32(src: Uint16Array, out?: Float32Array): Float32Array {
  const input = checkHalfSource(src);
  const n = input.length;
  const result = outputArray(out, Float32Array, n, 4);
  const bits = new Uint32Array(result.buffer, result.byteOffset, n);
  const table = decodeTable();
  for (let i = 0; i < n; i++) bits[i] = table[input[i]!]!;
  return result;
}

/**
 * Convert bf16 bit patterns to f32 values (exact: a bf16 is the top half of an f32, so NaNs,
 * signalling ones included, are widened bit for bit).
 * @param out where to write; its first `src.length` elements are written. Defaults to a new
 *   `Float32Array(src.length)`.
 */
export function bf16ArrayToF32(src: Uint16Array, out?: Float32Array): Float32Array {
  const input = checkHalfSource(src);
  const n = input.length;
  const result = outputArray(out, Float32Array, n, 4);
  const bits = new Uint32Array(result.buffer, result.byteOffset, n);
  for (let i = 0; i < n; i++) bits[i] = input[i]! << 16;
  return result;
}
