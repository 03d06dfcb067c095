// An NCCL older than 2.10 (the fake told to report 2.9.9) is refused with the version it had.
import { describe, expect, it } from 'vitest';
import * as n from './index.js';
import { useFakes } from './test-support.js';

const library = useFakes();
process.env.FAKE_NCCL_VERSION = '20909';

describe('an NCCL older than 2.10', () => {
  it('is refused, naming its version and the range baracuda needs', () => {
    const found = n.probe();
    expect(found.available).toBe(false);
    expect(found.tried).toEqual([
      {
        path: library,
        error: 'loaded NCCL version 20909, but baracuda needs NCCL 2.10 or newer (21000..29999)',
      },
    ]);
  });
});
