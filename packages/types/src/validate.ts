/**
 * Small argument checkers shared by every baracuda package.
 *
 * Each one returns the value, typed, when it is acceptable and otherwise throws an
 * {@link InvalidArgumentError} whose message names what was expected and what was received:
 * "Expected a positive integer for padD but received -1 of type number". Nothing is coerced:
 * `3.5`, `NaN`, `Infinity`, `'3'` and `3n` are all rejected where an integer belongs.
 */
import { InvalidArgumentError } from './errors.js';

/** Inclusive bounds for {@link expectInteger}. */
export interface IntegerRange {
  /** Smallest accepted value, inclusive. Defaults to `-Number.MAX_SAFE_INTEGER`. */
  readonly min?: number;
  /** Largest accepted value, inclusive. Defaults to `Number.MAX_SAFE_INTEGER`. */
  readonly max?: number;
}

/** Inclusive bounds for {@link expectBigint}. */
export interface BigintRange {
  /** Smallest accepted value, inclusive. Defaults to no bound. */
  readonly min?: bigint;
  /** Largest accepted value, inclusive. Defaults to no bound. */
  readonly max?: bigint;
}

/** Inclusive bounds for {@link expectFiniteNumber}. */
export interface NumberRange {
  /** Smallest accepted value, inclusive. Defaults to `-Number.MAX_VALUE`. */
  readonly min?: number;
  /** Largest accepted value, inclusive. Defaults to `Number.MAX_VALUE`. */
  readonly max?: number;
}

/** Options for {@link expectIntegerArray}. */
export interface IntegerArrayOptions extends IntegerRange {
  /** Exact length the array must have. Defaults to `undefined` (any length). */
  readonly length?: number;
  /** Smallest accepted length. Defaults to `0`. */
  readonly minLength?: number;
  /** Largest accepted length. Defaults to `undefined` (no bound). */
  readonly maxLength?: number;
}

/**
 * Words for an integer range, used as the "expected" half of a message:
 * `an integer`, `a positive integer`, `a non-negative integer`, `an integer >= 2`,
 * `an integer <= 8`, `an integer between 1 and 8`.
 */
export function describeIntegerRange(range: IntegerRange, noun = 'integer'): string {
  const { min, max } = checkRange<IntegerRange>('range', range, ['min', 'max'], 'number');
  if (typeof noun !== 'string') throw new InvalidArgumentError('noun', 'a string', noun);
  if (min === undefined && max === undefined) return `${article(noun)} ${noun}`;
  if (max === undefined) {
    if (min === 1) return `a positive ${noun}`;
    if (min === 0) return `a non-negative ${noun}`;
    return `${article(noun)} ${noun} >= ${min}`;
  }
  if (min === undefined) return `${article(noun)} ${noun} <= ${max}`;
  return `${article(noun)} ${noun} between ${min} and ${max}`;
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? 'an' : 'a';
}

/** The checkers' own arguments (a programmer's, not a user's) are checked too: nothing throws untyped. */
function checkName(name: unknown): string {
  if (typeof name !== 'string') {
    throw new InvalidArgumentError('name', 'a string (the argument name)', name);
  }
  return name;
}

/** An options object of a checker: undefined is `{}`; each bound a number (not NaN) or undefined. */
function checkRange<T extends object>(
  argument: string,
  range: unknown,
  bounds: readonly string[],
  kind: 'number' | 'bigint',
): T {
  if (range === undefined) return {} as T;
  if (typeof range !== 'object' || range === null) {
    throw new InvalidArgumentError(argument, 'an object or undefined', range);
  }
  const out: Record<string, unknown> = {};
  for (const bound of bounds) {
    const value = (range as Record<string, unknown>)[bound];
    if (value === undefined) continue;
    if (
      kind === 'bigint'
        ? typeof value !== 'bigint'
        : typeof value !== 'number' || Number.isNaN(value)
    ) {
      throw new InvalidArgumentError(
        `${argument}.${bound}`,
        kind === 'bigint' ? 'a bigint or undefined' : 'a number (not NaN) or undefined',
        value,
      );
    }
    out[bound] = value;
  }
  return out as T;
}

/**
 * Check that `value` is a safe integer (a `number`, no fraction, |value| <= 2^53-1) within
 * `range`, and return it.
 *
 * @example expectInteger('padD', -1, { min: 1 })
 * // throws "Expected a positive integer for padD but received -1 of type number"
 */
export function expectInteger(name: string, value: unknown, range?: IntegerRange): number {
  checkName(name);
  range = checkRange<IntegerRange>('range', range, ['min', 'max'], 'number');
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    (range.min !== undefined && value < range.min) ||
    (range.max !== undefined && value > range.max)
  ) {
    let expected = describeIntegerRange(range);
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      expected += ` no larger than ${Number.MAX_SAFE_INTEGER} in magnitude`;
    }
    throw new InvalidArgumentError(name, expected, value);
  }
  return value;
}

/**
 * Check that `value` is an array of safe integers, each within the range, and return a copy.
 * Element errors name the element: `shape[2]`.
 */
export function expectIntegerArray(
  name: string,
  value: unknown,
  options?: IntegerArrayOptions,
): number[] {
  checkName(name);
  options = checkRange<IntegerArrayOptions>(
    'options',
    options,
    ['min', 'max', 'length', 'minLength', 'maxLength'],
    'number',
  );
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError(name, describeArrayShape(options), value);
  }
  const { length, minLength, maxLength } = options;
  if (
    (length !== undefined && value.length !== length) ||
    (minLength !== undefined && value.length < minLength) ||
    (maxLength !== undefined && value.length > maxLength)
  ) {
    throw new InvalidArgumentError(name, describeArrayShape(options), value);
  }
  const range: IntegerRange = { min: options.min, max: options.max };
  const out = new Array<number>(value.length);
  for (let i = 0; i < value.length; i++) {
    out[i] = expectInteger(`${name}[${i}]`, value[i], range);
  }
  return out;
}

function describeArrayShape(options: IntegerArrayOptions): string {
  const { length, minLength, maxLength } = options;
  if (length !== undefined) return `an array of ${length} integers`;
  if (minLength !== undefined && maxLength !== undefined) {
    return `an array of ${minLength} to ${maxLength} integers`;
  }
  if (maxLength !== undefined) return `an array of at most ${maxLength} integers`;
  if (minLength !== undefined && minLength > 0) {
    return `an array of at least ${minLength} integers`;
  }
  return 'an array of integers';
}

/** Check that `value` is a `bigint` within `range`, and return it. */
export function expectBigint(name: string, value: unknown, range?: BigintRange): bigint {
  checkName(name);
  range = checkRange<BigintRange>('range', range, ['min', 'max'], 'bigint');
  if (
    typeof value !== 'bigint' ||
    (range.min !== undefined && value < range.min) ||
    (range.max !== undefined && value > range.max)
  ) {
    const { min, max } = range;
    let expected: string;
    if (min === undefined && max === undefined) expected = 'a bigint';
    else if (max === undefined) {
      expected =
        min === 1n
          ? 'a positive bigint'
          : min === 0n
            ? 'a non-negative bigint'
            : `a bigint >= ${min}n`;
    } else if (min === undefined) expected = `a bigint <= ${max}n`;
    else expected = `a bigint between ${min}n and ${max}n`;
    throw new InvalidArgumentError(name, expected, value);
  }
  return value;
}

/** Check that `value` is `true` or `false` (not a truthy or falsy stand-in), and return it. */
export function expectBoolean(name: string, value: unknown): boolean {
  checkName(name);
  if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'a boolean', value);
  return value;
}

/**
 * Check that `value` is one of `allowed` (compared with `===`), and return it narrowed.
 *
 * @example expectOneOf('layout', 'nchw', ['ncdhw', 'ndhwc'])
 * // throws "Expected one of ncdhw, ndhwc for layout but received \"nchw\" of type string"
 */
export function expectOneOf<const T extends string | number | boolean>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  checkName(name);
  if (!Array.isArray(allowed)) {
    throw new InvalidArgumentError('allowed', 'an array of the allowed values', allowed);
  }
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw new InvalidArgumentError(name, `one of ${allowed.map(String).join(', ')}`, value);
  }
  return value as T;
}

/** Check that `value` is a finite `number` (not NaN, not ±Infinity) within `range`, and return it. */
export function expectFiniteNumber(name: string, value: unknown, range?: NumberRange): number {
  checkName(name);
  range = checkRange<NumberRange>('range', range, ['min', 'max'], 'number');
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (range.min !== undefined && value < range.min) ||
    (range.max !== undefined && value > range.max)
  ) {
    const { min, max } = range;
    let expected: string;
    if (min === undefined && max === undefined) expected = 'a finite number';
    else if (max === undefined) expected = `a finite number >= ${min}`;
    else if (min === undefined) expected = `a finite number <= ${max}`;
    else expected = `a finite number between ${min} and ${max}`;
    throw new InvalidArgumentError(name, expected, value);
  }
  return value;
}
