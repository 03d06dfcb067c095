/**
 * The stage benchmark's inputs (packages/kernels/scripts/stage-bench.mjs; bench/torch_stage_bench.py
 * computes the same): each element's value is a 32-bit hash of its logical index (activations
 * `[N, C, D, H, W]`, weights `[out, in, kD, kH, kW]`, the transposed weight `[cIn, cOut, k…]`,
 * biases `[C]`), the tensor's salt and the round, uniform in [-scale, scale), so both sides
 * hold the same numbers without sharing a file; stored in the row's layout.
 */
import type { Layout } from '../reference/index.js';
import type { StageShape, StageTensor } from './shape.js';

/** Each input's salt; the same table in torch_stage_bench.py. */
export const BENCH_SALTS = {
  x: 1,
  w1: 2,
  b1: 3,
  w2: 4,
  b2: 5,
  wd: 6,
  bd: 7,
  wu: 8,
  dy: 9,
} as const;
export type BenchInput = keyof typeof BENCH_SALTS;

/** Logical element `i` of an input: the hash of (i, salt, round), uniform in [-scale, scale). */
export function benchValue(i: number, salt: number, round: number, scale: number): number {
  let h = (i + Math.imul(salt * 1000 + round, 0x9e3779b9)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return (((h >>> 0) / 4294967296) * 2 - 1) * scale;
}

/** The logical dims `[A, B, D, H, W]` of a tensor (B: the dimension channels-last moves innermost). */
export function benchDims(
  s: StageShape,
  name: StageTensor,
): [number, number, number, number, number] {
  const [D, H, W] = s.size;
  if (name === 'w1' || name === 'w2' || name === 'dw1' || name === 'dw2')
    return [s.c, s.c, 3, 3, 3];
  if (name === 'wd' || name === 'dwd') return [s.cDown, s.c, 3, 3, 3];
  if (name === 'wu' || name === 'dwu') return [s.cDown, s.c, 2, 2, 2];
  if (name === 'b1' || name === 'b2' || name === 'db1' || name === 'db2') return [1, s.c, 1, 1, 1];
  if (name === 'bd' || name === 'dbd') return [1, s.cDown, 1, 1, 1];
  if (name === 'a3' || name === 'da3' || name === 'dp3') return [s.n, s.cDown, D / 2, H / 2, W / 2];
  return [s.n, s.c, D, H, W];
}

/** Where logical index i is stored in the layout. */
export function benchStorageIndex(dims: readonly number[], layout: Layout, i: number): number {
  if (layout === 'ncdhw') return i;
  const B = dims[1]!;
  const spatial = dims[2]! * dims[3]! * dims[4]!;
  const sp = i % spatial;
  const b = Math.floor(i / spatial) % B;
  const a = Math.floor(i / (spatial * B));
  return (a * spatial + sp) * B + b;
}

/** The scale of each input: 1/√fan-in-style for the weights, 0.1 for biases, 1 for x and dy. */
export function benchScale(s: StageShape, name: BenchInput): number {
  if (name === 'w1' || name === 'w2' || name === 'wd') return Math.sqrt(3 / (27 * s.c));
  if (name === 'wu') return Math.sqrt(3 / (8 * s.cDown));
  if (name === 'b1' || name === 'b2' || name === 'bd') return 0.1;
  return 1;
}

/** An input's values in storage order (f32, as uploaded before any narrowing). */
export function benchInput(s: StageShape, name: BenchInput, round: number): Float32Array {
  const [A, B, D, H, W] = benchDims(s, name);
  const spatial = D * H * W;
  const salt = BENCH_SALTS[name];
  const scale = benchScale(s, name);
  const values = new Float32Array(A * B * spatial);
  for (let a = 0; a < A; a++) {
    for (let b = 0; b < B; b++) {
      const base = (a * B + b) * spatial;
      for (let sp = 0; sp < spatial; sp++) {
        const at = s.layout === 'ncdhw' ? base + sp : (a * spatial + sp) * B + b;
        values[at] = benchValue(base + sp, salt, round, scale);
      }
    }
  }
  return values;
}

/** The flat logical indices both sides sample a tensor of `count` elements at. */
export function benchSampleIndices(count: number, samples: number): number[] {
  return Array.from({ length: samples }, (_, k) =>
    Math.floor(((2 * k + 1) * count) / (2 * samples)),
  );
}
