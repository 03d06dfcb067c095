import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AUTOTUNE_CACHE_VERSION,
  autotuneKey,
  defaultAutotuneCachePath,
  readAutotuneCache,
  writeAutotuneEntry,
} from './autotune-cache.js';
import { type CapturedWarning, captureWarnings } from './warnings.test-helpers.js';

let dir: string;

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}
let warnings: CapturedWarning[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baracuda-autotune-'));
  warnings = captureWarnings();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('autotune cache file', () => {
  it('default path: env override, XDG, then ~/.cache', () => {
    expect(defaultAutotuneCachePath({ BARACUDA_AUTOTUNE_CACHE: '/x/y.json' })).toBe('/x/y.json');
    expect(defaultAutotuneCachePath({ XDG_CACHE_HOME: '/xdg' })).toBe(
      '/xdg/baracuda/conv3d-autotune.json',
    );
    expect(defaultAutotuneCachePath({})).toMatch(/\.cache\/baracuda\/conv3d-autotune\.json$/);
  });

  it('keys carry problem, pass, scaling, flags, device and cuDNN version', () => {
    const key = autotuneKey({
      problem: 'conv3d n=1',
      pass: 'fw',
      scalingKind: 'f32',
      deterministic: true,
      allowTf32: false,
      deviceName: 'NVIDIA H200',
      computeCapability: { major: 9, minor: 0 },
      cudnnVersion: 91400,
    });
    expect(key).toBe(
      'conv3d n=1 | pass=fw | scaling=f32 | deterministic=true | tf32=false | device=NVIDIA H200 sm90 | cudnn=91400',
    );
  });

  it('a missing file is an empty cache, silently', () => {
    expect(readAutotuneCache(join(dir, 'none.json'))).toEqual({
      version: AUTOTUNE_CACHE_VERSION,
      entries: {},
    });
    expect(warnings).toEqual([]);
  });

  it('round-trips entries, creating directories', () => {
    const path = join(dir, 'deep', 'er', 'cache.json');
    expect(writeAutotuneEntry(path, 'k1', { engineIndex: 3, knobs: [[2, 5]], timeMs: 0.5 })).toBe(
      true,
    );
    expect(writeAutotuneEntry(path, 'k2', { engineIndex: 9, knobs: [] })).toBe(true);
    const cache = readAutotuneCache(path);
    expect(cache.entries).toEqual({
      k1: { engineIndex: 3, knobs: [[2, 5]], timeMs: 0.5 },
      k2: { engineIndex: 9, knobs: [] },
    });
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(AUTOTUNE_CACHE_VERSION);
    expect(warnings).toEqual([]);
  });

  it('a corrupt file is ignored with a BaracudaWarning and kept aside on the next save', () => {
    const path = join(dir, 'corrupt.json');
    const corrupt = '{"version": 5, "entries": {"precious": ';
    writeFileSync(path, corrupt);
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.type).toBe('BaracudaWarning');
    expect(warnings[0]!.message).toMatch(
      /^Ignoring the autotune cache .*corrupt\.json: it is not valid JSON \(.*\); it will be kept aside as .*corrupt\.json\.corrupt-<time> when an entry is next written$/,
    );
    expect(writeAutotuneEntry(path, 'k', { engineIndex: 1, knobs: [] })).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).entries).toEqual({
      k: { engineIndex: 1, knobs: [] },
    });
    const aside = readdirSync(dir).filter((name) => name.startsWith('corrupt.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^corrupt\.json\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toBe(corrupt);
    expect(warnings.at(-1)!.message).toBe(
      `The autotune cache ${path} was corrupt (it is not valid JSON (${jsonError(corrupt)})); it is kept as ${join(dir, aside[0]!)}`,
    );
  });

  it('a stale version is ignored with a warning', () => {
    const path = join(dir, 'stale.json');
    writeFileSync(
      path,
      JSON.stringify({ version: 2, entries: { k: { engineIndex: 1, knobs: [] } } }),
    );
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(warnings[0]!.message).toMatch(
      /it has version 2, this baracuda reads version 5; it will be rewritten$/,
    );
  });

  it('malformed entries are dropped, good ones kept', () => {
    const path = join(dir, 'mixed.json');
    writeFileSync(
      path,
      JSON.stringify({
        version: AUTOTUNE_CACHE_VERSION,
        entries: { good: { engineIndex: 2, knobs: [[1, 1]] }, bad: { engineIndex: 'x' } },
      }),
    );
    expect(readAutotuneCache(path).entries).toEqual({ good: { engineIndex: 2, knobs: [[1, 1]] } });
    expect(warnings[0]!.message).toMatch(/^Ignoring 1 malformed entry of the autotune cache/);
  });

  it('a non-object file is ignored', () => {
    const path = join(dir, 'array.json');
    writeFileSync(path, '[1,2]');
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(warnings[0]!.message).toMatch(
      /: expected a JSON object with version and entries; it will be kept aside as .*array\.json\.corrupt-<time> when an entry is next written$/,
    );
  });

  it('an unwritable path is a warning, not an error', () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'x');
    expect(
      writeAutotuneEntry(join(blocker, 'sub', 'cache.json'), 'k', { engineIndex: 1, knobs: [] }),
    ).toBe(false);
    expect(warnings.at(-1)!.message).toMatch(/^Could not write the autotune cache/);
  });
});
