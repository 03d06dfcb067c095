// A cuBLASLt older than 12 (the fake told to report 11.11.3) is refused with the version it had.
import { describe, expect, it } from 'vitest';
import * as lt from './index.js';
import { useFakes } from './test-support.js';

const library = useFakes();
process.env.FAKE_CUBLASLT_VERSION = '111103';

describe('a cuBLASLt older than 12', () => {
  it('is refused, naming its version and the range baracuda needs', () => {
    const found = lt.probe();
    expect(found.available).toBe(false);
    expect(found.reason).toBe(`BARACUDA_CUBLASLT_LIBRARY=${library} did not load cuBLASLt`);
    expect(found.tried).toEqual([
      {
        path: library,
        error:
          'loaded cuBLASLt version 111103, but baracuda needs cuBLASLt 12 or 13 (120000..139999)',
      },
    ]);
  });
});
