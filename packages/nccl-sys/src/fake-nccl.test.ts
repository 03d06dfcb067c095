/**
 * Every binding through real C calls against the fake libnccl.so.2 (native/testing/fake_nccl.c),
 * on device buffers of the driver's fake libcuda (host memory): communicators of one process over
 * four fake devices, every collective, point-to-point, group calls, errors, lifetimes.
 */
import { DeviceBuffer, Stream } from '@baracuda/driver';
import { describe, expect, it } from 'vitest';
import type { NcclComm } from './index.js';
import * as n from './index.js';
import { fakeNcclLiveCounts, useFakes } from './test-support.js';

const library = useFakes({ devices: 4 });
const { ncclFloat32, ncclFloat64, ncclInt32 } = n.ncclDataType;
const { ncclSum, ncclMax } = n.ncclRedOp;

function initAll(count: number): NcclComm[] {
  const result = n.ncclCommInitAll(Int32Array.from({ length: count }, (_, i) => i));
  expect(result.status).toBe(0);
  expect(result.comms).toHaveLength(count);
  return result.comms;
}
function f32(values: number[]): DeviceBuffer {
  const buffer = DeviceBuffer.alloc(values.length * 4);
  buffer.uploadSync(Float32Array.from(values));
  return buffer;
}
function read(buffer: DeviceBuffer): number[] {
  const host = new Float32Array(buffer.byteLength / 4);
  buffer.downloadSync(host);
  return [...host];
}

describe('the fake NCCL through the raw bindings', () => {
  it('reports its version and a 128-byte unique id', () => {
    expect(n.probe()).toMatchObject({
      available: true,
      version: { major: 2, minor: 27, patch: 3, raw: 22703 },
      libraryPath: library,
      missingSymbols: [],
      reason: null,
    });
    const id = n.ncclGetUniqueId();
    expect(id.status).toBe(0);
    expect(id.uniqueId).toBeInstanceOf(Uint8Array);
    expect(id.uniqueId.byteLength).toBe(128);
  });

  it('initAll makes one communicator per device, with rank, count and device', () => {
    const comms = initAll(3);
    comms.forEach((comm, i) => {
      expect(n.ncclCommUserRank(comm)).toEqual({ status: 0, rank: i });
      expect(n.ncclCommCount(comm)).toEqual({ status: 0, count: 3 });
      expect(n.ncclCommCuDevice(comm)).toEqual({ status: 0, device: i });
      expect(n.ncclCommGetAsyncError(comm)).toEqual({ status: 0, asyncError: 0 });
    });
    expect(fakeNcclLiveCounts(library)).toMatchObject({ comms: 3, cliques: 1 });
    for (const comm of comms) expect(n.ncclCommDestroy(comm)).toBe(0);
    expect(fakeNcclLiveCounts(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
  });

  it('all-reduces, broadcasts, reduce-scatters and all-gathers in a group', () => {
    const comms = initAll(2);
    const stream = Stream.create();
    const a = [f32([1, 2, 3, 4]), f32([10, 20, 30, 40])];
    const out = [f32([-1, -1, -1, -1]), f32([-1, -1, -1, -1])];
    expect(n.ncclGroupStart()).toBe(0);
    comms.forEach((comm, r) => {
      expect(
        n.ncclAllReduce(
          a[r]!.devicePtr,
          out[r]!.devicePtr,
          4,
          ncclFloat32,
          ncclSum,
          comm,
          stream.raw,
        ),
      ).toBe(0);
    });
    expect(n.ncclGroupEnd()).toBe(0);
    expect(out.map(read)).toEqual([
      [11, 22, 33, 44],
      [11, 22, 33, 44],
    ]);
    comms.forEach((comm, r) => {
      n.ncclBroadcast(a[r]!.devicePtr, out[r]!.devicePtr, 4, ncclFloat32, 1, comm, stream.raw);
    });
    expect(out.map(read)).toEqual([
      [10, 20, 30, 40],
      [10, 20, 30, 40],
    ]);
    const half = [f32([-1, -1]), f32([-1, -1])];
    comms.forEach((comm, r) => {
      n.ncclReduceScatter(
        a[r]!.devicePtr,
        half[r]!.devicePtr,
        2,
        ncclFloat32,
        ncclMax,
        comm,
        stream.raw,
      );
    });
    expect(half.map(read)).toEqual([
      [10, 20],
      [30, 40],
    ]);
    const gathered = [f32(Array(4).fill(-1)), f32(Array(4).fill(-1))];
    comms.forEach((comm, r) => {
      n.ncclAllGather(half[r]!.devicePtr, gathered[r]!.devicePtr, 2, ncclFloat32, comm, stream.raw);
    });
    expect(gathered.map(read)).toEqual([
      [10, 20, 30, 40],
      [10, 20, 30, 40],
    ]);
    for (const comm of comms) n.ncclCommDestroy(comm);
    for (const b of [...a, ...out, ...half, ...gathered]) b.dispose();
    stream.dispose();
  });

  it('sends and receives between two ranks; a lone send stays in progress', () => {
    const comms = initAll(2);
    const stream = Stream.create();
    const src = f32([5, 6, 7]);
    const dst = f32([0, 0, 0]);
    expect(n.ncclSend(src.devicePtr, 3, ncclFloat32, 1, comms[0]!, stream.raw)).toBe(0);
    expect(n.ncclCommGetAsyncError(comms[0]!).asyncError).toBe(n.ncclResult.ncclInProgress);
    expect(fakeNcclLiveCounts(library).pending).toBe(1);
    expect(n.ncclRecv(dst.devicePtr, 3, ncclFloat32, 0, comms[1]!, stream.raw)).toBe(0);
    expect(read(dst)).toEqual([5, 6, 7]);
    expect(n.ncclCommGetAsyncError(comms[0]!).asyncError).toBe(0);
    for (const comm of comms) n.ncclCommDestroy(comm);
    src.dispose();
    dst.dispose();
    stream.dispose();
  });

  it('a mismatched collective is ncclInvalidUsage on every rank; an abort with work outstanding is ncclRemoteError on the peers', () => {
    const stream = Stream.create();
    const buffer = DeviceBuffer.alloc(64);
    let comms = initAll(2);
    n.ncclAllReduce(
      buffer.devicePtr,
      buffer.devicePtr,
      4,
      ncclFloat32,
      ncclSum,
      comms[0]!,
      stream.raw,
    );
    n.ncclAllReduce(
      buffer.devicePtr,
      buffer.devicePtr,
      4,
      ncclFloat64,
      ncclSum,
      comms[1]!,
      stream.raw,
    );
    for (const comm of comms) {
      expect(n.ncclCommGetAsyncError(comm).asyncError).toBe(n.ncclResult.ncclInvalidUsage);
      n.ncclCommDestroy(comm);
    }
    comms = initAll(2);
    n.ncclAllReduce(
      buffer.devicePtr,
      buffer.devicePtr,
      4,
      ncclInt32,
      ncclSum,
      comms[0]!,
      stream.raw,
    );
    expect(n.ncclCommAbort(comms[1]!)).toBe(0);
    expect(n.ncclCommGetAsyncError(comms[0]!).asyncError).toBe(n.ncclResult.ncclRemoteError);
    expect(n.ncclCommAbort(comms[0]!)).toBe(0);
    expect(fakeNcclLiveCounts(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
    buffer.dispose();
    stream.dispose();
  });

  it('initRank: two ranks join one clique inside a group, or from worker threads without blocking', async () => {
    const id = n.ncclGetUniqueId().uniqueId;
    n.ncclGroupStart();
    const first = n.ncclCommInitRank(2, id, 0);
    const second = n.ncclCommInitRank(2, id, 1);
    n.ncclGroupEnd();
    expect([first.status, second.status]).toEqual([0, 0]);
    expect(n.ncclCommUserRank(second.comm!)).toEqual({ status: 0, rank: 1 });
    n.ncclCommDestroy(first.comm!);
    n.ncclCommDestroy(second.comm!);

    const next = n.ncclGetUniqueId().uniqueId;
    const joined = await Promise.all([
      n.ncclCommInitRankAsync(2, next, 0, 0),
      n.ncclCommInitRankAsync(2, next, 1, 1),
    ]);
    expect(joined.map((r) => r.status)).toEqual([0, 0]);
    expect(joined.map((r) => n.ncclCommCount(r.comm!).count)).toEqual([2, 2]);
    for (const r of joined) n.ncclCommDestroy(r.comm!);
    expect(fakeNcclLiveCounts(library)).toEqual({ comms: 0, cliques: 0, pending: 0 });
  });

  it('returns NCCL results, with NCCL strings, instead of throwing', () => {
    expect(n.ncclCommInitRank(2, new Uint8Array(128), 0)).toEqual({ status: 4, comm: null });
    expect(n.ncclGetLastError(null)).toBe('fake: not a unique id from ncclGetUniqueId');
    expect(n.ncclGetErrorString(n.ncclResult.ncclInvalidArgument)).toBe('fake: invalid argument');
    expect(n.ncclGroupEnd()).toBe(n.ncclResult.ncclInvalidUsage);
  });

  it('rejects bad arguments with a TypeError naming the argument, before calling NCCL', () => {
    const [comm] = initAll(1);
    const stream = Stream.create();
    const call = (args: unknown[]) => () =>
      (n.ncclAllReduce as (...a: unknown[]) => unknown)(...args);
    const good = [0n, 0n, 4, ncclFloat32, ncclSum, comm, stream.raw];
    const bad = (index: number, value: unknown) =>
      call(good.map((v, i) => (i === index ? value : v)));
    expect(bad(0, 1)).toThrow(
      new TypeError(
        'Expected a bigint address from 0 to 2^64-1 for sendbuff but received 1 of type number',
      ),
    );
    expect(bad(1, -1n)).toThrow(
      new TypeError(
        'Expected a bigint address from 0 to 2^64-1 for recvbuff but received -1n of type bigint',
      ),
    );
    expect(bad(2, 1.5)).toThrow(
      new TypeError(
        'Expected a non-negative safe integer for count but received 1.5 of type number',
      ),
    );
    expect(bad(3, '7')).toThrow(
      new TypeError('Expected an ncclDataType_t for datatype but received "7" of type string'),
    );
    expect(bad(5, {})).toThrow(
      new TypeError('Expected a live NcclComm for comm but received an object'),
    );
    expect(() => n.ncclCommInitRank(2, new Uint8Array(127), 0)).toThrow(
      new TypeError(
        'Expected a Uint8Array of 128 bytes (an ncclUniqueId) for commId but received a typed array of length 127',
      ),
    );
    expect(() => n.ncclCommInitAll([0, 1] as unknown as Int32Array)).toThrow(
      new TypeError(
        'Expected an Int32Array of device ordinals for devlist but received an array of length 2',
      ),
    );
    expect(() => n.ncclCommInitRank(1, n.ncclGetUniqueId().uniqueId, 0, -1)).toThrow(
      new TypeError(
        'Expected a device ordinal (an int32 >= 0) for cudaDevice but received -1 of type number',
      ),
    );
    expect(n.ncclCommDestroy(comm!)).toBe(0);
    expect(() => n.ncclCommDestroy(comm!)).toThrow(
      new TypeError('Expected a live NcclComm for comm but received a destroyed NcclComm'),
    );
    expect(bad(5, comm)).toThrow(
      new TypeError('Expected a live NcclComm for comm but received a destroyed NcclComm'),
    );
    stream.dispose();
  });
});
