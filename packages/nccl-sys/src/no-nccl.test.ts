// Without NCCL: probe() never throws and lists every path it searched; a raw call throws
// LibraryNotFoundError with the same list and the solutions. Its own file: NCCL loads once a process.
import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as n from './index.js';

process.env.BARACUDA_NCCL_LIBRARY = '';
process.env.VIRTUAL_ENV = '/nonexistent-venv';

describe('a machine without NCCL', () => {
  it('probe reports unavailable and every place searched, the pip wheel layout among them', () => {
    const found = n.probe();
    expect(found.available).toBe(false);
    expect(found.version).toBeNull();
    expect(found.reason).toBe('libnccl.so.2 (NCCL 2) was not found');
    const paths = found.tried.map((t) => t.path);
    expect(paths[0]).toBe('libnccl.so.2');
    expect(paths).toContain('/usr/lib/x86_64-linux-gnu/libnccl.so.2');
    expect(paths).toContain(
      '/nonexistent-venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2',
    );
    expect(paths).toContain('/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2');
    for (const attempt of found.tried) expect(attempt.error).not.toBe('');
  });

  it('a raw call throws LibraryNotFoundError naming the library, the paths and the fixes', () => {
    let thrown: unknown;
    try {
      n.ncclGetVersion();
    } catch (error) {
      thrown = error;
    }
    expect(LibraryNotFoundError.isInstance(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(
      message.startsWith(
        'Could not load libnccl.so.2 (NCCL 2.10 or newer).\nSearched:\n  - libnccl.so.2: ',
      ),
    ).toBe(true);
    expect(message).toContain(
      '  - Or set BARACUDA_NCCL_LIBRARY=/path/to/libnccl.so.2 (or the directory holding it)',
    );
    expect(() => n.ncclGroupStart()).toThrow(LibraryNotFoundError);
  });
});
