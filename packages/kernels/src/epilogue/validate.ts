/**
 * The options of `withEpilogue` checked one by one, in a fixed order (unknown keys, the two
 * switches, the activation, then its parameters), each refusal a typed error naming what was
 * expected and what was received.
 * @internal
 */
import { describeValue, InvalidArgumentError, InvalidProblemError } from '@baracuda/types';

/** The activations an epilogue applies last: y = act(pre-activation). */
export type EpilogueActivation =
  | 'identity'
  | 'relu'
  | 'leakyRelu'
  | 'gelu'
  | 'geluTanh'
  | 'silu'
  | 'sigmoid'
  | 'tanh'
  | 'clamp';

export const ACTIVATIONS: readonly EpilogueActivation[] = [
  'identity',
  'relu',
  'leakyRelu',
  'gelu',
  'geluTanh',
  'silu',
  'sigmoid',
  'tanh',
  'clamp',
];

/** What `withEpilogue` takes. */
export interface EpilogueOptions {
  /** Add `bias[c]` (a `[cOut]` tensor given to each run as `bias`). Defaults to `false`. */
  bias?: boolean;
  /** Applied last. Defaults to `'identity'`. */
  activation?: EpilogueActivation;
  /** leakyRelu only: the slope below zero, a finite number. Defaults to `0.01`. */
  slope?: number;
  /** clamp only: the lower bound, finite (or -Infinity). Defaults to `-Infinity`. */
  min?: number;
  /** clamp only: the upper bound, finite (or Infinity), at least `min`. Defaults to `Infinity`. */
  max?: number;
  /** Add a residual `z` of y's shape and layout (given to each run as `z`). Defaults to `false`. */
  residual?: boolean;
}

/**
 * What `withInputActivation` takes: the activation that made this layer's input x (the previous
 * layer's), whose backward runBwData then applies to dx.
 */
export interface InputActivationOptions {
  /** Defaults to `'identity'` (runBwData unchanged). */
  activation?: EpilogueActivation;
  /** leakyRelu only: the slope below zero, a finite number. Defaults to `0.01`. */
  slope?: number;
  /** clamp only: the lower bound. Defaults to `-Infinity`. */
  min?: number;
  /** clamp only: the upper bound, at least `min`. Defaults to `Infinity`. */
  max?: number;
}

/** The keys of {@link InputActivationOptions}. */
export const INPUT_ACTIVATION_KEYS: readonly string[] = ['activation', 'slope', 'min', 'max'];

/** The options resolved: every field present. */
export interface EpilogueFields {
  readonly bias: boolean;
  readonly activation: EpilogueActivation;
  readonly slope: number;
  readonly min: number;
  readonly max: number;
  readonly residual: boolean;
}

const KEYS = ['bias', 'activation', 'slope', 'min', 'max', 'residual'];
const ACTIVATION_LIST = ACTIVATIONS.map((a) => `'${a}'`).join(', ');

function flag(at: string, name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    throw new InvalidArgumentError(`${at}.${name}`, 'a boolean or undefined', value);
  }
  return value;
}

function bound(at: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidArgumentError(`${at}.${name}`, 'a number (not NaN)', value);
  }
  return value;
}

/**
 * Check `options` (what `withEpilogue` received) and resolve its defaults. `at` names the options
 * in messages (`'inputActivation'` for withInputActivation, whose keys are only the activation's).
 */
export function resolveEpilogue(
  options: unknown,
  at = 'epilogue',
  keys: readonly string[] = KEYS,
): EpilogueFields {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(
      at,
      `an object {${keys.map((k) => `${k}?`).join(', ')}}`,
      options,
    );
  }
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      throw new InvalidProblemError(
        `Expected only the keys ${keys.join(', ')} in the ${at} options but received the key ${JSON.stringify(key)}`,
        at,
      );
    }
  }
  // Each option is read once: a getter runs once, and what is checked is what is used.
  const given = options as Record<string, unknown>;
  const read: Record<string, unknown> = {};
  for (const key of keys) read[key] = given[key];
  const bias = flag(at, 'bias', read.bias);
  const residual = flag(at, 'residual', read.residual);
  const activation = read.activation === undefined ? 'identity' : read.activation;
  if (typeof activation !== 'string' || !ACTIVATIONS.includes(activation as EpilogueActivation)) {
    throw new InvalidArgumentError(`${at}.activation`, `one of ${ACTIVATION_LIST}`, activation);
  }
  const act = activation as EpilogueActivation;
  if (read.slope !== undefined && act !== 'leakyRelu') {
    throw new InvalidProblemError(
      `Expected no slope for activation '${act}' (slope is leakyRelu's) but received slope ${describeValue(read.slope)}`,
      `${at}.slope`,
    );
  }
  for (const name of ['min', 'max'] as const) {
    if (read[name] !== undefined && act !== 'clamp') {
      throw new InvalidProblemError(
        `Expected no ${name} for activation '${act}' (min and max are clamp's) but received ${name} ${describeValue(read[name])}`,
        `${at}.${name}`,
      );
    }
  }
  const slope = bound(at, 'slope', read.slope, 0.01);
  if (!Number.isFinite(slope)) {
    throw new InvalidArgumentError(`${at}.slope`, 'a finite number', slope);
  }
  const min = bound(at, 'min', read.min, Number.NEGATIVE_INFINITY);
  const max = bound(at, 'max', read.max, Number.POSITIVE_INFINITY);
  if (min === Number.POSITIVE_INFINITY) {
    throw new InvalidArgumentError(`${at}.min`, 'a number below Infinity', min);
  }
  if (max === Number.NEGATIVE_INFINITY) {
    throw new InvalidArgumentError(`${at}.max`, 'a number above -Infinity', max);
  }
  if (min > max) {
    throw new InvalidProblemError(
      `Expected min <= max for clamp but received min ${min} and max ${max}`,
      `${at}.min`,
    );
  }
  return { bias, activation: act, slope, min, max, residual };
}
