import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from '@baracuda/types';
import type { ConvProblem, Layout, Triple } from '../reference/problem.js';
import { expectTriple, isPositiveInteger, outputExtent } from '../reference/problem.js';

/**
 * One convolution shape of a suite, independent of dtype and layout: a ConvProblem without its
 * layout, and a name (unique within its suite; printed in result tables). In a suite file, `pad`
 * defaults to `[0, 0, 0]`, `stride` and `dil` to `[1, 1, 1]`, `groups` to `1`.
 */
export interface SuiteCase extends Omit<ConvProblem, 'layout'> {
  readonly name: string;
}

/** @internal A case as a suite file spells it (`c_in`, `c_out`; also what the PyTorch bench script reads). */
export interface SuiteFileCase {
  name: string;
  n: number;
  c_in: number;
  c_out: number;
  in: number[];
  k: number[];
  pad: number[];
  stride: number[];
  dil: number[];
  groups: number;
}

/**
 * @internal A case in the suite file's spelling, every field given; `parseCase` reads it back.
 * Arrays are copied; anything else is passed on as it is, for `parseCase` to name.
 */
export function toFileCase(c: SuiteCase): SuiteFileCase {
  const copy = (v: readonly number[]) => (Array.isArray(v) ? [...v] : (v as unknown as number[]));
  return {
    name: c.name,
    n: c.n,
    c_in: c.cIn,
    c_out: c.cOut,
    in: copy(c.in),
    k: copy(c.k),
    pad: copy(c.pad),
    stride: copy(c.stride),
    dil: copy(c.dil),
    groups: c.groups,
  };
}

/** The problem a case poses in one layout. */
export function toProblem(c: SuiteCase, layout: Layout): ConvProblem {
  return {
    n: c.n,
    cIn: c.cIn,
    cOut: c.cOut,
    in: c.in,
    k: c.k,
    pad: c.pad,
    ...(c.padAfter === undefined ? {} : { padAfter: c.padAfter }),
    stride: c.stride,
    dil: c.dil,
    groups: c.groups,
    layout,
  };
}

/** One line for humans: `n=8 c=64→128 in=16×56×56 k=3×3×3 pad=1,1,1 stride=2,2,2 groups=8`. */
export function formatCase(c: SuiteCase): string {
  const parts = [`n=${c.n}`, `c=${c.cIn}→${c.cOut}`, `in=${c.in.join('×')}`, `k=${c.k.join('×')}`];
  if (c.pad.some((v) => v !== 0)) parts.push(`pad=${c.pad.join(',')}`);
  if (c.padAfter !== undefined) parts.push(`padAfter=${c.padAfter.join(',')}`);
  if (c.stride.some((v) => v !== 1)) parts.push(`stride=${c.stride.join(',')}`);
  if (c.dil.some((v) => v !== 1)) parts.push(`dil=${c.dil.join(',')}`);
  if (c.groups !== 1) parts.push(`groups=${c.groups}`);
  return parts.join(' ');
}

const FIELDS = ['name', 'n', 'c_in', 'c_out', 'in', 'k', 'pad', 'stride', 'dil', 'groups'] as const;

function positive(value: unknown, name: string): number {
  if (!isPositiveInteger(value)) throw new InvalidArgumentError(name, 'a positive integer', value);
  return value;
}

function triple(value: unknown, name: string, allowZero: boolean, fallback: number): Triple {
  return value === undefined
    ? [fallback, fallback, fallback]
    : expectTriple(value, name, allowZero);
}

/**
 * Validate one case in the file format (`c_in`, `c_out`, optional `pad`/`stride`/`dil`/`groups`)
 * and return it in our field names. `where` names it in errors, e.g. `cases[3]`.
 */
export function parseCase(raw: unknown, where: string): SuiteCase {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidArgumentError(where, 'a case object', raw);
  }
  const record = raw as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new InvalidArgumentError(
        `${where}.${key}`,
        `a known case field (${FIELDS.join(', ')})`,
        record[key],
      );
    }
  }
  const name = record.name;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new InvalidArgumentError(`${where}.name`, 'a non-empty string', name);
  }
  const n = positive(record.n, `${where}.n`);
  const cIn = positive(record.c_in, `${where}.c_in`);
  const cOut = positive(record.c_out, `${where}.c_out`);
  if (record.in === undefined) {
    throw new InvalidArgumentError(`${where}.in`, 'an array of 3 positive integers', undefined);
  }
  const inExtents = triple(record.in, `${where}.in`, false, 1);
  if (record.k === undefined) {
    throw new InvalidArgumentError(`${where}.k`, 'an array of 3 positive integers', undefined);
  }
  const k = triple(record.k, `${where}.k`, false, 1);
  const pad = triple(record.pad, `${where}.pad`, true, 0);
  const stride = triple(record.stride, `${where}.stride`, false, 1);
  const dil = triple(record.dil, `${where}.dil`, false, 1);
  const groups = record.groups === undefined ? 1 : positive(record.groups, `${where}.groups`);
  if (cIn % groups !== 0 || cOut % groups !== 0) {
    throw new InvalidArgumentError(
      `${where}.groups`,
      `a divisor of both c_in ${cIn} and c_out ${cOut}`,
      groups,
    );
  }
  for (let axis = 0; axis < 3; axis++) {
    const extent = inExtents[axis]!;
    const padding = pad[axis]!;
    if (outputExtent(extent, k[axis]!, padding, stride[axis]!, dil[axis]!) < 1) {
      const footprint = dil[axis]! * (k[axis]! - 1) + 1;
      throw new InvalidArgumentError(
        `${where}.in[${axis}]`,
        `an extent of at least ${footprint - 2 * padding} (kernel footprint dil·(k−1)+1 = ${footprint} minus 2·pad ${padding})`,
        extent,
      );
    }
  }
  return { name, n, cIn, cOut, in: inExtents, k, pad, stride, dil, groups };
}

/**
 * Read a suite in the format of `suites/conv3d-suite.json`:
 * `{cases: [{name, n, c_in, c_out, in: [D,H,W], k: [kd,kh,kw], pad?, stride?, dil?, groups?}]}`.
 *
 * `source` is the parsed object, JSON text (a string starting with `{`), or a file path.
 * Every field is checked; an error names the case and field, e.g.
 * "Expected a positive integer for cases[3].c_in but received -1 of type number".
 */
export function loadSuite(source: string | object): SuiteCase[] {
  let data: unknown = source;
  if (typeof source === 'string') {
    let text = source;
    if (!source.trimStart().startsWith('{')) {
      try {
        text = readFileSync(source, 'utf8');
      } catch (cause) {
        throw new InvalidArgumentError('suite', 'a readable suite file or JSON text', source, {
          cause,
        });
      }
    }
    try {
      data = JSON.parse(text);
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new InvalidArgumentError('suite', `valid JSON (${detail})`, source, { cause });
    }
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new InvalidArgumentError('suite', 'an object with a cases array', data);
  }
  const cases = (data as Record<string, unknown>).cases;
  if (!Array.isArray(cases) || cases.length === 0) {
    throw new InvalidArgumentError('cases', 'a non-empty array of cases', cases);
  }
  const seen = new Set<string>();
  return cases.map((raw, i) => {
    const parsed = parseCase(raw, `cases[${i}]`);
    if (seen.has(parsed.name)) {
      throw new InvalidArgumentError(
        `cases[${i}].name`,
        'a name no earlier case uses',
        parsed.name,
      );
    }
    seen.add(parsed.name);
    return parsed;
  });
}
