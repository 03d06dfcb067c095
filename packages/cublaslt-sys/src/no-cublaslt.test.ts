// Without cuBLASLt: probe() never throws and lists every path it searched; a raw call throws
// LibraryNotFoundError with the same list and the solutions. Its own file: cuBLASLt loads once a
// process.
import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as lt from './index.js';

process.env.BARACUDA_CUBLASLT_LIBRARY = '';
process.env.VIRTUAL_ENV = '/nonexistent-venv';

describe('a machine without cuBLASLt', () => {
  it('probe reports unavailable and every place searched, the pip wheel layouts among them', () => {
    const found = lt.probe();
    expect(found.available).toBe(false);
    expect(found.version).toBeNull();
    expect(found.reason).toBe('libcublasLt.so.13 or libcublasLt.so.12 (cuBLASLt) was not found');
    const paths = found.tried.map((t) => t.path);
    expect(paths[0]).toBe('libcublasLt.so.13');
    expect(paths).toContain('libcublasLt.so.12');
    expect(paths.indexOf('libcublasLt.so.12')).toBeGreaterThan(
      paths.indexOf('/usr/local/cuda/lib64/libcublasLt.so.13'),
    );
    expect(paths).toContain(
      '/nonexistent-venv/lib/python3*/site-packages/nvidia/cu13/lib/libcublasLt.so.13',
    );
    expect(paths).toContain(
      '/opt/*/.venv/lib/python3*/site-packages/nvidia/cublas/lib/libcublasLt.so.12',
    );
    expect(paths).toContain(
      '/opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libcublasLt.so.13',
    );
    for (const attempt of found.tried) expect(attempt.error).not.toBe('');
  });

  it('a raw call throws LibraryNotFoundError naming the library, the paths and the fixes', () => {
    let thrown: unknown;
    try {
      lt.cublasLtCreate();
    } catch (error) {
      thrown = error;
    }
    expect(LibraryNotFoundError.isInstance(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(
      message.startsWith(
        'Could not load libcublasLt.so.13 or libcublasLt.so.12 (cuBLASLt 12 or 13).\nSearched:\n  - libcublasLt.so.13: ',
      ),
    ).toBe(true);
    expect(message).toContain(
      '  - Or set BARACUDA_CUBLASLT_LIBRARY=/path/to/libcublasLt.so.13 (or the directory holding it)',
    );
    expect(() => lt.cublasLtGetVersion()).toThrow(LibraryNotFoundError);
  });
});
