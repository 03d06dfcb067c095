import { LibraryNotFoundError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import * as cudnn from './index.js';
import { NATIVE_EXPORTS } from './native.js';

delete process.env.BARACUDA_CUDNN_LIBRARY;
const found = cudnn.probe();

describe.skipIf(found.available)('without cuDNN (skipped: a real cuDNN is installed here)', () => {
  it('probe reports unavailable with every path searched, in order', () => {
    expect(found.available).toBe(false);
    expect(found.version).toBeNull();
    expect(found.libraryPath).toBeNull();
    expect(found.reason).toBe('libcudnn.so.9 (cuDNN 9) was not found');
    const paths = found.tried.map((attempt) => attempt.path);
    expect(paths[0]).toBe('libcudnn.so.9');
    expect(found.tried[0]?.error).toMatch(/libcudnn\.so\.9: cannot open shared object file/);
    expect(paths).toContain('/usr/local/cuda/lib64/libcudnn.so.9');
    expect(paths).toContain('/usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.9');
    expect(paths).toContain('/usr/lib/x86_64-linux-gnu/libcudnn.so.9');
    expect(paths).toContain('/usr/lib64/libcudnn.so.9');
    expect(paths).toContain('/usr/lib/python3/dist-packages/nvidia/cudnn/lib/libcudnn.so.9');
    expect(paths).toContain(
      '/opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9',
    );
    for (const attempt of found.tried) expect(attempt.error).not.toBe('');
  });

  it('load() throws LibraryNotFoundError listing the paths and the fixes', () => {
    let caught: unknown;
    try {
      cudnn.load();
    } catch (error) {
      caught = error;
    }
    expect(LibraryNotFoundError.isInstance(caught)).toBe(true);
    const error = caught as LibraryNotFoundError;
    expect(error.library).toBe('libcudnn.so.9 (cuDNN 9)');
    expect(error.searched).toEqual(found.tried);
    expect(error.message).toContain('Could not load libcudnn.so.9 (cuDNN 9).');
    expect(error.message).toContain('  - /usr/lib/x86_64-linux-gnu/libcudnn.so.9: no such file');
    expect(error.message).toContain('sudo apt install libcudnn9-cuda-13');
    expect(error.message).toContain('pip install nvidia-cudnn-cu13');
    expect(error.message).toContain('BARACUDA_CUDNN_LIBRARY=/path/to/libcudnn.so.9');
  });

  it('every raw function throws LibraryNotFoundError instead of crashing', () => {
    const raw = NATIVE_EXPORTS.filter((name) => name.startsWith('cudnn'));
    expect(raw.length).toBe(58);
    for (const name of raw) {
      const fn = (cudnn as unknown as Record<string, () => unknown>)[name];
      expect(typeof fn, name).toBe('function');
      expect(() => fn?.(), name).toThrow(LibraryNotFoundError);
    }
  });

  it('the bare native functions throw a plain Error, never crash', () => {
    const native = loadAddon();
    expect(() => native.cudnnCreate()).toThrow(
      'cuDNN is not available (libcudnn.so.9 (cuDNN 9) was not found); call probe() for every path that was tried',
    );
  });

  it('the constant table needs the addon, not cuDNN', () => {
    expect(cudnn.nativeConstants().CUDNN_DATA_HALF).toBe(2);
  });
});
