#!/usr/bin/env node
// Device check of @baracuda/collectives on a machine with 2 or more GPUs (bundled by
// scripts/device/pack.sh, run by the `nccl` phase of scripts/device/session.sh):
//   node nccl-device-check.mjs
// 1. Every collective × f32/f64/f16/bf16 on all GPUs of the process (initAll) against an f64 host
//    reference, outputs poisoned first (scripts/nccl-collective-checks.mjs).
// 2. The data-parallel step (DataParallelConv3d, dw all-reduced with 'sum') against the same step
//    on one GPU with the whole batch: y and dx shard by shard, dw whole, by relative L2.
// 3. Step throughput on 1 GPU (whole batch) and on N GPUs (batch split), host wall time of
//    step + synchronize, median of 10 after 3 warm-ups; the speedup (issue 25's goal: ≥ 1.8× on 2).
// 4. All-reduce bus bandwidth (busBw = algBw · 2(n−1)/n, as NCCL's tests report it) for 8 MiB to
//    256 MiB of f32, median of 20 between CUDA events on rank 0's stream, next to GPU 0's NVLink
//    bandwidth per direction as `nvidia-smi nvlink -s` reports it.
// Also: one communicator per rank through an NcclUniqueId (initRank, every rank's blocking init on
// its own libuv worker), checked with the same collectives.
// NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 is set before NCCL is loaded.
// Prints one line per case and `nccl: N passed, M failed`. Exit 0: all passed on 2+ GPUs; 1: a
// failure; 2: no GPU; 3: all passed on ONE GPU, where 1-2 run with one rank (a smoke test of the
// bindings, the waits and the helper on real NCCL) and 3-4 cannot run: not the multi-GPU pass.
import { execFileSync } from 'node:child_process';

process.env.NCCL_NVLS_ENABLE = '0';
// Every rank's initRank blocks a libuv worker until all have joined: room for 8 ranks and more.
process.env.UV_THREADPOOL_SIZE ??= '16';

const { Device, DeviceBuffer, Event, Stream } = await import('@baracuda/driver');
const { Conv3dDescriptor, Conv3dPlan } = await import('@baracuda/kernels');
const { Communicator, DataParallelConv3d, group, NcclUniqueId } = await import('../src/index.ts');
const { runCollectiveChecks } = await import('./nccl-collective-checks.mjs');
const { relL2, elementArray, storeElement, loadElement } = await import(
  '../../kernels/scripts/device-helpers.mjs'
);
const { allReduceBandwidth, median, nvlinkPerDirectionGBs, randomValues } = await import(
  './nccl-host-reference.mjs'
);

const count = Device.count();
if (count < 1) {
  console.log('nccl: no GPU found: nothing checked');
  process.exit(2);
}
if (count < 2)
  console.log('INFO one GPU: one-rank smoke test only; the multi-GPU checks (3, 4) do not run');
const devices = Device.all();
const n = devices.length;
let passed = 0;
let failed = 0;
const line = (ok, text) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${text}`);
};

// 1. Collectives.
{
  const comms = Communicator.initAll(devices);
  const streams = devices.map((d) => Stream.create(d));
  await runCollectiveChecks({
    comms,
    streams,
    count: 4096 * n,
    report: (name, error, tol, ok) =>
      line(ok, `${name} relL2=${error.toExponential(2)} (tol ${tol})`),
  });
  for (const c of comms) c.dispose();
  // The same through initRank: all ranks join at once, each init on its own worker thread.
  const id = NcclUniqueId.parse(NcclUniqueId.create().toString());
  const ranks = await Promise.all(
    devices.map((device, rank) => Communicator.initRank({ id, rank, nRanks: n, device })),
  );
  line(
    ranks.every((c, r) => c.rank === r && c.nRanks === n),
    `initRank: ${n} ranks joined`,
  );
  await runCollectiveChecks({
    comms: ranks,
    streams,
    count: 1024 * n,
    report: (name, error, tol, ok) =>
      line(ok, `initRank ${name} relL2=${error.toExponential(2)} (tol ${tol})`),
  });
  for (const c of ranks) c.dispose();
  for (const s of streams) s.dispose();
}

// 2. The data-parallel step against one GPU.
const layer = (element) =>
  Conv3dDescriptor.create({
    batch: 2 * n,
    cIn: 32,
    dIn: 16,
    hIn: 32,
    wIn: 32,
    cOut: 32,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element,
  }).withPadding(1, 1, 1);
const TOL = { f32: 1e-4, bf16: 2e-2 };

function filled(element, values, device) {
  const host = elementArray(element, values.length);
  for (const [i, v] of values.entries()) storeElement(element, host, i, v);
  const buffer = DeviceBuffer.alloc(host.byteLength, { device });
  buffer.uploadSync(host);
  return buffer;
}
function poison(element, count, device) {
  return filled(element, Array(count).fill(Number.NaN), device);
}
function read(element, buffer, bytes) {
  const host = elementArray(element, buffer.byteLength / bytes);
  buffer.downloadSync(host);
  return Array.from(host, (_, i) => loadElement(element, host, i));
}

for (const element of ['f32', 'bf16']) {
  const whole = layer(element);
  const bytes = whole.elementBytes;
  const xs = randomValues(whole.xElements, 11);
  const ws = randomValues(whole.wElements, 12).map((v) => v * 0.1);
  const dys = randomValues(whole.yElements, 13);
  // One GPU, whole batch.
  const s0 = Stream.create(devices[0]);
  const plan = await Conv3dPlan.select(s0, whole);
  const one = {
    x: filled(element, xs, devices[0]),
    w: filled(element, ws, devices[0]),
    dy: filled(element, dys, devices[0]),
    y: poison(element, whole.yElements, devices[0]),
    dx: poison(element, whole.xElements, devices[0]),
    dw: poison(element, whole.wElements, devices[0]),
  };
  const singleStep = () => {
    plan.runFw({ x: one.x, w: one.w, y: one.y, stream: s0 });
    plan.runDw({ x: one.x, dy: one.dy, dw: one.dw, stream: s0 });
    plan.runBwData({ w: one.w, dy: one.dy, dx: one.dx, stream: s0 });
  };
  singleStep();
  await s0.synchronize();
  // N GPUs, the batch split.
  const dp = await DataParallelConv3d.create({ devices, descriptor: whole });
  const shard = dp.shard;
  const shards = devices.map((d, r) => ({
    x: filled(element, xs.slice(r * shard.xElements, (r + 1) * shard.xElements), d),
    w: filled(element, ws, d),
    dy: filled(element, dys.slice(r * shard.yElements, (r + 1) * shard.yElements), d),
    y: poison(element, shard.yElements, d),
    dx: poison(element, shard.xElements, d),
    dw: poison(element, shard.wElements, d),
  }));
  dp.step(shards);
  await dp.synchronize({ timeoutMs: 60_000 });
  const wantY = read(element, one.y, bytes);
  const wantDx = read(element, one.dx, bytes);
  const wantDw = read(element, one.dw, bytes);
  const tol = TOL[element];
  shards.forEach((s, r) => {
    const ey = relL2(
      read(element, s.y, bytes),
      wantY.slice(r * shard.yElements, (r + 1) * shard.yElements),
    );
    const edx = relL2(
      read(element, s.dx, bytes),
      wantDx.slice(r * shard.xElements, (r + 1) * shard.xElements),
    );
    const edw = relL2(read(element, s.dw, bytes), wantDw);
    line(
      ey <= tol && edx <= tol && edw <= tol,
      `data-parallel step ${element} rank ${r} vs one GPU: y ${ey.toExponential(2)} dx ${edx.toExponential(2)} dw ${edw.toExponential(2)} (tol ${tol})`,
    );
  });

  // 3. Throughput (f32 only: the scaling goal is about the step, not the kind).
  if (element === 'f32' && n >= 2) {
    const time = async (enqueue, wait) => {
      for (let i = 0; i < 3; i++) {
        enqueue();
        await wait();
      }
      const times = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        enqueue();
        await wait();
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    const t1 = await time(singleStep, () => s0.synchronize());
    const tn = await time(
      () => dp.step(shards),
      () => dp.synchronize({ timeoutMs: 60_000 }),
    );
    const batch = whole.batch;
    const speedup = t1 / tn;
    console.log(
      `INFO step throughput ${whole.describe()}: 1 GPU ${((batch / t1) * 1000).toFixed(1)} samples/s (${t1.toFixed(2)} ms), ${n} GPUs ${((batch / tn) * 1000).toFixed(1)} samples/s (${tn.toFixed(2)} ms): ${speedup.toFixed(2)}x (goal ${n === 2 ? '>= 1.8x' : `near ${n}x`})`,
    );
  }
  for (const b of [...Object.values(one), ...shards.flatMap((s) => Object.values(s))]) b.dispose();
  plan.dispose();
  dp.dispose();
  s0.dispose();
}

// 4. All-reduce bus bandwidth.
if (n >= 2) {
  const comms = Communicator.initAll(devices);
  const streams = devices.map((d) => Stream.create(d));
  let link = null;
  try {
    link = nvlinkPerDirectionGBs(
      execFileSync('nvidia-smi', ['nvlink', '-s', '-i', '0'], { encoding: 'utf8' }),
    );
  } catch {
    // no nvidia-smi: the figure is left out
  }
  const start = Event.create(devices[0], { timing: true, blockingSync: false });
  const end = Event.create(devices[0], { timing: true, blockingSync: false });
  for (const mib of [8, 64, 256]) {
    const bytes = mib * 1024 * 1024;
    const buffers = devices.map((d) => DeviceBuffer.alloc(bytes, { device: d }));
    const once = () =>
      group(() =>
        comms.forEach((c, r) => {
          c.allReduce(buffers[r], buffers[r], streams[r], { kind: 'f32' });
        }),
      );
    for (let i = 0; i < 5; i++) once();
    await Promise.all(comms.map((c, r) => c.synchronize(streams[r])));
    const times = [];
    for (let i = 0; i < 20; i++) {
      await Promise.all(comms.map((c, r) => c.synchronize(streams[r])));
      start.record(streams[0]);
      once();
      end.record(streams[0]);
      await end.synchronize();
      times.push(Event.elapsedMs(start, end));
    }
    const ms = median(times);
    const { algBw, busBw } = allReduceBandwidth(bytes, ms / 1000, n);
    console.log(
      `INFO allReduce f32 ${mib} MiB over ${n} GPUs: ${ms.toFixed(3)} ms, algBw ${algBw.toFixed(1)} GB/s, busBw ${busBw.toFixed(1)} GB/s; GPU 0 NVLink per direction (nvidia-smi nvlink -s): ${link === null ? 'not reported' : `${link.toFixed(1)} GB/s`}`,
    );
    for (const b of buffers) b.dispose();
  }
  await Promise.all(comms.map((c, r) => c.synchronize(streams[r])));
  start.dispose();
  end.dispose();
  for (const c of comms) c.dispose();
  for (const s of streams) s.dispose();
}

console.log(
  `nccl: ${passed} passed, ${failed} failed${n < 2 ? ' (one GPU: the multi-GPU checks did not run)' : ''}`,
);
process.exit(failed !== 0 ? 1 : n < 2 ? 3 : 0);
