// CI has no GPU and no libcuda: the probe says so and every API entry throws
// LibraryNotFoundError, without crashing. (Skipped where a driver is present.)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { probe } from './driver.js';
import { Event } from './event.js';
import { Module } from './module.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';

delete process.env.BARACUDA_CUDA_DRIVER_LIBRARY;
const result = probe();

const DEFAULT_SEARCH = [
  'libcuda.so.1',
  'libcuda.so',
  '/usr/lib/x86_64-linux-gnu/libcuda.so.1',
  '/usr/lib64/libcuda.so.1',
  '/usr/local/nvidia/lib64/libcuda.so.1',
  '/usr/lib/wsl/lib/libcuda.so.1',
];

describe.skipIf(result.available)('without a CUDA driver (CI)', () => {
  it('probe() reports unavailable with the searched paths and what to install', () => {
    expect(result.available).toBe(false);
    expect(result.driverVersion).toBeNull();
    expect(result.deviceCount).toBe(0);
    expect(result.libraryPath).toBeNull();
    expect(result.searched.map((attempt) => attempt.path)).toEqual(DEFAULT_SEARCH);
    for (const attempt of result.searched) expect(attempt.error).not.toBe('');
    expect(result.reason).toContain('Could not load libcuda.so.1 (NVIDIA driver).\nSearched:\n');
    expect(result.reason).toContain(
      'Possible solutions:\n' +
        '  - Install an NVIDIA driver r525 or newer (CUDA 12.0+), e.g. `sudo apt install nvidia-driver-580` on Ubuntu, then reboot; `nvidia-smi` should list your GPU\n' +
        '  - If libcuda.so.1 is installed somewhere unusual, set BARACUDA_CUDA_DRIVER_LIBRARY=/path/to/libcuda.so.1\n' +
        '  - In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
    );
    expect(probe()).toEqual(result);
  });

  const entries: [string, () => unknown][] = [
    ['Device.count()', () => Device.count()],
    ['Device.get()', () => Device.get()],
    ['Device.get(3)', () => Device.get(3)],
    ['Device.all()', () => Device.all()],
    ['Stream.create()', () => Stream.create()],
    [
      'Stream.create(undefined, {nonBlocking: true})',
      () => Stream.create(undefined, { nonBlocking: true }),
    ],
    ['DeviceBuffer.alloc(16)', () => DeviceBuffer.alloc(16)],
    ['DeviceBuffer.allocElements("f32", 4)', () => DeviceBuffer.allocElements('f32', 4)],
    ['Event.create()', () => Event.create()],
    ['PinnedHostBuffer.alloc(16)', () => PinnedHostBuffer.alloc(16)],
    ['Module.load(ptx)', () => Module.load('.version 8.0\n')],
  ];
  it.each(entries)('%s throws LibraryNotFoundError with the searched paths', (_, run) => {
    let thrown: unknown;
    try {
      run();
    } catch (error) {
      thrown = error;
    }
    expect(LibraryNotFoundError.isInstance(thrown)).toBe(true);
    const error = thrown as LibraryNotFoundError;
    expect(error.code).toBe('BARACUDA_LIBRARY_NOT_FOUND');
    expect(error.library).toBe('libcuda.so.1 (NVIDIA driver)');
    expect(error.searched.map((attempt) => attempt.path)).toEqual(DEFAULT_SEARCH);
    expect(error.cause).toBeInstanceOf(AggregateError);
  });

  it('a process that calls every entry survives and exits normally', () => {
    const dist = new URL('../dist/index.js', import.meta.url);
    if (!existsSync(dist)) return; // needs `pnpm build`; the in-process tests above cover the rest
    const script = `
      import * as d from ${JSON.stringify(dist.href)};
      const calls = [() => d.Device.count(), () => d.Device.get(), () => d.Stream.create(),
        () => d.DeviceBuffer.alloc(16), () => d.Event.create(), () => d.PinnedHostBuffer.alloc(16),
        () => d.Module.load('.version 8.0\\n')];
      let typed = 0;
      for (const call of calls) { try { call(); } catch (e) { if (e.code === 'BARACUDA_LIBRARY_NOT_FOUND') typed++; } }
      console.log(JSON.stringify({ typed, available: d.probe().available }));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, BARACUDA_CUDA_DRIVER_LIBRARY: '' },
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({ typed: 7, available: false });
  });
});
