#!/usr/bin/env node
import { DataParallelConv3d, splitBatch } from '@baracuda/collectives';
// Data-parallel training of one 3-D conv layer over every GPU of this machine:
//   pnpm --filter @baracuda/collectives build && node packages/collectives/examples/data-parallel-conv3d.mjs
// The batch is split over the GPUs (one Conv3dPlan each). Each step runs forward, backward-filter
// and backward-data on every GPU; the filter gradient is all-reduced over NCCL in buckets on a
// second stream while backward-data still runs, so every GPU ends the step with the gradient of
// the whole batch. Then plain SGD updates each GPU's copy of the weights (the same update on
// identical gradients keeps the copies identical, as PyTorch DDP does).
//
// EXAMPLE_STEPS (default 5) and EXAMPLE_BATCH_PER_GPU (default 2) size the run.
import { Device, DeviceBuffer } from '@baracuda/driver';
import { Conv3dDescriptor } from '@baracuda/kernels';

const devices = Device.all();
const steps = Number(process.env.EXAMPLE_STEPS ?? 5);
const perGpu = Number(process.env.EXAMPLE_BATCH_PER_GPU ?? 2);
const layer = Conv3dDescriptor.create({
  batch: perGpu * devices.length,
  cIn: 16,
  dIn: 8,
  hIn: 16,
  wIn: 16,
  cOut: 16,
  dFilt: 3,
  hFilt: 3,
  wFilt: 3,
  element: 'f32',
}).withPadding(1, 1, 1);

const random = (n) => Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
const upload = (host, device) => {
  const buffer = DeviceBuffer.alloc(host.byteLength, { device });
  buffer.uploadSync(host);
  return buffer;
};

const dp = await DataParallelConv3d.create({ devices, descriptor: layer });
const shard = dp.shard;
const weights = random(shard.wElements).map((v) => v * 0.05);
// The host batch and the upstream gradient, split batch-major: shard r goes to GPU r.
const xs = splitBatch(random(layer.xElements), devices.length);
const dys = splitBatch(random(layer.yElements), devices.length);
const shards = devices.map((device, r) => ({
  x: upload(xs[r], device),
  w: upload(weights, device),
  y: DeviceBuffer.alloc(shard.yElements * 4, { device }),
  dy: upload(dys[r], device),
  dx: DeviceBuffer.alloc(shard.xElements * 4, { device }),
  dw: DeviceBuffer.alloc(shard.wElements * 4, { device }),
}));

const learningRate = 1e-3;
const grad = new Float32Array(shard.wElements);
for (let step = 0; step < steps; step++) {
  const t0 = performance.now();
  dp.step(shards);
  await dp.synchronize({ timeoutMs: 60_000 });
  // SGD on the host for clarity (a real trainer would run an update kernel on each GPU).
  shards[0].dw.downloadSync(grad);
  let norm = 0;
  for (let i = 0; i < grad.length; i++) {
    weights[i] -= learningRate * grad[i];
    norm += grad[i] * grad[i];
  }
  for (const s of shards) s.w.uploadSync(weights);
  console.log(
    `step ${step + 1}/${steps} on ${devices.length} GPU(s): ${(performance.now() - t0).toFixed(2)} ms, |dw| = ${Math.sqrt(norm).toExponential(3)}`,
  );
}
for (const s of shards) for (const b of Object.values(s)) b.dispose();
dp.dispose();
console.log('done');
