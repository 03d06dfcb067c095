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

export function buildFakeLibcuda(options: { minimal?: boolean } = {}): string | null {
  const output = join(mkdtempSync(join(tmpdir(), 'baracuda-fake-cuda-')), 'libcuda.so.1');
  const args = ['-shared', '-fPIC', '-O1', '-o', output, SOURCE];
  if (options.minimal) args.unshift('-DFAKE_CUDA_MINIMAL');
  try {
    execFileSync('cc', args, { stdio: 'pipe' });
    return output;
  } catch {
    return null;
  }
}
