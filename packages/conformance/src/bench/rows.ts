/**
 * Expands a suite into benchmark groups and rows. Pure.
 */
import type { BenchOptions } from './args.js';
import { convBytes, convMacs, layoutsFor, rotationSets } from './math.js';
import type { BenchCase, BenchGroup, BenchPass } from './types.js';

export interface PlannedGroups {
  groups: BenchGroup[];
  /** Human-readable notes on what was left out and why. */
  notes: string[];
}

/**
 * Every case × dtype × layout the options ask for, in suite order, each carrying its passes and
 * rotation-set count. f64 is kept only for cases with at most `f64MaxMacs` MACs; ndhwc only for
 * f16/bf16; with `groups`, only the groups named `case:dtype:layout`. Unknown `--cases` names and
 * `--groups` that match nothing are reported in the notes.
 */
export function planGroups(
  cases: readonly BenchCase[],
  options: Pick<BenchOptions, 'dtypes' | 'layouts' | 'passes' | 'cases' | 'f64MaxMacs'> &
    Partial<Pick<BenchOptions, 'groups'>>,
  rotateBelowBytes?: number,
): PlannedGroups {
  const notes: string[] = [];
  let selected = [...cases];
  if (options.cases) {
    const wanted = new Set(options.cases);
    const known = new Set(cases.map((c) => c.name));
    const unknown = options.cases.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      notes.push(
        `Unknown case names ignored: ${unknown.join(', ')} (suite has ${[...known].join(', ')}).`,
      );
    }
    selected = selected.filter((c) => wanted.has(c.name));
  }
  const groups: BenchGroup[] = [];
  const f64Skipped: string[] = [];
  for (const c of selected) {
    const macs = convMacs(c);
    for (const dtype of options.dtypes) {
      if (dtype === 'f64' && macs > options.f64MaxMacs) {
        f64Skipped.push(c.name);
        continue;
      }
      for (const layout of layoutsFor(dtype, options.layouts)) {
        groups.push({
          case: c,
          dtype,
          layout,
          passes: [...options.passes],
          sets: rotationSets(convBytes(c, dtype), rotateBelowBytes),
        });
      }
    }
  }
  if (options.groups) {
    const keys = new Set(options.groups);
    const kept = groups.filter((g) => keys.has(groupKey(g)));
    const found = new Set(kept.map(groupKey));
    const missing = options.groups.filter((k) => !found.has(k));
    if (missing.length > 0) notes.push(`--groups that match no group: ${missing.join(', ')}.`);
    groups.splice(0, groups.length, ...kept);
  }
  if (f64Skipped.length > 0) {
    notes.push(
      `f64 runs only on cases with at most ${options.f64MaxMacs.toExponential(1)} MACs; left out: ${f64Skipped.join(', ')}.`,
    );
  }
  return { groups, notes };
}

/** A group's name for `--groups`: `case:dtype:layout`. */
export function groupKey(group: Pick<BenchGroup, 'case' | 'dtype' | 'layout'>): string {
  return `${group.case.name}:${group.dtype}:${group.layout}`;
}

/**
 * Whether a group runs the tuned pair (autotune and PyTorch tuned): autotune is asked for and
 * `tunedOn` (`dtype:layout` patterns) is absent or names the group's dtype and layout.
 */
export function isTunedGroup(
  group: Pick<BenchGroup, 'dtype' | 'layout'>,
  options: Pick<BenchOptions, 'modes'> & Partial<Pick<BenchOptions, 'tunedOn'>>,
): boolean {
  if (!options.modes.includes('autotune')) return false;
  return !options.tunedOn || options.tunedOn.includes(`${group.dtype}:${group.layout}`);
}

/** Our modes on a group: the asked-for modes, without autotune where the group is not tuned. */
export function modesFor(
  group: Pick<BenchGroup, 'dtype' | 'layout'>,
  options: Pick<BenchOptions, 'modes'> & Partial<Pick<BenchOptions, 'tunedOn'>>,
): BenchOptions['modes'] {
  return isTunedGroup(group, options)
    ? options.modes
    : options.modes.filter((m) => m !== 'autotune');
}

/** The library's passes behind the bench's, in order, once each: bwStep is bwData and bwFilter. */
export function planPasses(passes: readonly BenchPass[]): Array<'fw' | 'bwData' | 'bwFilter'> {
  const out: Array<'fw' | 'bwData' | 'bwFilter'> = [];
  for (const pass of passes) {
    for (const p of pass === 'bwStep' ? (['bwData', 'bwFilter'] as const) : [pass])
      if (!out.includes(p)) out.push(p);
  }
  return out;
}
