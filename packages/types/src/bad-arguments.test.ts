/**
 * Every export of this package given null, a symbol or other garbage throws a typed error naming
 * what was expected and what was received (never "Cannot read properties of null", never a
 * message that fails to build), and describeValue never throws.
 */
import { describe, expect, it } from 'vitest';
import {
  BufferTooSmallError,
  DisposedError,
  describeValue,
  InvalidArgumentError,
  InvalidProblemError,
  LibraryNotFoundError,
  UnsupportedError,
  WorkspaceTooSmallError,
} from './errors.js';
import { computeCapabilityOfArchSku, formatKernelSku, type KernelSku } from './sku.js';
import { stridesEqual } from './tensor.js';
import {
  describeIntegerRange,
  expectBigint,
  expectBoolean,
  expectFiniteNumber,
  expectInteger,
  expectIntegerArray,
  expectOneOf,
} from './validate.js';

function message(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  return 'accepted';
}

const sku: KernelSku = {
  category: 'convolution',
  op: 'conv3d',
  element: 'f32',
  auxElement: undefined,
  layout: 'ncdhw',
  epilogue: undefined,
  arch: 'sm90',
  backend: 'cudnn',
  precisionGuarantee: {
    mathPrecision: 'f32',
    accumulator: 'f32',
    deterministic: true,
    bitStableOnSameHardware: true,
  },
};

describe('bad arguments to the checkers themselves', () => {
  it('a name that is not a string', () => {
    for (const f of [
      () => expectInteger(Symbol('n') as never, 1),
      () => expectIntegerArray(null as never, [1]),
      () => expectBigint(7 as never, 1n),
      () => expectBoolean({} as never, true),
      () => expectOneOf(undefined as never, 'a', ['a']),
      () => expectFiniteNumber(Symbol('n') as never, 1),
    ]) {
      expect(message(f)).toMatch(
        /^Expected a string \(the argument name\) for name but received (Symbol\(n\) of type symbol|null|7 of type number|an object|undefined)$/,
      );
    }
    expect(message(() => expectInteger(Symbol('n') as never, 1))).toBe(
      'Expected a string (the argument name) for name but received Symbol(n) of type symbol',
    );
  });

  it('a range or options that is not an object of numbers', () => {
    expect(message(() => expectInteger('n', 1, null as never))).toBe(
      'Expected an object or undefined for range but received null',
    );
    expect(message(() => expectInteger('n', 1, { min: Number.NaN }))).toBe(
      'Expected a number (not NaN) or undefined for range.min but received NaN of type number',
    );
    expect(message(() => expectFiniteNumber('n', 1, { max: '3' as never }))).toBe(
      'Expected a number (not NaN) or undefined for range.max but received "3" of type string',
    );
    expect(message(() => expectBigint('n', 1n, { min: 0 as never }))).toBe(
      'Expected a bigint or undefined for range.min but received 0 of type number',
    );
    expect(message(() => expectIntegerArray('n', [1], { length: Number.NaN }))).toBe(
      'Expected a number (not NaN) or undefined for options.length but received NaN of type number',
    );
    expect(message(() => describeIntegerRange(undefined as never))).toBe('accepted');
    expect(describeIntegerRange(undefined as never)).toBe('an integer');
    expect(message(() => describeIntegerRange(null as never))).toBe(
      'Expected an object or undefined for range but received null',
    );
    expect(message(() => describeIntegerRange({ min: 1 }, Symbol('x') as never))).toBe(
      'Expected a string for noun but received Symbol(x) of type symbol',
    );
  });

  it('allowed values that are not an array', () => {
    expect(message(() => expectOneOf('n', 'a', null as never))).toBe(
      'Expected an array of the allowed values for allowed but received null',
    );
    expect(message(() => expectOneOf('n', 'c', [Symbol('a')] as never))).toBe(
      'Expected one of Symbol(a) for n but received "c" of type string',
    );
  });
});

describe('bad arguments to the pure helpers', () => {
  it('formatKernelSku', () => {
    expect(message(() => formatKernelSku(null as never))).toBe(
      'Expected a KernelSku object for sku but received null',
    );
    expect(message(() => formatKernelSku({} as never))).toBe(
      'Expected a PrecisionGuarantee object for sku.precisionGuarantee but received undefined',
    );
    expect(message(() => formatKernelSku({ ...sku, op: Symbol('op') } as never))).toBe(
      'Expected a string for sku.op but received Symbol(op) of type symbol',
    );
    expect(message(() => formatKernelSku({ ...sku, layout: 5 } as never))).toBe(
      'Expected a string or undefined for sku.layout but received 5 of type number',
    );
    expect(
      message(() =>
        formatKernelSku({
          ...sku,
          precisionGuarantee: { ...sku.precisionGuarantee, deterministic: 1 },
        } as never),
      ),
    ).toBe(
      'Expected a boolean for sku.precisionGuarantee.deterministic but received 1 of type number',
    );
    expect(formatKernelSku(sku)).toBe(
      'convolution/conv3d f32 ncdhw sm90 cudnn math=f32 acc=f32 deterministic bit-stable',
    );
  });

  it('computeCapabilityOfArchSku and stridesEqual', () => {
    expect(message(() => computeCapabilityOfArchSku(Symbol('sm') as never))).toBe(
      'Expected an ArchSku string such as sm90 for arch but received Symbol(sm) of type symbol',
    );
    expect(message(() => computeCapabilityOfArchSku(90 as never))).toBe(
      'Expected an ArchSku string such as sm90 for arch but received 90 of type number',
    );
    expect(message(() => stridesEqual(null as never, [1]))).toBe(
      'Expected an array of strides for a but received null',
    );
    expect(message(() => stridesEqual([1], 'x' as never))).toBe(
      'Expected an array of strides for b but received "x" of type string',
    );
  });
});

describe('errors and describeValue never fail to build', () => {
  it('describeValue of a revoked proxy, a throwing constructor getter, an odd constructor name', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(describeValue(revoked.proxy)).toBe('an object');
    const throwing = Object.defineProperty({}, 'constructor', {
      get() {
        throw new Error('no');
      },
    });
    expect(describeValue(throwing)).toBe('an object');
    expect(describeValue({ constructor: { name: Symbol('c') } })).toBe('an object');
    expect(describeValue(Object.create(null))).toBe('an object');
  });

  it('error classes given garbage still build their messages', () => {
    expect(new InvalidArgumentError(Symbol('a') as never, null as never, 1).message).toBe(
      'Expected null for Symbol(a) of type symbol but received 1 of type number',
    );
    expect(new UnsupportedError(Symbol('m') as never).message).toBe('Symbol(m) of type symbol');
    expect(new InvalidProblemError(undefined as never).message).toBe('undefined');
    expect(new WorkspaceTooSmallError(Symbol('n') as never, 1).message).toBe(
      'workspace too small: needed Symbol(n) of type symbol bytes but received 1 bytes',
    );
    expect(new BufferTooSmallError({} as never, 1, 2).message).toBe(
      'an object too small: needed 1 bytes but received 2 bytes',
    );
    expect(new DisposedError(Symbol('d') as never).message).toBe(
      'Symbol(d) of type symbol has been disposed and cannot be used',
    );
    expect(new LibraryNotFoundError('libx', null as never, 'fix' as never).message).toBe(
      'Could not load libx.\nSearched:\n  (nothing)\nPossible solutions:\n',
    );
    expect(new UnsupportedError('m', null as never).cause).toBeUndefined();
  });
});
