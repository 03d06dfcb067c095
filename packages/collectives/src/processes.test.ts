/**
 * One rank per process: this process makes the NcclUniqueId and hands it, as text in an
 * environment variable, to 2 or 3 Node child processes (src/testing/process-rank.mjs, on the
 * built package), each joining with `Communicator.initRank` on its own fake device. The fake NCCL
 * meets them through files named by the id (native/testing/fake_nccl_processes.c). Every
 * collective of every element kind is compared with a host computation, and a rank that dies or
 * fails ends its peers' waits with an NcclError (abort or timeout), never a hang.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Device, Stream } from '@baracuda/driver';
import { afterEach, describe, expect, it } from 'vitest';
import {
  allGatherHost,
  allReduceHost,
  reduceScatterHost,
} from '../scripts/nccl-host-reference.mjs';
import {
  download,
  FLOAT_KINDS,
  type FloatKind,
  randomValues,
  relativeL2,
  roundTo,
  TOLERANCE,
  upload,
  useFakes,
} from './fakes.test-helpers.js';
import { Communicator, NcclUniqueId } from './index.js';

useFakes(1);
const CHILD = fileURLToPath(new URL('./testing/process-rank.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface Ran {
  child: ChildProcess;
  /** The JSON line the child printed, or null when it printed none. */
  line: Promise<Record<string, unknown> | null>;
  exit: Promise<{ code: number | null; signal: string | null; stderr: string }>;
}

const launched: ChildProcess[] = [];
afterEach(() => {
  // A test that failed half-way leaves no child behind (a stalled rank would wait forever).
  for (const child of launched.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

function launch(rank: number, nRanks: number, env: Record<string, string>): Ran {
  const child = spawn(process.execPath, [CHILD], {
    env: {
      ...process.env,
      FAKE_CUDA_DEVICE_COUNT: '1',
      FAKE_NCCL_INIT_TIMEOUT_MS: '15000', // a rank that never joins fails the test, never hangs it
      BARACUDA_TEST_RANK: String(rank),
      BARACUDA_TEST_NRANKS: String(nRanks),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  launched.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: string | null; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  const line = new Promise<Record<string, unknown> | null>((resolve) => {
    const look = () => {
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(stdout.slice(0, end)));
    };
    child.stdout?.on('data', look);
    child.on('close', () => resolve(null));
  });
  return { child, line, exit };
}

const COUNT = 6; // divisible by 2 and 3: reduceScatter's blocks
type Inputs = Record<FloatKind, number[][]>;

function inputsFor(nRanks: number): Inputs {
  return Object.fromEntries(
    FLOAT_KINDS.map((kind, k) => [
      kind,
      Array.from({ length: nRanks }, (_, r) =>
        roundTo(kind, randomValues(COUNT, 1000 * k + r + 1)),
      ),
    ]),
  ) as Inputs;
}

/** What rank `rank` must hold after each collective of process-rank.mjs. */
function expected(inputs: number[][], rank: number): Record<string, number[]> {
  const n = inputs.length;
  const out: Record<string, number[]> = {};
  for (const op of ['sum', 'avg', 'max', 'min'] as const) {
    out[`allReduce:${op}`] = allReduceHost(op, inputs);
    out[`reduceScatter:${op}`] = reduceScatterHost(op, inputs, rank, COUNT / n);
  }
  out.broadcast = [...(inputs[n - 1] as number[])];
  out.allGather = allGatherHost(inputs);
  out.ring = [...(inputs[(rank + n - 1) % n] as number[])];
  return out;
}

async function collectivesAcross(nRanks: number): Promise<void> {
  expect(existsSync(BUILT), `${BUILT} (build the package first)`).toBe(true);
  const inputs = inputsFor(nRanks);
  const id = NcclUniqueId.create().toString();
  const ranks = Array.from({ length: nRanks }, (_, r) =>
    launch(r, nRanks, {
      BARACUDA_TEST_NCCL_ID: id,
      BARACUDA_TEST_MODE: 'collectives',
      BARACUDA_TEST_INPUTS: JSON.stringify(inputs),
    }),
  );
  const exits = await Promise.all(ranks.map((r) => r.exit));
  expect(exits.map((e) => [e.code, e.signal, e.stderr])).toEqual(ranks.map(() => [0, null, '']));
  const lines = await Promise.all(ranks.map((r) => r.line));
  let compared = 0;
  lines.forEach((line, rank) => {
    expect(line?.rank).toBe(rank);
    const results = line?.result as Record<FloatKind, Record<string, number[]>>;
    for (const kind of FLOAT_KINDS) {
      const want = expected(inputs[kind], rank);
      expect(Object.keys(results[kind]).sort()).toEqual(Object.keys(want).sort());
      for (const [name, values] of Object.entries(want)) {
        const error = relativeL2(results[kind][name] as number[], values);
        expect(error, `${kind} ${name} on rank ${rank}`).toBeLessThanOrEqual(TOLERANCE[kind]);
        compared += 1;
      }
    }
  });
  expect(compared).toBe(nRanks * FLOAT_KINDS.length * 11);
}

describe('one rank per process (the fake NCCL across processes)', () => {
  it('2 processes: every collective on every element kind matches the host computation', async () => {
    await collectivesAcross(2);
  });

  it('3 processes: the same', async () => {
    await collectivesAcross(3);
  });

  it('the process that made the id takes part too (an id made with FAKE_NCCL_PROCESSES=1)', async () => {
    process.env.FAKE_NCCL_PROCESSES = '1';
    let id: NcclUniqueId;
    try {
      id = NcclUniqueId.create();
    } finally {
      delete process.env.FAKE_NCCL_PROCESSES;
    }
    const inputs = {
      f32: [roundTo('f32', randomValues(COUNT, 7)), roundTo('f32', randomValues(COUNT, 8))],
    };
    const child = launch(1, 2, {
      BARACUDA_TEST_NCCL_ID: id.toString(),
      BARACUDA_TEST_MODE: 'sum',
      BARACUDA_TEST_INPUTS: JSON.stringify(inputs),
    });
    const comm = await Communicator.initRank({ id, rank: 0, nRanks: 2, device: Device.get(0) });
    const stream = Stream.create(Device.get(0));
    const buffer = upload('f32', inputs.f32[0]!, 0);
    comm.allReduce(buffer, buffer, stream, { kind: 'f32' });
    await comm.synchronize(stream, { timeoutMs: 15_000 });
    const want = allReduceHost('sum', inputs.f32);
    expect(relativeL2(download('f32', buffer), want)).toBeLessThanOrEqual(TOLERANCE.f32);
    const line = await child.line;
    expect(relativeL2(line?.result as number[], want)).toBeLessThanOrEqual(TOLERANCE.f32);
    expect((await child.exit).code).toBe(0);
    comm.dispose();
    buffer.dispose();
    stream.dispose();
  });

  it("a rank whose process dies is ncclRemoteError for the others' waits, which abort", async () => {
    const id = NcclUniqueId.create().toString();
    const env = {
      BARACUDA_TEST_NCCL_ID: id,
      BARACUDA_TEST_MODE: 'die',
      BARACUDA_TEST_TIMEOUT_MS: '15000',
    };
    const ranks = [0, 1, 2].map((r) => launch(r, 3, env));
    const exits = await Promise.all(ranks.map((r) => r.exit));
    expect(exits.map((e) => e.signal)).toEqual([null, 'SIGKILL', null]);
    for (const rank of [0, 2]) {
      expect(await ranks[rank]!.line).toEqual({
        rank,
        result: {
          waitError: {
            name: 'NcclError',
            code: 'BARACUDA_NCCL_ERROR',
            message: `\`ncclCommGetAsyncError\` failed: ncclRemoteError (fake: remote process exited or there was a network error; the communicator was aborted) on rank ${rank} of 3 on device 0`,
          },
          disposed: true,
        },
      });
    }
  });

  it("a rank that fails and stays ends the others' waits by their timeout, with the abort", async () => {
    const id = NcclUniqueId.create().toString();
    const env = {
      BARACUDA_TEST_NCCL_ID: id,
      BARACUDA_TEST_MODE: 'stall',
      BARACUDA_TEST_TIMEOUT_MS: '200',
      FAKE_NCCL_FAIL_RANK: '1',
    };
    const [r0, r1] = [0, 1].map((r) => launch(r, 2, env)) as [Ran, Ran];
    expect(await r1.line).toEqual({
      rank: 1,
      enqueueError: {
        name: 'NcclError',
        code: 'BARACUDA_NCCL_ERROR',
        message:
          '`ncclAllReduce` failed: ncclSystemError (fake: unhandled system error; fake: rank 1 was told to fail (FAKE_NCCL_FAIL_RANK)) on rank 1 of 2 on device 0',
      },
    });
    expect(await r0.line).toEqual({
      rank: 0,
      result: {
        waitError: {
          name: 'NcclError',
          code: 'BARACUDA_NCCL_ERROR',
          message:
            '`ncclCommGetAsyncError` failed: ncclInProgress (the work queued on the stream had not completed after 200 ms (a peer that failed or never called?); the communicator was aborted) on rank 0 of 2 on device 0',
        },
        disposed: true,
      },
    });
    r1.child.stdin?.end();
    expect((await r0.exit).code).toBe(0);
    expect((await r1.exit).code).toBe(0);
  });
});
