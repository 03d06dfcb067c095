import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PLAN_PREFERENCE,
  type PlanPreference,
  resolvePlanPreference,
  Workspace,
  workspaceBytes,
} from './plan.js';

const KEYS = 'maxWorkspaceBytes, algorithm, deterministic, allowTf32, math, preferBackend';

describe('DEFAULT_PLAN_PREFERENCE', () => {
  it('holds the documented defaults and is frozen', () => {
    expect(DEFAULT_PLAN_PREFERENCE).toEqual({
      maxWorkspaceBytes: 'auto',
      algorithm: 'heuristic',
      deterministic: false,
      allowTf32: false,
      math: 'default',
      preferBackend: undefined,
    });
    expect(Object.keys(DEFAULT_PLAN_PREFERENCE).join(', ')).toBe(KEYS);
    expect(Object.isFrozen(DEFAULT_PLAN_PREFERENCE)).toBe(true);
  });
});

describe('resolvePlanPreference', () => {
  it('gives the defaults for nothing, an empty object or undefined fields', () => {
    expect(resolvePlanPreference()).toEqual(DEFAULT_PLAN_PREFERENCE);
    expect(resolvePlanPreference({})).toEqual(DEFAULT_PLAN_PREFERENCE);
    expect(resolvePlanPreference({ algorithm: undefined, preferBackend: undefined })).toEqual(
      DEFAULT_PLAN_PREFERENCE,
    );
  });

  it("takes math '3xtf32' with heuristic or autotune and no TF32", () => {
    expect(resolvePlanPreference({ math: '3xtf32' })).toMatchObject({
      math: '3xtf32',
      allowTf32: false,
      algorithm: 'heuristic',
    });
    expect(resolvePlanPreference({ math: '3xtf32', algorithm: 'autotune' }).math).toBe('3xtf32');
    expect(resolvePlanPreference({ math: 'default', allowTf32: true }).math).toBe('default');
  });

  it('keeps given fields and fills the rest', () => {
    const resolved = resolvePlanPreference({
      maxWorkspaceBytes: 0,
      algorithm: 'autotune',
      deterministic: true,
      preferBackend: 'cudnn',
    });
    expect(resolved).toEqual({
      maxWorkspaceBytes: 0,
      algorithm: 'autotune',
      deterministic: true,
      allowTf32: false,
      math: 'default',
      preferBackend: 'cudnn',
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(
      resolvePlanPreference({ maxWorkspaceBytes: Number.MAX_SAFE_INTEGER }).maxWorkspaceBytes,
    ).toBe(Number.MAX_SAFE_INTEGER);
    expect(resolvePlanPreference({ maxWorkspaceBytes: 'auto' }).maxWorkspaceBytes).toBe('auto');
    expect(resolvePlanPreference({ maxWorkspaceBytes: 4096 }).maxWorkspaceBytes).toBe(4096);
    expect(resolvePlanPreference({ algorithm: 'pinned', allowTf32: true })).toMatchObject({
      algorithm: 'pinned',
      allowTf32: true,
    });
  });

  it.each([
    [
      { maxWorkspaceBytes: -1 },
      "Expected 'auto' or a non-negative integer for maxWorkspaceBytes but received -1 of type number",
    ],
    [
      { maxWorkspaceBytes: 1.5 },
      "Expected 'auto' or a non-negative integer for maxWorkspaceBytes but received 1.5 of type number",
    ],
    [
      { maxWorkspaceBytes: 1024n },
      "Expected 'auto' or a non-negative integer for maxWorkspaceBytes but received 1024n of type bigint",
    ],
    [
      { maxWorkspaceBytes: Number.POSITIVE_INFINITY },
      "Expected 'auto' or a non-negative integer for maxWorkspaceBytes but received Infinity of type number",
    ],
    [
      { maxWorkspaceBytes: 'AUTO' },
      'Expected \'auto\' or a non-negative integer for maxWorkspaceBytes but received "AUTO" of type string',
    ],
    [
      { algorithm: 'fastest' },
      'Expected one of heuristic, autotune, pinned for algorithm but received "fastest" of type string',
    ],
    [{ deterministic: 1 }, 'Expected a boolean for deterministic but received 1 of type number'],
    [{ allowTf32: 'yes' }, 'Expected a boolean for allowTf32 but received "yes" of type string'],
    [
      { math: 'tf32' },
      'Expected one of default, 3xtf32 for math but received "tf32" of type string',
    ],
    [
      { math: '3xtf32', allowTf32: true },
      "Expected false with math '3xtf32' for allowTf32 but received true",
    ],
    [
      { math: '3xtf32', algorithm: 'pinned' },
      "Expected 'heuristic' or 'autotune' with math '3xtf32' for algorithm but received \"pinned\" of type string",
    ],
    [
      { preferBackend: 'tensorrt' },
      'Expected one of cudnn, cutlass, cublas, native, cpu for preferBackend but received "tensorrt" of type string',
    ],
    [
      { preferBackend: null },
      'Expected one of cudnn, cutlass, cublas, native, cpu for preferBackend but received null',
    ],
    [
      { maxWorkspace: 10 },
      `Expected one of ${KEYS} for preference key but received "maxWorkspace" of type string`,
    ],
    [null, 'Expected an object or undefined for preference but received null'],
    [[], 'Expected an object or undefined for preference but received an array of length 0'],
    [
      'heuristic',
      'Expected an object or undefined for preference but received "heuristic" of type string',
    ],
  ])('rejects %o', (partial, message) => {
    expect(() => resolvePlanPreference(partial as Partial<PlanPreference>)).toThrow(message);
  });
});

describe('Workspace', () => {
  const slice = { devicePtr: 0x7f0000000000n, byteLength: 4096 };

  it('builds none and borrowed workspaces', () => {
    const none: Workspace = Workspace.none();
    expect(none).toEqual({ kind: 'none' });
    expect(workspaceBytes(none)).toBe(0);
    const borrowed = Workspace.borrowed(slice);
    expect(borrowed).toEqual({ kind: 'borrowed', slice });
    expect(workspaceBytes(borrowed)).toBe(4096);
    expect(Object.isFrozen(borrowed)).toBe(true);
    if (borrowed.kind === 'borrowed') expect(borrowed.slice).toBe(slice);
  });

  it('rejects what is not a slice or a workspace', () => {
    expect(() => Workspace.borrowed({ devicePtr: 1, byteLength: 4 } as never)).toThrow(
      'Expected a DeviceSlice (an object with devicePtr: bigint and byteLength: non-negative integer) for slice but received an object',
    );
    expect(() => workspaceBytes({ kind: 'lent' } as never)).toThrow(
      'Expected a Workspace (Workspace.none() or Workspace.borrowed(slice)) for workspace but received an object',
    );
    expect(() => workspaceBytes(undefined as never)).toThrow(
      'Expected a Workspace (Workspace.none() or Workspace.borrowed(slice)) for workspace but received undefined',
    );
  });
});
