import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { NATIVE_EXPORTS } from './native.js';

describe('the native addon', () => {
  it('loads without cuDNN and exports exactly what NativeBinding describes', () => {
    const binding = loadAddon() as unknown as Record<string, unknown>;
    expect(Object.keys(binding).sort()).toEqual([...NATIVE_EXPORTS].sort());
    for (const name of NATIVE_EXPORTS) {
      expect(typeof binding[name], name).toBe('function');
    }
  });

  it('refuses to construct handles and descriptors from JavaScript', () => {
    const binding = loadAddon();
    const construct = (ctor: Function) => () => Reflect.construct(ctor, []);
    expect(construct(binding.CudnnHandle)).toThrow(
      new TypeError('CudnnHandle cannot be constructed from JavaScript; use cudnnCreate()'),
    );
    expect(construct(binding.CudnnBackendDescriptor)).toThrow(
      new TypeError(
        'CudnnBackendDescriptor cannot be constructed from JavaScript; use cudnnBackendCreateDescriptor()',
      ),
    );
  });
});
