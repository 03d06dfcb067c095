/**
 * Concurrent writers of one autotune cache file lose no entries: 8 processes and 4 workers of
 * this process each write their own entries at once, released together by a start file, and
 * every entry is in the file afterwards. The writers run autotune-cache.ts bundled by esbuild.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTOTUNE_CACHE_VERSION } from './autotune-cache.js';
import { bundleAutotuneCache } from './autotune-cache.test-helpers.js';

const PROCESSES = 8;
const WORKERS = 4;
const ENTRIES = 64;

let dir: string;
let writer: string;

/**
 * A writer: says it is ready, waits for the start file, then writes ENTRIES entries keyed `<id>-<i>`; exits 1 (or
 * posts false) if any write was refused. Argument order as process argv or as workerData.
 */
const WRITER = `
import { existsSync, writeFileSync } from 'node:fs';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { writeAutotuneEntry } from './cache.mjs';
const [path, id, count, start] = isMainThread ? process.argv.slice(2) : workerData;
process.emitWarning = (message) => process.stderr.write(message + '\\n');
const sleep = new Int32Array(new SharedArrayBuffer(4));
writeFileSync(start + '.ready-' + id, '');
while (!existsSync(start)) Atomics.wait(sleep, 0, 0, 2);
let ok = true;
for (let i = 0; i < Number(count); i++) {
  ok = writeAutotuneEntry(path, id + '-' + i, { engineIndex: i, knobs: [[1, i]] }, {
    staleMs: 120000,
    maxWaitMs: 120000,
  }) && ok;
}
if (isMainThread) process.exit(ok ? 0 : 1);
else parentPort.postMessage(ok);
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'baracuda-cache-writers-'));
  bundleAutotuneCache(dir);
  writer = join(dir, 'writer.mjs');
  writeFileSync(writer, WRITER);
});

describe('the autotune cache under concurrent writers', () => {
  it(`keeps every entry of ${PROCESSES} processes and ${WORKERS} workers writing at once`, async () => {
    const path = join(dir, 'cache', 'conv3d-autotune.json');
    const start = join(dir, 'start');
    const ids = [
      ...Array.from({ length: PROCESSES }, (_, p) => `process${p}`),
      ...Array.from({ length: WORKERS }, (_, w) => `worker${w}`),
    ];
    let settled = 0;
    const processes = ids.slice(0, PROCESSES).map(
      (id) =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, [writer, path, id, String(ENTRIES), start], {
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.on('exit', (status, signal) => {
            settled++;
            resolve(`${id}: ${status} ${signal} ${stderr}`);
          });
        }),
    );
    const workers = ids.slice(PROCESSES).map(
      (id) =>
        new Promise<string>((resolve) => {
          const worker = new Worker(writer, { workerData: [path, id, String(ENTRIES), start] });
          worker.on('message', (ok) => {
            settled++;
            resolve(`${id}: ${ok ? 0 : 1} null `);
          });
          worker.on('error', (error) => {
            settled++;
            resolve(`${id}: ${error.message}`);
          });
        }),
    );
    // Released together, once every writer is running.
    const ready = () => readdirSync(dir).filter((name) => name.startsWith('start.ready-')).length;
    // (A writer that ended before it was ready fails the comparison below instead of hanging.)
    while (ready() < ids.length && settled === 0)
      await new Promise((resolve) => setTimeout(resolve, 5));
    writeFileSync(start, '');
    const outcomes = await Promise.all([...processes, ...workers]);
    expect(outcomes).toEqual(ids.map((id) => `${id}: 0 null `));
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.version).toBe(AUTOTUNE_CACHE_VERSION);
    const want: Record<string, unknown> = {};
    for (const id of ids) {
      for (let i = 0; i < ENTRIES; i++) want[`${id}-${i}`] = { engineIndex: i, knobs: [[1, i]] };
    }
    expect(Object.keys(file.entries)).toHaveLength(ids.length * ENTRIES);
    expect(file.entries).toEqual(want);
    // No lock, temp or corrupt file is left behind.
    expect(readdirSync(join(dir, 'cache'))).toEqual(['conv3d-autotune.json']);
    expect(existsSync(`${path}.lock`)).toBe(false);
  }, 180_000);
});
