/**
 * Hostile callers the bad-input corpus found (packages/corpus, targets/collectives.ts): getters
 * that dispose the communicator while its options are read, getters that throw, null where an
 * option may be left out, foreign receivers of DataParallelConv3d, non-typed-array batches and
 * rank counts NCCL's int cannot hold. Each is a typed error (or the caller's own error), never a
 * TypeError from the addon or V8.
 */
import { Device, DeviceBuffer, Stream } from '@baracuda/driver';
import { DisposedError, InvalidArgumentError } from '@baracuda/types';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakes } from './fakes.test-helpers.js';
import { Communicator, DataParallelConv3d, NcclUniqueId, splitBatch } from './index.js';

useFakes(2);
const stream0 = Stream.create(Device.get(0));
const buf0 = DeviceBuffer.alloc(64, { device: Device.get(0) });
afterAll(() => {
  buf0.dispose();
  stream0.dispose();
});

const pair = () =>
  Communicator.initAll([Device.get(0), Device.get(1)]) as [Communicator, Communicator];

/** Options whose `kind` getter disposes `comm` first. */
function disposingOptions(comm: Communicator, extra: Record<string, unknown> = {}) {
  return {
    ...extra,
    get kind() {
      comm.dispose();
      return 'f32';
    },
  };
}

describe('hostile options', () => {
  it('a getter that disposes the communicator mid-call: DisposedError, nothing enqueued', () => {
    const calls: [string, (c: Communicator) => void][] = [
      ['allReduce', (c) => c.allReduce(buf0, buf0, stream0, disposingOptions(c) as never)],
      [
        'reduceScatter',
        (c) => c.reduceScatter(buf0, buf0, stream0, disposingOptions(c, { count: 1 }) as never),
      ],
      [
        'broadcast',
        (c) => c.broadcast(buf0, buf0, stream0, disposingOptions(c, { root: 0 }) as never),
      ],
      [
        'allGather',
        (c) => c.allGather(buf0, buf0, stream0, disposingOptions(c, { count: 1 }) as never),
      ],
      ['send', (c) => c.send(buf0, 1, stream0, disposingOptions(c) as never)],
      ['recv', (c) => c.recv(buf0, 1, stream0, disposingOptions(c) as never)],
    ];
    for (const [name, call] of calls) {
      const [c0, c1] = pair();
      expect(() => call(c0), name).toThrow(new DisposedError('Communicator'));
      c1.dispose();
    }
  });

  it("a getter that throws: the caller's own error comes back unchanged", () => {
    const [c0, c1] = pair();
    const own = new Error('mine');
    const options = {
      get kind(): string {
        throw own;
      },
    };
    expect(() => c0.allReduce(buf0, buf0, stream0, options as never)).toThrow(own);
    c0.dispose();
    c1.dispose();
  });

  it('null is not an option left out', async () => {
    const [c0, c1] = pair();
    expect(() => c0.allReduce(buf0, buf0, stream0, { kind: 'f32', op: null as never })).toThrow(
      'Expected one of sum, prod, max, min, avg for options.op but received null',
    );
    expect(() => c0.synchronizeSync(stream0, null as never)).toThrow(
      'Expected an object for options but received null',
    );
    await expect(c0.synchronize(stream0, null as never)).rejects.toThrow(
      'Expected an object for options but received null',
    );
    c0.dispose();
    c1.dispose();
  });

  it('nRanks beyond an int32 is refused before NCCL sees it', () => {
    expect(() =>
      Communicator.initRankSync({ id: NcclUniqueId.create(), rank: 0, nRanks: 2 ** 31 }),
    ).toThrow(
      new InvalidArgumentError(
        'options.nRanks',
        'a positive int32 (NCCL counts ranks in an int)',
        2 ** 31,
      ),
    );
  });
});

describe('hostile receivers and batches of the data-parallel helpers', () => {
  it('DataParallelConv3d members on a foreign this are InvalidArgumentError', () => {
    const proto = DataParallelConv3d.prototype;
    expect(() => proto.dispose.call({})).toThrow(
      'Expected a DataParallelConv3d for this of DataParallelConv3d#dispose but received an object',
    );
    expect(() => proto[Symbol.dispose].call(stream0)).toThrow(InvalidArgumentError);
    expect(() => proto.computeStream.call(Object.create(proto), 0)).toThrow(InvalidArgumentError);
  });

  it('splitBatch takes typed arrays of the float kinds only', () => {
    expect(() => splitBatch(new Int32Array(4) as never, 2)).toThrow(
      new InvalidArgumentError(
        'batch',
        'a Float32Array, Float64Array or Uint16Array (f16 / bf16 bits)',
        new Int32Array(4),
      ),
    );
    expect(() => splitBatch(null as never, 2)).toThrow(InvalidArgumentError);
    expect(splitBatch(new Uint16Array(4), 2).map((part) => part.length)).toEqual([2, 2]);
  });
});
