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
import { KNOB_NAMES } from './knob-names.js';

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

export { KNOB_NAMES };

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

// Autotune's arithmetic lives in tuning.ts; its names stay importable from here.
export {
  DETOUR_MIN_GAIN,
  detourWins,
  fastestIndices,
  type KnobRange,
  knobNeighbours,
  MAX_ROTATION_SETS,
  median,
  nextSearchBases,
  REDUCTION_KNOBS,
  ROTATE_BELOW_BYTES,
  randomScratchBytes,
  rotationSets,
  tuneFinalists,
  tuneGiveUpMs,
  tuneReps,
  tuneRotationSets,
  xorshift32,
} from './tuning.js';
