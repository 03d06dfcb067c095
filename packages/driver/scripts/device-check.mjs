#!/usr/bin/env node
// Device-machine checks for @baracuda/driver (issue 3, "Device machine").
//
//   pnpm --filter @baracuda/driver build
//   node packages/driver/scripts/device-check.mjs [results.json]
//
// Prints a markdown table (paste into packages/conformance/RESULTS.md) and, when
// a path is given, writes the same results as JSON. Exits 1 if a check fails.
import { randomFillSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Device, DeviceBuffer, Event, PinnedHostBuffer, probe, Stream } from '../dist/index.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const rows = [];
const results = { date: new Date().toISOString(), node: process.version, checks: {} };
let failed = false;

function record(name, value, pass, detail = '') {
  rows.push({ name, value, pass, detail });
  results.checks[name] = { value, pass, detail };
  if (pass === false) failed = true;
  console.error(
    `${pass === false ? 'FAIL' : 'ok  '} ${name}: ${value}${detail ? ` (${detail})` : ''}`,
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function step(name, run) {
  try {
    await run();
  } catch (error) {
    record(name, 'error', false, String(error?.message ?? error).split('\n')[0]);
  }
}

const driver = probe();
if (!driver.available) {
  console.error(driver.reason);
  process.exit(1);
}
const device = Device.get(0);
const version = `${Math.floor(driver.driverVersion / 1000)}.${(driver.driverVersion % 1000) / 10}`;
results.device = {
  name: device.name,
  computeCapability: device.computeCapability,
  arch: device.arch,
  smCount: device.smCount,
  totalMemory: device.totalMemory,
  driverVersion: driver.driverVersion,
  driverLibrary: driver.libraryPath,
};
record(
  'device',
  `${device.name} (${device.arch}, ${device.smCount} SMs, ${(device.totalMemory / GiB).toFixed(1)} GiB)`,
  true,
);
record('CUDA driver', `${driver.driverVersion} (CUDA ${version})`, true, driver.libraryPath);

await step('1 GiB round trip, bit-exact', async () => {
  const src = new Uint8Array(GiB);
  for (let offset = 0; offset < GiB; offset += 64 * MiB) randomFillSync(src, offset, 64 * MiB);
  const buffer = DeviceBuffer.alloc(GiB);
  try {
    buffer.uploadSync(src);
    const back = new Uint8Array(GiB);
    buffer.downloadSync(back);
    const syncExact = Buffer.compare(src, back) === 0;
    const stream = Stream.create(device, { nonBlocking: true });
    back.fill(0);
    src.reverse();
    await buffer.upload(src, stream);
    await buffer.download(back, stream);
    const asyncExact = Buffer.compare(src, back) === 0;
    stream.dispose();
    record(
      '1 GiB round trip, bit-exact',
      `sync ${syncExact ? 'exact' : 'MISMATCH'}, async ${asyncExact ? 'exact' : 'MISMATCH'}`,
      syncExact && asyncExact,
    );
  } finally {
    buffer.dispose();
  }
});

await step('10,000 allocate/free cycles', async () => {
  device.synchronizeSync();
  const before = device.memoryInfo().free;
  for (let i = 0; i < 10_000; i++) DeviceBuffer.alloc(MiB + (i % 7) * 4096).dispose();
  device.synchronizeSync();
  const after = device.memoryInfo().free;
  record(
    '10,000 allocate/free cycles (cuMemAlloc)',
    `free before ${before} B, after ${after} B, delta ${after - before} B`,
    after === before,
  );

  const stream = Stream.create(device);
  const beforeAsync = device.memoryInfo().free;
  for (let i = 0; i < 10_000; i++) DeviceBuffer.alloc(MiB + (i % 7) * 4096, { stream }).dispose();
  await stream.synchronize();
  device.synchronizeSync();
  const afterAsync = device.memoryInfo().free;
  stream.dispose();
  // Stream-ordered frees return memory to the pool; the pool releases it to
  // the device at the next synchronize (release threshold 0).
  record(
    '10,000 allocate/free cycles (cuMemAllocAsync)',
    `free before ${beforeAsync} B, after ${afterAsync} B, delta ${afterAsync - beforeAsync} B`,
    afterAsync === beforeAsync,
  );
});

await step('async synchronize during a long GPU job', async () => {
  const owned = [];
  const own = (d) => {
    owned.push(d);
    return d;
  };
  try {
    const stream = own(Stream.create(device, { nonBlocking: true }));
    // 8 GiB copies: few enough operations (a few hundred) that enqueueing them never fills the
    // driver's launch queue, which would block the host before the wait we want to observe.
    const a = own(DeviceBuffer.alloc(8 * GiB, { stream }));
    const b = own(DeviceBuffer.alloc(8 * GiB, { stream }));
    const start = own(Event.create(device));
    const end = own(Event.create(device));
    a.memset(1, stream);
    // Calibrate: how long do 20 1-GiB device-to-device copies take?
    start.record(stream);
    for (let i = 0; i < 20; i++) b.copyFrom(a, stream);
    end.record(stream);
    end.synchronizeSync();
    const perCopy = Event.elapsedMs(start, end) / 20;
    const copies = Math.min(600, Math.max(20, Math.ceil(1500 / perCopy)));

    start.record(stream);
    for (let i = 0; i < copies; i++) b.copyFrom(a, stream);
    end.record(stream);
    let ticks = 0;
    const interval = 10;
    const timer = setInterval(() => ticks++, interval);
    const began = performance.now();
    await stream.synchronize();
    const waited = performance.now() - began;
    clearInterval(timer);
    const gpuMs = Event.elapsedMs(start, end);
    const expected = Math.floor(waited / interval);
    record(
      'async synchronize during a long GPU job',
      `${ticks} ticks of a ${interval} ms setInterval during a ${waited.toFixed(0)} ms wait (${copies} × 8 GiB D2D copies, ${gpuMs.toFixed(0)} ms on the GPU)`,
      waited > 500 && ticks >= expected * 0.5,
      `expected about ${expected} ticks`,
    );
  } finally {
    for (const d of owned.reverse()) d.dispose();
  }
});

await step('bandwidth', async () => {
  const size = 256 * MiB;
  const repeats = 10;
  const owned = [];
  const own = (d) => {
    owned.push(d);
    return d;
  };
  try {
    const buffer = own(DeviceBuffer.alloc(size));
    const stream = own(Stream.create(device, { nonBlocking: true }));
    const start = own(Event.create(device));
    const end = own(Event.create(device));
    const pageable = randomFillSync(new Uint8Array(size));
    const pinned = own(PinnedHostBuffer.alloc(size));
    pinned.bytes.set(pageable);
    const gbps = (ms) => size / (ms / 1000) / 1e9;
    const measure = async (label, copy) => {
      await copy(); // warm-up
      const samples = [];
      for (let i = 0; i < repeats; i++) {
        start.record(stream);
        await copy();
        end.record(stream);
        end.synchronizeSync();
        samples.push(gbps(Event.elapsedMs(start, end)));
      }
      const value = median(samples);
      results.checks[label] = { value, pass: true, samples };
      rows.push({
        name: label,
        value: `${value.toFixed(1)} GB/s`,
        pass: true,
        detail: `256 MiB, median of ${repeats}`,
      });
      console.error(`ok   ${label}: ${value.toFixed(1)} GB/s`);
    };
    const wall = (label, copy) => {
      copy();
      const samples = [];
      for (let i = 0; i < repeats; i++) {
        const t = performance.now();
        copy();
        samples.push(gbps(performance.now() - t));
      }
      const value = median(samples);
      results.checks[label] = { value, pass: true, samples };
      rows.push({
        name: label,
        value: `${value.toFixed(1)} GB/s`,
        pass: true,
        detail: `256 MiB, median of ${repeats}, wall clock`,
      });
      console.error(`ok   ${label}: ${value.toFixed(1)} GB/s`);
    };
    wall('H2D pageable (uploadSync)', () => buffer.uploadSync(pageable));
    wall('D2H pageable (downloadSync)', () => buffer.downloadSync(pageable));
    await measure('H2D pageable (upload on a stream)', () => buffer.upload(pageable, stream));
    await measure('D2H pageable (download on a stream)', () => buffer.download(pageable, stream));
    await measure('H2D pinned (upload on a stream)', () => buffer.upload(pinned.bytes, stream));
    await measure('D2H pinned (download on a stream)', () => buffer.download(pinned.bytes, stream));
  } finally {
    for (const d of owned.reverse()) d.dispose();
  }
});

const table = [
  `### @baracuda/driver device check — ${results.date.slice(0, 10)}`,
  '',
  `GPU: ${device.name} (${device.arch}), driver ${driver.driverVersion} (CUDA ${version}), Node ${process.version}`,
  '',
  '| Check | Result | Pass | Notes |',
  '| --- | --- | --- | --- |',
  ...rows.map(
    (r) => `| ${r.name} | ${r.value} | ${r.pass === false ? '❌' : '✅'} | ${r.detail} |`,
  ),
].join('\n');
console.log(table);
results.markdown = table;
results.pass = !failed;
if (process.argv[2]) writeFileSync(process.argv[2], `${JSON.stringify(results, null, 2)}\n`);
process.exit(failed ? 1 : 0);
