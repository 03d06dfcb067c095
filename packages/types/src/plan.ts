/** What a caller asks of plan selection, and the workspace handed to a run call. */
import { InvalidArgumentError } from './errors.js';
import { BackendKind } from './sku.js';
import { DEVICE_SLICE_EXPECTED, type DeviceSlice, isDeviceSlice } from './tensor.js';
import { expectBoolean, expectOneOf } from './validate.js';

/** How a plan picks its algorithm. */
export type PlanAlgorithm = 'heuristic' | 'autotune' | 'pinned';

/** Every {@link PlanAlgorithm}, in the order error messages list them. */
export const PLAN_ALGORITHMS: readonly PlanAlgorithm[] = Object.freeze([
  'heuristic',
  'autotune',
  'pinned',
]);

/**
 * How an f32 problem does its multiplies (see {@link PlanPreference.math}): `'default'` as
 * `allowTf32` says (strict f32, or TF32), `'3xtf32'` on TF32 tensor cores to nearly strict f32.
 */
export type PlanMath = 'default' | '3xtf32';

/** Every {@link PlanMath}, in the order error messages list them. */
export const PLAN_MATHS: readonly PlanMath[] = Object.freeze(['default', '3xtf32']);

/** Hints for plan selection. Pass a partial object; {@link resolvePlanPreference} fills the rest. */
export interface PlanPreference {
  /**
   * The most workspace, in bytes, the caller will provide. Algorithms that need more are not
   * considered. `0` allows only workspace-free algorithms; `Number.MAX_SAFE_INTEGER` lifts the cap.
   * `'auto'` lets the backend size it per problem when the plan is selected (conv3d: the larger of
   * 1 GiB and twice the bytes of the problem's three tensors, and at most half the device memory
   * free at selection), because the fastest engines on large volumes stage transposed copies of
   * the activations in their workspace. Defaults to `'auto'`.
   */
  readonly maxWorkspaceBytes: number | 'auto';
  /**
   * `'heuristic'`: take the library's first heuristic choice that fits (fast, no GPU time).
   * `'autotune'`: time the candidates on the GPU at selection and keep the fastest.
   * `'pinned'`: use the kernel's fixed, documented algorithms (for conv3d, the seed crate's legacy
   * cuDNN algorithms), and fail with `UnsupportedError` rather than fall back. Slow; kept for parity.
   * Defaults to `'heuristic'`.
   */
  readonly algorithm: PlanAlgorithm;
  /** Only consider algorithms that give bit-identical results run after run. Defaults to `false`. */
  readonly deterministic: boolean;
  /**
   * Allow f32 problems to run their multiplies in TF32 tensor cores (10-bit mantissa), as
   * PyTorch's `allow_tf32` does. Defaults to `false`.
   */
  readonly allowTf32: boolean;
  /**
   * `'default'`: the element kind's own math (for f32: strict, or TF32 with `allowTf32`).
   * `'3xtf32'` (f32 problems only, opt in): each f32 input operand is split into a TF32 high
   * part and a TF32 remainder, and three TF32 tensor-core products (hi·hi, hi·lo, lo·hi) are
   * accumulated in f32 into the output: close to strict f32 (math precision
   * {@link MathPrecision} `'tf32x3'`) at tensor-core speed, for three convolutions' time plus
   * the split, and plan-owned scratch of the two split inputs (twice their bytes). Needs
   * `allowTf32: false` (the two ask for different math) and algorithm `'heuristic'` or
   * `'autotune'` (the pinned algorithms are the seed's strict-f32 ones). A problem of another
   * element kind is refused at select. Defaults to `'default'`.
   */
  readonly math: PlanMath;
  /**
   * Insist on one backend; selection fails with `UnsupportedError` if it has no kernel for the
   * problem. Defaults to `undefined` (automatic).
   */
  readonly preferBackend: BackendKind | undefined;
}

/** The preference used when none is given. Frozen. */
export const DEFAULT_PLAN_PREFERENCE: PlanPreference = Object.freeze({
  maxWorkspaceBytes: 'auto',
  algorithm: 'heuristic',
  deterministic: false,
  allowTf32: false,
  math: 'default',
  preferBackend: undefined,
});

const PREFERENCE_KEYS = Object.freeze(
  Object.keys(DEFAULT_PLAN_PREFERENCE) as (keyof PlanPreference)[],
);
const BACKEND_KINDS: readonly BackendKind[] = Object.freeze(Object.values(BackendKind));

/**
 * Fill a partial preference with the defaults and check every field, returning a frozen
 * {@link PlanPreference}. A key set to `undefined` takes its default. Throws
 * `InvalidArgumentError` for an unknown key, a `maxWorkspaceBytes` that is neither `'auto'` nor a
 * non-negative integer, an unknown algorithm, math or backend, a flag that is not a boolean, or
 * math `'3xtf32'` with `allowTf32: true` or algorithm `'pinned'`.
 */
export function resolvePlanPreference(partial?: Partial<PlanPreference>): PlanPreference {
  if (partial === undefined) return DEFAULT_PLAN_PREFERENCE;
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) {
    throw new InvalidArgumentError('preference', 'an object or undefined', partial);
  }
  for (const key of Object.keys(partial)) expectOneOf('preference key', key, PREFERENCE_KEYS);
  const pick = <K extends keyof PlanPreference>(key: K): unknown =>
    partial[key] === undefined ? DEFAULT_PLAN_PREFERENCE[key] : partial[key];
  const preferBackend = pick('preferBackend');
  const algorithm = expectOneOf('algorithm', pick('algorithm'), PLAN_ALGORITHMS);
  const allowTf32 = expectBoolean('allowTf32', pick('allowTf32'));
  const math = expectOneOf('math', pick('math'), PLAN_MATHS);
  if (math === '3xtf32' && allowTf32) {
    throw new InvalidArgumentError('allowTf32', "false with math '3xtf32'", allowTf32);
  }
  if (math === '3xtf32' && algorithm === 'pinned') {
    throw new InvalidArgumentError(
      'algorithm',
      "'heuristic' or 'autotune' with math '3xtf32'",
      algorithm,
    );
  }
  return Object.freeze({
    maxWorkspaceBytes: expectWorkspaceLimit(pick('maxWorkspaceBytes')),
    algorithm,
    deterministic: expectBoolean('deterministic', pick('deterministic')),
    allowTf32,
    math,
    preferBackend:
      preferBackend === undefined
        ? undefined
        : expectOneOf('preferBackend', preferBackend, BACKEND_KINDS),
  });
}

/** `'auto'`, or a non-negative safe integer. */
function expectWorkspaceLimit(value: unknown): number | 'auto' {
  if (value === 'auto') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new InvalidArgumentError('maxWorkspaceBytes', "'auto' or a non-negative integer", value);
}

/**
 * Scratch device memory for a run call: none, or a slice the caller owns and keeps alive until
 * the work on the stream is done.
 */
export type Workspace =
  | { readonly kind: 'none' }
  | { readonly kind: 'borrowed'; readonly slice: DeviceSlice };

const NO_WORKSPACE: Workspace = Object.freeze({ kind: 'none' });

/** Constructors for {@link Workspace}. */
export const Workspace = Object.freeze({
  /** No workspace: only workspace-free algorithms can run. */
  none(): Workspace {
    return NO_WORKSPACE;
  },
  /** Borrow `slice` as workspace. Throws `InvalidArgumentError` if it is not a DeviceSlice. */
  borrowed(slice: DeviceSlice): Workspace {
    if (!isDeviceSlice(slice))
      throw new InvalidArgumentError('slice', DEVICE_SLICE_EXPECTED, slice);
    return Object.freeze({ kind: 'borrowed', slice });
  },
});

/** Bytes a workspace provides: 0 for none, the slice's length when borrowed. */
export function workspaceBytes(workspace: Workspace): number {
  if (typeof workspace === 'object' && workspace !== null) {
    if (workspace.kind === 'none') return 0;
    if (workspace.kind === 'borrowed' && isDeviceSlice(workspace.slice)) {
      return workspace.slice.byteLength;
    }
  }
  throw new InvalidArgumentError(
    'workspace',
    'a Workspace (Workspace.none() or Workspace.borrowed(slice))',
    workspace,
  );
}
