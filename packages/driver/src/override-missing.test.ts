// BARACUDA_CUDA_DRIVER_LIBRARY naming a file that does not exist: only that
// path is tried, and the error names it with its dlerror.
import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { probe } from './driver.js';

const MISSING = '/nonexistent/baracuda/libcuda.so.1';
process.env.BARACUDA_CUDA_DRIVER_LIBRARY = MISSING;

describe('BARACUDA_CUDA_DRIVER_LIBRARY pointing at a missing file', () => {
  it('probe() names the path and its dlopen error', () => {
    const result = probe();
    expect(result.available).toBe(false);
    expect(result.searched).toEqual([
      {
        path: MISSING,
        error: `${MISSING}: cannot open shared object file: No such file or directory`,
      },
    ]);
    expect(result.reason).toBe(
      'Could not load libcuda.so.1 (NVIDIA driver).\n' +
        'Searched:\n' +
        `  - ${MISSING}: ${MISSING}: cannot open shared object file: No such file or directory\n` +
        'Possible solutions:\n' +
        `  - BARACUDA_CUDA_DRIVER_LIBRARY is set to ${MISSING}: point it at a real libcuda.so.1, or unset it to search the default locations\n` +
        '  - Install an NVIDIA driver r525 or newer (CUDA 12.0+), e.g. `sudo apt install nvidia-driver-580` on Ubuntu, then reboot; `nvidia-smi` should list your GPU\n' +
        '  - If libcuda.so.1 is installed somewhere unusual, set BARACUDA_CUDA_DRIVER_LIBRARY=/path/to/libcuda.so.1\n' +
        '  - In a container, run with `--gpus all` (NVIDIA Container Toolkit) so the driver is mounted',
    );
  });

  it('API entries throw LibraryNotFoundError naming that path', () => {
    let thrown: unknown;
    try {
      DeviceBuffer.alloc(64);
    } catch (error) {
      thrown = error;
    }
    expect(LibraryNotFoundError.isInstance(thrown)).toBe(true);
    expect((thrown as LibraryNotFoundError).searched).toEqual(probe().searched);
    expect((thrown as Error).message).toBe(probe().reason);
  });
});
