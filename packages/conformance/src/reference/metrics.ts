import { InvalidArgumentError } from '@baracuda/types';

function checkArrayLike(value: unknown, name: string): ArrayLike<number> {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as ArrayLike<number>).length !== 'number'
  ) {
    throw new InvalidArgumentError(name, 'an array or typed array of numbers', value);
  }
  return value as ArrayLike<number>;
}

/**
 * Relative L2 error `‖got − ref‖₂ / ‖ref‖₂`.
 *
 * - Any NaN or ±Infinity in `got` (a poisoned or overflowed output) gives `Infinity`.
 * - When `ref` is all zeros the absolute norm `‖got‖₂` is returned instead.
 * - Sums are scaled by the largest magnitude so huge values do not overflow.
 */
export function relL2(got: ArrayLike<number>, ref: ArrayLike<number>): number {
  const a = checkArrayLike(got, 'got');
  const b = checkArrayLike(ref, 'ref');
  if (a.length !== b.length) {
    throw new InvalidArgumentError('got', `an array of length ${b.length} (as ref)`, got);
  }
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    const g = a[i]!;
    if (!Number.isFinite(g)) return Number.POSITIVE_INFINITY;
    const r = b[i]!;
    const m = Math.max(Math.abs(g), Math.abs(r));
    if (m > scale) scale = m;
  }
  if (scale === 0) return 0;
  if (!Number.isFinite(scale)) return Number.POSITIVE_INFINITY;
  const inv = 1 / scale;
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < a.length; i++) {
    const g = a[i]! * inv;
    const r = b[i]! * inv;
    diff += (g - r) * (g - r);
    norm += r * r;
  }
  if (norm === 0) return Math.sqrt(diff) * scale;
  return Math.sqrt(diff / norm);
}

/** Largest `|got[i] − ref[i]|`; NaN in `got` gives `Infinity`. */
export function maxAbsDiff(got: ArrayLike<number>, ref: ArrayLike<number>): number {
  const a = checkArrayLike(got, 'got');
  const b = checkArrayLike(ref, 'ref');
  if (a.length !== b.length) {
    throw new InvalidArgumentError('got', `an array of length ${b.length} (as ref)`, got);
  }
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (Number.isNaN(d)) return Number.POSITIVE_INFINITY;
    if (d > worst) worst = d;
  }
  return worst;
}

/** Σ a[i]·b[i] in f64, for adjoint checks. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkArrayLike(a, 'a');
  checkArrayLike(b, 'b');
  if (a.length !== b.length) {
    throw new InvalidArgumentError('b', `an array of length ${a.length} (as a)`, b);
  }
  let acc = 0;
  for (let i = 0; i < a.length; i++) acc += a[i]! * b[i]!;
  return acc;
}

/**
 * How far inner products that should be equal disagree (the adjoint identity ⟨fw(x,w),dy⟩ =
 * ⟨x,bwData(dy,w)⟩ = ⟨w,bwFilter(x,dy)⟩), relative to the size of their terms, the largest
 * Σ|aᵢ·bᵢ|: random signs can cancel a sum to nearly nothing, and its rounding error with it does
 * not shrink. Returns the inner products too.
 */
export function adjointMismatch(
  pairs: readonly (readonly [ArrayLike<number>, ArrayLike<number>])[],
): { products: number[]; mismatch: number } {
  if (!Array.isArray(pairs) || pairs.length === 0) {
    throw new InvalidArgumentError('pairs', 'a non-empty array of [a, b] pairs', pairs);
  }
  pairs.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new InvalidArgumentError(`pairs[${i}]`, 'a pair [a, b] of equal-length arrays', pair);
    }
  });
  const products = pairs.map(([a, b]) => dot(a, b));
  let scale = 0;
  for (const [a, b] of pairs) {
    let terms = 0;
    for (let i = 0; i < a.length; i++) terms += Math.abs(a[i]! * b[i]!);
    scale = Math.max(scale, terms);
  }
  const spread = Math.max(...products.map((p) => Math.abs(p - products[0]!)));
  return { products, mismatch: scale > 0 ? spread / scale : spread };
}
