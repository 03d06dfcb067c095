// Worker threads and the cudnn-sys addon, against the fake cuDNN: a worker terminated in the
// middle of a native call (successful calls, calls that throw TypeErrors describing their
// arguments) must not abort the process, and several workers may use the addon at once. Each run
// is a child process (scripts/testing/worker-stress.mjs), so an abort shows as a signal.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/testing/build-fake.mjs';
import { buildFakeCudnn, builtAddonPath } from './test-support.js';

const library = join(buildFakeCudnn(), 'libcudnn.so.9');
const addon = builtAddonPath();
const script = join(REPO_ROOT, 'scripts', 'testing', 'worker-stress.mjs');

async function stress(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
    env: { ...process.env, BARACUDA_CUDNN_ADDON: addon, BARACUDA_CUDNN_LIBRARY: library },
    timeout: 120_000,
  });
  return stdout;
}

describe('workers and the cudnn-sys addon', () => {
  it('survives 100 workers terminated mid-call, in two call patterns', async () => {
    expect(await stress('terminate', 'cudnn', '100')).toBe(
      'survived 100 terminations mid-call (cudnnCalls 50, cudnnThrows 50)\n',
    );
  });

  it('several workers use the addon at once', async () => {
    expect(await stress('concurrent', 'cudnn', '4')).toBe(
      '8 workers ran cudnnCalls, cudnnThrows at once\n',
    );
  });
});
