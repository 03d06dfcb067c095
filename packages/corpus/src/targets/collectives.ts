/**
 * @baracuda/collectives: Communicator, NcclUniqueId, the group calls and the batch helpers, on the
 * fake libcuda's two devices and the fake NCCL. A communicator is rank 0 of a fresh two-rank
 * initAll: its collectives wait for rank 1 (which never calls), so what a case enqueues never
 * runs; both ranks are disposed after the case. Re-entrant values dispose the communicator while
 * its options are read. DataParallelConv3d's targets are in collectives-parallel.ts.
 */
import * as collectives from '@baracuda/collectives';
import { Device } from '@baracuda/driver';
import type { Fixtures, PackageCorpus, Prepared, SlotSpec } from '../model.js';
import { track } from '../track.js';
import { arg, member, memberLabel, prop, self, type TargetSpec, targetsOf } from './build.js';
import { PARALLEL_SPECS, PARALLEL_VALUES, parallelFixtures } from './collectives-parallel.js';
import { COLLECTIVES_VALUES, newComm, newPair } from './collectives-values.js';
import { newBuffer, newStream } from './driver-values.js';
import { smallDescriptor } from './kernels-values.js';

const { Communicator, NcclUniqueId } = collectives;

type Disposable = { dispose(): void };
const freeing = (value: unknown) => {
  if (Array.isArray(value)) for (const item of value) freeing(item);
  else if (typeof (value as Disposable | null)?.dispose === 'function')
    (value as Disposable).dispose();
};
/** Frees what a call returned, also when it returns a promise. */
function freed(f: Fixtures, value: unknown): unknown {
  if (value instanceof Promise) return value.then((settled: unknown) => track(f, settled, freeing));
  return track(f, value, freeing);
}

export function construct(Class: Function, name: string): TargetSpec {
  return {
    id: `${name}()`,
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: (f) => ({
      self: undefined,
      args: [],
      call: (_s, args) => freed(f, Reflect.construct(Class as new () => unknown, args)),
    }),
  };
}

function fn(
  id: string,
  args: (f: Fixtures) => unknown[],
  slots: TargetSpec['slots'] = [],
): TargetSpec {
  const [owner, name] = id.replace(/~.*$/, '').split('.') as [string, string | undefined];
  const exports = collectives as unknown as Record<string, unknown>;
  return {
    id,
    slots,
    prepare: (f) => {
      const target = (name === undefined ? undefined : exports[owner]) as
        | Record<string, (...a: unknown[]) => unknown>
        | undefined;
      const call =
        name === undefined ? (exports[owner] as (...a: unknown[]) => unknown) : target![name]!;
      return { self: target, args: args(f), call: (s, a) => freed(f, call.apply(s, a)) };
    },
  };
}

/** An instance member of Communicator (rank 0 of a pair) or NcclUniqueId. */
function method(
  className: 'Communicator' | 'NcclUniqueId',
  name: string | symbol,
  args: (f: Fixtures, comm: collectives.Communicator) => unknown[],
  slots: TargetSpec['slots'],
): TargetSpec {
  const Class = className === 'Communicator' ? Communicator : NcclUniqueId;
  return {
    id: `${className}#${memberLabel(name)}`,
    slots,
    hasVictim: className === 'Communicator',
    prepare: (f): Prepared => {
      const object = className === 'Communicator' ? newComm(f) : NcclUniqueId.create();
      const call = member(Class.prototype, name);
      return {
        self: object,
        args: args(f, object as collectives.Communicator),
        call: (s, a) => freed(f, call(s, a)),
        victim: () => (object as Disposable).dispose?.(),
      };
    },
  };
}

const buffer0 = (f: Fixtures, bytes = 64) => newBuffer(f, bytes);
const stream0 = (f: Fixtures) => newStream(f);

/** A collective's slots: send, recv, stream, and the options bag with its fields. */
function collective(
  name: string,
  options: Record<string, unknown>,
  extra: SlotSpec[],
  sendKind = 'collBuffer',
) {
  return method(
    'Communicator',
    name,
    (f) => [buffer0(f, 128), buffer0(f, 128), stream0(f), { ...options }],
    [
      self('self'),
      arg(0, sendKind),
      arg(1, 'collBuffer'),
      arg(2, 'stream'),
      arg(3, 'collOptions'),
      prop(3, 'kind', 'collKind'),
      prop(3, 'count', 'collCount'),
      ...extra,
    ],
  );
}

function pointToPoint(name: 'send' | 'recv'): TargetSpec {
  return method('Communicator', name, (f) => [buffer0(f), 1, stream0(f), { kind: 'f32' }], [
    self('self'),
    arg(0, 'collBuffer'),
    arg(1, 'collRank'),
    arg(2, 'stream'),
    arg(3, 'collOptions'),
    prop(3, 'kind', 'collKind'),
    prop(3, 'count', 'collCount'),
  ]);
}

const initRankOptions = () => ({
  id: NcclUniqueId.create(),
  rank: 0,
  nRanks: 1,
  device: Device.get(0),
});
const initRankSlots: TargetSpec['slots'] = [
  arg(0, 'collOptions'),
  prop(0, 'id', 'ncclId'),
  prop(0, 'rank', 'soloRank'),
  prop(0, 'nRanks', 'soloRanks'),
  prop(0, 'device', 'device'),
];

const SPECS: TargetSpec[] = [
  construct(Communicator, 'Communicator'),
  fn('Communicator.initAll', () => [[Device.get(0), Device.get(1)]], [arg(0, 'deviceList')]),
  fn('Communicator.initRank', () => [initRankOptions()], initRankSlots),
  fn('Communicator.initRankSync', () => [initRankOptions()], initRankSlots),
  collective('allReduce', { kind: 'f32', op: 'sum' }, [prop(3, 'op', 'reduceOp')]),
  collective('reduceScatter', { kind: 'f32', op: 'sum', count: 4 }, [prop(3, 'op', 'reduceOp')]),
  collective('broadcast', { kind: 'f32', root: 1 }, [prop(3, 'root', 'collRank')], 'rootSend'),
  collective('allGather', { kind: 'f32', count: 4 }, []),
  pointToPoint('send'),
  pointToPoint('recv'),
  method('Communicator', 'checkAsyncError', () => [], [self('self')]),
  ...(['synchronize', 'synchronizeSync'] as const).map((name) =>
    method('Communicator', name, (f) => [stream0(f), { timeoutMs: 5000 }], [
      self('self'),
      arg(0, 'stream'),
      arg(1, 'waitOptions'),
      prop(1, 'timeoutMs', 'timeoutMs'),
    ]),
  ),
  ...['abort', 'dispose', Symbol.dispose, 'disposed'].map((name) =>
    method('Communicator', name, () => [], [self('selfDisposeOk')]),
  ),

  construct(NcclUniqueId, 'NcclUniqueId'),
  fn('NcclUniqueId.create', () => []),
  fn('NcclUniqueId.parse', () => [NcclUniqueId.create().toString()], [arg(0, 'idText')]),
  fn('NcclUniqueId.fromBytes', () => [NcclUniqueId.create().toBytes()], [arg(0, 'idBytes')]),
  ...['toBytes', 'toString'].map((name) =>
    method('NcclUniqueId', name, () => [], [self('selfNoDispose')]),
  ),

  fn('group', (f) => [() => newPair(f).length], [arg(0, 'enqueueFn')]),
  // Closed again in the same case: a group left open would change later cases.
  {
    id: 'groupStart',
    prepare: () => ({
      self: undefined,
      args: [],
      call: () => {
        collectives.groupStart();
        collectives.groupEnd();
      },
    }),
  },
  fn('groupEnd', () => []),
  fn('splitBatch', () => [new Float32Array(8), 2], [arg(0, 'batchArray'), arg(1, 'parts')]),
  fn('shardDescriptor', () => [smallDescriptor(), 1], [arg(0, 'convDescriptor'), arg(1, 'parts')]),
  ...PARALLEL_SPECS,
];

export const COLLECTIVES_CORPUS: PackageCorpus = {
  pkg: 'collectives',
  load: async () => ({
    values: { ...COLLECTIVES_VALUES, ...PARALLEL_VALUES },
    parallel: await parallelFixtures(),
  }),
  targets: targetsOf('collectives', SPECS),
  data: ['COLLECTIVE_KINDS', 'REDUCE_OPS'],
};
