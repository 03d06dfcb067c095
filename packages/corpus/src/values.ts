/**
 * The hostile values, by name. A value is made fresh in the child for each case, from the
 * fixtures (for package objects: streams, descriptors, buffers), the valid value it replaces (for
 * derived values: a copy with one element broken, a self-referential copy, a re-entrant proxy)
 * and the call's victim (the object a re-entrant getter disposes mid-call).
 */
import type { Fixtures } from './model.js';

export interface ValueContext {
  readonly fixtures: Fixtures;
  /** The value of the valid call at this slot. */
  readonly valid: unknown;
  /** Disposes or destroys the object the call works on; undefined when the call has none. */
  readonly victim: (() => void) | undefined;
}

export type ValueMaker = (ctx: ValueContext) => unknown;

/** Every slot is swept with these (expectations.ts says which of them each slot accepts). */
export const UNIVERSAL_VALUES = [
  'undefined',
  'null',
  'true',
  'string',
  'emptyString',
  'zero',
  'one',
  'negative',
  'fraction',
  'nan',
  'infinity',
  'negInfinity',
  'pow31',
  'pow32',
  'pow53',
  'bigint0',
  'bigint1',
  'bigintNeg',
  'bigint2pow64',
  'object',
  'array',
  'function',
  'symbol',
  'cyclic',
] as const;

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
}

/** A view made over a 16-byte buffer, then the buffer detached (transferred away) under it. */
function detachedView<T>(view: (buffer: ArrayBuffer) => T): T {
  const buffer = new ArrayBuffer(16);
  const made = view(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  return made;
}

/** The valid array with element 0 replaced (or the valid value when it is not an array). */
function withFirst(ctx: ValueContext, first: unknown): unknown {
  if (!Array.isArray(ctx.valid)) return [first];
  const copy = [...ctx.valid];
  copy[0] = first;
  return copy;
}

/**
 * A copy of the valid array or plain object whose properties are getters: the first one read
 * disposes the victim, then each answers as the valid value would. A real array with accessor
 * elements (not a Proxy), so native code that checks IsArray walks it and runs the getter after
 * it has looked at its target.
 */
function reentrant(ctx: ValueContext): unknown {
  const valid = ctx.valid;
  if (typeof valid !== 'object' || valid === null) {
    throw new Error('corpus: a re-entrant value needs an object or array as the valid value');
  }
  let fired = false;
  const fire = () => {
    if (!fired) {
      fired = true;
      ctx.victim?.();
    }
  };
  const copy: object = Array.isArray(valid) ? new Array(valid.length) : {};
  for (const [key, value] of Object.entries(valid)) {
    Object.defineProperty(copy, key, {
      enumerable: true,
      get() {
        fire();
        return value;
      },
    });
  }
  return copy;
}

/** The valid object or array with a property or element that refers back to itself. */
function selfReferential(ctx: ValueContext): unknown {
  const valid = ctx.valid;
  if (Array.isArray(valid)) {
    const copy: unknown[] = [...valid];
    copy.push(copy);
    return copy;
  }
  if (typeof valid !== 'object' || valid === null) return cyclic();
  const copy: Record<string, unknown> = { ...(valid as Record<string, unknown>) };
  copy.self = copy;
  return copy;
}

export const VALUE_MAKERS: Record<string, ValueMaker> = {
  undefined: () => undefined,
  null: () => null,
  true: () => true,
  false: () => false,
  string: () => 'corpus',
  emptyString: () => '',
  zero: () => 0,
  one: () => 1,
  two: () => 2,
  negative: () => -1,
  fraction: () => 1.5,
  nan: () => Number.NaN,
  infinity: () => Number.POSITIVE_INFINITY,
  negInfinity: () => Number.NEGATIVE_INFINITY,
  n256: () => 256,
  n65536: () => 65536,
  pow31: () => 2 ** 31,
  pow31minus1: () => 2 ** 31 - 1,
  pow32: () => 2 ** 32,
  pow32minus1: () => 2 ** 32 - 1,
  pow32plus1: () => 2 ** 32 + 1,
  pow40: () => 2 ** 40,
  pow53: () => 2 ** 53,
  bigint0: () => 0n,
  bigint1: () => 1n,
  bigintNeg: () => -1n,
  bigint2pow63: () => 2n ** 63n,
  bigint2pow64minus1: () => 2n ** 64n - 1n,
  bigint2pow64: () => 2n ** 64n,
  object: () => ({}),
  array: () => [],
  function: () => () => {},
  symbol: () => Symbol('corpus'),
  cyclic,
  // Host memory.
  u8: () => new Uint8Array(16),
  u8Empty: () => new Uint8Array(0),
  f32View: () => new Float32Array(4),
  f64View: () => new Float64Array(2),
  nodeBuffer: () => Buffer.alloc(16),
  dataView: () => new DataView(new ArrayBuffer(16)),
  sharedU8: () => new Uint8Array(new SharedArrayBuffer(16)),
  sharedDataView: () => new DataView(new SharedArrayBuffer(16)),
  detachedU8: () => detachedView((b) => new Uint8Array(b)),
  detachedDataView: () => detachedView((b) => new DataView(b)),
  arrayBuffer: () => new ArrayBuffer(16),
  sharedArrayBuffer: () => new SharedArrayBuffer(16),
  // Scales (cudnn-sys alpha/beta).
  f32One: () => new Float32Array([1]),
  f64One: () => new Float64Array([1]),
  f32Empty: () => new Float32Array(0),
  u8One: () => new Uint8Array([1]),
  sharedF32: () => new Float32Array(new SharedArrayBuffer(4)),
  detachedF32: () => detachedView((b) => new Float32Array(b, 0, 1)),
  // Derived from the valid value.
  reentrant,
  selfReferential,
  firstNaN: (ctx) => withFirst(ctx, Number.NaN),
  firstFraction: (ctx) => withFirst(ctx, 1.5),
  firstString: (ctx) => withFirst(ctx, '1'),
  firstNegative: (ctx) => withFirst(ctx, -1),
  firstPow31: (ctx) => withFirst(ctx, 2 ** 31),
  firstBigint: (ctx) => withFirst(ctx, 1n),
  firstUndefined: (ctx) => withFirst(ctx, undefined),
  shortArray: (ctx) => (Array.isArray(ctx.valid) ? ctx.valid.slice(0, 1) : [1]),
  holeyArray: (ctx) => new Array(Array.isArray(ctx.valid) ? ctx.valid.length : 2),
  hugeArray: () => new Array(2 ** 20).fill(1),
  int32ArrayShort: () => new Int32Array(1),
};

/**
 * The value named `name`: a universal one, or one of the package's fixtures makers
 * (`fixtures.values`), which know its objects (streams, descriptors, plans).
 */
export function makeValue(name: string, ctx: ValueContext): unknown {
  const own = (ctx.fixtures.values as Record<string, ValueMaker> | undefined)?.[name];
  const maker = own ?? VALUE_MAKERS[name];
  if (maker === undefined) throw new Error(`corpus: no value named ${name}`);
  return maker(ctx);
}
