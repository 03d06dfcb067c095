#!/usr/bin/env node
// Does cuDNN itself keep memory per handle lifetime? (run on the GPU machine; needs the built
// cudnn-sys and driver packages, or the bundles scripts/device/pack.sh makes):
//   node --expose-gc packages/cudnn-sys/scripts/handle-cycle-device-check.mjs [--cycles N] [--hold]
// N raw cudnnCreate / cudnnSetStream / cudnnDestroy cycles, nothing of ours in between; --hold keeps
// one more handle alive through the loop. Prints device free memory and host RSS at ten
// checkpoints and one JSON line. The kernels leak check (kernels/scripts/leak-device-check.mjs)
// creates and destroys the shared handle every cycle unless a plan is held; this tells whether
// what it loses is cuDNN's.
import { Device, Stream } from '../../driver/dist/index.js';
import * as cudnn from '../dist/index.js';

const MiB = 1024 * 1024;
const at = process.argv.indexOf('--cycles');
const cycles = at < 0 ? 10_000 : Number(process.argv[at + 1]);
const hold = process.argv.includes('--hold');
if (!Number.isSafeInteger(cycles) || cycles < 10) throw new TypeError('Expected --cycles >= 10');
const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('Run with node --expose-gc');

const device = Device.get(0);
const stream = Stream.create(device);
const create = () => {
  const r = cudnn.cudnnCreate();
  if (r.status !== 0) throw new Error(`cudnnCreate: ${cudnn.cudnnStatusName(r.status)}`);
  const status = cudnn.cudnnSetStream(r.handle, stream.raw);
  if (status !== 0) throw new Error(`cudnnSetStream: ${cudnn.cudnnStatusName(status)}`);
  return r.handle;
};
const held = hold ? create() : undefined;
const sample = (cycle) => {
  gc();
  return { cycle, free: device.memoryInfo().free, rss: process.memoryUsage().rss };
};
for (let i = 0; i < Math.min(200, cycles / 10); i++) cudnn.cudnnDestroy(create());
const points = [sample(0)];
const started = performance.now();
const every = Math.max(1, Math.floor(cycles / 10));
for (let i = 1; i <= cycles; i++) {
  cudnn.cudnnDestroy(create());
  if (i % every === 0 || i === cycles) points.push(sample(i));
}
const seconds = (performance.now() - started) / 1000;
if (held) cudnn.cudnnDestroy(held);
const [base, last] = [points[0], points.at(-1)];
const mib = (b) => +(b / MiB).toFixed(1);
for (const p of points)
  console.log(
    `cycle ${String(p.cycle).padStart(6)}: device free ${mib(p.free - base.free)} MiB, rss +${mib(p.rss - base.rss)} MiB`,
  );
console.log(
  JSON.stringify({
    cycles,
    hold,
    cudnn: cudnn.probe().version,
    seconds: +seconds.toFixed(1),
    deviceLostMiB: mib(base.free - last.free),
    rssGrowthMiB: mib(last.rss - base.rss),
  }),
);
