// One rank of a communicator of several processes, for src/processes.test.ts (run with plain node
// against the built package and the fakes). It joins the communicator named by
// BARACUDA_TEST_NCCL_ID as rank BARACUDA_TEST_RANK of BARACUDA_TEST_NRANKS on device 0 (the
// fake libcuda's only device), runs what BARACUDA_TEST_MODE says, and prints one JSON line:
//   collectives  every collective on every element kind, on the inputs of BARACUDA_TEST_INPUTS
//                ({kind: [rank 0's values, rank 1's, ...]}); prints what each produced
//   die          rank 1 kills itself (SIGKILL) after joining; the others all-reduce and print the
//                error their wait rejected with
//   sum          one f32 all-reduce (sum) of BARACUDA_TEST_INPUTS' f32 values; prints the result
//   stall        rank 1's all-reduce fails (FAKE_NCCL_FAIL_RANK=1) and it stays alive until its
//                stdin closes; the others' waits give up after BARACUDA_TEST_TIMEOUT_MS
import { Device, DeviceBuffer, Stream } from '@baracuda/driver';
import { bf16ArrayToF32, f16ArrayToF32, f32ArrayToBf16, f32ArrayToF16 } from '@baracuda/types';
import { Communicator, group, NcclUniqueId } from '../../dist/index.js';

const rank = Number(process.env.BARACUDA_TEST_RANK);
const nRanks = Number(process.env.BARACUDA_TEST_NRANKS);
const mode = process.env.BARACUDA_TEST_MODE;
const device = Device.get(0);
const stream = Stream.create(device);

function hostArray(kind, values) {
  if (kind === 'f64') return Float64Array.from(values);
  const f32 = Float32Array.from(values);
  if (kind === 'f32') return f32;
  return kind === 'f16' ? f32ArrayToF16(f32) : f32ArrayToBf16(f32);
}

function upload(kind, values) {
  const host = hostArray(kind, values);
  const buffer = DeviceBuffer.alloc(host.byteLength, { device });
  buffer.uploadSync(host);
  return buffer;
}

function download(kind, buffer) {
  const size = kind === 'f64' ? 8 : kind === 'f32' ? 4 : 2;
  const host =
    kind === 'f64'
      ? new Float64Array(buffer.byteLength / size)
      : kind === 'f32'
        ? new Float32Array(buffer.byteLength / size)
        : new Uint16Array(buffer.byteLength / size);
  buffer.downloadSync(host);
  if (kind === 'f16') return [...f16ArrayToF32(host)];
  if (kind === 'bf16') return [...bf16ArrayToF32(host)];
  return [...host];
}

/** A buffer of `count` NaNs (never zeros: a result that was never written shows). */
const poisoned = (kind, count) => upload(kind, Array(count).fill(Number.NaN));

async function collectives(comm) {
  const inputs = JSON.parse(process.env.BARACUDA_TEST_INPUTS);
  const out = {};
  for (const [kind, perRank] of Object.entries(inputs)) {
    const mine = perRank[rank];
    const count = mine.length;
    const block = count / nRanks;
    const results = {};
    const send = upload(kind, mine);
    const run = async (name, recvCount, enqueue) => {
      const recv = poisoned(kind, recvCount);
      enqueue(recv);
      await comm.synchronize(stream, { timeoutMs: 15_000 });
      results[name] = download(kind, recv);
      recv.dispose();
    };
    for (const op of ['sum', 'avg', 'max', 'min']) {
      await run(`allReduce:${op}`, count, (recv) =>
        comm.allReduce(send, recv, stream, { kind, op }),
      );
      await run(`reduceScatter:${op}`, block, (recv) =>
        comm.reduceScatter(send, recv, stream, { kind, op }),
      );
    }
    await run('broadcast', count, (recv) =>
      comm.broadcast(send, recv, stream, { kind, root: nRanks - 1 }),
    );
    await run('allGather', count * nRanks, (recv) => comm.allGather(send, recv, stream, { kind }));
    // A ring: each rank sends to the next and receives from the previous, in one group.
    await run('ring', count, (recv) =>
      group(() => {
        comm.send(send, (rank + 1) % nRanks, stream, { kind });
        comm.recv(recv, (rank + nRanks - 1) % nRanks, stream, { kind });
      }),
    );
    send.dispose();
    out[kind] = results;
  }
  return out;
}

function describeError(error) {
  return { name: error?.name, code: error?.code, message: String(error?.message ?? error) };
}

async function failure(comm) {
  const send = upload('f32', [1, 2, 3]);
  const recv = poisoned('f32', 3);
  if (rank === 1 && mode === 'die') process.kill(process.pid, 'SIGKILL');
  let enqueueError = null;
  try {
    comm.allReduce(send, recv, stream, { kind: 'f32' });
  } catch (error) {
    enqueueError = describeError(error);
  }
  if (enqueueError) {
    // The failed rank stays (holding its communicator) until the test is done with the others.
    process.stdout.write(`${JSON.stringify({ rank, enqueueError })}\n`);
    await new Promise((resolve) => process.stdin.on('end', resolve).resume());
    comm.abort();
    return null;
  }
  const timeoutMs = Number(process.env.BARACUDA_TEST_TIMEOUT_MS);
  try {
    await comm.synchronize(stream, { timeoutMs });
    return { waitError: null };
  } catch (error) {
    return { waitError: describeError(error), disposed: comm.disposed };
  }
}

const comm = await Communicator.initRank({
  id: NcclUniqueId.parse(process.env.BARACUDA_TEST_NCCL_ID),
  rank,
  nRanks,
  device,
});
async function sum(comm) {
  const mine = JSON.parse(process.env.BARACUDA_TEST_INPUTS).f32[rank];
  const buffer = upload('f32', mine);
  comm.allReduce(buffer, buffer, stream, { kind: 'f32' });
  await comm.synchronize(stream, { timeoutMs: 15_000 });
  const out = download('f32', buffer);
  buffer.dispose();
  return out;
}

const result =
  mode === 'collectives'
    ? await collectives(comm)
    : mode === 'sum'
      ? await sum(comm)
      : await failure(comm);
if (result !== null) {
  process.stdout.write(`${JSON.stringify({ rank, result })}\n`);
  comm.dispose();
}
stream.dispose();
