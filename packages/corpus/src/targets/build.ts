/** Shorthands for writing targets as tables. */
import type { Fixtures, PackageName, Prepared, SlotSpec, Target } from '../model.js';
import { makeValue } from '../values.js';

export const self = (kind: string): SlotSpec => ({ name: 'this', at: { arg: 'this' }, kind });
export const arg = (index: number, kind: string): SlotSpec => ({
  name: `arg${index}`,
  at: { arg: index },
  kind,
});
export const prop = (index: number, path: string, kind: string): SlotSpec => ({
  name: `arg${index}.${path}`,
  at: { arg: index, path: path.split('.') },
  kind,
});

/** How ids name a member: its name, or `[Symbol.dispose]` for the well-known symbol. */
export function memberLabel(key: string | symbol): string {
  if (typeof key === 'string') return key;
  return key === Symbol.dispose ? '[Symbol.dispose]' : `[${key.description}]`;
}

/** A fixture value by name, made the way a swept value of that name is. */
export function fixture(fixtures: Fixtures, name: string): unknown {
  return makeValue(name, { fixtures, valid: undefined, victim: undefined });
}

export interface TargetSpec {
  id: string;
  slots?: SlotSpec[];
  hasVictim?: boolean;
  baselineAcceptable?: boolean;
  prepare(fixtures: Fixtures): Prepared;
}

export function targetsOf(pkg: PackageName, specs: readonly TargetSpec[]): Target[] {
  return specs.map((spec) => {
    const name = spec.id.replace(/~.*$/, '');
    const exportName = name.split(/[.#(]/)[0]!;
    return {
      id: `${pkg}/${spec.id}`,
      pkg,
      exportName,
      slots: spec.slots ?? [],
      hasVictim: spec.hasVictim ?? false,
      baselineAcceptable: spec.baselineAcceptable ?? true,
      prepare: spec.prepare,
    };
  });
}

/** Calls `method` of `proto` (a function or an accessor) with `self` and `args`. */
export function member(
  proto: object,
  name: string | symbol,
): (self: unknown, args: unknown[]) => unknown {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name);
  if (descriptor === undefined) throw new Error(`corpus: no member ${String(name)}`);
  if (descriptor.get) {
    const get = descriptor.get;
    return (self) => get.call(self);
  }
  const fn = descriptor.value as (...args: unknown[]) => unknown;
  return (self, args) => fn.apply(self, args);
}
