/**
 * Every collective on every float kind against an f64 host reference, on three fake devices of one
 * process (initAll, enqueued inside group()), outputs poisoned with NaN first.
 */
import { Device, Stream } from '@baracuda/driver';
import { afterAll, describe, expect, it } from 'vitest';
import {
  download,
  FLOAT_KINDS,
  ncclLive,
  poisoned,
  randomValues,
  relativeL2,
  roundTo,
  TOLERANCE,
  upload,
  useFakes,
} from './fakes.test-helpers.js';
import { Communicator, group } from './index.js';

const library = useFakes(3);
const N = 3;
const COUNT = 12;
const comms = Communicator.initAll([Device.get(0), Device.get(1), Device.get(2)]);
const streams = comms.map((c) => Stream.create(c.device));
afterAll(() => {
  for (const c of comms) c.dispose();
  for (const s of streams) s.dispose();
});

function inputs(kind: (typeof FLOAT_KINDS)[number], count: number, seed: number): number[][] {
  return Array.from({ length: N }, (_, r) => roundTo(kind, randomValues(count, seed * 31 + r)));
}

const REDUCERS = {
  sum: (xs: number[]) => xs.reduce((a, b) => a + b, 0),
  avg: (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length,
  max: (xs: number[]) => Math.max(...xs),
  min: (xs: number[]) => Math.min(...xs),
  prod: (xs: number[]) => xs.reduce((a, b) => a * b, 1),
} as const;

describe('collectives on three fake GPUs, every float kind, against an f64 host reference', () => {
  it('the communicators know their rank, size and device', () => {
    expect(comms.map((c) => [c.rank, c.nRanks, c.device.ordinal])).toEqual([
      [0, 3, 0],
      [1, 3, 1],
      [2, 3, 2],
    ]);
  });

  let seed = 1;
  for (const kind of FLOAT_KINDS) {
    for (const op of ['sum', 'avg', 'max', 'min', 'prod'] as const) {
      it(`allReduce ${op} ${kind}`, async () => {
        const data = inputs(kind, COUNT, ++seed);
        const send = data.map((values, r) => upload(kind, values, r));
        const recv = data.map((_, r) => poisoned(kind, COUNT, r));
        group(() =>
          comms.forEach((c, r) => {
            c.allReduce(send[r]!, recv[r]!, streams[r]!, { kind, op });
          }),
        );
        await Promise.all(comms.map((c, r) => c.synchronize(streams[r]!)));
        const expected = Array.from({ length: COUNT }, (_, i) =>
          REDUCERS[op](data.map((d) => d[i]!)),
        );
        for (let r = 0; r < N; ++r) {
          expect(relativeL2(download(kind, recv[r]!), expected)).toBeLessThanOrEqual(
            TOLERANCE[kind],
          );
        }
        for (const b of [...send, ...recv]) b.dispose();
      });
    }

    it(`broadcast, reduceScatter, allGather and send/recv ${kind}`, async () => {
      const data = inputs(kind, COUNT, ++seed);
      const send = data.map((values, r) => upload(kind, values, r));
      const out = data.map((_, r) => poisoned(kind, COUNT, r));
      group(() =>
        comms.forEach((c, r) => {
          c.broadcast(send[r]!, out[r]!, streams[r]!, { kind, root: 2 });
        }),
      );
      for (let r = 0; r < N; ++r) expect(download(kind, out[r]!)).toEqual(data[2]);

      const block = COUNT / N;
      const scattered = data.map((_, r) => poisoned(kind, block, r));
      group(() =>
        comms.forEach((c, r) => {
          c.reduceScatter(send[r]!, scattered[r]!, streams[r]!, { kind, op: 'max' });
        }),
      );
      for (let r = 0; r < N; ++r) {
        const expected = Array.from({ length: block }, (_, i) =>
          Math.max(...data.map((d) => d[r * block + i]!)),
        );
        expect(download(kind, scattered[r]!)).toEqual(expected);
      }

      const gathered = data.map((_, r) => poisoned(kind, block * N, r));
      group(() =>
        comms.forEach((c, r) => {
          c.allGather(scattered[r]!, gathered[r]!, streams[r]!, { kind });
        }),
      );
      const all = scattered.flatMap((b) => download(kind, b));
      for (let r = 0; r < N; ++r) expect(download(kind, gathered[r]!)).toEqual(all);

      // A ring: rank r sends to r+1 and receives from r-1.
      const ring = data.map((_, r) => poisoned(kind, COUNT, r));
      group(() =>
        comms.forEach((c, r) => {
          c.send(send[r]!, (r + 1) % N, streams[r]!, { kind });
          c.recv(ring[r]!, (r + N - 1) % N, streams[r]!, { kind });
        }),
      );
      await Promise.all(comms.map((c, r) => c.synchronize(streams[r]!)));
      for (let r = 0; r < N; ++r) expect(download(kind, ring[r]!)).toEqual(data[(r + N - 1) % N]);
      for (const b of [...send, ...out, ...scattered, ...gathered, ...ring]) b.dispose();
    });
  }

  it('counts below the buffer size reduce only the first elements, and nothing is left pending', async () => {
    const kind = 'f32';
    const send = comms.map((_, r) => upload(kind, [1, 2, 3, 4], r));
    const recv = comms.map((_, r) => upload(kind, [-7, -7, -7, -7], r));
    group(() =>
      comms.forEach((c, r) => {
        c.allReduce(send[r]!, recv[r]!, streams[r]!, { kind, count: 2 });
      }),
    );
    await Promise.all(comms.map((c, r) => c.synchronize(streams[r]!)));
    expect(download(kind, recv[0]!)).toEqual([3, 6, -7, -7]);
    expect(ncclLive(library)).toEqual({ comms: 3, cliques: 1, pending: 0 });
    comms.forEach((c, r) => {
      c.synchronizeSync(streams[r]!);
    });
    for (const b of [...send, ...recv]) b.dispose();
  });
});
