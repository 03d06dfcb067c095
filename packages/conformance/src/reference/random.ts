import { InvalidArgumentError } from '@baracuda/types';

/**
 * A small seeded generator (SplitMix32-style) so a failing case can be replayed from its seed.
 * Returns uniform doubles in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  if (typeof seed !== 'number' || !Number.isInteger(seed)) {
    throw new InvalidArgumentError('seed', 'an integer', seed);
  }
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

/**
 * `count` values drawn uniformly from [-1, 1) with the given generator.
 * Defaults to `Math.random` when no generator is given.
 */
export function randomArray(count: number, random: () => number = Math.random): Float64Array {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new InvalidArgumentError('count', 'a non-negative integer', count);
  }
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = 2 * random() - 1;
  return out;
}
