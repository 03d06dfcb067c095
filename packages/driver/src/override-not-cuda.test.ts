// BARACUDA_CUDA_DRIVER_LIBRARY naming a real shared library that is not the
// CUDA driver (libz): rejected because it lacks cuInit.
import { existsSync } from 'node:fs';
import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Device } from './device.js';
import { probe } from './driver.js';

const LIBZ = [
  '/lib/x86_64-linux-gnu/libz.so.1',
  '/usr/lib/x86_64-linux-gnu/libz.so.1',
  '/usr/lib64/libz.so.1',
  '/lib64/libz.so.1',
].find((path) => existsSync(path));
if (LIBZ) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = LIBZ;

describe.skipIf(!LIBZ)('BARACUDA_CUDA_DRIVER_LIBRARY pointing at libz', () => {
  it('probe() says it is not the CUDA driver', () => {
    const result = probe();
    expect(result.available).toBe(false);
    expect(result.searched).toEqual([
      { path: LIBZ, error: 'opened, but it does not export cuInit, so it is not the CUDA driver' },
    ]);
    expect(result.reason).toContain(
      `  - ${LIBZ}: opened, but it does not export cuInit, so it is not the CUDA driver\n`,
    );
  });

  it('Device.get() throws LibraryNotFoundError naming it', () => {
    expect(() => Device.get()).toThrow(LibraryNotFoundError);
    try {
      Device.get();
    } catch (error) {
      expect((error as LibraryNotFoundError).searched[0]?.path).toBe(LIBZ);
    }
  });
});
