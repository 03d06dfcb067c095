// Worker threads and the driver addon, against the fake libcuda: a worker
// terminated in the middle of a native call (successful calls, throwing calls,
// async copies and waits in flight, page-locked memory) must not abort the
// process, and several workers may use the addon at once. Each run is a child
// process (scripts/testing/worker-stress.mjs), so an abort shows as a signal.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/testing/build-fake.mjs';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
// The sanitizer job (scripts/ci/sanitize.sh) points BARACUDA_ADDON_DIR at its instrumented build.
const addon = process.env.BARACUDA_ADDON_DIR
  ? join(process.env.BARACUDA_ADDON_DIR, 'baracuda_driver.node')
  : resolve(
      dirname(fileURLToPath(import.meta.url)),
      '..',
      'build',
      'Release',
      'baracuda_driver.node',
    );
const script = join(REPO_ROOT, 'scripts', 'testing', 'worker-stress.mjs');

async function stress(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
    env: { ...process.env, BARACUDA_DRIVER_ADDON: addon, BARACUDA_CUDA_DRIVER_LIBRARY: fake! },
    timeout: 120_000,
  });
  return stdout;
}

describe.skipIf(!fake)('workers and the driver addon', () => {
  it('survives 100 workers terminated mid-call, in four call patterns', async () => {
    expect(await stress('terminate', 'driver', '100')).toBe(
      'survived 100 terminations mid-call (driverCalls 25, driverThrows 25, driverAsync 25, driverPinned 25)\n',
    );
  });

  it('several workers use the addon at once', async () => {
    expect(await stress('concurrent', 'driver', '3')).toBe(
      '9 workers ran driverCalls, driverThrows, driverPinned at once\n',
    );
  });
});
