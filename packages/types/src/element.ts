import { expectOneOf } from './validate.js';

/** Element kinds a baracuda kernel can read or write. String-valued so they print well. */
export const ElementKind = {
  F16: 'f16',
  Bf16: 'bf16',
  F32: 'f32',
  F64: 'f64',
  I8: 'i8',
  U8: 'u8',
  I16: 'i16',
  U16: 'u16',
  I32: 'i32',
  U32: 'u32',
  I64: 'i64',
  U64: 'u64',
  Bool: 'bool',
} as const;
export type ElementKind = (typeof ElementKind)[keyof typeof ElementKind];

/** Every element kind, in declaration order (floats first). */
export const ELEMENT_KINDS: readonly ElementKind[] = Object.freeze(Object.values(ElementKind));

/**
 * The TypedArray constructor that holds each kind on the host. `f16` and `bf16` have no
 * JS typed array: a `Uint16Array` holds their bit patterns (see `f32ArrayToF16` and friends).
 * `bool` is one byte per element, 0 or 1.
 */
export interface HostArrayConstructors {
  f16: Uint16ArrayConstructor;
  bf16: Uint16ArrayConstructor;
  f32: Float32ArrayConstructor;
  f64: Float64ArrayConstructor;
  i8: Int8ArrayConstructor;
  u8: Uint8ArrayConstructor;
  i16: Int16ArrayConstructor;
  u16: Uint16ArrayConstructor;
  i32: Int32ArrayConstructor;
  u32: Uint32ArrayConstructor;
  i64: BigInt64ArrayConstructor;
  u64: BigUint64ArrayConstructor;
  bool: Uint8ArrayConstructor;
}

/** A host typed array of the kind `K`. */
export type HostArrayOf<K extends ElementKind> = InstanceType<HostArrayConstructors[K]>;

/** What baracuda knows about one element kind. */
export interface ElementInfo<K extends ElementKind = ElementKind> {
  readonly kind: K;
  /** A long name, as PyTorch spells the dtype: `float16`, `bfloat16`, `int32`, `bool`. */
  readonly name: string;
  /** Bytes per element in device memory and in the host array. */
  readonly byteSize: 1 | 2 | 4 | 8;
  /** The host TypedArray constructor; `Uint16Array` (bit patterns) for f16 and bf16. */
  readonly hostArray: HostArrayConstructors[K];
  /** True for f16, bf16, f32, f64. */
  readonly isFloat: boolean;
  /** True for the kinds that can hold negative values. */
  readonly isSigned: boolean;
}

type InfoTable = { readonly [K in ElementKind]: ElementInfo<K> };

function info<K extends ElementKind>(
  kind: K,
  name: string,
  byteSize: 1 | 2 | 4 | 8,
  hostArray: HostArrayConstructors[K],
  isFloat: boolean,
  isSigned: boolean,
): ElementInfo<K> {
  return Object.freeze({ kind, name, byteSize, hostArray, isFloat, isSigned });
}

const INFO: InfoTable = Object.freeze({
  f16: info('f16', 'float16', 2, Uint16Array, true, true),
  bf16: info('bf16', 'bfloat16', 2, Uint16Array, true, true),
  f32: info('f32', 'float32', 4, Float32Array, true, true),
  f64: info('f64', 'float64', 8, Float64Array, true, true),
  i8: info('i8', 'int8', 1, Int8Array, false, true),
  u8: info('u8', 'uint8', 1, Uint8Array, false, false),
  i16: info('i16', 'int16', 2, Int16Array, false, true),
  u16: info('u16', 'uint16', 2, Uint16Array, false, false),
  i32: info('i32', 'int32', 4, Int32Array, false, true),
  u32: info('u32', 'uint32', 4, Uint32Array, false, false),
  i64: info('i64', 'int64', 8, BigInt64Array, false, true),
  u64: info('u64', 'uint64', 8, BigUint64Array, false, false),
  bool: info('bool', 'bool', 1, Uint8Array, false, false),
});

/**
 * Check that `value` is an {@link ElementKind} string and return it.
 * Throws `InvalidArgumentError`: "Expected one of f16, bf16, f32, f64, i8, ... for element but
 * received "half" of type string".
 */
export function parseElementKind(value: unknown, argName = 'element'): ElementKind {
  return expectOneOf(argName, value, ELEMENT_KINDS);
}

/** Byte size, name and host array of `kind`. Throws `InvalidArgumentError` for an unknown kind. */
export function elementInfo<K extends ElementKind>(kind: K): ElementInfo<K> {
  return INFO[parseElementKind(kind) as K] as ElementInfo<K>;
}

/** True for the floating-point kinds f16, bf16, f32 and f64; false for everything else. */
export function isFloatElement(kind: unknown): kind is 'f16' | 'bf16' | 'f32' | 'f64' {
  return kind === 'f16' || kind === 'bf16' || kind === 'f32' || kind === 'f64';
}

/** True when `value` is one of the {@link ElementKind} strings. Never throws. */
export function isElementKind(value: unknown): value is ElementKind {
  return (ELEMENT_KINDS as readonly unknown[]).includes(value);
}
