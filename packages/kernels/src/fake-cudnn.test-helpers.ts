/**
 * The fake libcudnn.so.9 of @baracuda/cudnn-sys (native/testing/fake_cudnn.c, reports cuDNN
 * 9.14.0) for tests that run plans without a GPU, and the fake device and stream they run on.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Compile the fake with `cc` into a temporary folder and point BARACUDA_CUDNN_LIBRARY at it
 * (before anything loads cuDNN). Null where there is no C compiler: the caller skips, saying so.
 */
export function useFakeCudnn(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('@baracuda/cudnn-sys/package.json');
    const source = join(dirname(pkg), 'native', 'testing', 'fake_cudnn.c');
    const dir = mkdtempSync(join(tmpdir(), 'baracuda-kernels-fake-cudnn-'));
    const library = join(dir, 'libcudnn.so.9');
    execFileSync('cc', ['-shared', '-fPIC', '-O1', '-o', library, source]);
    process.env.BARACUDA_CUDNN_LIBRARY = library;
    return library;
  } catch {
    return null;
  }
}

export const fakeDevice = {
  ordinal: 0,
  name: 'fake device',
  computeCapability: { major: 9, minor: 0 },
  arch: 'sm_90',
  makeCurrent() {},
};
export const fakeStream = { raw: 0n, device: fakeDevice };
