/**
 * Autotune's arithmetic, with every constant beside the formula that uses it: how many runs a
 * candidate is timed over, when one is given up on, which are finalists, the knob search, the
 * operand rotation past L2, and when a detour wins. Pure; no cuDNN or driver calls.
 */
import { ElementKind, expectFiniteNumber, InvalidArgumentError } from '@baracuda/types';
import { KNOB_NAMES } from './knob-names.js';

/** A knob's range as an engine reports it (cuDNN's knob info): `min..max` in steps of `stride`. */
export interface KnobRange {
  readonly knob: number;
  readonly min: number;
  readonly max: number;
  readonly stride: number;
}

/**
 * Autotune's time budget per pass when neither `options.autotuneBudgetMs` nor
 * `$BARACUDA_AUTOTUNE_BUDGET_MS` sets one: 500 ms of wall clock. On the H200 a cold, unbounded
 * tune of one suite group (3 passes) took 20–40 s, VideoMAE's patch embedding 144 s, nearly all
 * of it spent on configs many times slower than the best (RESULTS.md, runs 58–59); PyTorch's
 * `benchmark = True` bounds its search the same way (10 algorithms by default). On the suite's 10
 * tuned groups, the plans found at 500 ms a pass were 0.997× (run 89) and 0.95× (run 91) the time
 * of those found at 2 s, at a quarter to half of the time to a plan.
 */
export const DEFAULT_AUTOTUNE_BUDGET_MS = 500;
/**
 * The default mode's quick tune, per pass: its first few choices are timed within this many ms
 * of wall clock (the first is always timed): a first select's cost stays bounded, and a first
 * choice many times slower than the next is avoided.
 */
export const QUICK_TUNE_BUDGET_MS = 200;

/** Knobs that pick a split-K or split reduction: left alone when determinism is asked for. */
export const REDUCTION_KNOBS: ReadonlySet<number> = new Set(
  ['SPLIT_K', 'SPLIT_K_BUF', 'REDUCTION_MODE', 'CTA_SPLIT_K_MODE', 'SPLIT_K_SLC', 'SPLIT_RS'].map(
    (name) => KNOB_NAMES.indexOf(name as (typeof KNOB_NAMES)[number]),
  ),
);

/** The knob search tries at most this many values of one knob. */
export const TUNE_SEARCH_VALUES = 12;

/**
 * The engine configs one knob away from `knobs` (autotune's search around its finalists): for each
 * knob of `space` not in `skip`, every value of its range but the current one, at most
 * `maxValues` of them (spread evenly over the range, both ends kept). Each result is sorted by
 * knob type, like the configs a plan reads back; a knob the config did not choose is added.
 */
export function knobNeighbours(
  knobs: readonly (readonly [number, number])[],
  space: readonly KnobRange[],
  maxValues: number,
  skip: ReadonlySet<number> = new Set(),
): [number, number][][] {
  const out: [number, number][][] = [];
  for (const range of space) {
    if (skip.has(range.knob) || range.stride < 1 || range.max < range.min) continue;
    const steps = Math.floor((range.max - range.min) / range.stride) + 1;
    const picks =
      steps <= maxValues
        ? Array.from({ length: steps }, (_, i) => i)
        : Array.from({ length: maxValues }, (_, i) =>
            Math.round((i * (steps - 1)) / (maxValues - 1)),
          );
    const current = knobs.find(([k]) => k === range.knob)?.[1];
    for (const step of new Set(picks)) {
      const value = range.min + step * range.stride;
      if (value === current) continue;
      const next: [number, number][] = knobs
        .filter(([k]) => k !== range.knob)
        .map(([k, v]) => [k, v] as [number, number]);
      next.push([range.knob, value]);
      next.sort((a, b) => a[0] - b[0]);
      out.push(next);
    }
  }
  return out;
}

/** Candidates within this factor of the fastest single run are timed again. */
export const TUNE_KEEP_RATIO = 1.3;
/** At most this many finalists. */
export const TUNE_FINALISTS = 6;

/**
 * Autotune's finalists: the indices of the finite single-run timings within `keepRatio` of the
 * fastest, fastest first, at most `max` of them.
 */
export function tuneFinalists(
  timings: readonly number[],
  keepRatio: number,
  max: number,
): number[] {
  const fastest = Math.min(...timings);
  return timings
    .map((_, i) => i)
    .filter((i) => Number.isFinite(timings[i]!) && timings[i]! <= fastest * keepRatio)
    .sort((a, b) => timings[a]! - timings[b]!)
    .slice(0, max);
}

/** The knob search starts around this many of the fastest finalists. */
export const TUNE_SEARCH_BASES = 2;

/** The indices of the `count` fastest finite timings, fastest first (ties in index order). */
export function fastestIndices(timings: readonly number[], count: number): number[] {
  return timings
    .map((_, i) => i)
    .filter((i) => Number.isFinite(timings[i]!))
    .sort((a, b) => timings[a]! - timings[b]! || a - b)
    .slice(0, count);
}

/**
 * Where autotune's knob search goes next (hill climbing): when the pass that built the configs
 * from `firstSearched` on made one of them the fastest of all `timings`, that config, whose own
 * neighbours are searched next; otherwise nothing, and the search ends.
 */
export function nextSearchBases(timings: readonly number[], firstSearched: number): number[] {
  const [leader] = fastestIndices(timings, 1);
  return leader !== undefined && leader >= firstSearched ? [leader] : [];
}

/**
 * A candidate whose warm-up run is this many times slower than the fastest so far (and
 * {@link TUNE_GIVE_UP_MARGIN_MS} slower) is not timed again.
 */
export const TUNE_GIVE_UP_RATIO = 4;
/** See {@link TUNE_GIVE_UP_RATIO}. */
export const TUNE_GIVE_UP_MARGIN_MS = 10;

/**
 * Autotune's cut-off for a candidate's warm-up run: a candidate whose warm-up run
 * took longer than this cannot be a finalist, so it is not timed again. Both a ratio and an
 * absolute margin, so that a one-off cost of a first run (loading a kernel module) does not drop
 * a fast engine. Infinity until some candidate has been timed.
 */
export function tuneGiveUpMs(fastestMs: number, ratio: number, marginMs: number): number {
  if (!Number.isFinite(fastestMs)) return Number.POSITIVE_INFINITY;
  return Math.max(fastestMs * ratio, fastestMs + marginMs);
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (!Array.isArray(values) || values.length === 0) {
    throw new InvalidArgumentError('values', 'a non-empty array of numbers', values);
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || Number.isNaN(v)) {
      throw new InvalidArgumentError(`values[${i}]`, 'a number (not NaN)', v);
    }
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A finalist's runs are timed one by one, each between its own pair of events, and their median
 * kept: at least this many runs...
 */
export const TUNE_REPS = 5;
/** ...at most this many... */
export const TUNE_MAX_REPS = 30;
/** ...and enough to fill about this many ms where that is between the two. */
export const TUNE_WINDOW_MS = 2;

/**
 * How many runs autotune times a finalist over, each between its own pair of events: enough to
 * fill about `windowMs` at `estimateMs` a run, at least `min` and at most `max` (`min` without
 * an estimate).
 */
export function tuneReps(estimateMs: number, min: number, max: number, windowMs: number): number {
  if (!(estimateMs > 0) || !Number.isFinite(estimateMs)) return min;
  return Math.max(min, Math.min(max, Math.ceil(windowMs / estimateMs)));
}

/** How many runs a finalist that took `estimateMs` a run is timed over (see {@link tuneReps}). */
export function finalistReps(estimateMs: number): number {
  return tuneReps(estimateMs, TUNE_REPS, TUNE_MAX_REPS, TUNE_WINDOW_MS);
}

/**
 * Operand sets are rotated while one set's working set (x + w + y) is below this: 128 MiB, over
 * twice the H200's 50 MB L2. The benchmark measures this way, and autotune ranks this way.
 */
export const ROTATE_BELOW_BYTES = 128 * 1024 * 1024;
/** Never rotate among more operand sets than this. */
export const MAX_ROTATION_SETS = 64;

/** A byte count: a finite number >= `min`, and no more than 2^53 - 1 (exact as a double). */
function byteCount(name: string, value: number, min: number): void {
  expectFiniteNumber(name, value, { min });
  if (value > Number.MAX_SAFE_INTEGER) {
    throw new InvalidArgumentError(name, 'a byte count of at most 2^53 - 1', value);
  }
}

/**
 * How many operand sets to rotate among so that consecutive runs do not find their operands in
 * L2: 1 when one set is already at least `below`, else enough sets to cover it, at most
 * {@link MAX_ROTATION_SETS}.
 */
export function rotationSets(workingSetBytes: number, below = ROTATE_BELOW_BYTES): number {
  byteCount('workingSetBytes', workingSetBytes, 0);
  byteCount('below', below, 1);
  if (workingSetBytes === 0) return 1;
  if (workingSetBytes >= below) return 1;
  return Math.min(MAX_ROTATION_SETS, Math.ceil(below / workingSetBytes));
}

/**
 * Autotune's operand sets: {@link rotationSets}, with the sets beyond the first taking at most
 * half of the device memory free now (`freeBytes`; no reading, no cap). A layer's operands are
 * seldom in L2 when a network runs it (the layer before wrote others), so candidates timed on one
 * set, warm in L2, were ranked by a speed they do not have: on the H200, autotune picked configs
 * 1-20% slower than the heuristic's on layers under 128 MiB (session 6's bench).
 */
export function tuneRotationSets(setBytes: number, freeBytes?: number): number {
  const wanted = rotationSets(setBytes);
  if (freeBytes !== undefined) byteCount('freeBytes', freeBytes, 0);
  if (freeBytes === undefined || setBytes === 0) return wanted;
  return Math.max(1, Math.min(wanted, 1 + Math.floor(freeBytes / 2 / setBytes)));
}

/**
 * Host bytes of random but finite values for a scratch buffer (autotune): f32/f64 in [-1, 1),
 * f16 and bf16 with magnitudes in [0.25, 1). The bits come from `words` (32 random bits a call;
 * by default a xorshift generator seeded from `Math.random`): one word a value for f32/f64, half
 * a word for f16/bf16, so the hundreds of millions of elements of a large layer's operands take a
 * fraction of a second (three `Math.random()` calls an element took 3.7 s per 10^8 on this
 * project's 2-core CI machine, and autotune makes such operands for every plan it tunes).
 */
export function randomScratchBytes(
  element: ElementKind,
  count: number,
  words: () => number = xorshift32(Math.floor(Math.random() * 0xffffffff) + 1),
): Uint8Array {
  switch (element) {
    case ElementKind.F64: {
      const a = new Float64Array(count);
      for (let i = 0; i < count; i++) a[i] = words() / 2 ** 31 - 1;
      return new Uint8Array(a.buffer);
    }
    case ElementKind.F32: {
      const a = new Float32Array(count);
      for (let i = 0; i < count; i++) a[i] = words() / 2 ** 31 - 1;
      return new Uint8Array(a.buffer);
    }
    case ElementKind.F16:
    case ElementKind.Bf16: {
      // f16: sign, exponent 13 or 14 (2^-2 .. 2^-1), 10 mantissa bits; bf16: the top half of an
      // f32 with exponent 125 or 126, 7 mantissa bits. 16 random bits a value.
      const half = element === ElementKind.F16 ? f16FromBits : bf16FromBits;
      const a = new Uint16Array(count);
      for (let i = 0; i + 1 < count; i += 2) {
        const r = words();
        a[i] = half(r & 0xffff);
        a[i + 1] = half(r >>> 16);
      }
      if (count % 2 === 1) a[count - 1] = half(words() & 0xffff);
      return new Uint8Array(a.buffer);
    }
    default:
      throw new InvalidArgumentError('element', 'an ElementKind', element);
  }
}

/** 16 random bits as an f16 of magnitude in [0.25, 1): bit 15 the sign, bit 10 the exponent. */
function f16FromBits(bits: number): number {
  return (bits & 0x8000) | ((13 + ((bits >>> 10) & 1)) << 10) | (bits & 0x3ff);
}

/** 16 random bits as a bf16 of magnitude in [0.25, 1): bit 15 the sign, bit 7 the exponent. */
function bf16FromBits(bits: number): number {
  return (bits & 0x8000) | ((125 + ((bits >>> 7) & 1)) << 7) | (bits & 0x7f);
}

/** Marsaglia's xorshift32 from a non-zero seed: 32 random bits (an unsigned integer) a call. */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/**
 * How much faster than the best engine a detour (backward-data as a forward pass) must time to be
 * taken: it adds a kernel and a scratch filter, and within 2% the two trade places from run to
 * run (c3d-conv2 f16/bf16 NCDHW on an H200: the detour timed 0.6% faster in one autotune and
 * 1.7% slower in the next benchmark, runs 37 and 39).
 */
export const DETOUR_MIN_GAIN = 0.02;

/** Whether a detour timed `detourMs` replaces the best engine's `bestMs` (see {@link DETOUR_MIN_GAIN}). */
export function detourWins(detourMs: number, bestMs: number, minGain = DETOUR_MIN_GAIN): boolean {
  if (!Number.isFinite(detourMs)) return false;
  if (!Number.isFinite(bestMs)) return true;
  return detourMs < bestMs - Math.abs(bestMs) * minGain;
}

/**
 * Whether an engine config is one of cuDNN's reference engines: those noted STRICT_NAN_PROP (they
 * propagate NaN exactly as the definition does), built for exact semantics, not for speed. On an
 * H200 (cuDNN 9.19, run 68) engine 0, the one so noted, was never the fastest config of a pass
 * and took 5.5 s a call on VideoMAE's patch backward-data (f16 and f32, offered second by mode A)
 * and 0.88 s on the I3D stem's: the quick tune does not time it as a challenger, and autotune
 * times it only when nothing else ran (see {@link surveyStillBuilds}).
 */
export function isReferenceEngine(notes: readonly string[]): boolean {
  return notes.includes('STRICT_NAN_PROP');
}

/**
 * Autotune builds a config that compiles its kernels at run time (its engine notes
 * RUNTIME_COMPILATION: 0.3-0.65 s a build on an H200, run 91, against about a millisecond for a
 * precompiled one) only when no precompiled config ran, or when the fastest so far takes at least
 * this long a run, so that a gain of a few per cent repays the build within some thousands of
 * calls. On the suite's autotuned rows (run 87-88) no such config was ever chosen, yet each pass
 * built one to three of them: 1.3-5.3 s of a group's time to a plan (run 91).
 */
export const COMPILED_CONFIG_WORTH_MS = 1;

/**
 * Whether the survey still builds `c` (a reference engine, or one that compiles at run time),
 * given the fastest time so far (Infinity when nothing ran): cuDNN's reference engines only when
 * nothing else ran (their warm-up runs took 0.15-27 s on the suite's layers, run 91, and they were
 * never the fastest), the compiled ones as {@link COMPILED_CONFIG_WORTH_MS} says.
 */
export function surveyStillBuilds(
  c: { readonly notes: readonly string[]; readonly compilesAtRunTime?: boolean },
  fastestMs: number,
): boolean {
  if (!Number.isFinite(fastestMs)) return true;
  if (isReferenceEngine(c.notes)) return false;
  return c.compilesAtRunTime !== true || fastestMs >= COMPILED_CONFIG_WORTH_MS;
}
