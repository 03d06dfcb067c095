/**
 * `demo --stage`: one training step of a 3-D U-Net stage (stage/shape.ts: two fused conv + bias +
 * ReLU, the stride-2 down convolution, the transposed up convolution; forward and backward) on
 * the GPU, timed, and every activation and gradient checked against the f64 reference layer by
 * layer (stage/check.ts) after the outputs were poisoned. Without a GPU: the reference step on a
 * reduced stage, its gradients spot-checked by finite differences.
 */
import { bf16ArrayToF32, f16ArrayToF32, UnsupportedError } from '@baracuda/types';
import { median } from '../bench/math.js';
import { sampleIndices } from '../check/conv.js';
import { formatGpuInfo } from '../check/format.js';
import type { GpuApi, GpuStage } from '../check/gpu-api.js';
import { encode, freshSeed, poison, Rng, type Seed, storageArray } from '../check/host.js';
import { errorSummary } from '../check/rows.js';
import { toleranceFor } from '../check/tolerances.js';
import { dot } from '../reference/index.js';
import { checkStageStep } from '../stage/check.js';
import { type StageParams, stageBackward, stageForward } from '../stage/reference.js';
import {
  describeStage,
  STAGE_OUTPUTS,
  type StageShape,
  type StageTensor,
  stageElementCounts,
  stageMacs,
} from '../stage/shape.js';
import type { StageDtype } from '../stage/unet-stage.js';
import { DEMO_CONFIGS } from './demo-configs.js';
import type { CliIo } from './io.js';

/** The stage the GPU demo trains: a U-Net's first stage at 64³, 32 channels, 64 after the down convolution. */
export const DEMO_STAGE: Omit<StageShape, 'layout'> = {
  n: 1,
  c: 32,
  cDown: 64,
  size: [64, 64, 64],
};

/** The stage the CPU reference runs without a GPU. */
export const CPU_DEMO_STAGE: StageShape = {
  n: 1,
  c: 4,
  cDown: 8,
  size: [16, 16, 16],
  layout: 'ncdhw',
};

/** The scale of each input: He-style 1/√fan-in for the weights, so activations stay O(1). */
function inputScale(shape: StageShape, name: StageTensor): number {
  switch (name) {
    case 'w1':
    case 'w2':
    case 'wd':
      return Math.sqrt(3 / (27 * shape.c));
    case 'wu':
      return Math.sqrt(3 / (8 * shape.cDown));
    case 'b1':
    case 'b2':
    case 'bd':
      return 0.1;
    default:
      return 1;
  }
}

const INPUTS: readonly StageTensor[] = ['x', 'w1', 'b1', 'w2', 'b2', 'wd', 'bd', 'wu', 'dy'];

function freshInputs(shape: StageShape, rng: Rng): Record<string, Float64Array> {
  const counts = stageElementCounts(shape);
  const inputs: Record<string, Float64Array> = {};
  for (const name of INPUTS) {
    const scale = inputScale(shape, name);
    inputs[name] = Float64Array.from({ length: counts[name] }, () => rng.nextSigned() * scale);
  }
  return inputs;
}

/** The reference step on a reduced stage, with 8 gradient entries against finite differences. */
export function cpuStageDemo(
  io: CliIo,
  shape: StageShape = CPU_DEMO_STAGE,
  seed: Seed = freshSeed(),
): void {
  const rng = new Rng(seed, 'cpu-stage-demo');
  const inputs = freshInputs(shape, rng);
  const params = inputs as unknown as StageParams;
  const x = inputs.x!;
  const dy = inputs.dy!;
  io.out(
    `CPU f64 reference of a reduced stage: ${describeStage(shape)} (${(stageMacs(shape) / 1e6).toFixed(0)} M MACs per step)`,
  );
  let started = performance.now();
  const acts = stageForward(shape, params, x);
  const forwardMs = performance.now() - started;
  started = performance.now();
  const grads = stageBackward(shape, params, x, acts, dy);
  const backwardMs = performance.now() - started;
  io.out(`  forward ${forwardMs.toFixed(0)} ms, backward ${backwardMs.toFixed(0)} ms`);
  const h = 1e-6;
  let worst = 0;
  const picks: Array<[string, Float64Array, Float64Array]> = [
    ['x', x, grads.dx],
    ['w1', params.w1, grads.dw1],
    ['b1', params.b1, grads.db1],
    ['w2', params.w2, grads.dw2],
    ['b2', params.b2, grads.db2],
    ['wd', params.wd, grads.dwd],
    ['bd', params.bd, grads.dbd],
    ['wu', params.wu, grads.dwu],
  ];
  const loss = () => dot(stageForward(shape, params, x).y, dy);
  const at = loss();
  for (const [, tensor, gradient] of picks) {
    // An entry whose ±h moves a pre-activation across a ReLU's kink has no central difference
    // that equals the gradient (the one-sided differences disagree): another entry is taken.
    for (let attempt = 0; attempt < 8; attempt++) {
      const i = rng.nextBelow(tensor.length);
      const saved = tensor[i]!;
      tensor[i] = saved + h;
      const up = loss();
      tensor[i] = saved - h;
      const down = loss();
      tensor[i] = saved;
      const right = (up - at) / h;
      const left = (at - down) / h;
      const kink = Math.abs(right - left) > 1e-3 * Math.max(1, Math.abs(right), Math.abs(left));
      if (kink && attempt < 7) continue;
      const numeric = (up - down) / (2 * h);
      worst = Math.max(worst, Math.abs(numeric - gradient[i]!) / Math.max(1, Math.abs(numeric)));
      break;
    }
  }
  io.out(
    `  gradients of x, w1, b1, w2, b2, wd, bd, wu against central finite differences (one entry each): worst error ${worst.toExponential(1)}`,
  );
}

/** The GPU's values of one tensor, widened exactly to f32 (f64 never: halves the host memory). */
function readTensor(stage: GpuStage, dtype: StageDtype, count: number, name: StageTensor) {
  const storage = storageArray(dtype, count);
  stage.tensors[name].downloadSync(storage);
  if (dtype === 'f16') return f16ArrayToF32(storage as Uint16Array);
  if (dtype === 'bf16') return bf16ArrayToF32(storage as Uint16Array);
  return storage as Float32Array;
}

async function selectStage(
  api: GpuApi & Required<Pick<GpuApi, 'selectStage'>>,
  stream: ReturnType<GpuApi['createStream']>,
  io: CliIo,
  base: Omit<StageShape, 'layout'>,
): Promise<{ stage: GpuStage; dtype: StageDtype; layout: StageShape['layout'] } | undefined> {
  for (const { dtype, layout } of DEMO_CONFIGS) {
    try {
      const stage = await api.selectStage(stream, {
        shape: { ...base, layout },
        dtype: dtype as StageDtype,
      });
      io.out(`dtype:   ${dtype} ${layout} (heuristic plans)`);
      return { stage, dtype: dtype as StageDtype, layout };
    } catch (error) {
      if (!UnsupportedError.isInstance(error)) throw error;
      io.out(
        `  ${dtype} ${layout}: unsupported (${error.message.split('\n')[0]}), trying the next`,
      );
    }
  }
  return undefined;
}

/** The GPU part of `demo --stage`. Returns the exit status. */
export async function gpuStageDemo(
  api: GpuApi,
  io: CliIo,
  reps: number,
  base: Omit<StageShape, 'layout'> = DEMO_STAGE,
  seed: Seed = freshSeed(),
): Promise<number> {
  for (const line of formatGpuInfo(api.info)) io.out(line);
  if (api.selectStage === undefined) {
    io.err('This GPU stack offers no U-Net stage (selectStage).');
    return 1;
  }
  const withStage = api as GpuApi & Required<Pick<GpuApi, 'selectStage'>>;
  io.out(`stage:   ${describeStage({ ...base, layout: 'ndhwc' }).replace(/ ndhwc$/, '')}`);
  io.out(
    `         conv3+bias+ReLU ×2 → stride-2 conv3+bias+ReLU → stride-2 transposed conv2 (${(stageMacs({ ...base, layout: 'ncdhw' }) / 1e9).toFixed(1)} G MACs per step)`,
  );
  const stream = api.createStream();
  const timer = api.createTimer();
  let stage: GpuStage | undefined;
  try {
    const chosen = await selectStage(withStage, stream, io, base);
    if (!chosen) {
      io.err('No precision/layout of the demo is supported on this GPU.');
      return 1;
    }
    stage = chosen.stage;
    const { dtype } = chosen;
    const shape: StageShape = { ...base, layout: chosen.layout };
    const counts = stageElementCounts(shape);
    io.out(`seed:    ${seed}`);
    const rng = new Rng(seed, 'stage-demo');
    for (const [name, values] of Object.entries(freshInputs(shape, rng))) {
      stage.tensors[name as StageTensor].uploadSync(encode(dtype, values).storage);
    }
    for (const name of STAGE_OUTPUTS) poison(stage.tensors[name], dtype);
    const forwardMs: number[] = [];
    const backwardMs: number[] = [];
    stage.forward(stream);
    stage.backward(stream);
    await stream.synchronize();
    for (let i = 0; i < reps; i++) {
      timer.start(stream);
      stage.forward(stream);
      forwardMs.push(timer.stop(stream));
      timer.start(stream);
      stage.backward(stream);
      backwardMs.push(timer.stop(stream));
    }
    await stream.synchronize();
    io.out('');
    io.out(`${'layer'.padEnd(6)} ${'pass'.padEnd(9)} algorithm`);
    for (const a of stage.algorithms())
      io.out(`${a.layer.padEnd(6)} ${a.pass.padEnd(9)} ${a.name}`);
    const cache = new Map<StageTensor, Float32Array>();
    const get = (name: StageTensor) => {
      let values = cache.get(name);
      if (values === undefined) {
        values = readTensor(stage!, dtype, counts[name], name);
        cache.set(name, values);
      }
      return values;
    };
    const rows = checkStageStep(shape, get, (count, points) => sampleIndices(count, points, rng));
    const tolerance = toleranceFor(dtype);
    io.out('');
    io.out(`${'tensor'.padEnd(7)} ${'rel.err'.padStart(9)}  points`);
    for (const r of rows) {
      const flag = r.error <= tolerance && r.unwritten === 0 ? '' : '  WRONG';
      io.out(
        `${r.tensor.padEnd(7)} ${r.error.toExponential(2).padStart(9)}  ${r.points}${r.unwritten ? `, ${r.unwritten} unwritten` : ''}${flag}`,
      );
    }
    const fw = median(forwardMs);
    const bw = median(backwardMs);
    const tflops = (2 * stageMacs(shape)) / ((fw + bw) * 1e-3) / 1e12;
    io.out('');
    io.out(
      `step: forward ${fw.toFixed(3)} ms + backward ${bw.toFixed(3)} ms = ${(fw + bw).toFixed(3)} ms (median of ${reps}, CUDA events; ${tflops.toFixed(1)} TFLOP/s)`,
    );
    const bad = rows.filter((r) => !(r.error <= tolerance) || r.unwritten > 0);
    if (bad.length > 0) {
      io.err(
        `WRONG RESULTS in ${bad.map((r) => r.tensor).join(', ')} (tolerance ${tolerance.toExponential(0)}): see the table above.`,
      );
      return 1;
    }
    io.out(
      `OK: every activation and gradient of the step within ${tolerance.toExponential(0)} of the f64 reference.`,
    );
    return 0;
  } catch (error) {
    io.err(`demo failed: ${errorSummary(error)}`);
    return 1;
  } finally {
    stage?.dispose();
    timer.dispose();
    stream.dispose();
  }
}
