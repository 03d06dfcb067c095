/**
 * Random benchmark inputs encoded in each dtype. Pure host code.
 */
import { f32ToBf16Bits, f32ToF16Bits } from '@baracuda/types';
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
