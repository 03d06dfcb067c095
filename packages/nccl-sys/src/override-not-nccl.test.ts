// BARACUDA_NCCL_LIBRARY naming a library that is not NCCL: refused with the reason, nothing else tried.
import { describe, expect, it } from 'vitest';
import * as n from './index.js';
import { buildNotNccl } from './test-support.js';

const path = buildNotNccl();
process.env.BARACUDA_NCCL_LIBRARY = path;

describe('BARACUDA_NCCL_LIBRARY pointing at something that is not NCCL', () => {
  it('is the only candidate, refused because it lacks ncclGetVersion', () => {
    const found = n.probe();
    expect(found.available).toBe(false);
    expect(found.reason).toBe(`BARACUDA_NCCL_LIBRARY=${path} did not load NCCL 2`);
    expect(found.tried).toHaveLength(1);
    expect(found.tried[0]?.path).toBe(path);
    expect(found.tried[0]?.error).toMatch(
      /^loaded, but it does not export ncclGetVersion, so it is not NCCL: /,
    );
  });
});
