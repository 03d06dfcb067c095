/**
 * examples/data-parallel-conv3d.mjs runs to its end on the fakes (two fake GPUs, fake cuDNN, fake
 * NCCL): the example's plumbing, not its numbers (the fake cuDNN computes nothing).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildFakeCudnnLibrary } from '../../../scripts/testing/build-fake.mjs';
import { useFakes } from './fakes.test-helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, '..', 'examples', 'data-parallel-conv3d.mjs');

describe('examples/data-parallel-conv3d.mjs', () => {
  it('trains three steps over two fake GPUs', () => {
    useFakes(2);
    const out = execFileSync(process.execPath, [example], {
      encoding: 'utf8',
      env: {
        ...process.env,
        BARACUDA_CUDNN_LIBRARY: buildFakeCudnnLibrary(),
        FAKE_CUDNN_ENGINES: '28',
        EXAMPLE_STEPS: '3',
      },
    });
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^step 3\/3 on 2 GPU\(s\): [\d.]+ ms, \|dw\| = /);
    expect(lines[3]).toBe('done');
  });
});
