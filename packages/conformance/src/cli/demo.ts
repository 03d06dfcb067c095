/** `demo`: one 3-D U-Net layer, forward and backward, timed and checked. */
import { UnsupportedError } from '@baracuda/types';
import { median } from '../bench/math.js';
import { passShapes, referencePassAt, sampleIndices, toProblem } from '../check/conv.js';
import { formatGpuInfo } from '../check/format.js';
import type {
  GpuApi,
  GpuBuffer,
  GpuOpenResult,
  GpuPlan,
  GpuStream,
  Pass,
} from '../check/gpu-api.js';
import { PASSES } from '../check/gpu-api.js';
import {
  asF64,
  countNaN,
  decode,
  freshSeed,
  type HostTensor,
  poison,
  Rng,
  randomTensor,
  storageArray,
} from '../check/host.js';
import { errorSummary } from '../check/rows.js';
import { type CheckDtype, elementBytes, toleranceFor } from '../check/tolerances.js';
import type { Layout } from '../reference/index.js';
import {
  adjointMismatch,
  type ConvProblem,
  conv3dBackwardData,
  conv3dBackwardFilter,
  conv3dForward,
  elementCounts,
  macs,
  relL2,
} from '../reference/index.js';
import { LARGE_SAMPLE_POINTS, type SuiteCase } from '../suite/index.js';
import { parseFlags, parseNonNegativeInteger, parsePositiveInteger } from './args.js';
import { noGpuLines } from './check.js';
import { DEMO_CONFIGS } from './demo-configs.js';
import { cpuStageDemo, gpuStageDemo } from './demo-stage.js';
import type { CliIo } from './io.js';

export { DEMO_CONFIGS };

/** The layer: the first encoder convolution of a 3-D U-Net at 64³ with 32 channels. */
export const UNET_LAYER: SuiteCase = {
  name: 'unet3d-layer',
  n: 1,
  cIn: 32,
  cOut: 32,
  in: [64, 64, 64],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
};

/** The size the CPU reference runs at when there is no GPU (same layer, 1/64 of the work). */
export const CPU_DEMO_LAYER: SuiteCase = {
  ...UNET_LAYER,
  name: 'unet3d-layer (reduced)',
  cIn: 8,
  cOut: 8,
  in: [32, 32, 32],
};

export const DEMO_HELP = `Usage: baracuda demo [options]

Runs one 3-D U-Net layer (n=1, 32->32 channels, 64x64x64, k=3x3x3, pad 1) forward and backward
(backward-data, backward-filter) on the first GPU, in bf16 channels-last where the plan supports
it (else f16 NDHWC, else f32 NCDHW). Prints the device and cuDNN version, the algorithm chosen
for each pass, the time per pass (CUDA events, median of --reps after warm-up) and the error
against the f64 CPU reference on sampled output points.

Without a GPU it says so, lists what was searched, runs the CPU reference on a reduced layer
(n=1, 8->8 channels, 32x32x32) and exits 0.

With --stage it trains one step of a 3-D U-Net stage instead (n=1, 32 channels at 64x64x64):
two conv + bias + ReLU (fused epilogue), a stride-2 down convolution to 64 channels (+ bias +
ReLU), a stride-2 transposed convolution back to 64x64x64; forward, then backward (the
epilogue's dyPre and bias gradient, backward-data and weight gradient of every layer). Every
activation and gradient is checked against the f64 reference layer by layer (each layer from
the GPU's own inputs, outputs poisoned first, sampled points), and the forward, backward and
step times are printed (CUDA events, median of --reps). Without a GPU: the f64 reference of a
reduced stage (n=1, 4->8 channels, 16x16x16), its gradients spot-checked by finite differences.

Options:
  --stage        the U-Net stage training step instead of the single layer
  --reps <n>     timed repetitions per pass, or per step with --stage (default: 20)
  --device <n>   CUDA device ordinal (default: 0)
  --cpu          run the CPU reference part only, even with a GPU
  -h, --help     this text`;

function describe(c: SuiteCase): string {
  return `n=${c.n} c=${c.cIn}→${c.cOut} in=${c.in.join('×')} k=${c.k.join('×')} pad=${c.pad.join(',')}`;
}

/** Run the CPU reference on the reduced layer; print sizes and times. Returns the lines. */
export function cpuDemo(io: CliIo, layer: SuiteCase = CPU_DEMO_LAYER): void {
  const problem: ConvProblem = toProblem(layer, 'ncdhw');
  const counts = elementCounts(problem);
  const rng = new Rng(freshSeed(), 'cpu-demo');
  const x = asF64(randomTensor('f64', counts.x, rng).values);
  const w = asF64(randomTensor('f64', counts.w, rng).values);
  const dy = asF64(randomTensor('f64', counts.y, rng).values);
  io.out(
    `CPU f64 reference on a reduced layer: ${describe(layer)} (${(macs(problem) / 1e6).toFixed(1)} M MACs per pass)`,
  );
  const timed = (label: string, body: () => Float64Array) => {
    const started = performance.now();
    const result = body();
    const ms = performance.now() - started;
    io.out(
      `  ${label.padEnd(10)} ${ms.toFixed(0).padStart(6)} ms  (${(macs(problem) / ms / 1e3).toFixed(0)} M MAC/s)`,
    );
    return result;
  };
  const y = timed('forward', () => conv3dForward(problem, x, w));
  const dx = timed('bwData', () => conv3dBackwardData(problem, dy, w));
  const dw = timed('bwFilter', () => conv3dBackwardFilter(problem, x, dy));
  const { mismatch } = adjointMismatch([
    [y, dy],
    [x, dx],
    [w, dw],
  ]);
  io.out(
    `  adjoint identity <fw(x,w),dy> = <x,bwData(dy,w)> = <w,bwFilter(x,dy)>: relative mismatch ${mismatch.toExponential(1)}`,
  );
}

interface DemoPassResult {
  readonly pass: Pass;
  readonly algorithm: string;
  readonly medianMs: number;
  readonly error: number;
  readonly unwritten: number;
}

async function selectDemoPlan(
  api: GpuApi,
  stream: GpuStream,
  io: CliIo,
  layer: SuiteCase,
): Promise<{ plan: GpuPlan; dtype: CheckDtype; layout: Layout } | undefined> {
  for (const { dtype, layout } of DEMO_CONFIGS) {
    try {
      const plan = await api.selectPlan(stream, {
        problem: toProblem(layer, layout),
        dtype,
        algorithm: 'heuristic',
      });
      return { plan, dtype, layout };
    } catch (error) {
      if (!UnsupportedError.isInstance(error)) throw error;
      io.out(
        `  ${dtype} ${layout}: unsupported (${error.message.split('\n')[0]}), trying the next`,
      );
    }
  }
  return undefined;
}

/** The GPU part of the demo. Returns the exit status. */
export async function gpuDemo(
  api: GpuApi,
  io: CliIo,
  reps: number,
  layer: SuiteCase = UNET_LAYER,
): Promise<number> {
  for (const line of formatGpuInfo(api.info)) io.out(line);
  io.out(
    `layer:   ${describe(layer)} (${(macs(toProblem(layer, 'ncdhw')) / 1e9).toFixed(2)} G MACs per pass)`,
  );
  const stream = api.createStream();
  const buffers: GpuBuffer[] = [];
  const timer = api.createTimer();
  let plan: GpuPlan | undefined;
  try {
    const chosen = await selectDemoPlan(api, stream, io, layer);
    if (!chosen) {
      io.err('No precision/layout of the demo is supported on this GPU.');
      return 1;
    }
    plan = chosen.plan;
    const { dtype, layout } = chosen;
    const problem = toProblem(layer, layout);
    const counts = elementCounts(problem);
    const bytes = elementBytes(dtype);
    const seed = freshSeed();
    io.out(`dtype:   ${dtype} ${layout} (heuristic plan)`);
    io.out(`seed:    ${seed}`);
    const rng = new Rng(seed, 'demo');
    const host: Record<'x' | 'w' | 'dy', HostTensor> = {
      x: randomTensor(dtype, counts.x, rng),
      w: randomTensor(dtype, counts.w, rng),
      dy: randomTensor(dtype, counts.y, rng),
    };
    const alloc = (count: number) => {
      const buffer = api.alloc(count * bytes);
      buffers.push(buffer);
      return buffer;
    };
    const device = {
      x: alloc(counts.x),
      w: alloc(counts.w),
      dy: alloc(counts.y),
      y: alloc(counts.y),
      dx: alloc(counts.x),
      dw: alloc(counts.w),
    };
    device.x.uploadSync(host.x.storage);
    device.w.uploadSync(host.w.storage);
    device.dy.uploadSync(host.dy.storage);
    const workspaceBytes = Math.max(...PASSES.map((pass) => plan!.workspaceSize(pass)));
    const workspace = workspaceBytes > 0 ? alloc(workspaceBytes) : undefined;
    const wiring = {
      fw: { a: device.x, b: device.w, out: device.y, inputs: [host.x, host.w] },
      bwData: { a: device.dy, b: device.w, out: device.dx, inputs: [host.dy, host.w] },
      bwFilter: { a: device.x, b: device.dy, out: device.dw, inputs: [host.x, host.dy] },
    } as const;
    const tolerance = toleranceFor(dtype);
    const results: DemoPassResult[] = [];
    io.out('');
    io.out(
      `${'pass'.padEnd(9)} ${'algorithm'.padEnd(44)} ${'median ms'.padStart(10)} ${'TFLOP/s'.padStart(8)}  rel.err (sampled)`,
    );
    for (const pass of PASSES) {
      const { a, b, out, inputs } = wiring[pass];
      poison(out, dtype);
      const operands = { a, b, out, workspace, stream };
      for (let i = 0; i < 3; i++) plan.run(pass, operands);
      await stream.synchronize();
      const times: number[] = [];
      for (let i = 0; i < reps; i++) {
        timer.start(stream);
        plan.run(pass, operands);
        times.push(timer.stop(stream));
      }
      await stream.synchronize();
      const storage = storageArray(dtype, passShapes(problem, pass).out);
      out.downloadSync(storage);
      const got = decode(dtype, storage);
      const indices = sampleIndices(got.length, Math.min(LARGE_SAMPLE_POINTS, 4096), rng);
      const reference = referencePassAt(problem, pass, inputs[0].values, inputs[1].values, indices);
      const error = relL2(
        Float64Array.from(indices, (i) => got[i]!),
        reference,
      );
      const result = {
        pass,
        algorithm: plan.algorithmName(pass),
        medianMs: median(times),
        error,
        unwritten: countNaN(got),
      };
      results.push(result);
      const tflops = (2 * macs(problem)) / (result.medianMs * 1e-3) / 1e12;
      io.out(
        `${pass.padEnd(9)} ${result.algorithm.padEnd(44)} ${result.medianMs.toFixed(3).padStart(10)} ${tflops.toFixed(1).padStart(8)}  ${error.toExponential(2)} (tol ${tolerance.toExponential(0)}, ${indices.length} pts)${result.unwritten ? `, ${result.unwritten} unwritten` : ''}`,
      );
    }
    const bad = results.filter((r) => !(r.error <= tolerance) || r.unwritten > 0);
    io.out('');
    if (bad.length > 0) {
      io.err(`WRONG RESULTS in ${bad.map((r) => r.pass).join(', ')}: see the table above.`);
      return 1;
    }
    io.out(
      `OK: forward + backward of the layer in ${results.reduce((sum, r) => sum + r.medianMs, 0).toFixed(3)} ms, every pass within tolerance.`,
    );
    return 0;
  } catch (error) {
    io.err(`demo failed: ${errorSummary(error)}`);
    return 1;
  } finally {
    plan?.dispose();
    timer.dispose();
    for (const buffer of buffers) buffer.dispose();
    stream.dispose();
  }
}

/** Run `demo`. Returns the exit status. */
export async function demoCommand(
  argv: string[],
  io: CliIo,
  open: (
    ordinal: number,
    options?: { onProgress?: (message: string) => void },
  ) => Promise<GpuOpenResult>,
): Promise<number> {
  const { values } = parseFlags(argv, {
    reps: { type: 'string' },
    device: { type: 'string' },
    cpu: { type: 'boolean' },
    stage: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(DEMO_HELP);
    return 0;
  }
  const reps = parsePositiveInteger('--reps', values.reps) ?? 20;
  const device = parseNonNegativeInteger('--device', values.device) ?? 0;
  const stage = values.stage === true;
  io.out(
    stage
      ? 'baracuda demo --stage: one 3-D U-Net stage training step, forward and backward'
      : 'baracuda demo: one 3-D U-Net layer, forward and backward',
  );
  if (!values.cpu) {
    const gpu = await open(device);
    if (gpu.available) return stage ? gpuStageDemo(gpu.api, io, reps) : gpuDemo(gpu.api, io, reps);
    for (const line of noGpuLines(gpu)) io.out(line);
    io.out('Running the CPU reference instead, so you can see what the demo computes.');
    io.out('');
  }
  if (stage) cpuStageDemo(io);
  else cpuDemo(io);
  return 0;
}
