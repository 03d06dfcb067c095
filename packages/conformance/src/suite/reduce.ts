import { InvalidArgumentError } from '@baracuda/types';
import { outputExtent, type Triple } from '../reference/problem.js';
import { parseCase, type SuiteCase, toFileCase } from './load.js';

/** A case scaled down to fit a reference budget, and what was done to it. */
export interface ReducedCase {
  readonly case: SuiteCase;
  /** False when the case already fit and is returned unchanged. */
  readonly reduced: boolean;
  /** For humans: `n 8→1, in 16×56×56→4×5×5, c 64→64/128→128 (5.55e10 → 1.73e7 MACs)`. */
  readonly how: string;
}

/** Forward multiply-accumulates of a case (see `macs` in the reference for the cost model). */
export function caseMacs(c: SuiteCase): number {
  let volume = 1;
  for (let axis = 0; axis < 3; axis++) {
    volume *= outputExtent(c.in[axis]!, c.k[axis]!, c.pad[axis]!, c.stride[axis]!, c.dil[axis]!);
  }
  return c.n * c.cOut * volume * (c.cIn / c.groups) * c.k[0] * c.k[1] * c.k[2];
}

/** The largest of the x, w and y element counts. */
export function largestTensorElements(c: SuiteCase): number {
  let outVolume = 1;
  for (let axis = 0; axis < 3; axis++) {
    outVolume *= outputExtent(c.in[axis]!, c.k[axis]!, c.pad[axis]!, c.stride[axis]!, c.dil[axis]!);
  }
  const x = c.n * c.cIn * c.in[0] * c.in[1] * c.in[2];
  const w = c.cOut * (c.cIn / c.groups) * c.k[0] * c.k[1] * c.k[2];
  const y = c.n * c.cOut * outVolume;
  return Math.max(x, w, y);
}

/**
 * The smallest input extent per axis that keeps the case's character: the whole dilated kernel
 * footprint fits, and an axis that had ≥ 2 outputs keeps ≥ 2 (so the stride is exercised).
 */
function minimumExtents(c: SuiteCase): Triple {
  const result = [0, 0, 0];
  for (let axis = 0; axis < 3; axis++) {
    const footprint = c.dil[axis]! * (c.k[axis]! - 1) + 1;
    const outputs = outputExtent(
      c.in[axis]!,
      c.k[axis]!,
      c.pad[axis]!,
      c.stride[axis]!,
      c.dil[axis]!,
    );
    const needed =
      outputs >= 2
        ? Math.max(footprint, c.stride[axis]! + footprint - 2 * c.pad[axis]!)
        : footprint;
    result[axis] = Math.min(c.in[axis]!, needed);
  }
  return result as unknown as Triple;
}

/** Largest `f` in [0, 1] with `fits(f)` (0 when none fits); `fits` is monotone in `f`. */
function largestFitting(fits: (f: number) => boolean): number {
  if (fits(1)) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Largest of 8, 4, 2, 1 dividing `count`: a channel count keeps its alignment when reduced. */
function alignment(count: number): number {
  for (const q of [8, 4, 2]) if (count % q === 0) return q;
  return 1;
}

/** `count · f` rounded down to a multiple of `quantum`, never below `floor`. */
function scaleCount(count: number, f: number, quantum: number, floor: number): number {
  return Math.max(floor, Math.floor((count * f) / quantum) * quantum);
}

function exp(value: number): string {
  return value.toExponential(2).replace('e+', 'e');
}

/**
 * Scale a case down until its forward pass costs at most `maxMacs` multiply-accumulates in
 * the f64 reference, keeping its character. In order, and only as far as needed:
 * 1. the batch (down to 1);
 * 2. the spatial extents, proportionally, never below the dilated kernel footprint and never
 *    below what keeps ≥ 2 outputs on an axis that had ≥ 2;
 * 3. the channels, keeping their alignment (a multiple of 8 stays a multiple of 8) and counts
 *    ≤ 8 as they are while possible; groups keep dividing both, and a depthwise case
 *    (`cIn == groups`) stays depthwise, its channels and groups reduced together.
 *
 * When even the smallest such case exceeds the budget, that smallest case is returned and
 * `how` says so.
 */
export function reduceCase(c: SuiteCase, maxMacs: number): ReducedCase {
  if (typeof maxMacs !== 'number' || !(maxMacs > 0) || !Number.isFinite(maxMacs)) {
    throw new InvalidArgumentError('maxMacs', 'a positive finite number', maxMacs);
  }
  // Re-validate through the file parser so a hand-built case gets the same checks.
  parseCase(toFileCase(c), c.name === undefined ? 'case' : `case ${JSON.stringify(c.name)}`);
  const original = caseMacs(c);
  if (original <= maxMacs) {
    return { case: c, reduced: false, how: `unchanged (${exp(original)} MACs)` };
  }
  const fits = (candidate: SuiteCase) => caseMacs(candidate) <= maxMacs;
  let current: SuiteCase = { ...c };

  // 1. Batch.
  const perSample = caseMacs({ ...c, n: 1 });
  current = { ...current, n: Math.max(1, Math.min(c.n, Math.floor(maxMacs / perSample))) };

  // 2. Spatial extents, all axes by one factor.
  if (!fits(current)) {
    const minimum = minimumExtents(c);
    const at = (f: number): SuiteCase => ({
      ...current,
      in: [0, 1, 2].map((a) =>
        Math.max(minimum[a]!, Math.floor(c.in[a]! * f)),
      ) as unknown as Triple,
    });
    current = at(largestFitting((f) => fits(at(f))));
  }

  // 3. Channels.
  if (!fits(current)) {
    const spatial = current;
    const cpgIn = c.cIn / c.groups;
    const cpgOut = c.cOut / c.groups;
    const minGroups = Math.min(c.groups, 2);
    const withChannels = (groups: number, inPerGroup: number, outPerGroup: number): SuiteCase => ({
      ...spatial,
      groups,
      cIn: groups * inPerGroup,
      cOut: groups * outPerGroup,
    });
    const stages: ((f: number) => SuiteCase)[] = [];
    if (cpgIn === 1 && c.groups > 1) {
      // Depthwise (or depthwise with a channel multiplier): channels follow the groups.
      const q = alignment(c.groups);
      stages.push((f) =>
        withChannels(scaleCount(c.groups, f, q, Math.min(c.groups, Math.max(q, 8))), 1, cpgOut),
      );
      stages.push((f) => withChannels(scaleCount(c.groups, f, 1, minGroups), 1, cpgOut));
      stages.push((f) => withChannels(minGroups, 1, scaleCount(cpgOut, f, 1, 1)));
    } else {
      const qIn = alignment(cpgIn);
      const qOut = alignment(cpgOut);
      // Keep alignment, and small counts (an RGB stem's 3 inputs) as they are.
      stages.push((f) =>
        withChannels(
          c.groups,
          scaleCount(cpgIn, f, qIn, Math.min(cpgIn, Math.max(qIn, 8))),
          scaleCount(cpgOut, f, qOut, Math.min(cpgOut, Math.max(qOut, 8))),
        ),
      );
      stages.push((f) =>
        withChannels(c.groups, scaleCount(cpgIn, f, 1, 1), scaleCount(cpgOut, f, 1, 1)),
      );
      if (c.groups > minGroups) {
        stages.push((f) => withChannels(Math.max(minGroups, Math.floor(c.groups * f)), 1, 1));
      }
    }
    for (const stage of stages) {
      current = stage(largestFitting((f) => fits(stage(f))));
      if (fits(current)) break;
    }
  }

  const parts: string[] = [];
  if (current.n !== c.n) parts.push(`n ${c.n}→${current.n}`);
  if (current.in.some((v, a) => v !== c.in[a])) {
    parts.push(`in ${c.in.join('×')}→${current.in.join('×')}`);
  }
  if (current.cIn !== c.cIn || current.cOut !== c.cOut) {
    parts.push(`c ${c.cIn}→${current.cIn}/${c.cOut}→${current.cOut}`);
  }
  if (current.groups !== c.groups) parts.push(`groups ${c.groups}→${current.groups}`);
  const reducedMacs = caseMacs(current);
  const over = reducedMacs > maxMacs ? `, still over the budget of ${exp(maxMacs)}` : '';
  return {
    case: current,
    reduced: true,
    how: `${parts.join(', ')} (${exp(original)} → ${exp(reducedMacs)} MACs${over})`,
  };
}
