/**
 * The bench's CUDA backend without a GPU, against the fake libcuda of @baracuda/driver and the
 * fake libcudnn.so.9 of @baracuda/cudnn-sys (compiled with cc; skipped, saying so, where there is
 * none): how it makes its timing events.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Event } from '@baracuda/driver';
import { describe, expect, it } from 'vitest';

/** Compile `source` (relative to `pkg`'s folder) into `name` and point `variable` at it. */
function fakeLibrary(pkg: string, source: string, name: string, variable: string): boolean {
  try {
    const root = dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
    const library = join(mkdtempSync(join(tmpdir(), 'baracuda-bench-fake-')), name);
    execFileSync('cc', ['-shared', '-fPIC', '-O1', '-o', library, join(root, source)]);
    process.env[variable] = library;
    return true;
  } catch {
    return false;
  }
}

const fakes =
  fakeLibrary(
    '@baracuda/driver',
    'test/fake-libcuda.c',
    'libcuda.so.1',
    'BARACUDA_CUDA_DRIVER_LIBRARY',
  ) &&
  fakeLibrary(
    '@baracuda/cudnn-sys',
    'native/testing/fake_cudnn.c',
    'libcudnn.so.9',
    'BARACUDA_CUDNN_LIBRARY',
  );

describe.skipIf(!fakes)(
  'the bench on fake libraries (skipped where no C compiler is found)',
  () => {
    it('times calls between events made as torch.cuda.Event makes them, without blocking sync', async () => {
      const { createCudaBackend } = await import('./cuda-backend.js');
      const made = createCudaBackend();
      if (!('backend' in made)) throw new Error(made.unavailable);
      // eventPool is the CUDA backend's own, not part of BenchBackend.
      const backend = made.backend as unknown as { eventPool(count: number): Event[] };
      const events = backend.eventPool(4);
      expect(events.length).toBeGreaterThanOrEqual(4);
      for (const event of events) expect([event.timing, event.blockingSync]).toEqual([true, false]);
    });
  },
);
