import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { NCCL_UNIQUE_ID_BYTES, ncclDataType, ncclRedOp, ncclResult } from './constants.js';
import { NATIVE_EXPORTS } from './native.js';

describe('the native addon', () => {
  it('loads without NCCL and exports exactly what NativeBinding describes', () => {
    const binding = loadAddon() as unknown as Record<string, unknown>;
    expect(Object.keys(binding).sort()).toEqual([...NATIVE_EXPORTS].sort());
    for (const name of NATIVE_EXPORTS) expect(typeof binding[name], name).toBe('function');
  });

  it('refuses to construct a communicator from JavaScript', () => {
    const binding = loadAddon();
    expect(() => Reflect.construct(binding.NcclComm, [])).toThrow(
      new TypeError(
        'NcclComm cannot be constructed from JavaScript; use ncclCommInitRank() or ncclCommInitAll()',
      ),
    );
  });

  it("has the TypeScript enums' values in its constant table (the one proven against nccl.h)", () => {
    const table = loadAddon().nativeConstants();
    const ours: Record<string, number> = {
      ...ncclResult,
      ...ncclRedOp,
      ...ncclDataType,
      NCCL_UNIQUE_ID_BYTES,
    };
    expect(table).toEqual(ours);
  });
});
