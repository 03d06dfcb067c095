// What the route checks share (s2d-device-check.mjs, cublaslt-device-check.mjs, both run on the
// GPU machine): the dtypes with their storage, fresh random operands, and one pass checked against
// the f64 reference at sampled points, its output poisoned (alpha 1, beta 0) or holding a random
// prior (alpha 2, beta 0.5).
import { TOLERANCES } from '../../conformance/src/check/tolerances.ts';
import {
  conv3dBackwardDataAt,
  conv3dBackwardFilterAt,
  conv3dForwardAt,
} from '../../conformance/src/reference/index.ts';
import { ElementKind } from '../../types/dist/index.js';
import { elementArray, loadElement, relL2, storeElement } from './device-helpers.mjs';

/** The element kind of each checked dtype (tf32: f32 storage, TF32 math). */
export const KINDS = {
  f32: ElementKind.F32,
  tf32: ElementKind.F32,
  f64: ElementKind.F64,
  f16: ElementKind.F16,
  bf16: ElementKind.Bf16,
};
export const storage = (dtype) => (dtype === 'tf32' ? 'f32' : dtype);
export const BYTES = { f32: 4, f64: 8, f16: 2, bf16: 2 };

/** A linear congruential generator in [0, 1), seeded from the clock and `salt`: fresh each run. */
export function seededRandom(salt) {
  let seed = (Date.now() ^ salt) >>> 0;
  return () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

/** Fresh random values in [-1, 1) as the element's bytes, and their values as rounded. */
export function operand(element, count, random) {
  const host = elementArray(element, count);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = storeElement(element, host, i, random() * 2 - 1);
  return { host, values };
}

const SAMPLES = { fw: 1500, bwData: 1500, bwFilter: 300 };

/** The first and last 32 indices and random others, `n` in all (at most `count`). */
function sampleIndices(count, n, random) {
  const set = new Set();
  for (let i = 0; i < Math.min(32, count); i++) set.add(i).add(count - 1 - i);
  while (set.size < Math.min(count, n)) set.add(Math.floor(random() * count));
  return [...set];
}

/**
 * Checks one pass: uploads the inputs (`ops`: x, w and y operands; `bufs`: their device buffers),
 * then for (alpha, beta) = (1, 0) and (2, 0.5) poisons the output or fills it with a random prior,
 * calls `run(alpha, beta)` to enqueue the pass, and compares the output at sampled points with
 * alpha·ref + beta·prior by relative L2 against the dtype's tolerance. `report(ok, line)` gets one
 * line per (alpha, beta); `ok(name)` adds a condition on the algorithm's name (e.g. the route).
 */
export function checkPass({
  stream,
  pass,
  dtype,
  p,
  ops,
  bufs,
  random,
  run,
  report,
  what,
  name,
  ok,
}) {
  const el = storage(dtype);
  const out = pass === 'fw' ? 'y' : pass === 'bwData' ? 'x' : 'w';
  const count = ops[out].values.length;
  const idx = sampleIndices(count, SAMPLES[pass], random);
  const ref =
    pass === 'fw'
      ? conv3dForwardAt(p, ops.x.values, ops.w.values, idx)
      : pass === 'bwData'
        ? conv3dBackwardDataAt(p, ops.y.values, ops.w.values, idx)
        : conv3dBackwardFilterAt(p, ops.x.values, ops.y.values, idx);
  for (const role of ['x', 'w', 'y']) if (role !== out) bufs[role].uploadSync(ops[role].host);
  for (const [alpha, beta] of [
    [1, 0],
    [2, 0.5],
  ]) {
    const prior = beta === 0 ? null : operand(el, count, random);
    if (prior === null) bufs[out].memsetSync(0xff);
    else bufs[out].uploadSync(prior.host);
    run(alpha, beta);
    const got = elementArray(el, count);
    stream.synchronizeSync();
    bufs[out].downloadSync(got);
    const gotAt = idx.map((i) => loadElement(el, got, i));
    const wantAt = idx.map((i, j) => alpha * ref[j] + (prior ? beta * prior.values[i] : 0));
    const err = relL2(gotAt, wantAt);
    const tol = TOLERANCES[dtype].relL2;
    const extra = ok(name);
    report(
      err <= tol && extra === '',
      `${what} alpha=${alpha} beta=${beta}: rel L2 ${err.toExponential(2)} (tol ${tol}) ${extra}[${name}]`,
    );
  }
}
