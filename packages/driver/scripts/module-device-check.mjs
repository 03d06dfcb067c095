#!/usr/bin/env node
// Device-machine check for kernel modules and launches in @baracuda/driver.
//
//   pnpm --filter @baracuda/driver build
//   node packages/driver/scripts/module-device-check.mjs
//
// Finds the addon like every entry does (BARACUDA_ADDON_DIR first, then the
// package build). Loads a hand-written PTX kernel (text and bytes), launches it
// on a Stream and on the legacy default stream, checks every output word,
// checks the errors of a bad image, a missing kernel and a bad launch, times
// the launch path, and unloads. Prints one PASS/FAIL line per check, then
// PASS or FAIL; exits 1 on failure.
import { CudaError, DisposedError } from '@baracuda/types';
import { Device, DeviceBuffer, KernelParams, Module, probe, Stream } from '../dist/index.js';
import { expectedIndices, INDEX_PTX } from './index-ptx.mjs';

const NOOP_PTX = `.version 7.0
.target sm_52
.address_size 64
.visible .entry baracuda_test_noop(.param .u64 out, .param .u32 n)
{
	ret;
}
`;

let failures = 0;
let checks = 0;
function report(name, pass, detail = '') {
  checks++;
  if (!pass) failures++;
  console.log(`${pass ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}
async function step(name, run) {
  try {
    await run();
  } catch (error) {
    report(name, false, `threw ${String(error?.stack ?? error)}`);
  }
}
function firstMismatch(actual, expected) {
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i])
      return `word ${i}: got 0x${actual[i].toString(16)}, expected 0x${expected[i].toString(16)}`;
  }
  return null;
}
function catchError(run) {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
}

const driver = probe();
if (!driver.available || driver.deviceCount === 0) {
  console.log(`FAIL no CUDA device: ${driver.reason}`);
  process.exit(1);
}
const device = Device.get(0);
console.log(
  `device: ${device.name} (${device.arch}), driver ${driver.driverVersion} at ${driver.libraryPath}`,
);

await step('PTX text: load, launch on a Stream, read back', async () => {
  const stream = Stream.create(device, { nonBlocking: true });
  const module = Module.load(INDEX_PTX, device);
  const fn = module.getFunction('baracuda_test_indices');
  const blockSize = 256;
  const threads = 4096 * blockSize;
  const n = 1_000_000;
  const tag = 0x0123456789abcdefn;
  const out = DeviceBuffer.alloc(threads * 4);
  out.fillSync32(0xffffffff);
  const params = new KernelParams().ptr(out.devicePtr).u32(n).u64(tag);
  fn.launch(stream, [threads / blockSize, 1, 1], [blockSize, 1, 1], 0, params.bytes());
  await stream.synchronize();
  const values = new Uint32Array(threads);
  out.downloadSync(values);
  const mismatch = firstMismatch(values, expectedIndices(threads, blockSize, n, tag));
  report(
    'PTX text: load, launch on a Stream, read back',
    mismatch === null,
    mismatch ?? `${threads} words exact (params ${params.byteLength} bytes, tag after padding)`,
  );
  out.dispose();
  module.dispose();
  stream.dispose();
});

await step('PTX bytes: launch on the legacy default stream (raw 0n)', async () => {
  const module = Module.load(new TextEncoder().encode(INDEX_PTX));
  const fn = module.getFunction('baracuda_test_indices');
  const out = DeviceBuffer.alloc(1024 * 4);
  out.fillSync32(0xffffffff);
  fn.launch(
    { raw: 0n },
    [8, 1, 1],
    [128, 1, 1],
    0,
    new KernelParams().ptr(out.devicePtr).u32(100).u64(42n).bytes(),
  );
  device.synchronizeSync();
  const values = new Uint32Array(1024);
  out.downloadSync(values);
  const mismatch = firstMismatch(values, expectedIndices(1024, 128, 100, 42n));
  report(
    'PTX bytes: launch on the legacy default stream (raw 0n)',
    mismatch === null,
    mismatch ?? '1024 words exact',
  );
  out.dispose();
  module.dispose();
});

await step('errors name the call and the CUDA error', () => {
  const bad = catchError(() => Module.load('this is not PTX'));
  report(
    'invalid image -> CudaError cuModuleLoadData',
    CudaError.isInstance(bad) && bad.call === 'cuModuleLoadData',
    String(bad?.message),
  );
  const future = catchError(() => Module.load(INDEX_PTX.replace('.version 7.0', '.version 99.9')));
  report(
    'future PTX version -> CudaError cuModuleLoadData',
    CudaError.isInstance(future) && future.call === 'cuModuleLoadData',
    String(future?.message),
  );
  const module = Module.load(INDEX_PTX);
  const missing = catchError(() => module.getFunction('missing_kernel'));
  report(
    'missing kernel -> CUDA_ERROR_NOT_FOUND naming it',
    CudaError.isInstance(missing) &&
      missing.resultName === 'CUDA_ERROR_NOT_FOUND' &&
      missing.message.includes('"missing_kernel"'),
    String(missing?.message),
  );
  const fn = module.getFunction('baracuda_test_indices');
  const out = DeviceBuffer.alloc(64);
  const launch = catchError(() =>
    fn.launch(
      { raw: 0n },
      [1, 1, 1],
      [32, 1, 1],
      2 ** 31,
      new KernelParams().ptr(out.devicePtr).u32(0).u64(0n).bytes(),
    ),
  );
  report(
    '2 GiB of shared memory -> CudaError cuLaunchKernel',
    CudaError.isInstance(launch) && launch.call === 'cuLaunchKernel',
    String(launch?.message),
  );
  device.synchronizeSync();
  module.dispose();
  const after = catchError(() =>
    fn.launch({ raw: 0n }, [1, 1, 1], [1, 1, 1], 0, new Uint8Array(24)),
  );
  report(
    'launch after dispose -> DisposedError',
    DisposedError.isInstance(after),
    String(after?.message),
  );
  out.dispose();
});

await step('launch path cost', async () => {
  const stream = Stream.create(device, { nonBlocking: true });
  const module = Module.load(NOOP_PTX);
  const fn = module.getFunction('baracuda_test_noop');
  const params = new KernelParams().ptr(0n).u32(0);
  const bytes = params.bytes();
  const grid = [1, 1, 1];
  const block = [32, 1, 1];
  for (let i = 0; i < 1000; i++) fn.launch(stream, grid, block, 0, bytes);
  await stream.synchronize();
  const rounds = [];
  for (let round = 0; round < 5; round++) {
    const count = 2000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) fn.launch(stream, grid, block, 0, bytes);
    const ns = Number(process.hrtime.bigint() - start);
    await stream.synchronize();
    rounds.push(ns / count / 1000);
  }
  rounds.sort((a, b) => a - b);
  report(
    'launch path cost',
    true,
    `median ${rounds[2].toFixed(2)} us per launch enqueued (min ${rounds[0].toFixed(2)}, max ${rounds[4].toFixed(2)}; 5 x 2000 no-op launches)`,
  );
  // Unloading after launches waits for the device first, then unloads.
  fn.launch(stream, grid, block, 0, bytes);
  module.dispose();
  module.dispose();
  await stream.synchronize();
  report('dispose after launches (cuCtxSynchronize + cuModuleUnload), twice', module.disposed);
  stream.dispose();
});

console.log(
  failures === 0 ? `PASS (${checks} checks)` : `FAIL (${failures} of ${checks} checks failed)`,
);
process.exit(failures === 0 ? 0 : 1);
