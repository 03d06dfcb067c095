/**
 * Pure selection policy: which engines and legacy algorithms a preference allows,
 * and what precision they give. No cuDNN calls here, so CI tests it.
 */
import {
  ElementKind,
  expectBoolean,
  expectFiniteNumber,
  expectInteger,
  expectOneOf,
  InvalidArgumentError,
} from '@baracuda/types';
import { CONV_ELEMENTS, expectObject, expectStrings } from './checks.js';
import type { MathPrecision, ResolvedPlanPreference } from './compat.js';

/** cudnnBackendNumericalNote_t names, in enum order (cuDNN 9 values 0..9). */
export const NUMERICAL_NOTE_NAMES = [
  'TENSOR_CORE',
  'DOWN_CONVERT_INPUTS',
  'REDUCED_PRECISION_REDUCTION',
  'FFT',
  'NONDETERMINISTIC',
  'WINOGRAD',
  'WINOGRAD_TILE_4x4',
  'WINOGRAD_TILE_6x6',
  'WINOGRAD_TILE_13x13',
  'STRICT_NAN_PROP',
] as const;
export type NumericalNote = (typeof NUMERICAL_NOTE_NAMES)[number];

/** Name of a numerical-note enum value (`NOTE_<n>` for one this table does not know). */
export function numericalNoteName(value: number): string {
  expectInteger('value', value, { min: 0 });
  return NUMERICAL_NOTE_NAMES[value] ?? `NOTE_${value}`;
}

/** cudnnBackendKnobType_t names, in enum order (cuDNN 9 values 0..36). */
export const KNOB_NAMES = [
  'SPLIT_K',
  'SWIZZLE',
  'TILE_SIZE',
  'USE_TEX',
  'EDGE',
  'KBLOCK',
  'LDGA',
  'LDGB',
  'CHUNK_K',
  'SPLIT_H',
  'WINO_TILE',
  'MULTIPLY',
  'SPLIT_K_BUF',
  'TILEK',
  'STAGES',
  'REDUCTION_MODE',
  'CTA_SPLIT_K_MODE',
  'SPLIT_K_SLC',
  'IDX_MODE',
  'SLICED',
  'SPLIT_RS',
  'SINGLEBUFFER',
  'LDGC',
  'SPECFILT',
  'KERNEL_CFG',
  'WORKSPACE',
  'TILE_CGA',
  'TILE_CGA_M',
  'TILE_CGA_N',
  'BLOCK_SIZE',
  'OCCUPANCY',
  'ARRAY_SIZE_PER_THREAD',
  'NUM_C_PER_BLOCK',
  'SPLIT_COLS',
  'TILE_ROWS',
  'TILE_COLS',
  'LOAD_SIZE',
] as const;

/**
 * How an engine config is named to users: `engine 0` or `engine 0 (TILE_SIZE=1 EDGE=0)`, knob
 * types by their cuDNN names (`KNOB_<n>` for one this table does not know).
 */
export function engineName(
  engineIndex: number,
  knobs: readonly (readonly [number, number])[],
): string {
  if (knobs.length === 0) return `engine ${engineIndex}`;
  const choices = knobs.map(([k, v]) => `${KNOB_NAMES[k] ?? `KNOB_${k}`}=${v}`);
  return `engine ${engineIndex} (${choices.join(' ')})`;
}

/** The floor of the `'auto'` workspace limit: 1 GiB, the fixed default before `'auto'`. */
export const AUTO_WORKSPACE_FLOOR_BYTES = 2 ** 30;

/**
 * The workspace limit `'auto'` stands for: the larger of {@link AUTO_WORKSPACE_FLOOR_BYTES} and
 * twice the bytes of the problem's tensors (cuDNN's NCDHW tensor-core engines stage transposed
 * copies of the activations in their workspace: 1,024.1 MiB for a 2×32×128³ TF32 problem whose x
 * and y are 512 MiB each), but at most half of `freeBytes`, the device memory free at selection
 * (undefined: not known, no cap).
 */
export function autoWorkspaceLimit(tensorBytes: number, freeBytes: number | undefined): number {
  const wanted = Math.max(AUTO_WORKSPACE_FLOOR_BYTES, 2 * tensorBytes);
  return freeBytes === undefined ? wanted : Math.min(wanted, Math.floor(freeBytes / 2));
}

/** A byte count for a message: `512.0 MiB`. */
export function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** The part of a preference that filters engines. */
export type EngineFilter = Pick<ResolvedPlanPreference, 'deterministic' | 'allowTf32'>;

/**
 * Whether an engine with these numerical notes may serve the preference. Same rules as
 * PyTorch's `filterEngineConfigs` (Conv_v8.cpp): nondeterministic engines go when determinism
 * is asked for; engines that down-convert their inputs always go; for f32 data, tensor-core
 * engines (TF32) go unless `allowTf32`.
 * @returns null when allowed, else the reason.
 */
export function engineRejection(
  notes: readonly string[],
  preference: EngineFilter,
  element: ElementKind,
): string | null {
  checkNotes(notes);
  const { deterministic, allowTf32 } = engineFilter(preference);
  checkElement(element);
  if (deterministic && notes.includes('NONDETERMINISTIC')) {
    return 'nondeterministic (numerical note NONDETERMINISTIC) while determinism was asked for';
  }
  if (notes.includes('DOWN_CONVERT_INPUTS')) {
    return 'down-converts its inputs (numerical note DOWN_CONVERT_INPUTS)';
  }
  if (element === ElementKind.F32 && !allowTf32 && notes.includes('TENSOR_CORE')) {
    return 'uses TF32 tensor cores on f32 data (numerical note TENSOR_CORE) while allowTf32 is false';
  }
  return null;
}

/** Numerical-note names as {@link numericalNoteName} gives them, checked. */
function checkNotes(notes: unknown): readonly string[] {
  return expectStrings(
    'notes',
    notes,
    'an array of numerical-note names',
    'a numerical-note name (one of NUMERICAL_NOTE_NAMES, or NOTE_<n>)',
    (s) => (NUMERICAL_NOTE_NAMES as readonly string[]).includes(s) || /^NOTE_\d+$/.test(s),
  );
}

/** A convolution's element kind: f16, bf16, f32 or f64. */
function checkElement(element: unknown): ElementKind {
  return expectOneOf('element', element, CONV_ELEMENTS);
}

/** The preference's two engine flags, checked. */
function engineFilter(preference: unknown): EngineFilter {
  const p = expectObject(
    'preference',
    preference,
    'a preference object {deterministic, allowTf32}',
  );
  return {
    deterministic: expectBoolean('preference.deterministic', p.deterministic),
    allowTf32: expectBoolean('preference.allowTf32', p.allowTf32),
  };
}

/** True when `engineRejection` has no objection. */
export function engineAllowed(
  notes: readonly string[],
  preference: EngineFilter,
  element: ElementKind,
): boolean {
  return engineRejection(notes, preference, element) === null;
}

/** The math precision an engine with these notes gives for an element. */
export function mathPrecisionOfEngine(
  notes: readonly string[],
  element: ElementKind,
): MathPrecision {
  checkNotes(notes);
  const tf32 = notes.includes('TENSOR_CORE') || notes.includes('DOWN_CONVERT_INPUTS');
  return intendedMathPrecision(element, tf32);
}

/**
 * The math precision a preference intends, before any engine is chosen (and the precision of an
 * engine or algorithm that does, or does not, use TF32 on f32 data).
 */
export function intendedMathPrecision(element: ElementKind, allowTf32: boolean): MathPrecision {
  checkElement(element);
  expectBoolean('allowTf32', allowTf32);
  switch (element) {
    case ElementKind.F64:
      return 'f64';
    case ElementKind.F16:
      return 'f16';
    case ElementKind.Bf16:
      return 'bf16';
    default:
      return allowTf32 ? 'tf32' : 'f32';
  }
}

/** cudnnMathType_t values (cuDNN 9). */
export const MathType = {
  DEFAULT: 0,
  TENSOR_OP: 1,
  TENSOR_OP_ALLOW_CONVERSION: 2,
  FMA: 3,
} as const;

/**
 * The legacy math type of the pinned path: f16/bf16 tensor-op math, f32 strict FMA math,
 * f32 with TF32 default math, f64 default math.
 */
export function pinnedMathType(element: ElementKind, allowTf32: boolean): number {
  checkElement(element);
  expectBoolean('allowTf32', allowTf32);
  switch (element) {
    case ElementKind.F16:
    case ElementKind.Bf16:
      return MathType.TENSOR_OP;
    case ElementKind.F32:
      return allowTf32 ? MathType.DEFAULT : MathType.FMA;
    default:
      return MathType.DEFAULT;
  }
}

/** A perf result of cudnnGetConvolution*Algorithm_v7, as cudnn-sys marshals it. */
export interface LegacyPerf {
  algo: number;
  status: number;
  time?: number;
  memory: number | bigint;
  determinism: number;
  mathType: number;
}

/**
 * Pick the first legacy algorithm that succeeded, fits the workspace budget, and meets
 * determinism and math rules (strict f32 takes only FMA math: DEFAULT may use TF32 on sm80+).
 */
export function pickLegacyAlgorithm(
  perfs: readonly LegacyPerf[],
  preference: Pick<ResolvedPlanPreference, 'deterministic' | 'allowTf32' | 'maxWorkspaceBytes'>,
  element: ElementKind,
): LegacyPerf | null {
  if (!Array.isArray(perfs)) {
    throw new InvalidArgumentError('perfs', 'an array of cuDNN algorithm perf results', perfs);
  }
  const { deterministic, allowTf32 } = engineFilter(preference);
  const limit = expectFiniteNumber('preference.maxWorkspaceBytes', preference.maxWorkspaceBytes, {
    min: 0,
  });
  checkElement(element);
  for (let i = 0; i < perfs.length; i++) {
    const p = expectObject(
      `perfs[${i}]`,
      perfs[i],
      'a perf result {algo, status, memory, determinism, mathType}',
    ) as unknown as LegacyPerf;
    if (p.status !== 0) continue;
    if (!(Number(p.memory) <= limit)) continue;
    if (deterministic && p.determinism !== 1) continue;
    if (element === ElementKind.F32 && !allowTf32 && p.mathType !== MathType.FMA) {
      continue;
    }
    if (p.mathType === MathType.TENSOR_OP_ALLOW_CONVERSION) continue;
    return p;
  }
  return null;
}

/** The math precision a legacy math type gives for an element (DEFAULT on f32 may be TF32). */
export function mathPrecisionOfLegacy(mathType: number, element: ElementKind): MathPrecision {
  return intendedMathPrecision(element, mathType !== MathType.FMA);
}

/** Byte alignment class of a run: 16 when every pointer is 16-byte aligned, else the element size. */
export function alignmentClass(pointers: readonly bigint[], elementBytes: number): number {
  for (const p of pointers) {
    if (p !== 0n && p % 16n !== 0n) return elementBytes;
  }
  return 16;
}

/** A knob's range as an engine reports it (cuDNN's knob info): `min..max` in steps of `stride`. */
export interface KnobRange {
  readonly knob: number;
  readonly min: number;
  readonly max: number;
  readonly stride: number;
}

/** Knobs that pick a split-K or split reduction: left alone when determinism is asked for. */
export const REDUCTION_KNOBS: ReadonlySet<number> = new Set(
  ['SPLIT_K', 'SPLIT_K_BUF', 'REDUCTION_MODE', 'CTA_SPLIT_K_MODE', 'SPLIT_K_SLC', 'SPLIT_RS'].map(
    (name) => KNOB_NAMES.indexOf(name as (typeof KNOB_NAMES)[number]),
  ),
);

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
 * How many runs autotune times a finalist over, each between its own pair of events: enough to
 * fill about `windowMs` at `estimateMs` a run, at least `min` and at most `max` (`min` without
 * an estimate).
 */
export function tuneReps(estimateMs: number, min: number, max: number, windowMs: number): number {
  if (!(estimateMs > 0) || !Number.isFinite(estimateMs)) return min;
  return Math.max(min, Math.min(max, Math.ceil(windowMs / estimateMs)));
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
 * f16 and bf16 with magnitudes in [0.25, 1).
 */
export function randomScratchBytes(
  element: ElementKind,
  count: number,
  random: () => number = Math.random,
): Uint8Array {
  switch (element) {
    case ElementKind.F64: {
      const a = new Float64Array(count);
      for (let i = 0; i < count; i++) a[i] = random() * 2 - 1;
      return new Uint8Array(a.buffer);
    }
    case ElementKind.F32: {
      const a = new Float32Array(count);
      for (let i = 0; i < count; i++) a[i] = random() * 2 - 1;
      return new Uint8Array(a.buffer);
    }
    case ElementKind.F16: {
      const a = new Uint16Array(count);
      for (let i = 0; i < count; i++) {
        const sign = random() < 0.5 ? 0x8000 : 0;
        const exponent = random() < 0.5 ? 13 : 14; // 2^-2 .. 2^-1
        a[i] = sign | (exponent << 10) | Math.floor(random() * 1024);
      }
      return new Uint8Array(a.buffer);
    }
    default: {
      // bf16: the top half of an f32 with exponent 125 or 126.
      const a = new Uint16Array(count);
      for (let i = 0; i < count; i++) {
        const sign = random() < 0.5 ? 0x8000 : 0;
        const exponent = random() < 0.5 ? 125 : 126;
        a[i] = sign | (exponent << 7) | Math.floor(random() * 128);
      }
      return new Uint8Array(a.buffer);
    }
  }
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
