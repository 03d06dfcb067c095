import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.js';
import {
  expectBigint,
  expectBoolean,
  expectFiniteNumber,
  expectInteger,
  expectIntegerArray,
  expectOneOf,
} from './validate.js';

function thrown(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error('expected a throw');
}

describe('expectInteger', () => {
  it('returns an acceptable integer', () => {
    expect(expectInteger('x', 0)).toBe(0);
    expect(expectInteger('x', -7)).toBe(-7);
    expect(expectInteger('padD', 1, { min: 1 })).toBe(1);
    expect(expectInteger('x', 8, { min: 1, max: 8 })).toBe(8);
    expect(expectInteger('x', Number.MAX_SAFE_INTEGER, { min: 0 })).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    [{ min: 1 }, -1, 'Expected a positive integer for padD but received -1 of type number'],
    [{ min: 1 }, 0, 'Expected a positive integer for padD but received 0 of type number'],
    [{ min: 0 }, -1, 'Expected a non-negative integer for padD but received -1 of type number'],
    [{ min: 0 }, 3.5, 'Expected a non-negative integer for padD but received 3.5 of type number'],
    [{}, 3.5, 'Expected an integer for padD but received 3.5 of type number'],
    [{}, Number.NaN, 'Expected an integer for padD but received NaN of type number'],
    [
      {},
      Number.POSITIVE_INFINITY,
      'Expected an integer for padD but received Infinity of type number',
    ],
    [{}, '3', 'Expected an integer for padD but received "3" of type string'],
    [{}, 3n, 'Expected an integer for padD but received 3n of type bigint'],
    [{}, null, 'Expected an integer for padD but received null'],
    [{}, undefined, 'Expected an integer for padD but received undefined'],
    [{}, true, 'Expected an integer for padD but received true of type boolean'],
    [{}, [1], 'Expected an integer for padD but received an array of length 1'],
    [{ min: 2 }, 1, 'Expected an integer >= 2 for padD but received 1 of type number'],
    [{ max: 8 }, 9, 'Expected an integer <= 8 for padD but received 9 of type number'],
    [
      { min: 1, max: 8 },
      9,
      'Expected an integer between 1 and 8 for padD but received 9 of type number',
    ],
    [
      {},
      2 ** 53,
      'Expected an integer no larger than 9007199254740991 in magnitude for padD but received 9007199254740992 of type number',
    ],
  ] as const)('with %o rejects %o', (range, value, message) => {
    const error = thrown(() => expectInteger('padD', value, range));
    expect(error.message).toBe(message);
    expect(error.argument).toBe('padD');
    expect(error.code).toBe('BARACUDA_INVALID_ARGUMENT');
  });
});

describe('expectIntegerArray', () => {
  it('returns a copy', () => {
    const input = [1, 2, 3];
    const out = expectIntegerArray('shape', input, { min: 0 });
    expect(out).toEqual([1, 2, 3]);
    expect(out).not.toBe(input);
  });

  it('names the bad element and describes the array', () => {
    expect(() => expectIntegerArray('shape', [1, -2], { min: 0 })).toThrow(
      'Expected a non-negative integer for shape[1] but received -2 of type number',
    );
    expect(() => expectIntegerArray('shape', 'abc')).toThrow(
      'Expected an array of integers for shape but received "abc" of type string',
    );
    expect(() => expectIntegerArray('strides', [1, 2], { length: 3 })).toThrow(
      'Expected an array of 3 integers for strides but received an array of length 2',
    );
    expect(() => expectIntegerArray('shape', [], { minLength: 1, maxLength: 8 })).toThrow(
      'Expected an array of 1 to 8 integers for shape but received an array of length 0',
    );
    expect(() => expectIntegerArray('shape', [1, 1, 1], { maxLength: 2 })).toThrow(
      'Expected an array of at most 2 integers for shape but received an array of length 3',
    );
    expect(() => expectIntegerArray('shape', [], { minLength: 1 })).toThrow(
      'Expected an array of at least 1 integers for shape but received an array of length 0',
    );
  });
});

describe('expectBigint', () => {
  it('returns a bigint in range', () => {
    expect(expectBigint('ptr', 5n, { min: 0n })).toBe(5n);
    expect(expectBigint('ptr', -5n)).toBe(-5n);
  });
  it.each([
    [{}, 5, 'Expected a bigint for ptr but received 5 of type number'],
    [{ min: 0n }, -1n, 'Expected a non-negative bigint for ptr but received -1n of type bigint'],
    [{ min: 1n }, 0n, 'Expected a positive bigint for ptr but received 0n of type bigint'],
    [{ min: 2n }, 0n, 'Expected a bigint >= 2n for ptr but received 0n of type bigint'],
    [{ max: 2n }, 3n, 'Expected a bigint <= 2n for ptr but received 3n of type bigint'],
    [
      { min: 0n, max: 2n },
      3n,
      'Expected a bigint between 0n and 2n for ptr but received 3n of type bigint',
    ],
  ] as const)('with %o rejects %o', (range, value, message) => {
    expect(() => expectBigint('ptr', value, range)).toThrow(message);
  });
});

describe('expectBoolean', () => {
  it('accepts only true and false', () => {
    expect(expectBoolean('flag', true)).toBe(true);
    expect(expectBoolean('flag', false)).toBe(false);
    expect(() => expectBoolean('flag', 1)).toThrow(
      'Expected a boolean for flag but received 1 of type number',
    );
    expect(() => expectBoolean('flag', 'false')).toThrow(
      'Expected a boolean for flag but received "false" of type string',
    );
  });
});

describe('expectOneOf', () => {
  it('narrows to the allowed values', () => {
    const layout: 'ncdhw' | 'ndhwc' = expectOneOf('layout', 'ndhwc', ['ncdhw', 'ndhwc']);
    expect(layout).toBe('ndhwc');
    expect(() => expectOneOf('layout', 'nchw', ['ncdhw', 'ndhwc'])).toThrow(
      'Expected one of ncdhw, ndhwc for layout but received "nchw" of type string',
    );
    expect(() => expectOneOf('n', '1', [1, 2])).toThrow(
      'Expected one of 1, 2 for n but received "1" of type string',
    );
  });
});

describe('expectFiniteNumber', () => {
  it('accepts finite numbers in range', () => {
    expect(expectFiniteNumber('alpha', 0.5)).toBe(0.5);
    expect(expectFiniteNumber('alpha', -0, { min: 0 })).toBe(-0);
  });
  it.each([
    [{}, Number.NaN, 'Expected a finite number for alpha but received NaN of type number'],
    [
      {},
      Number.NEGATIVE_INFINITY,
      'Expected a finite number for alpha but received -Infinity of type number',
    ],
    [{}, 1n, 'Expected a finite number for alpha but received 1n of type bigint'],
    [{ min: 0 }, -1, 'Expected a finite number >= 0 for alpha but received -1 of type number'],
    [{ max: 1 }, 2, 'Expected a finite number <= 1 for alpha but received 2 of type number'],
    [
      { min: 0, max: 1 },
      2,
      'Expected a finite number between 0 and 1 for alpha but received 2 of type number',
    ],
  ] as const)('with %o rejects %o', (range, value, message) => {
    expect(() => expectFiniteNumber('alpha', value, range)).toThrow(message);
  });
});
