/**
 * A rank that fails: its call is an NcclError with NCCL's string, and its peers' waits end (the
 * communicator aborted) instead of hanging: by timeout, or by the async error an abort leaves.
 */
import { Device, Stream } from '@baracuda/driver';
import { NcclError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { ncclLive, poisoned, upload, useFakes } from './fakes.test-helpers.js';
import { Communicator, group } from './index.js';

const library = useFakes(3);
const devices = [Device.get(0), Device.get(1)];
const streams = devices.map((d) => Stream.create(d));

function setup() {
  const comms = Communicator.initAll(devices);
  const send = devices.map((_, r) => upload('f32', [1, 2, 3], r));
  const recv = devices.map((_, r) => poisoned('f32', 3, r));
  const cleanup = () => {
    for (const c of comms) c.dispose();
    for (const b of [...send, ...recv]) b.dispose();
  };
  return { comms, send, recv, cleanup };
}

describe('no hang when one rank fails', () => {
  it("the failing rank's call throws NcclError; the peer's wait times out and aborts every communicator", async () => {
    const { comms, send, recv, cleanup } = setup();
    process.env.FAKE_NCCL_FAIL_RANK = '1';
    let thrown: unknown;
    try {
      group(() =>
        comms.forEach((c, r) => {
          c.allReduce(send[r]!, recv[r]!, streams[r]!, { kind: 'f32' });
        }),
      );
    } catch (error) {
      thrown = error;
    } finally {
      delete process.env.FAKE_NCCL_FAIL_RANK;
    }
    expect(NcclError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      '`ncclAllReduce` failed: ncclSystemError (fake: unhandled system error; fake: rank 1 was told to fail (FAKE_NCCL_FAIL_RANK)) on rank 1 of 2 on device 1',
    );
    expect(ncclLive(library).pending).toBe(1); // rank 0 waits for rank 1 forever
    await expect(comms[0]!.synchronize(streams[0]!, { timeoutMs: 30 })).rejects.toThrow(
      '`ncclCommGetAsyncError` failed: ncclInProgress (the work queued on the stream had not completed after 30 ms (a peer that failed or never called?); the communicator was aborted) on rank 0 of 2 on device 0',
    );
    expect(comms.map((c) => c.disposed)).toEqual([true, true]);
    expect(ncclLive(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
    cleanup();
  });

  it('a peer that aborted is ncclRemoteError for the rank still waiting, and it is aborted too', async () => {
    const a = setup();
    const b = Communicator.initAll(devices); // another clique, unaffected
    a.comms[0]!.allReduce(a.send[0]!, a.recv[0]!, streams[0]!, { kind: 'f32' });
    a.comms[1]!.abort();
    expect(() => a.comms[0]!.checkAsyncError()).toThrow(
      '`ncclCommGetAsyncError` failed: ncclRemoteError (fake: remote process exited or there was a network error) on rank 0 of 2 on device 0',
    );
    await expect(a.comms[0]!.synchronize(streams[0]!)).rejects.toThrow(
      '`ncclCommGetAsyncError` failed: ncclRemoteError (fake: remote process exited or there was a network error; the communicator was aborted) on rank 0 of 2 on device 0',
    );
    expect(a.comms[0]!.disposed).toBe(true);
    expect(b.map((c) => c.disposed)).toEqual([false, false]);
    expect(() => a.comms[0]!.synchronizeSync(streams[0]!)).toThrow(
      'Communicator has been disposed and cannot be used',
    );
    for (const c of b) c.dispose();
    a.cleanup();
    expect(ncclLive(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
  });

  it('a wait that gives up aborts its siblings, whose waits reject with the same error', async () => {
    const three = Communicator.initAll([Device.get(0), Device.get(1), Device.get(2)]);
    const streams3 = three.map((c) => Stream.create(c.device));
    const buffers = three.map((_, r) => upload('f32', [1, 2], r));
    // Ranks 0 and 1 all-reduce; rank 2 never calls.
    for (const r of [0, 1])
      three[r]!.allReduce(buffers[r]!, buffers[r]!, streams3[r]!, { kind: 'f32' });
    const waits = [
      three[0]!.synchronize(streams3[0]!, { timeoutMs: 30 }),
      three[1]!.synchronize(streams3[1]!, { timeoutMs: 60_000 }),
    ];
    const outcomes = await Promise.allSettled(waits);
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? o.reason : null));
    expect(reasons[0]).toBeInstanceOf(NcclError);
    expect(reasons[1]).toBe(reasons[0]);
    expect(three.map((c) => c.disposed)).toEqual([true, true, true]);
    for (const b of buffers) b.dispose();
    for (const s of streams3) s.dispose();
  });

  it('synchronizeSync gives up the same way', () => {
    const { comms, send, recv, cleanup } = setup();
    comms[0]!.allReduce(send[0]!, recv[0]!, streams[0]!, { kind: 'f32' });
    expect(() => comms[0]!.synchronizeSync(streams[0]!, { timeoutMs: 20 })).toThrow(
      /^`ncclCommGetAsyncError` failed: ncclInProgress \(the work queued on the stream had not completed after 20 ms/,
    );
    expect(comms[1]!.disposed).toBe(true);
    cleanup();
  });
});
