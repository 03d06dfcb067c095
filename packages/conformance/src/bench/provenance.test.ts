import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readAutotuneCache } from '@baracuda/kernels';
import { describe, expect, it } from 'vitest';
import { autotuneCacheState, commandOutput, driverVersion, resolveCommit } from './provenance.js';

const hasGit = spawnSync('git', ['--version']).status === 0;

describe('resolveCommit', () => {
  it('takes --commit, else $BARACUDA_BENCH_COMMIT, else unknown outside a repository', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'bench-nogit-'));
    expect(await resolveCommit('abcdef1', outside, {})).toBe('abcdef1');
    expect(
      await resolveCommit(undefined, outside, { BARACUDA_BENCH_COMMIT: 'abcdef1-dirty\n' }),
    ).toBe('abcdef1-dirty');
    // A malformed variable is ignored, not recorded.
    expect(await resolveCommit(undefined, outside, { BARACUDA_BENCH_COMMIT: 'HEAD' })).toBe(
      'unknown',
    );
  });

  it.skipIf(!hasGit)('reads HEAD, marked -dirty while tracked files differ', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'bench-git-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });
    git('init', '-q');
    writeFileSync(path.join(repo, 'a.txt'), 'one');
    git('add', 'a.txt');
    git('commit', '-qm', 'one');
    const head = git('rev-parse', 'HEAD').toString().trim();
    expect(await resolveCommit(undefined, repo, {})).toBe(head);
    writeFileSync(path.join(repo, 'a.txt'), 'two');
    expect(await resolveCommit(undefined, repo, {})).toBe(`${head}-dirty`);
  });
});

describe('driverVersion and commandOutput', () => {
  it('is null when the command is missing or fails, never a throw', async () => {
    expect(await commandOutput('/no/such/tool', [], tmpdir())).toBeNull();
    expect(await commandOutput(process.execPath, ['-e', 'process.exit(3)'], tmpdir())).toBeNull();
    expect(await commandOutput(process.execPath, ['-e', 'console.log(" 580.1 ")'], tmpdir())).toBe(
      '580.1',
    );
    const driver = await driverVersion(tmpdir());
    expect(driver === null || /^\d+\.\d+/.test(driver)).toBe(true);
  });
});

describe('autotuneCacheState', () => {
  it('is cold without a file or entries, carried with entries', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-cache-'));
    const file = path.join(dir, 'cache.json');
    expect(autotuneCacheState({ BARACUDA_AUTOTUNE_CACHE: file })).toEqual({
      state: 'cold',
      path: file,
      entriesAtStart: 0,
    });
    const version = readAutotuneCache(path.join(dir, 'none.json')).version;
    writeFileSync(file, JSON.stringify({ version, entries: {} }));
    expect(autotuneCacheState({ BARACUDA_AUTOTUNE_CACHE: file }).state).toBe('cold');
    writeFileSync(
      file,
      JSON.stringify({
        version,
        entries: { k1: { engineIndex: 3, knobs: [] }, k2: { engineIndex: 4, knobs: [] } },
      }),
    );
    expect(autotuneCacheState({ BARACUDA_AUTOTUNE_CACHE: file })).toEqual({
      state: 'carried',
      path: file,
      entriesAtStart: 2,
    });
  });
});
