import { describe, expect, it } from 'vitest';
import { BufferTooSmallError, InvalidArgumentError } from './errors.js';
import {
  contiguousStrides,
  type DeviceSlice,
  denseByteLength,
  elementCount,
  isDeviceSlice,
  MAX_TENSOR_RANK,
  makeTensorMut,
  makeTensorRef,
  stridesEqual,
} from './tensor.js';

const slice = (byteLength: number): DeviceSlice => ({ devicePtr: 0x10000n, byteLength });

describe('contiguousStrides', () => {
  it('is row-major, last dimension fastest', () => {
    expect(contiguousStrides([2, 3, 4])).toEqual([12, 4, 1]);
    expect(contiguousStrides([8, 64, 16, 56, 56])).toEqual([3211264, 50176, 3136, 56, 1]);
    expect(contiguousStrides([5])).toEqual([1]);
    expect(contiguousStrides([])).toEqual([]);
    expect(contiguousStrides([2, 0, 3])).toEqual([3, 3, 1]);
  });

  it('rejects bad shapes', () => {
    expect(() => contiguousStrides([2, -3])).toThrow(
      'Expected a non-negative integer for shape[1] but received -3 of type number',
    );
    expect(() => contiguousStrides(new Array(9).fill(1))).toThrow(
      'Expected an array of at most 8 integers for shape but received an array of length 9',
    );
  });
});

describe('stridesEqual', () => {
  it('compares length and every stride', () => {
    expect(stridesEqual([12, 4, 1], [12, 4, 1])).toBe(true);
    expect(stridesEqual([12, 4, 1], [12, 1, 4])).toBe(false);
    expect(stridesEqual([4, 1], [12, 4, 1])).toBe(false);
    expect(stridesEqual([], [])).toBe(true);
  });
});

describe('elementCount and denseByteLength', () => {
  it('counts elements', () => {
    expect(elementCount([2, 3, 4])).toBe(24);
    expect(elementCount([])).toBe(1);
    expect(elementCount([3, 0])).toBe(0);
  });

  it('spans from the first to just past the last element', () => {
    expect(denseByteLength('f32', [2, 3, 4], [12, 4, 1])).toBe(96);
    expect(denseByteLength('f16', [2, 3, 4], [12, 4, 1])).toBe(48);
    // NDHWC strides for logical NCDHW shape [1, 3, 2, 2, 2]: channels fastest
    expect(denseByteLength('f64', [1, 3, 2, 2, 2], [24, 1, 12, 6, 3])).toBe(24 * 8);
    // padded rows: last row needs no padding after it
    expect(denseByteLength('u8', [2, 3], [10, 1])).toBe(13);
    expect(denseByteLength('f32', [4], [0])).toBe(4); // broadcast
    expect(denseByteLength('f32', [0, 5], [5, 1])).toBe(0);
    expect(denseByteLength('i64', [], [])).toBe(8);
  });

  it('rejects mismatched strides and unknown kinds', () => {
    expect(() => denseByteLength('f32', [2, 3], [1])).toThrow(
      'Expected an array of 2 integers for strides but received an array of length 1',
    );
    expect(() => denseByteLength('f32', [2, 3], [3, -1])).toThrow(
      'Expected a non-negative integer for strides[1] but received -1 of type number',
    );
    expect(() => denseByteLength('float' as never, [2], [1])).toThrow(
      'Expected one of f16, bf16, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, bool for element but received "float" of type string',
    );
    expect(() => denseByteLength('f64', [2 ** 40, 2 ** 20], [2 ** 20, 1])).toThrow(
      'Expected a shape and strides spanning at most 9007199254740991 bytes for shape but received an array of length 2',
    );
  });
});

describe('isDeviceSlice', () => {
  it('accepts objects with a bigint pointer and an integer length', () => {
    expect(isDeviceSlice({ devicePtr: 0n, byteLength: 0 })).toBe(true);
    expect(isDeviceSlice({ devicePtr: (1n << 64n) - 1n, byteLength: 1 })).toBe(true);
    class Buffer {
      get devicePtr() {
        return 5n;
      }
      get byteLength() {
        return 8;
      }
    }
    expect(isDeviceSlice(new Buffer())).toBe(true);
  });

  it.each([
    [{ devicePtr: 1, byteLength: 4 }],
    [{ devicePtr: -1n, byteLength: 4 }],
    [{ devicePtr: 1n << 64n, byteLength: 4 }],
    [{ devicePtr: 1n, byteLength: 4.5 }],
    [{ devicePtr: 1n, byteLength: -4 }],
    [{ devicePtr: 1n, byteLength: 4n }],
    [{ devicePtr: 1n }],
    [null],
    [undefined],
    [1n],
    [new Uint8Array(4)],
  ])('rejects %o', (value) => {
    expect(isDeviceSlice(value)).toBe(false);
  });
});

describe('makeTensorRef / makeTensorMut', () => {
  it('builds frozen, checked views', () => {
    const data = slice(96);
    const ref = makeTensorRef('f32', [2, 3, 4], [12, 4, 1], data);
    expect(ref).toEqual({ element: 'f32', shape: [2, 3, 4], strides: [12, 4, 1], data });
    expect(ref.data).toBe(data);
    expect(Object.isFrozen(ref)).toBe(true);
    expect(Object.isFrozen(ref.shape)).toBe(true);
    expect(Object.isFrozen(ref.strides)).toBe(true);
    expect('writable' in ref).toBe(false);

    const mut = makeTensorMut('f16', [2, 3, 4], undefined, slice(48));
    expect(mut.strides).toEqual([12, 4, 1]);
    expect(mut.writable).toBe(true);
    expect(Object.isFrozen(mut)).toBe(true);
  });

  it('copies the caller arrays', () => {
    const shape = [2, 2];
    const ref = makeTensorRef('u8', shape, undefined, slice(4));
    shape[0] = 100;
    expect(ref.shape).toEqual([2, 2]);
  });

  it('rejects bad input with typed errors', () => {
    expect(() => makeTensorRef('f32', [2, 3], [3, 1], slice(20))).toThrow(BufferTooSmallError);
    expect(() => makeTensorRef('f32', [2, 3], [3, 1], slice(20))).toThrow(
      'data too small: needed 24 bytes but received 20 bytes',
    );
    expect(() => makeTensorMut('f32', [2, 3.5], undefined, slice(100))).toThrow(
      'Expected a non-negative integer for shape[1] but received 3.5 of type number',
    );
    expect(() => makeTensorRef('f32', [2, 3], [3], slice(100))).toThrow(
      'Expected an array of 2 integers for strides but received an array of length 1',
    );
    expect(() => makeTensorRef('f32', [2], [1], { devicePtr: 5, byteLength: 8 } as never)).toThrow(
      'Expected a DeviceSlice (an object with devicePtr: bigint and byteLength: non-negative integer) for data but received an object',
    );
    expect(() => makeTensorRef('half' as never, [2], [1], slice(8))).toThrow(InvalidArgumentError);
    expect(() =>
      makeTensorRef('f32', new Array(MAX_TENSOR_RANK + 1).fill(1), undefined, slice(8)),
    ).toThrow(
      'Expected an array of at most 8 integers for shape but received an array of length 9',
    );
  });
});
