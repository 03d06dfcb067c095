/**
 * Builds test/fake-libcuda.c into a temporary shared library, for tests that
 * need "a driver" on machines without one. Returns null when no C compiler is
 * available (the tests that need it then skip).
 * @internal
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), '../../test/fake-libcuda.c');

export interface FakeLibcudaOptions {
  /** Only cuInit, cuDriverGetVersion and cuDeviceGetCount. */
  minimal?: boolean;
  /** An older driver: no cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel. */
  noModules?: boolean;
  /** Modules load, but cuLaunchKernel is missing. */
  noLaunch?: boolean;
}

export function buildFakeLibcuda(options: FakeLibcudaOptions = {}): string | null {
  const output = join(mkdtempSync(join(tmpdir(), 'baracuda-fake-cuda-')), 'libcuda.so.1');
  const args = ['-shared', '-fPIC', '-O1', '-o', output, SOURCE];
  if (options.minimal) args.unshift('-DFAKE_CUDA_MINIMAL');
  if (options.noModules) args.unshift('-DFAKE_CUDA_NO_MODULES');
  if (options.noLaunch) args.unshift('-DFAKE_CUDA_NO_LAUNCH');
  try {
    execFileSync('cc', args, { stdio: 'pipe' });
    return output;
  } catch {
    return null;
  }
}
