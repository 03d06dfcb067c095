/**
 * Division by a divisor known at launch, as the transform kernels do it: a multiply-high and a
 * shift instead of a 32-bit integer division (a chain of ~20 instructions per quotient on the
 * GPU, run 5-8 times per element moved).
 *
 * The method (Granlund and Montgomery): for a divisor d > 1 and numerators n < 2^31, let
 * l = ceil(log2 d), p = 31 + l and m = ceil(2^p / d). Then m·d = 2^p + e with 0 ≤ e < d ≤ 2^l, so
 * n·m / 2^p = n/d + n·e/(d·2^p), and the error term is below 2^31·2^l/(d·2^p) = 1/d: it never
 * carries n/d past the next integer, hence floor(n·m / 2^p) = floor(n / d). m < 2^32 (m = 2^31
 * for a power of two; otherwise d > 2^(l-1) strictly), so on the GPU the quotient is
 * `__umulhi(n, m) >> (l - 1)`. d = 1 has no 32-bit m (it would be 2^31 with a shift of -1): the
 * kernels take n itself there.
 * @internal
 */

/** The largest numerator the magic numbers are exact for (the 32-bit path's bound). */
export const FAST_DIVISION_MAX_NUMERATOR = 2 ** 31 - 1;

/**
 * The divisor's packed magic number for the kernels: m in the low 32 bits, the shift l − 1 in
 * the high 32. 0 for d = 1 and for divisors the 32-bit path never sees (d ≥ 2^31), where the
 * kernels divide without it.
 */
export function fastDivisor(d: number): bigint {
  if (!Number.isInteger(d) || d < 1) throw new RangeError(`No fast division by ${d}`);
  if (d === 1 || d > FAST_DIVISION_MAX_NUMERATOR) return 0n;
  const l = 32 - Math.clz32(d - 1);
  const p = BigInt(31 + l);
  const m = ((1n << p) + BigInt(d) - 1n) / BigInt(d);
  return m | (BigInt(l - 1) << 32n);
}

/** floor(n / d) as the kernels compute it from `fastDivisor(d)` (n ≤ 2^31 − 1). */
export function fastQuotient(n: number, d: number, magic: bigint): number {
  if (d === 1) return n;
  const m = magic & 0xffffffffn;
  const shift = magic >> 32n;
  // __umulhi(n, m): the high 32 bits of the 64-bit product.
  return Number(((BigInt(n) * m) >> 32n) >> shift);
}
