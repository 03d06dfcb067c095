import { describe, expect, it } from 'vitest';
import {
  ELEMENT_KINDS,
  ElementKind,
  elementInfo,
  isElementKind,
  isFloatElement,
  parseElementKind,
} from './element.js';
import { InvalidArgumentError } from './errors.js';

const ALL = 'f16, bf16, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, bool';

describe('ElementKind', () => {
  it('keeps its string constants', () => {
    expect(ElementKind.F16).toBe('f16');
    expect(ElementKind.Bf16).toBe('bf16');
    expect(ElementKind.F32).toBe('f32');
    expect(ElementKind.F64).toBe('f64');
    expect(ElementKind.Bool).toBe('bool');
    expect(ELEMENT_KINDS.join(', ')).toBe(ALL);
    expect(Object.isFrozen(ELEMENT_KINDS)).toBe(true);
  });
});

describe('elementInfo', () => {
  it.each([
    ['f16', 'float16', 2, Uint16Array, true],
    ['bf16', 'bfloat16', 2, Uint16Array, true],
    ['f32', 'float32', 4, Float32Array, true],
    ['f64', 'float64', 8, Float64Array, true],
    ['i8', 'int8', 1, Int8Array, false],
    ['u8', 'uint8', 1, Uint8Array, false],
    ['i16', 'int16', 2, Int16Array, false],
    ['u16', 'uint16', 2, Uint16Array, false],
    ['i32', 'int32', 4, Int32Array, false],
    ['u32', 'uint32', 4, Uint32Array, false],
    ['i64', 'int64', 8, BigInt64Array, false],
    ['u64', 'uint64', 8, BigUint64Array, false],
    ['bool', 'bool', 1, Uint8Array, false],
  ] as const)('%s is %s, %d bytes', (kind, name, byteSize, hostArray, isFloat) => {
    const info = elementInfo(kind);
    expect(info).toMatchObject({ kind, name, byteSize, hostArray, isFloat });
    expect(hostArray.BYTES_PER_ELEMENT).toBe(byteSize);
    expect(isFloatElement(kind)).toBe(isFloat);
    expect(Object.isFrozen(info)).toBe(true);
  });

  it('knows signedness', () => {
    expect(ELEMENT_KINDS.filter((k) => !elementInfo(k).isSigned)).toEqual([
      'u8',
      'u16',
      'u32',
      'u64',
      'bool',
    ]);
  });

  it('types the host array by kind', () => {
    const host: Float32Array = new (elementInfo('f32').hostArray)(4);
    expect(host.length).toBe(4);
  });

  it('rejects an unknown kind', () => {
    expect(() => elementInfo('half' as ElementKind)).toThrow(
      `Expected one of ${ALL} for element but received "half" of type string`,
    );
  });
});

describe('parseElementKind', () => {
  it('returns a known kind and rejects the rest with the argument name', () => {
    expect(parseElementKind('bf16')).toBe('bf16');
    expect(() => parseElementKind('F32', 'dtype')).toThrow(
      new InvalidArgumentError('dtype', `one of ${ALL}`, 'F32'),
    );
    expect(() => parseElementKind(undefined)).toThrow(
      `Expected one of ${ALL} for element but received undefined`,
    );
  });

  it('isElementKind never throws', () => {
    expect(isElementKind('u64')).toBe(true);
    expect(isElementKind({})).toBe(false);
    expect(isFloatElement('i32')).toBe(false);
    expect(isFloatElement(42)).toBe(false);
  });
});
