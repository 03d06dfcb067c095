/** Communicators per rank through an NcclUniqueId (one process here; several on GPUs). */
import { Device, Stream } from '@baracuda/driver';
import { describe, expect, it } from 'vitest';
import { download, ncclLive, poisoned, upload, useFakes } from './fakes.test-helpers.js';
import { Communicator, groupEnd, groupStart, NcclUniqueId } from './index.js';

const library = useFakes(2);

describe('NcclUniqueId', () => {
  it('round-trips through text (for an environment variable or a file) and bytes', () => {
    const id = NcclUniqueId.create();
    const text = id.toString();
    expect(text).toMatch(/^[A-Za-z0-9_-]{171}$/);
    expect(NcclUniqueId.parse(text).toBytes()).toEqual(id.toBytes());
    expect(NcclUniqueId.fromBytes(id.toBytes()).toString()).toBe(text);
    expect(id.toBytes()).toHaveLength(128);
    expect(() => NcclUniqueId.parse('abc')).toThrow(
      'Expected an NcclUniqueId as written by toString() (171 base64url characters) for text but received "abc" of type string',
    );
    expect(() => NcclUniqueId.fromBytes(new Uint8Array(3))).toThrow(
      'Expected a Uint8Array of 128 bytes for bytes but received an instance of Uint8Array',
    );
  });
});

describe('Communicator.initRank', () => {
  it('two ranks join from worker threads (both awaited at once: neither blocks the loop), then all-reduce', async () => {
    const text = NcclUniqueId.create().toString(); // what rank 0 would hand to rank 1
    const [r0, r1] = await Promise.all([
      Communicator.initRank({
        id: NcclUniqueId.parse(text),
        rank: 0,
        nRanks: 2,
        device: Device.get(0),
      }),
      Communicator.initRank({
        id: NcclUniqueId.parse(text),
        rank: 1,
        nRanks: 2,
        device: Device.get(1),
      }),
    ]);
    expect([r0.rank, r1.rank, r0.nRanks, r1.device.ordinal]).toEqual([0, 1, 2, 1]);
    const streams = [Stream.create(Device.get(0)), Stream.create(Device.get(1))];
    const send = [upload('f32', [1, 2], 0), upload('f32', [3, 5], 1)];
    const recv = [poisoned('f32', 2, 0), poisoned('f32', 2, 1)];
    r0.allReduce(send[0]!, recv[0]!, streams[0]!, { kind: 'f32', op: 'avg' });
    r1.allReduce(send[1]!, recv[1]!, streams[1]!, { kind: 'f32', op: 'avg' });
    await Promise.all([r0.synchronize(streams[0]!), r1.synchronize(streams[1]!)]);
    expect(download('f32', recv[1]!)).toEqual([2, 3.5]);
    r0.dispose();
    r1.dispose();
    for (const b of [...send, ...recv]) b.dispose();
    for (const s of streams) s.dispose();
    expect(ncclLive(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
  });

  it('initRankSync inside a group joins several ranks from one thread', () => {
    const id = NcclUniqueId.create();
    groupStart();
    const ranks = [0, 1].map((rank) =>
      Communicator.initRankSync({ id, rank, nRanks: 2, device: Device.get(rank) }),
    );
    groupEnd();
    expect(ranks.map((c) => c.rank)).toEqual([0, 1]);
    for (const c of ranks) c.dispose();
  });

  it("an init NCCL refuses is an NcclError with NCCL's string", () => {
    process.env.FAKE_NCCL_INIT_RESULT = '2';
    try {
      expect(() =>
        Communicator.initRankSync({ id: NcclUniqueId.create(), rank: 0, nRanks: 1 }),
      ).toThrow(
        '`ncclCommInitRank` failed: ncclSystemError (fake: unhandled system error) on rank 0 of 1 on device 0',
      );
      expect(() => Communicator.initAll([Device.get(0), Device.get(1)])).toThrow(
        '`ncclCommInitAll` failed: ncclSystemError (fake: unhandled system error) on devices 0, 1',
      );
    } finally {
      delete process.env.FAKE_NCCL_INIT_RESULT;
    }
  });
});
