#!/usr/bin/env node
// Plan lifetime leak check on a GPU (run on the GPU machine after `pnpm build`, or bundled by
// scripts/device/pack.sh):
//   node --expose-gc packages/kernels/scripts/leak-device-check.mjs [--cycles N] [--hold] [--run-every K]
// N plan create/dispose cycles of a small odd problem (f32 NCDHW; pinned mode, heuristic where
// pinned is refused), a forward run every K-th cycle. --hold keeps one extra plan of the same
// problem alive for the whole loop, so the device's shared cuDNN handle is created once instead of
// every cycle. Prints device free memory, RSS, V8 heap and `external` at ten checkpoints, then one
// JSON line. A leak grows linearly with cycles; V8 garbage plateaus: compare the second half's
// slope with the first's (run once more with --max-semi-space-size=1 to shrink V8's young space).
// Exit code 1 if the device lost more than 32 MiB or RSS grew over the second half by more than
// 64 MiB.
import { Device, DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { Conv3dDescriptor, Conv3dPlan } from '../dist/index.js';

const MiB = 1024 * 1024;
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const cycles = arg('--cycles', 10_000);
const runEvery = arg('--run-every', 100);
const hold = process.argv.includes('--hold');
if (!Number.isSafeInteger(cycles) || cycles < 10 || !Number.isSafeInteger(runEvery) || runEvery < 1)
  throw new TypeError('Expected --cycles >= 10 and --run-every >= 1 (integers)');
const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('Run with node --expose-gc');

const device = Device.get(0);
const stream = Stream.create(device);
const desc = Conv3dDescriptor.create({
  batch: 2,
  cIn: 5,
  dIn: 5,
  hIn: 6,
  wIn: 7,
  cOut: 6,
  dFilt: 3,
  hFilt: 2,
  wFilt: 3,
  element: 'f32',
})
  .withPadding(1, 0, 1)
  .withStride(1, 2, 1)
  .withDilation(1, 1, 2);

let preference = { algorithm: 'pinned' };
try {
  (await Conv3dPlan.select(stream, desc, preference)).dispose();
} catch (error) {
  console.log(`pinned refused (${error.name}): heuristic instead`);
  preference = { algorithm: 'heuristic' };
}
const x = DeviceBuffer.alloc(desc.xElements * 4);
const w = DeviceBuffer.alloc(desc.wElements * 4);
const y = DeviceBuffer.alloc(desc.yElements * 4);
// Operands hold random-looking, finite values: the runs must compute, not skip zeros.
for (const [buf, n, salt] of [
  [x, desc.xElements, 1],
  [w, desc.wElements, 2],
]) {
  const host = new Float32Array(n);
  for (let i = 0; i < n; i++) host[i] = Math.sin(i * 12.9898 + salt * 78.233) * 0.5;
  buf.uploadSync(host);
}
y.fillSync32(0x7fc00000); // poisoned with NaN

const held = hold ? await Conv3dPlan.select(stream, desc, preference) : undefined;
const cycle = async (i) => {
  const plan = await Conv3dPlan.select(stream, desc, preference);
  try {
    if (i % runEvery === 0) plan.runFw({ x, w, y });
  } finally {
    plan.dispose();
  }
};
const sample = () => {
  gc();
  const m = process.memoryUsage();
  return { free: device.memoryInfo().free, rss: m.rss, heapUsed: m.heapUsed, external: m.external };
};

const warmup = Math.min(200, Math.floor(cycles / 10));
for (let i = 0; i < warmup; i++) await cycle(i);
await stream.synchronize();
const points = [{ cycle: 0, ...sample() }];
const started = performance.now();
for (let i = 1; i <= cycles; i++) {
  await cycle(i);
  if (i % Math.max(1, Math.floor(cycles / 10)) === 0 || i === cycles) {
    await stream.synchronize();
    points.push({ cycle: i, ...sample() });
  }
}
const seconds = (performance.now() - started) / 1000;
held?.dispose();
const out = new Float32Array(desc.yElements);
y.downloadSync(out);
const written = out.every(Number.isFinite);

const base = points[0];
const mid = points[Math.floor(points.length / 2)];
const last = points.at(-1);
const mib = (b) => +(b / MiB).toFixed(1);
for (const p of points)
  console.log(
    `cycle ${String(p.cycle).padStart(6)}: device free ${mib(p.free - base.free)} MiB, rss +${mib(p.rss - base.rss)} MiB, heap +${mib(p.heapUsed - base.heapUsed)} MiB, external +${mib(p.external - base.external)} MiB`,
  );
const result = {
  cycles,
  runEvery,
  hold,
  mode: preference.algorithm,
  execArgv: process.execArgv,
  seconds: +seconds.toFixed(1),
  deviceLostMiB: mib(base.free - last.free),
  rssGrowthMiB: mib(last.rss - base.rss),
  rssFirstHalfMiB: mib(mid.rss - base.rss),
  rssSecondHalfMiB: mib(last.rss - mid.rss),
  heapGrowthMiB: mib(last.heapUsed - base.heapUsed),
  externalGrowthMiB: mib(last.external - base.external),
  outputWritten: written,
};
console.log(JSON.stringify(result));
const ok = result.deviceLostMiB <= 32 && result.rssSecondHalfMiB <= 64 && written;
if (!ok)
  console.log('FAIL: device memory lost, RSS still growing, or the runs wrote no finite output');
process.exit(ok ? 0 : 1);
