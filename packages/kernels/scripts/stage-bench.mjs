#!/usr/bin/env node
// Our side of the U-Net stage benchmark (issue 23 (b); scripts/device/bench-stage.sh runs it in
// turns with packages/conformance/bench/torch_stage_bench.py):
//   node stage-bench.mjs STAGES.json ROUND STAGE:DTYPE:LAYOUT ...
// For each row: the stage's training step (conformance/src/stage/unet-stage.ts, on the public
// @baracuda/kernels API: conv1, conv2 and the down convolution with the fused bias + ReLU, the
// transposed up convolution; forward, then runBwEpilogue, runBwData and runDw of every layer),
// heuristic plans, timed as a whole between CUDA events (device-helpers' eventTimer), the median
// of 20 steps after 3 warm-up steps; the forward alone likewise; then each call alone (calls_ms,
// also printed on stderr), to show where the step's time goes. DTYPE: f16, bf16 (NDHWC rows),
// f32 (strict) or tf32 (f32 storage, TF32 math). The inputs are the same on both sides: a hash
// of each element's logical (NCDHW, weights [out, in, k]) index, the tensor and the round
// (conformance/src/stage/bench-inputs.ts; the Python side computes the same), stored in the
// row's layout.
// Round 1 also checks the step twice over, before the numbers mean anything:
//  - every activation and gradient against the f64 reference, layer by layer from the GPU's own
//    inputs (conformance/src/stage/check.ts), outputs poisoned first: `check` (the row's worst
//    relative L2 and the tolerance of the dtype); a failing row prints FAIL in the merge;
//  - `samples`: y and every gradient at fixed logical indices, compared in the merge with
//    PyTorch's on the same inputs.
// One JSON line per row on stdout, tagged with ROUND.
import { readFileSync } from 'node:fs';
import {
  BENCH_SALTS,
  benchDims,
  benchInput,
  benchSampleIndices,
  benchStorageIndex,
} from '../../conformance/src/stage/bench-inputs.ts';
import { checkStageStep } from '../../conformance/src/stage/check.ts';
import { STAGE_OUTPUTS, stageElementCounts } from '../../conformance/src/stage/shape.ts';
import { UnetStage } from '../../conformance/src/stage/unet-stage.ts';
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import {
  bf16ArrayToF32,
  f16ArrayToF32,
  f32ArrayToBf16,
  f32ArrayToF16,
} from '../../types/dist/index.js';
import * as kernels from '../dist/index.js';
import { eventTimer } from './device-helpers.mjs';

const [stagesPath, roundText, ...rows] = process.argv.slice(2);
const stages = JSON.parse(readFileSync(stagesPath, 'utf8')).stages;
const round = Number(roundText);
const stream = Stream.create();
/** Tolerances of conformance/src/check/tolerances.ts (relative L2 per layer against f64). */
const TOLERANCE = { f32: 1e-5, tf32: 5e-3, f16: 5e-3, bf16: 3e-2 };
/** The tensors both sides sample for the cross-check, with their torch names. */
const SAMPLED = ['y', 'dx', 'dw1', 'db1', 'dw2', 'db2', 'dwd', 'dbd', 'dwu'];
const SAMPLES = 1024;

function encode(dtype, f32) {
  if (dtype === 'f16') return f32ArrayToF16(f32);
  if (dtype === 'bf16') return f32ArrayToBf16(f32);
  return f32;
}

function download(stage, dtype, count, name) {
  const storage =
    dtype === 'f16' || dtype === 'bf16' ? new Uint16Array(count) : new Float32Array(count);
  stage.tensors[name].downloadSync(storage);
  if (dtype === 'f16') return f16ArrayToF32(storage);
  if (dtype === 'bf16') return bf16ArrayToF32(storage);
  return storage;
}

for (const row of rows) {
  const [name, dtype, layout] = row.split(':');
  const s = stages[name];
  const shape = { n: s.n, c: s.c, cDown: s.c_down, size: s.size, layout };
  const counts = stageElementCounts(shape);
  const stage = await UnetStage.create(kernels, stream, shape, dtype, (bytes) =>
    DeviceBuffer.alloc(bytes),
  );
  for (const input of Object.keys(BENCH_SALTS)) {
    const values = benchInput(shape, input, round);
    if (values.length !== counts[input])
      throw new Error(`${input}: ${values.length} != ${counts[input]}`);
    stage.tensors[input].uploadSync(encode(dtype, values));
  }
  const half = dtype === 'f16' || dtype === 'bf16';
  for (const out of STAGE_OUTPUTS) {
    if (half) stage.tensors[out].fillSync16(0xffff);
    else stage.tensors[out].fillSync32(0xffffffff);
  }
  const result = {
    side: 'ours',
    round,
    row,
    algorithms: stage.algorithms().map((a) => `${a.layer}.${a.pass}=${a.name}`),
  };
  if (round === 1) {
    stage.step();
    stream.synchronizeSync();
    const cache = new Map();
    const get = (t) => {
      if (!cache.has(t)) cache.set(t, download(stage, dtype, counts[t], t));
      return cache.get(t);
    };
    // Fixed spread-out points (the first and last included): no randomness needed here.
    const pick = (count, points) =>
      points >= count
        ? Array.from({ length: count }, (_, i) => i)
        : Array.from({ length: points }, (_, k) => Math.floor((k * (count - 1)) / (points - 1)));
    const checked = checkStageStep(shape, get, pick);
    // The worst row: unwritten or non-finite first, then the largest error.
    const score = (r) =>
      r.unwritten > 0 || !Number.isFinite(r.error) ? Number.POSITIVE_INFINITY : r.error;
    const worst = checked.reduce((w, r) => (score(r) > score(w) ? r : w), checked[0]);
    result.check = {
      tolerance: TOLERANCE[dtype],
      worst_tensor: worst.tensor,
      worst_error: Number.isFinite(worst.error) ? worst.error : String(worst.error),
      unwritten: checked.reduce((sum, r) => sum + r.unwritten, 0),
      pass: checked.every((r) => r.error <= TOLERANCE[dtype] && r.unwritten === 0),
      rows: Object.fromEntries(
        checked.map((r) => [r.tensor, Number.isFinite(r.error) ? r.error : String(r.error)]),
      ),
    };
    result.samples = {};
    for (const t of SAMPLED) {
      const d5 = benchDims(shape, t);
      const values = get(t);
      result.samples[t] = benchSampleIndices(values.length, SAMPLES).map(
        (i) => values[benchStorageIndex(d5, layout, i)],
      );
    }
    cache.clear();
  }
  const time = eventTimer(stream, { warmup: 3, reps: 20 });
  result.step_ms = time(() => stage.step());
  result.forward_ms = time(() => stage.forward());
  // Where the step's time goes: each call timed alone (after the step's warm-up, so its inputs
  // are the step's own), the median of 20.
  result.calls_ms = {};
  const ops = [...stage.forwardOps(), ...stage.backwardOps()];
  for (const op of ops) result.calls_ms[op.name] = time(() => op.run());
  process.stderr.write(
    `${row} round ${round} per call (ms): ${ops.map((op) => `${op.name} ${result.calls_ms[op.name].toFixed(3)}`).join(', ')}\n`,
  );
  console.log(JSON.stringify(result));
  stage.dispose();
}
stream.dispose();
