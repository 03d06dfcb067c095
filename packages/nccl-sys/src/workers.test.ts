// Worker threads and the nccl-sys addon, against the fake NCCL: workers terminated in the middle
// of native calls (communicators made and destroyed, collectives, calls that throw TypeErrors)
// must not abort the process, and several workers may use the addon at once. The run is a child
// process, so an abort shows as a signal.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useFakes } from './test-support.js';

const library = useFakes({ devices: 2 });
const addon =
  process.env.BARACUDA_ADDON_DIR !== undefined
    ? join(process.env.BARACUDA_ADDON_DIR, 'baracuda_nccl.node')
    : join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'Release', 'baracuda_nccl.node');

// Each worker loops until terminated: init two ranks, all-reduce (pointer 0, count 0: the fake
// touches no memory), destroy, and a call that throws; it posts 'ready' after its first round.
const child = `
const { Worker } = require('node:worker_threads');
const body = \`
const { parentPort, workerData } = require('node:worker_threads');
const n = require(workerData.addon);
for (let i = 0; ; i++) {
  const { comms } = n.ncclCommInitAll(Int32Array.of(0, 1));
  n.ncclGroupStart();
  for (const c of comms) n.ncclAllReduce(0n, 0n, 0, 7, 0, c, 0n);
  n.ncclGroupEnd();
  for (const c of comms) n.ncclCommDestroy(c);
  try { n.ncclAllReduce(1, 0n, 0, 7, 0, null, 0n); } catch {}
  if (i === 0) parentPort.postMessage('ready');
  if (workerData.rounds && i + 1 === workerData.rounds) { parentPort.postMessage('done'); break; }
}
\`;
const [mode, count] = process.argv.slice(1);
const run = (rounds) => new Promise((resolve, reject) => {
  const w = new Worker(body, { eval: true, workerData: { addon: process.env.ADDON, rounds } });
  w.on('error', reject);
  w.on('message', (m) => { if (m === 'ready' && !rounds) w.terminate().then(resolve); if (m === 'done') resolve(); });
});
(async () => {
  if (mode === 'terminate') {
    for (let i = 0; i < Number(count); i++) await run(0);
    console.log('survived ' + count + ' terminations mid-call');
  } else {
    await Promise.all(Array.from({ length: Number(count) }, () => run(200)));
    console.log(count + ' workers ran 200 rounds each at once');
  }
})();
`;

async function stress(mode: string, count: number): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-e', child, mode, String(count)],
    {
      env: { ...process.env, ADDON: addon, BARACUDA_NCCL_LIBRARY: library },
      timeout: 120_000,
    },
  );
  return stdout;
}

describe('workers and the nccl-sys addon', () => {
  it('survives 50 workers terminated mid-call', async () => {
    expect(await stress('terminate', 50)).toBe('survived 50 terminations mid-call\n');
  });

  it('several workers use the addon at once', async () => {
    expect(await stress('concurrent', 4)).toBe('4 workers ran 200 rounds each at once\n');
  });
});
