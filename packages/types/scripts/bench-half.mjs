#!/usr/bin/env node
// Throughput of the bulk half-precision conversions (a benchmark, not a test: a loaded 2-core box
// would fail any time bound, so no unit test asserts one).
//   pnpm --filter @baracuda/types build && pnpm --filter @baracuda/types bench
// Prints the best of ROUNDS rounds for each direction, in million elements per second.
import { bf16ArrayToF32, f16ArrayToF32, f32ArrayToBf16, f32ArrayToF16 } from '../dist/index.js';

const N = Number(process.env.BENCH_HALF_ELEMENTS ?? 10_000_000);
const ROUNDS = 5;

const values = new Float32Array(N);
for (let i = 0; i < N; i++) values[i] = (i % 1000) * 0.37 - 100;
const halves = new Uint16Array(N);
const widened = new Float32Array(N);

const cases = [
  ['f32 -> f16', () => f32ArrayToF16(values, halves)],
  ['f16 -> f32', () => f16ArrayToF32(halves, widened)],
  ['f32 -> bf16', () => f32ArrayToBf16(values, halves)],
  ['bf16 -> f32', () => bf16ArrayToF32(halves, widened)],
];

console.log(`${N} elements, best of ${ROUNDS} rounds`);
for (const [name, run] of cases) {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  console.log(
    `${name.padEnd(12)} ${best.toFixed(1).padStart(8)} ms  ${(N / best / 1000).toFixed(0).padStart(6)} M/s`,
  );
}
