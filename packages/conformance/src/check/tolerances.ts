/**
 * Relative-L2 tolerances, one per checked precision, with the reasoning.
 *
 * Every GPU result is compared with an f64 reference computed from the *rounded* inputs
 * (the exact values the GPU received), so input rounding never counts as error. What remains
 * is the kernel's own arithmetic: the math precision of its products, the precision of its
 * accumulator, and the final rounding of the output to the storage type.
 *
 * Notation: u = unit roundoff of a format (2^-24 for f32, 2^-53 for f64, 2^-11 for f16,
 * 2^-8 for bf16, 2^-11 for TF32's 10-bit mantissa); K = the reduction length of one output
 * (cIn/groups × kd×kh×kw for forward, more for backward-filter: N×D×H×W). Inputs are
 * uniform in [-1, 1] with random signs, so rounding errors add like a random walk: the
 * relative L2 error grows like u·√K·c with c ≈ 1, far below the worst-case bound u·K.
 */

/**
 * The precisions `check` knows: f32 strict, f32 with TF32 tensor cores allowed, f32 as three TF32
 * products (`math: '3xtf32'`), f64, f16, bf16.
 */
export type CheckDtype = 'f32' | 'tf32' | '3xtf32' | 'f64' | 'f16' | 'bf16';

/** Every CheckDtype, in the order the table prints them. */
export const CHECK_DTYPES: readonly CheckDtype[] = ['f32', 'tf32', '3xtf32', 'f64', 'f16', 'bf16'];

/**
 * The dtypes a check runs when none are named: all but `3xtf32`, an opt-in math mode asked for
 * by name (`--dtypes 3xtf32`).
 */
export const DEFAULT_CHECK_DTYPES: readonly CheckDtype[] = ['f32', 'tf32', 'f64', 'f16', 'bf16'];

/**
 * Whether a case limited to `allowed` dtypes (undefined: all) runs `dtype`: `3xtf32` wherever
 * f32 does.
 */
export function dtypeAllowed(
  allowed: readonly CheckDtype[] | undefined,
  dtype: CheckDtype,
): boolean {
  if (allowed === undefined || allowed.includes(dtype)) return true;
  return dtype === '3xtf32' && allowed.includes('f32');
}

/** Whether `dtype` has rows in `algorithm`: `3xtf32` has none pinned (the preference refuses it). */
export function algorithmAllowed(dtype: CheckDtype, algorithm: string): boolean {
  return dtype !== '3xtf32' || algorithm !== 'pinned';
}

/** One row of the tolerance table. */
export interface Tolerance {
  readonly dtype: CheckDtype;
  /** Largest accepted relative L2 error `‖got − ref‖₂ / ‖ref‖₂`. */
  readonly relL2: number;
  /** Why this number, in one paragraph. */
  readonly reasoning: string;
}

/** The documented tolerances. README.md prints the same table. */
export const TOLERANCES: Readonly<Record<CheckDtype, Tolerance>> = {
  f64: {
    dtype: 'f64',
    relL2: 1e-12,
    reasoning:
      'f64 math and accumulator, u = 2^-53 ≈ 1.1e-16. Even at K = 10^6 the random-walk error ' +
      'u·√K ≈ 1.1e-13; 1e-12 leaves a 10× margin and still catches any f32 down-conversion ' +
      '(which would show as ≈ 1e-7).',
  },
  f32: {
    dtype: 'f32',
    relL2: 1e-5,
    reasoning:
      'Strict f32: f32 products and f32 accumulator, u = 2^-24 ≈ 6e-8. For the largest reduction ' +
      'in the default suites (K ≈ 10^4) u·√K ≈ 6e-6, under 1e-5. A TF32 engine slipping into a ' +
      'strict plan gives ≈ 3e-4 and fails, which is the point of this row.',
  },
  '3xtf32': {
    dtype: '3xtf32',
    relL2: 1e-5,
    reasoning:
      "Held to strict f32's bound: each input is split into TF32 parts with |a - hi - lo| <= " +
      '2^-22 |a|, and hi·hi + hi·lo + lo·hi is summed in f32; the dropped lo·lo term is about ' +
      '2^-24 of a product, so the error is the f32 accumulation (u·√K ≈ 6e-6 at K ≈ 10^4) plus ' +
      'about 1e-7. One product left in plain TF32 gives ≈ 3e-4 and fails.',
  },
  tf32: {
    dtype: 'tf32',
    relL2: 5e-3,
    reasoning:
      'TF32 tensor cores round both factors to a 10-bit mantissa (u = 2^-11 ≈ 4.9e-4) and ' +
      'accumulate in f32. Each product carries up to 2u relative error, random in sign, so the ' +
      'relative L2 error is ≈ 2u/√3 ≈ 5.6e-4 regardless of K; 5e-3 is a ~10× margin.',
  },
  f16: {
    dtype: 'f16',
    relL2: 5e-3,
    reasoning:
      'f16 inputs are exact in the tensor cores; products are exact in the f32 accumulator; the ' +
      'accumulation adds ≈ 6e-8·√K. The output is rounded to f16 (u = 2^-11): uniform rounding ' +
      'error gives relative L2 ≈ u/√3 ≈ 2.8e-4. 5e-3 is a >10× margin that still fails any ' +
      'wrong tap, missing channel or bf16-style truncation.',
  },
  bf16: {
    dtype: 'bf16',
    relL2: 3e-2,
    reasoning:
      'As f16 but the output is rounded to bf16 (u = 2^-8 ≈ 3.9e-3), giving relative L2 ≈ ' +
      'u/√3 ≈ 2.3e-3. Engines that keep intermediate results in bf16 (split-K partial sums) can ' +
      'double or triple that; 3e-2 stays ~10× above it while a single wrong output channel ' +
      'among 32 already costs ≈ 0.25.',
  },
};

/** Tolerance of a dtype. */
export function toleranceFor(dtype: CheckDtype): number {
  return TOLERANCES[dtype].relL2;
}

/**
 * Bound for the adjoint identity ⟨fw(x,w),dy⟩ = ⟨x,bwData(dy,w)⟩ = ⟨w,bwFilter(x,dy)⟩ on f64
 * GPU results: each inner product is a sum of ≈ elements·K f64 roundings of random sign.
 */
export const ADJOINT_TOLERANCE = 1e-10;

/** The storage element of each dtype (`tf32` and `3xtf32` are stored as f32). */
export function storageElement(dtype: CheckDtype): 'f32' | 'f64' | 'f16' | 'bf16' {
  return dtype === 'tf32' || dtype === '3xtf32' ? 'f32' : dtype;
}

/** Bytes per stored element. */
export function elementBytes(dtype: CheckDtype): 2 | 4 | 8 {
  switch (storageElement(dtype)) {
    case 'f64':
      return 8;
    case 'f32':
      return 4;
    default:
      return 2;
  }
}
