import { describe, expect, it } from 'vitest';
import * as cudnn from './index.js';
import { buildFakeCudnn } from './test-support.js';

const dir = buildFakeCudnn();
process.env.BARACUDA_CUDNN_LIBRARY = `${dir}/libcudnn.so.9`;
process.env.FAKE_CUDNN_VERSION = '8907'; // cuDNN 8.9.7 encoded the cuDNN 8 way

describe('a cuDNN that is not version 9', () => {
  it('is rejected with the version it reported', () => {
    const found = cudnn.probe();
    expect(found.available).toBe(false);
    expect(found.tried).toEqual([
      {
        path: `${dir}/libcudnn.so.9`,
        error: 'loaded cuDNN version 8907, but baracuda needs cuDNN 9 (90000..99999)',
      },
    ]);
  });
});
