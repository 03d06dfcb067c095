/** Argument parsing shared by the CLI commands. Pure: typed errors, no I/O. */
import { parseArgs } from 'node:util';
import { InvalidArgumentError } from '@baracuda/types';

/** A usage error: the command prints it with the command's help and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** @internal Parse `a,b,c` into members of `allowed`, rejecting unknown and empty entries. */
export function parseList<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim());
  const expected = `a comma-separated list of ${allowed.join(', ')}`;
  if (items.length === 0 || items.some((item) => !(allowed as readonly string[]).includes(item))) {
    throw new InvalidArgumentError(flag, expected, value);
  }
  return [...new Set(items as T[])];
}

/** @internal Parse a positive integer flag. */
export function parsePositiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+(e\d+)?$/i.test(value.trim()) || !Number.isSafeInteger(number) || number <= 0) {
    throw new InvalidArgumentError(flag, 'a positive integer', value);
  }
  return number;
}

/** @internal node:util parseArgs, with its errors turned into UsageError. */
export function parseFlags<
  const O extends Record<string, { type: 'string' | 'boolean'; short?: string }>,
>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** @internal Parse a non-negative integer flag (a device ordinal). */
export function parseNonNegativeInteger(
  flag: string,
  value: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number)) {
    throw new InvalidArgumentError(flag, 'a non-negative integer', value);
  }
  return number;
}
