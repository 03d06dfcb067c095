/**
 * The autotune cache file against hostile paths: links (at the path, at the old predictable temp
 * name, at a temp name), a directory, a FIFO and /dev/zero (in a child process, so a hang fails
 * by timeout instead of stopping the run), a file over 16 MiB, something other than a path
 * string, and the lock file (held, stale by pid, stale by age, awaited without blocking).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@baracuda/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readAutotuneCache, saveAutotuneEntry, writeAutotuneEntry } from './autotune-cache.js';
import { bundleAutotuneCache } from './autotune-cache.test-helpers.js';
import { CACHE_FILE_MAX_BYTES, replaceCacheFile, tempPathFor } from './autotune-cache-file.js';
import { type CapturedWarning, captureWarnings } from './warnings.test-helpers.js';

let dir: string;
let warnings: CapturedWarning[];
const entry = { engineIndex: 7, knobs: [] as [number, number][] };
const good = JSON.stringify({ version: 5, entries: { kept: { engineIndex: 1, knobs: [] } } });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baracuda-cache-file-'));
  warnings = captureWarnings();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const messages = () => warnings.map((w) => w.message);

describe('the autotune cache path', () => {
  it('is a path string: a file descriptor (0 would read stdin) or anything else is refused', () => {
    for (const bad of [0, 1, null, undefined, '', 'a\0b', Buffer.from('x'), new URL('file:///x')]) {
      expect(() => readAutotuneCache(bad as never)).toThrow(
        new InvalidArgumentError(
          'path',
          'a non-empty path string without NUL characters (the autotune cache file)',
          bad,
        ),
      );
      expect(() => writeAutotuneEntry(bad as never, 'k', entry)).toThrow(InvalidArgumentError);
    }
    expect(() => readAutotuneCache(0 as never)).toThrow(
      'Expected a non-empty path string without NUL characters (the autotune cache file) for path but received 0 of type number',
    );
  });

  it('a symbolic link there is not followed, for reading or writing', () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, good);
    const path = join(dir, 'cache.json');
    symlinkSync(target, path);
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(writeAutotuneEntry(path, 'k', entry)).toBe(false);
    expect(messages()).toEqual([
      `Ignoring the autotune cache ${path}: it is a symbolic link, which is not followed`,
      `Could not write the autotune cache ${path}: it is a symbolic link, which is not followed`,
    ]);
    expect(readFileSync(target, 'utf8')).toBe(good);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['cache.json', 'target.json']);
  });

  it('a link planted at the old predictable temp name, or at a temp name, is never written through', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const path = join(dir, 'cache.json');
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    expect(writeAutotuneEntry(path, 'k', entry)).toBe(true);
    expect(readAutotuneCache(path).entries).toEqual({ k: entry });
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    // Temp names are unguessable, and a link at one (however it got there) makes the write fail.
    const temp = tempPathFor(path);
    expect(temp).toMatch(/\/\.cache\.json\.[0-9a-f]{16}\.tmp$/);
    expect(tempPathFor(path)).not.toBe(temp);
    symlinkSync(victim, temp);
    expect(() => replaceCacheFile(path, '{}', temp)).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readAutotuneCache(path).entries).toEqual({ k: entry });
  });

  it('a directory there is refused, and nothing is left beside it', () => {
    const path = join(dir, 'cache.json');
    mkdirSync(path);
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(writeAutotuneEntry(path, 'k', entry)).toBe(false);
    expect(messages()).toEqual([
      `Ignoring the autotune cache ${path}: it is a directory, not a regular file`,
      `Could not write the autotune cache ${path}: it is a directory, not a regular file`,
    ]);
    expect(readdirSync(dir)).toEqual(['cache.json']);
    expect(readdirSync(path)).toEqual([]);
  });

  it('a file over 16 MiB is neither read nor replaced', () => {
    const path = join(dir, 'cache.json');
    writeFileSync(path, good);
    truncateSync(path, CACHE_FILE_MAX_BYTES + 1);
    expect(readAutotuneCache(path).entries).toEqual({});
    expect(writeAutotuneEntry(path, 'k', entry)).toBe(false);
    const why = `it holds ${CACHE_FILE_MAX_BYTES + 1} bytes, more than the 16777216 bytes (16 MiB) a cache file may hold`;
    expect(messages()).toEqual([
      `Ignoring the autotune cache ${path}: ${why}`,
      `Could not write the autotune cache ${path}: ${why}`,
    ]);
    expect(statSync(path).size).toBe(CACHE_FILE_MAX_BYTES + 1);
    expect(readdirSync(dir)).toEqual(['cache.json']);
  });
});

describe.skipIf(process.platform === 'win32')(
  'a FIFO or a device as the path (POSIX only: Windows has neither)',
  () => {
    it('is refused at once, in a child process that must finish within 20 s', () => {
      bundleAutotuneCache(dir);
      const fifo = join(dir, 'fifo');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const script = `
        import { readAutotuneCache, writeAutotuneEntry } from ${JSON.stringify(join(dir, 'cache.mjs'))};
        const said = [];
        process.emitWarning = (message) => said.push(message);
        const out = [];
        for (const path of process.argv.slice(1)) {
          out.push([Object.keys(readAutotuneCache(path).entries).length, writeAutotuneEntry(path, 'k', { engineIndex: 1, knobs: [] })]);
        }
        console.log(JSON.stringify({ out, said }));
      `;
      const child = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', script, fifo, '/dev/zero'],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(child.signal).toBe(null);
      expect(child.status).toBe(0);
      expect(JSON.parse(child.stdout)).toEqual({
        out: [
          [0, false],
          [0, false],
        ],
        said: [
          `Ignoring the autotune cache ${fifo}: it is a FIFO, not a regular file`,
          `Could not write the autotune cache ${fifo}: it is a FIFO, not a regular file`,
          'Ignoring the autotune cache /dev/zero: it is a character device, not a regular file',
          'Could not write the autotune cache /dev/zero: it is a character device, not a regular file',
        ],
      });
      expect(readdirSync(dir).sort()).toEqual(['cache.mjs', 'fifo']);
      expect(existsSync('/dev/zero.lock')).toBe(false);
    });
  },
);

describe('the lock file beside the cache', () => {
  const lockOf = (path: string) => `${path}.lock`;
  /** A lock file of `pid`, made `ageMs` ago (its mtime says so, as the lock code reads it). */
  const lock = (path: string, pid: number, ageMs: number) => {
    const time = Date.now() - ageMs;
    writeFileSync(
      lockOf(path),
      `${JSON.stringify({ pid, host: hostname(), time, token: 'someone' })}\n`,
    );
    utimesSync(lockOf(path), time / 1000, time / 1000);
  };

  it('a live holder is waited for, then given up on with a warning, and its lock kept', () => {
    const path = join(dir, 'cache.json');
    writeFileSync(path, good);
    // Older than a second, but its process lives: not stale.
    lock(path, process.pid, 2_000);
    expect(writeAutotuneEntry(path, 'k', entry, { staleMs: 60_000, maxWaitMs: 30 })).toBe(false);
    expect(messages()).toHaveLength(1);
    expect(messages()[0]).toMatch(
      new RegExp(
        `^Could not write the autotune cache ${path}: its lock file ${lockOf(path)} was held for \\d+ ms \\(by pid ${process.pid} on ${hostname()}\\); the tuned choice is kept for this process only$`,
      ),
    );
    expect(readFileSync(lockOf(path), 'utf8')).toContain('"token":"someone"');
    expect(readAutotuneCache(path).entries).toEqual({ kept: { engineIndex: 1, knobs: [] } });
  });

  it('a lock whose process is gone is broken after a second; any past staleMs by its age', () => {
    const path = join(dir, 'cache.json');
    writeFileSync(path, good);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    lock(path, gone, 2_000);
    const limits = { staleMs: 60_000, maxWaitMs: 5_000 };
    expect(writeAutotuneEntry(path, 'a', entry, limits)).toBe(true);
    lock(path, process.pid, 61_000);
    expect(writeAutotuneEntry(path, 'b', entry, limits)).toBe(true);
    expect(warnings).toEqual([]);
    expect(Object.keys(readAutotuneCache(path).entries).sort()).toEqual(['a', 'b', 'kept']);
    expect(readdirSync(dir)).toEqual(['cache.json']);
  });

  it('the async path awaits the lock: the event loop runs while it waits', async () => {
    const path = join(dir, 'cache.json');
    lock(path, process.pid, 0);
    // Released by timers, which can only fire if the waits below do not block the event loop. On
    // the way, the lock's content is unreadable (as while its creator writes it): still a
    // holder, judged by its age only.
    setTimeout(() => writeFileSync(lockOf(path), 'x'.repeat(8)), 20);
    setTimeout(() => truncateSync(lockOf(path), 0), 40);
    let released = false;
    setTimeout(() => {
      released = true;
      unlinkSync(lockOf(path));
    }, 60);
    const save = saveAutotuneEntry(path, 'k', entry, { staleMs: 60_000, maxWaitMs: 10_000 });
    let waits = 0;
    for (let step = save.next(); ; step = save.next()) {
      if (step.done) {
        expect(step.value).toBe(true);
        break;
      }
      waits++;
      await step.value.synchronize();
    }
    expect(released).toBe(true);
    expect(waits).toBeGreaterThan(0);
    expect(readAutotuneCache(path).entries).toEqual({ k: entry });
    expect(existsSync(lockOf(path))).toBe(false);
  });
});
