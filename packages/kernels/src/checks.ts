/**
 * Argument checks of kernels' exported pure helpers (policy, errata, descriptor math, the cache
 * key) that @baracuda/types has no checker for: each throws `InvalidArgumentError` naming what was
 * expected and what was received.
 * @internal
 */
import { InvalidArgumentError } from '@baracuda/types';

/** `value` as an object (not null, not an array) whose fields can be read. */
export function expectObject(
  name: string,
  value: unknown,
  expected: string,
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(name, expected, value);
  }
  return value as Record<string, unknown>;
}

/** `value` as a string. */
export function expectString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(name, 'a string', value);
  return value;
}

/**
 * `value` as an array of strings without holes (`some()` would skip them), each one `element`
 * (checked by `accept` when given).
 */
export function expectStrings(
  name: string,
  value: unknown,
  expected: string,
  element = 'a string',
  accept: (s: string) => boolean = () => true,
): readonly string[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError(name, expected, value);
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i];
    if (typeof v !== 'string' || !accept(v)) {
      throw new InvalidArgumentError(`${name}[${i}]`, element, v);
    }
  }
  return value;
}

/** The element kinds a convolution has: the float ones. */
export const CONV_ELEMENTS = ['f16', 'bf16', 'f32', 'f64'] as const;
