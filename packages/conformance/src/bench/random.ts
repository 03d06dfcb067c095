/**
 * Random benchmark inputs encoded in each dtype. Pure host code.
 */
import type { BenchDtype } from './types.js';

/** @internal xorshift32: fast, seedable, good enough for benchmark inputs. */
export function makeRandom(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** @internal IEEE binary16 bits of `value` (round to nearest, ties up), with subnormals. */
export function f32ToF16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - exponent;
    let half = full >>> shift;
    if ((full >>> (shift - 1)) & 1) half++;
    return sign | half;
  }
  let half = sign | (exponent << 10) | (mantissa >>> 13);
  if (mantissa & 0x1000) half++;
  return half;
}

/** @internal bfloat16 bits of `value` (round to nearest, ties up). */
export function f32ToBf16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0]!;
  return ((bits + 0x8000) >>> 16) & 0xffff;
}

/** @internal Random values in [-1, 1) \ {0} encoded in the dtype, `byteLength` bytes. */
export function randomBytes(dtype: BenchDtype, byteLength: number, seed: number): Uint8Array {
  const random = makeRandom(seed);
  const value = () => {
    const v = random() * 2 - 1;
    return v === 0 ? 0.5 : v;
  };
  switch (dtype) {
    case 'f16':
    case 'bf16': {
      const out = new Uint16Array(byteLength / 2);
      const encode = dtype === 'f16' ? f32ToF16Bits : f32ToBf16Bits;
      for (let i = 0; i < out.length; i++) out[i] = encode(value());
      return new Uint8Array(out.buffer);
    }
    case 'f64': {
      const out = new Float64Array(byteLength / 8);
      for (let i = 0; i < out.length; i++) out[i] = value();
      return new Uint8Array(out.buffer);
    }
    default: {
      const out = new Float32Array(byteLength / 4);
      for (let i = 0; i < out.length; i++) out[i] = value();
      return new Uint8Array(out.buffer);
    }
  }
}
