/**
 * Values made of @baracuda/collectives objects, on the fake libcuda's two devices and the fake
 * NCCL: communicators (rank 0 of a two-rank initAll, whose collectives wait for rank 1 and so
 * never run), unique ids, device lists, and user callbacks and getters that throw.
 */
import * as collectives from '@baracuda/collectives';
import { Device } from '@baracuda/driver';
import type { Fixtures } from '../model.js';
import { track } from '../track.js';
import type { ValueMaker } from '../values.js';
import { DRIVER_VALUES, newBuffer } from './driver-values.js';
import { KERNELS_VALUES } from './kernels-values.js';

const { Communicator, NcclUniqueId } = collectives;

/** What a user's callback or getter throws: its own error, which must come back unchanged. */
export class CorpusUserError extends Error {
  override name = 'CorpusUserError';
}

/** Both ranks of a new initAll over devices 0 and 1 (disposed after the case). */
export function newPair(f: Fixtures): collectives.Communicator[] {
  const pair = Communicator.initAll([Device.get(0), Device.get(1)]);
  for (const comm of pair) track(f, comm, (c) => c.dispose());
  return pair;
}

export function newComm(f: Fixtures): collectives.Communicator {
  return newPair(f)[0]!;
}

/** A copy of the valid object whose every property is a getter that throws CorpusUserError. */
const throwingGetter: ValueMaker = (ctx) => {
  const valid = ctx.valid;
  const copy: object = {};
  const keys = typeof valid === 'object' && valid !== null ? Object.keys(valid) : ['kind'];
  for (const key of keys) {
    Object.defineProperty(copy, key, {
      enumerable: true,
      get() {
        throw new CorpusUserError(`corpus: the getter of ${key} threw`);
      },
    });
  }
  return copy;
};

export const COLLECTIVES_VALUES: Record<string, ValueMaker> = {
  ...DRIVER_VALUES,
  ...KERNELS_VALUES,
  throwingGetter,
  communicator: (ctx) => newComm(ctx.fixtures),
  communicatorDisposed: (ctx) => {
    const comm = newComm(ctx.fixtures);
    comm.dispose();
    return comm;
  },
  communicatorRank1: (ctx) => newPair(ctx.fixtures)[1],
  bufferSmall: (ctx) => newBuffer(ctx.fixtures, 2),
  kindF64: () => 'f64',
  kindF16: () => 'f16',
  kindBf16: () => 'bf16',
  kindI32: () => 'i32',
  kindU64: () => 'u64',
  opSum: () => 'sum',
  opProd: () => 'prod',
  opMax: () => 'max',
  opMin: () => 'min',
  opAvg: () => 'avg',
  opBogus: () => 'mean',
  devices01: () => [Device.get(0), Device.get(1)],
  devices0: () => [Device.get(0)],
  devicesTwice: () => [Device.get(0), Device.get(0)],
  devicesWithStream: (ctx) => [Device.get(0), DRIVER_VALUES.stream1!(ctx)],
  devicesMimic: () => [{ ...Device.get(0) }],
  idLive: () => NcclUniqueId.create(),
  idMimic: () => ({ toBytes: () => new Uint8Array(128) }),
  idProtoMimic: () => Object.create(NcclUniqueId.prototype) as unknown,
  idText: () => NcclUniqueId.create().toString(),
  idTextShort: () => NcclUniqueId.create().toString().slice(1),
  idTextBadChar: () => `${NcclUniqueId.create().toString().slice(1)}*`,
  idTextZeros: () => Buffer.alloc(128).toString('base64url'),
  idBytes: () => NcclUniqueId.create().toBytes(),
  idBytesZeros: () => new Uint8Array(128),
  idBytesShared: () => new Uint8Array(new SharedArrayBuffer(128)),
  idBytesBuffer: () => Buffer.alloc(128),
  idBytes127: () => new Uint8Array(127),
  idBytesU16: () => new Uint16Array(64),
  enqueueFn: () => () => 1,
  asyncFn: () => async () => 1,
  throwingFn: () => () => {
    throw new CorpusUserError('corpus: the callback threw');
  },
  f32Batch: () => new Float32Array(8),
  f64Batch: () => new Float64Array(8),
  u16Batch: () => new Uint16Array(8),
  oddBatch: () => new Float32Array(7),
  i32Batch: () => new Int32Array(8),
};
