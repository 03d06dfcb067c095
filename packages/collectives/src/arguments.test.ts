/** Bad input to the safe layer: typed errors with exact messages, before anything is enqueued. */
import { Device, DeviceBuffer, Stream } from '@baracuda/driver';
import {
  BufferTooSmallError,
  DisposedError,
  InvalidArgumentError,
  UnsupportedError,
} from '@baracuda/types';
import { afterAll, describe, expect, it } from 'vitest';
import { ncclLive, useFakes } from './fakes.test-helpers.js';
import { Communicator, group, NcclUniqueId } from './index.js';

const library = useFakes(2);
const comms = Communicator.initAll([Device.get(0), Device.get(1)]);
const [c0] = comms as [Communicator, Communicator];
const stream0 = Stream.create(Device.get(0));
const stream1 = Stream.create(Device.get(1));
const buf0 = DeviceBuffer.alloc(64, { device: Device.get(0) });
const small0 = DeviceBuffer.alloc(8, { device: Device.get(0) });
const buf1 = DeviceBuffer.alloc(64, { device: Device.get(1) });
afterAll(() => {
  for (const c of comms) c.dispose();
  for (const b of [buf0, small0, buf1]) b.dispose();
  stream0.dispose();
  stream1.dispose();
});

describe('argument checks of Communicator', () => {
  it('element kinds and ops', () => {
    expect(() => c0.allReduce(buf0, buf0, stream0, { kind: 'i16' as never })).toThrow(
      new InvalidArgumentError(
        'options.kind',
        'one of f16, bf16, f32, f64, i8, u8, i32, u32, i64, u64 (the element kinds NCCL reduces)',
        'i16',
      ),
    );
    expect(() => c0.allReduce(buf0, buf0, stream0, { kind: 'f32', op: 'mean' as never })).toThrow(
      'Expected one of sum, prod, max, min, avg for options.op but received "mean" of type string',
    );
    expect(() => c0.allReduce(buf0, buf0, stream0, undefined as never)).toThrow(
      'Expected an object for options but received undefined',
    );
  });

  it('counts: a positive integer that fits every buffer', () => {
    expect(() => c0.allReduce(buf0, buf0, stream0, { kind: 'f32', count: 0 })).toThrow(
      'Expected a positive integer for options.count but received 0 of type number',
    );
    expect(() => c0.allReduce(buf0, buf0, stream0, { kind: 'f32', count: 17 })).toThrow(
      new BufferTooSmallError('send', 68, 64),
    );
    expect(() => c0.allReduce(buf0, small0, stream0, { kind: 'f32' })).toThrow(
      'recv too small: needed 64 bytes but received 8 bytes',
    );
    expect(() => c0.reduceScatter(small0, small0, stream0, { kind: 'f32' })).toThrow(
      'send too small: needed 16 bytes but received 8 bytes',
    );
    expect(() => c0.allGather(buf0, buf0, stream0, { kind: 'f64' })).toThrow(
      'recv too small: needed 128 bytes but received 64 bytes',
    );
    expect(() => c0.allGather(small0, buf0, stream0, { kind: 'f64', count: 2 })).toThrow(
      'send too small: needed 16 bytes but received 8 bytes',
    );
  });

  it('ranks: roots and peers within the communicator', () => {
    expect(() => c0.broadcast(buf0, buf0, stream0, { kind: 'f32', root: 2 })).toThrow(
      'Expected an integer from 0 to 1 (the communicator has 2 ranks) for options.root but received 2 of type number',
    );
    expect(() => c0.send(buf0, -1, stream0, { kind: 'f32' })).toThrow(
      'Expected an integer from 0 to 1 (the communicator has 2 ranks) for peer but received -1 of type number',
    );
    expect(() => c0.recv(buf0, 0.5, stream0, { kind: 'f32' })).toThrow(
      'Expected an integer from 0 to 1 (the communicator has 2 ranks) for peer but received 0.5 of type number',
    );
  });

  it('buffers and streams of another device, non-buffers, disposed ones', () => {
    expect(() => c0.allReduce(buf1, buf0, stream0, { kind: 'f32' })).toThrow(
      "Expected a DeviceBuffer on device 0 (the communicator's device) for send but received an instance of DeviceBuffer",
    );
    expect(() => c0.allReduce(buf0, buf0, stream1, { kind: 'f32' })).toThrow(
      "Expected a Stream on device 0 (the communicator's device) for stream but received an instance of Stream",
    );
    expect(() =>
      c0.allReduce({ devicePtr: 0n, byteLength: 64 } as never, buf0, stream0, { kind: 'f32' }),
    ).toThrow('Expected a DeviceBuffer for send but received an object');
    const gone = DeviceBuffer.alloc(64);
    gone.dispose();
    expect(() => c0.allReduce(buf0, gone, stream0, { kind: 'f32' })).toThrow(
      new DisposedError('DeviceBuffer'),
    );
    expect(() => c0.synchronizeSync(stream0, { timeoutMs: 0 })).toThrow(
      'Expected a number of milliseconds from 1 to 2147483647 for options.timeoutMs but received 0 of type number',
    );
  });

  it('initAll and initRank arguments', () => {
    expect(() => Communicator.initAll([])).toThrow(
      'Expected a non-empty array of Devices for devices but received an array of length 0',
    );
    expect(() => Communicator.initAll([Device.get(0), 1 as never])).toThrow(
      'Expected a Device for devices[1] but received 1 of type number',
    );
    expect(() => Communicator.initAll([Device.get(1), Device.get(1)])).toThrow(
      'Expected a Device other than devices[0] (device 1 appears twice) for devices[1] but received an instance of Device',
    );
    const id = NcclUniqueId.create();
    expect(() => Communicator.initRankSync({ id, rank: 2, nRanks: 2 })).toThrow(
      'Expected an integer from 0 to 1 (the communicator has 2 ranks) for options.rank but received 2 of type number',
    );
    expect(() => Communicator.initRankSync({ id, rank: 0, nRanks: 0 })).toThrow(
      'Expected a positive integer for options.nRanks but received 0 of type number',
    );
    expect(() =>
      Communicator.initRankSync({ id: id.toString() as never, rank: 0, nRanks: 1 }),
    ).toThrow(/^Expected an NcclUniqueId for options.id but received "/);
    return expect(
      Communicator.initRank({ id, rank: 0, nRanks: 1, device: 0 as never }),
    ).rejects.toThrow('Expected a Device for options.device but received 0 of type number');
  });

  it('disposed communicators, foreign receivers and new', () => {
    const [a, b] = Communicator.initAll([Device.get(0), Device.get(1)]) as [
      Communicator,
      Communicator,
    ];
    a.dispose();
    a.dispose();
    b[Symbol.dispose]();
    expect(a.disposed).toBe(true);
    expect(() => a.allReduce(buf0, buf0, stream0, { kind: 'f32' })).toThrow(
      new DisposedError('Communicator'),
    );
    expect(() => a.checkAsyncError()).toThrow('Communicator has been disposed and cannot be used');
    expect(() => Communicator.prototype.abort.call({})).toThrow(
      new InvalidArgumentError('this of Communicator#abort', 'a Communicator', {}),
    );
    expect(() => Reflect.construct(Communicator, [])).toThrow(
      new UnsupportedError(
        'Communicator cannot be constructed with new: use Communicator.initAll(devices) or Communicator.initRank(options)',
      ),
    );
    expect(() => group(5 as never)).toThrow(
      'Expected a function for enqueue but received 5 of type number',
    );
    expect(() => group(async () => {})).toThrow(UnsupportedError);
    expect(ncclLive(library).comms).toBe(2);
  });
});
