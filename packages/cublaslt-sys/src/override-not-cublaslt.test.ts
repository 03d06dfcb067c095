// BARACUDA_CUBLASLT_LIBRARY naming a directory whose libcublasLt.so.13 is not cuBLASLt: refused
// with the reason; .so.12 is looked for in the same directory, nothing else is tried.
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as lt from './index.js';
import { buildNotCublasLt } from './test-support.js';

const path = buildNotCublasLt();
process.env.BARACUDA_CUBLASLT_LIBRARY = `${dirname(path)}/`;

describe('BARACUDA_CUBLASLT_LIBRARY pointing at something that is not cuBLASLt', () => {
  it('is the only place searched, refused because it lacks cublasLtGetVersion', () => {
    const found = lt.probe();
    expect(found.available).toBe(false);
    expect(found.reason).toBe(`BARACUDA_CUBLASLT_LIBRARY=${dirname(path)}/ did not load cuBLASLt`);
    expect(found.tried.map((t) => t.path)).toEqual([
      path,
      join(dirname(path), 'libcublasLt.so.12'),
    ]);
    expect(found.tried[0]?.error).toMatch(
      /^loaded, but it does not export cublasLtGetVersion, so it is not cuBLASLt: /,
    );
    expect(found.tried[1]?.error).toBe('no such file');
  });
});
