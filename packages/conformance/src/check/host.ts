/**
 * Host-side data for one run: seeded random inputs rounded to the dtype, poison patterns, and
 * decoding of what came back.
 */
import { randomBytes } from 'node:crypto';
import {
  bf16ArrayToF32,
  bf16BitsToF32,
  f16ArrayToF32,
  f16BitsToF32,
  f32ArrayToBf16,
  f32ArrayToF16,
} from '@baracuda/types';
import { type CheckDtype, elementBytes, storageElement } from './tolerances.js';

/** A 64-bit seed as 16 hex digits. */
export type Seed = string;

/** A fresh seed from the OS's CSPRNG. */
export function freshSeed(): Seed {
  return randomBytes(8).toString('hex');
}

/** @internal True for 1–16 hex digits. */
export function isSeed(value: string): boolean {
  return /^[0-9a-fA-F]{1,16}$/.test(value);
}

const MASK64 = (1n << 64n) - 1n;

function splitmix64(state: bigint): [bigint, bigint] {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [next, z ^ (z >> 31n)];
}

function fnv1a64(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & MASK64;
  }
  return hash;
}

/**
 * xoshiro128** seeded through splitmix64 from (seed, label), so every row of a run draws its own
 * reproducible stream: re-running with `--seed` reproduces a failing row exactly.
 */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: Seed, label = '') {
    let state = (BigInt(`0x${seed}`) ^ fnv1a64(label)) & MASK64;
    const words: number[] = [];
    for (let i = 0; i < 2; i++) {
      const [next, out] = splitmix64(state);
      state = next;
      words.push(Number(out & 0xffffffffn), Number(out >> 32n));
    }
    [this.s0, this.s1, this.s2, this.s3] = words as [number, number, number, number];
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Next 32 random bits as an unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [-1, 1) with 53 random bits. */
  nextSigned(): number {
    const high = this.nextU32() >>> 5;
    const low = this.nextU32() >>> 6;
    return ((high * 67108864 + low) / 9007199254740992) * 2 - 1;
  }

  /** Uniform in [-1, 1) with 32 random bits: enough for f32, f16 and bf16, at half the cost. */
  nextSigned32(): number {
    return this.nextU32() / 2147483648 - 1;
  }

  /** Uniform integer in [0, bound). */
  nextBelow(bound: number): number {
    const high = this.nextU32() >>> 5;
    const low = this.nextU32() >>> 6;
    return Math.floor(((high * 67108864 + low) / 9007199254740992) * bound);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Host data as the GPU stores it. */
export type StorageArray = Float64Array | Float32Array | Uint16Array;

/** Random values drawn for one tensor. */
export interface HostTensor {
  /**
   * The exact values the GPU receives: the reference's input. f64 for ordinary sizes; for tensors
   * past {@link COMPACT_VALUES_ABOVE} elements of a narrow dtype, the exact f32 widening (half the
   * host memory: the 2^28–1.8·10^9-element cases are checked on sampled points only).
   */
  readonly values: Float64Array | Float32Array;
  /** The bytes to upload. */
  readonly storage: StorageArray;
}

/** Round f64 values to the dtype and encode them for upload. */
export function encode(dtype: CheckDtype, source: Float64Array): HostTensor {
  switch (storageElement(dtype)) {
    case 'f64':
      return { values: source, storage: source };
    case 'f32': {
      const storage = Float32Array.from(source);
      return { values: Float64Array.from(storage), storage };
    }
    case 'f16': {
      const storage = f32ArrayToF16(Float32Array.from(source));
      return { values: Float64Array.from(f16ArrayToF32(storage)), storage };
    }
    case 'bf16': {
      const storage = f32ArrayToBf16(Float32Array.from(source));
      return { values: Float64Array.from(bf16ArrayToF32(storage)), storage };
    }
  }
}

/** Element count past which narrow-dtype tensors keep their values in f32 (exact) rather than f64. */
export const COMPACT_VALUES_ABOVE = 2 ** 24;

/** Fresh uniform [-1, 1) values rounded to the dtype. */
export function randomTensor(dtype: CheckDtype, count: number, rng: Rng): HostTensor {
  if (dtype === 'f64') {
    const source = new Float64Array(count);
    for (let i = 0; i < count; i++) source[i] = rng.nextSigned();
    return encode(dtype, source);
  }
  // Narrow dtypes go through f32 directly: half the memory of an f64 staging array, which
  // matters for the 2^28+ element cases.
  const source = new Float32Array(count);
  for (let i = 0; i < count; i++) source[i] = rng.nextSigned32();
  switch (storageElement(dtype)) {
    case 'f16': {
      const storage = f32ArrayToF16(source);
      return { values: widen(f16ArrayToF32(storage, source)), storage };
    }
    case 'bf16': {
      const storage = f32ArrayToBf16(source);
      return { values: widen(bf16ArrayToF32(storage, source)), storage };
    }
    default:
      return {
        values: count > COMPACT_VALUES_ABOVE ? source.slice() : Float64Array.from(source),
        storage: source,
      };
  }
}

/** The values as f64 (a copy only when they are held in f32). */
export function asF64(values: Float64Array | Float32Array): Float64Array {
  return values instanceof Float64Array ? values : Float64Array.from(values);
}

function widen(exact: Float32Array): Float64Array | Float32Array {
  return exact.length > COMPACT_VALUES_ABOVE ? exact : Float64Array.from(exact);
}

/** An empty host array able to hold `count` elements of the dtype. */
export function storageArray(dtype: CheckDtype, count: number): StorageArray {
  switch (elementBytes(dtype)) {
    case 8:
      return new Float64Array(count);
    case 4:
      return new Float32Array(count);
    default:
      return new Uint16Array(count);
  }
}

/** Widen downloaded storage to f64. */
export function decode(dtype: CheckDtype, storage: StorageArray): Float64Array {
  const element = storageElement(dtype);
  if (element === 'f16') return Float64Array.from(f16ArrayToF32(storage as Uint16Array));
  if (element === 'bf16') return Float64Array.from(bf16ArrayToF32(storage as Uint16Array));
  return Float64Array.from(storage as Float64Array | Float32Array);
}

/** NaN elements counted on the stored bits, without widening the whole array. */
export function countNaNStored(dtype: CheckDtype, storage: StorageArray): number {
  const element = storageElement(dtype);
  if (element === 'f32' || element === 'f64') {
    return countNaN(storage as Float64Array);
  }
  // f16: exponent all ones and a non-zero mantissa; bf16 likewise with its 8-bit exponent.
  const nanAbove = element === 'f16' ? 0x7c00 : 0x7f80;
  let count = 0;
  for (let i = 0; i < storage.length; i++) if ((storage[i]! & 0x7fff) > nanAbove) count++;
  return count;
}

/** Widen the stored elements at some indices to f64. */
export function decodeAt(
  dtype: CheckDtype,
  storage: StorageArray,
  indices: readonly number[],
): Float64Array {
  const element = storageElement(dtype);
  const widen =
    element === 'f16'
      ? f16BitsToF32
      : element === 'bf16'
        ? bf16BitsToF32
        : (value: number) => value;
  return Float64Array.from(indices, (i) => widen(storage[i]!));
}

/** Fill a buffer with a NaN bit pattern of the dtype: all bits set, for every width. */
export function poison(
  buffer: { fillSync16(pattern: number): void; fillSync32(pattern: number): void },
  dtype: CheckDtype,
): void {
  if (elementBytes(dtype) === 2) buffer.fillSync16(0xffff);
  else buffer.fillSync32(0xffffffff);
}

/** Elements that are NaN: still poisoned (never written) or computed as NaN. Both fail a row. */
export function countNaN(values: Float64Array | Float32Array): number {
  let count = 0;
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i])) count++;
  return count;
}

/** True when every byte still holds the poison pattern (0xFF). */
export function stillPoisoned(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0xff) return false;
  return true;
}
