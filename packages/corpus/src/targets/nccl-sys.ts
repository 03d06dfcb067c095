/**
 * @baracuda/nccl-sys: every raw function, against the fake libnccl.so.2. A communicator is rank 0
 * of a fresh two-rank clique (ncclCommInitAll over devices 0 and 1): its collectives wait for rank
 * 1, which never calls, so the fake never touches the (possibly wild) pointers a case passes; both
 * ranks are destroyed after the case. ncclCommInitRank joins one-rank cliques only (a clique of two
 * would wait for its second rank).
 */
import * as sys from '@baracuda/nccl-sys';
import type { Fixtures, PackageCorpus } from '../model.js';
import { track } from '../track.js';
import type { ValueMaker } from '../values.js';
import { arg, fixture, type TargetSpec, targetsOf } from './build.js';
import { DRIVER_VALUES } from './driver-values.js';

type Raw = (...args: unknown[]) => unknown;
const raw = sys as unknown as Record<string, Raw>;

function destroyLater(f: Fixtures, comm: unknown): void {
  track(f, comm, (c) => sys.ncclCommDestroy(c as sys.NcclComm));
}

/** Rank 0 of a new two-rank clique (both ranks destroyed after the case). */
function newComm(f: Fixtures): sys.NcclComm {
  const { status, comms } = sys.ncclCommInitAll(Int32Array.from([0, 1]));
  if (status !== 0) throw new Error(`corpus: ncclCommInitAll on the fake NCCL returned ${status}`);
  for (const comm of comms) destroyLater(f, comm);
  return comms[0] as sys.NcclComm;
}

function uniqueId(): Uint8Array {
  return sys.ncclGetUniqueId().uniqueId;
}

export const NCCL_SYS_VALUES: Record<string, ValueMaker> = {
  ...DRIVER_VALUES,
  comm: (ctx) => newComm(ctx.fixtures),
  commDestroyed: (ctx) => {
    const comm = newComm(ctx.fixtures);
    sys.ncclCommDestroy(comm);
    return comm;
  },
  commProtoMimic: (ctx) =>
    Object.create(Object.getPrototypeOf(newComm(ctx.fixtures)) as object) as unknown,
  uniqueIdLive: () => uniqueId(),
  uniqueIdZeros: () => new Uint8Array(sys.NCCL_UNIQUE_ID_BYTES),
  uniqueIdShared: () => {
    const shared = new Uint8Array(new SharedArrayBuffer(sys.NCCL_UNIQUE_ID_BYTES));
    shared.set(uniqueId());
    return shared;
  },
  uniqueIdTooLong: () => new Uint8Array(sys.NCCL_UNIQUE_ID_BYTES + 1),
  devlist01: () => Int32Array.from([0, 1]),
  devlistEmpty: () => new Int32Array(0),
  devlistNegative: () => Int32Array.from([-1]),
  devlistHuge: () => new Int32Array(17),
  devlistShared: () => new Int32Array(new SharedArrayBuffer(4)),
  devlistArray: () => [0, 1],
  devlistU32: () => Uint32Array.from([0]),
};

type Row = [kind: string, valid: unknown];
const COMM: Row = ['ncclComm', 'comm'];
const PTR: Row = ['voidPtr', 0x1000n];
const COUNT: Row = ['ncclCount', 4];
const TYPE: Row = ['i32', sys.ncclDataType.ncclFloat32];
const OP: Row = ['i32', sys.ncclRedOp.ncclSum];
const RANK1: Row = ['i32', 1];
const STREAM: Row = ['voidPtr', 0n];

const ROWS: [name: string, args: Row[]][] = [
  ['ncclGetVersion', []],
  ['ncclGetUniqueId', []],
  [
    'ncclCommInitRank',
    [
      ['i32', 1],
      ['uniqueId', 'uniqueIdLive'],
      ['i32', 0],
      ['cudaDevice', 0],
    ],
  ],
  [
    'ncclCommInitRankAsync',
    [
      ['i32', 1],
      ['uniqueId', 'uniqueIdLive'],
      ['i32', 0],
      ['cudaDevice', 0],
    ],
  ],
  ['ncclCommInitAll', [['devlist', 'devlist01']]],
  ['ncclCommDestroy', [COMM]],
  ['ncclCommAbort', [COMM]],
  ['ncclCommGetAsyncError', [COMM]],
  ['ncclCommCount', [COMM]],
  ['ncclCommCuDevice', [COMM]],
  ['ncclCommUserRank', [COMM]],
  ['ncclAllReduce', [PTR, PTR, COUNT, TYPE, OP, COMM, STREAM]],
  ['ncclBroadcast', [PTR, PTR, COUNT, TYPE, RANK1, COMM, STREAM]],
  ['ncclReduceScatter', [PTR, PTR, COUNT, TYPE, OP, COMM, STREAM]],
  ['ncclAllGather', [PTR, PTR, COUNT, TYPE, COMM, STREAM]],
  ['ncclSend', [PTR, COUNT, TYPE, RANK1, COMM, STREAM]],
  ['ncclRecv', [PTR, COUNT, TYPE, RANK1, COMM, STREAM]],
  ['ncclGetErrorString', [['i32', 2]]],
  ['ncclGetLastError', [['optionalComm', 'comm']]],
];

/** Destroys, after the case, the communicators a call made. */
function freeCreated(f: Fixtures, result: unknown): void {
  const made = result as { comm?: unknown; comms?: unknown[] } | null;
  if (typeof made !== 'object' || made === null) return;
  if (typeof made.comm === 'object' && made.comm !== null) destroyLater(f, made.comm);
  if (Array.isArray(made.comms)) for (const comm of made.comms) destroyLater(f, comm);
}

const SPECS: TargetSpec[] = [
  ...ROWS.map(
    ([id, rows]): TargetSpec => ({
      id,
      slots: rows.map(([kind], i) => arg(i, kind)),
      prepare: (f) => ({
        self: undefined,
        args: rows.map(([, valid]) => (typeof valid === 'string' ? fixture(f, valid) : valid)),
        call: (_s, a) => {
          const result = raw[id]!(...a);
          if (result instanceof Promise) {
            return result.then((settled: unknown) => {
              freeCreated(f, settled);
              return settled;
            });
          }
          freeCreated(f, result);
          return result;
        },
      }),
    }),
  ),
  // A group is closed again in the same case: an open one would change later cases' inits.
  {
    id: 'ncclGroupStart',
    prepare: () => ({
      self: undefined,
      args: [],
      call: () => {
        const status = sys.ncclGroupStart();
        sys.ncclGroupEnd();
        return status;
      },
    }),
  },
  {
    id: 'ncclGroupEnd',
    prepare: () => ({ self: undefined, args: [], call: () => sys.ncclGroupEnd() }),
  },
  { id: 'probe', prepare: () => ({ self: undefined, args: [], call: () => sys.probe() }) },
  { id: 'load', prepare: () => ({ self: undefined, args: [], call: () => sys.load() }) },
  {
    id: 'nativeConstants',
    prepare: () => ({ self: undefined, args: [], call: () => sys.nativeConstants() }),
  },
  {
    id: 'ncclResultName',
    slots: [arg(0, 'i32')],
    prepare: () => ({
      self: undefined,
      args: [2],
      call: (_s, a) => sys.ncclResultName(a[0] as number),
    }),
  },
];

export const NCCL_SYS_CORPUS: PackageCorpus = {
  pkg: 'nccl-sys',
  load: async () => ({ values: NCCL_SYS_VALUES }),
  targets: targetsOf('nccl-sys', SPECS),
  data: ['ncclResult', 'ncclRedOp', 'ncclDataType', 'NCCL_UNIQUE_ID_BYTES'],
};
