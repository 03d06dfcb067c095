import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as cudnn from './index.js';

// BARACUDA_CUDNN_LIBRARY is read at the first load, which happens in this process below.
process.env.BARACUDA_CUDNN_LIBRARY = '/nonexistent/baracuda/libcudnn.so.9';

describe('BARACUDA_CUDNN_LIBRARY pointing at a missing file', () => {
  it('is the only candidate, and is listed with its error', () => {
    const found = cudnn.probe();
    expect(found.available).toBe(false);
    expect(found.tried).toEqual([
      { path: '/nonexistent/baracuda/libcudnn.so.9', error: 'no such file' },
    ]);
    expect(found.reason).toBe(
      'BARACUDA_CUDNN_LIBRARY=/nonexistent/baracuda/libcudnn.so.9 did not load cuDNN 9',
    );
    expect(() => cudnn.cudnnGetVersion()).toThrow(LibraryNotFoundError);
  });
});
