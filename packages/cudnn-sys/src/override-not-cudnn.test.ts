import { describe, expect, it } from 'vitest';
import * as cudnn from './index.js';
import { buildNotCudnn } from './test-support.js';

const dir = buildNotCudnn();
// A directory: the loader looks for libcudnn.so.9 inside it.
process.env.BARACUDA_CUDNN_LIBRARY = `${dir}/`;

describe('BARACUDA_CUDNN_LIBRARY pointing at a library that is not cuDNN', () => {
  it('is rejected with its error, and nothing else is tried', () => {
    const found = cudnn.probe();
    expect(found.available).toBe(false);
    expect(found.tried).toHaveLength(1);
    expect(found.tried[0]?.path).toBe(`${dir}/libcudnn.so.9`);
    expect(found.tried[0]?.error).toMatch(
      /^loaded, but it does not export cudnnGetVersion, so it is not cuDNN: .*undefined symbol: cudnnGetVersion/,
    );
  });
});
