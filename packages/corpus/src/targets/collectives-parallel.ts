/**
 * DataParallelConv3d (two fake devices, the fake cuDNN computing nothing). Making one selects a
 * plan per device (asynchronous), so each child makes its objects once, in load(): one live
 * instance shared by the cases that do not dispose it (with one step's shards on each device),
 * spares for dispose, and one disposed. `create` itself is swept on fresh instances.
 */
import * as collectives from '@baracuda/collectives';
import { Device, DeviceBuffer } from '@baracuda/driver';
import { Conv3dDescriptor } from '@baracuda/kernels';
import type { Fixtures, Prepared } from '../model.js';
import { track } from '../track.js';
import { arg, member, memberLabel, prop, self, type TargetSpec } from './build.js';

const { DataParallelConv3d } = collectives;
type Parallel = collectives.DataParallelConv3d;
type Shard = collectives.DataParallelShard;

/** n=2 (one per device) by default, 4→4 channels, 4×4×4, filter 1×3×3, f32 NCDHW. */
export function pairDescriptor(batch = 2): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch,
    cIn: 4,
    dIn: 4,
    hIn: 4,
    wIn: 4,
    cOut: 4,
    dFilt: 1,
    hFilt: 3,
    wFilt: 3,
    element: 'f32',
  });
}

const createOptions = () => ({
  devices: [Device.get(0), Device.get(1)],
  descriptor: pairDescriptor(),
  bucketBytes: 256,
  reduce: 'sum' as const,
});

interface ParallelFixtures {
  live: Parallel;
  disposed: Parallel;
  spares: Parallel[];
  shards: Shard[];
}

const SPARES = 3;

/** What load() adds to the package's fixtures. */
export async function parallelFixtures(): Promise<ParallelFixtures> {
  const make = () => DataParallelConv3d.create(createOptions());
  const live = await make();
  const disposed = await make();
  disposed.dispose();
  const spares: Parallel[] = [];
  for (let i = 0; i < SPARES; ++i) spares.push(await make());
  const shards = live.devices.map((device) => {
    const alloc = () => DeviceBuffer.alloc(4096, { device });
    return { x: alloc(), w: alloc(), y: alloc(), dy: alloc(), dx: alloc(), dw: alloc() };
  });
  return { live, disposed, spares, shards };
}

function parallel(f: Fixtures): ParallelFixtures {
  return f.parallel as ParallelFixtures;
}

/** A member of the shared instance (or, for dispose, of a spare while they last). */
function method(
  name: string | symbol,
  args: (f: Fixtures) => unknown[],
  slots: TargetSpec['slots'],
  disposes = false,
): TargetSpec {
  return {
    id: `DataParallelConv3d#${memberLabel(name)}`,
    slots,
    prepare: (f): Prepared => {
      const p = parallel(f);
      const object = disposes ? (p.spares.pop() ?? p.disposed) : p.live;
      const call = member(DataParallelConv3d.prototype, name);
      return { self: object, args: args(f), call: (s, a) => call(s, a) };
    },
  };
}

const shardsOf = (f: Fixtures) => parallel(f).shards.map((s) => ({ ...s }));

export const PARALLEL_VALUES = {
  parallelDisposed: (ctx: { fixtures: Fixtures }) => parallel(ctx.fixtures).disposed,
  shardsSwapped: (ctx: { fixtures: Fixtures }) => [...parallel(ctx.fixtures).shards].reverse(),
  shardsShort: (ctx: { fixtures: Fixtures }) => parallel(ctx.fixtures).shards.slice(0, 1),
  shardsMissingDw: (ctx: { fixtures: Fixtures }) =>
    shardsOf(ctx.fixtures).map(({ dw: _dw, ...rest }) => rest),
  shardsDisposedBuffer: (ctx: { fixtures: Fixtures }) => {
    const [first, second] = shardsOf(ctx.fixtures) as [Shard, Shard];
    const gone = DeviceBuffer.alloc(4096, { device: Device.get(0) });
    gone.dispose();
    return [{ ...first, x: gone }, second];
  },
  descriptorOddBatch: () => pairDescriptor(3),
  pairDescriptor: () => pairDescriptor(),
};

export const PARALLEL_SPECS: TargetSpec[] = [
  {
    id: 'DataParallelConv3d()',
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: () => ({
      self: undefined,
      args: [],
      call: (_s, args) => Reflect.construct(DataParallelConv3d, args),
    }),
  },
  {
    id: 'DataParallelConv3d.create',
    slots: [
      arg(0, 'collOptions'),
      prop(0, 'devices', 'deviceList'),
      prop(0, 'descriptor', 'pairDescriptor'),
      prop(0, 'bucketBytes', 'bucketBytes'),
      prop(0, 'reduce', 'parallelReduce'),
      prop(0, 'preference', 'options'),
    ],
    prepare: (f) => ({
      self: DataParallelConv3d,
      args: [createOptions()],
      call: (s, a) =>
        DataParallelConv3d.create
          .apply(s, a as [never])
          .then((made) => track(f, made, (m) => m.dispose())),
    }),
  },
  method('devices', () => [], [self('parallelSelf')]),
  method('computeStream', () => [1], [self('parallelSelf'), arg(0, 'collRank')]),
  method('step', (f) => [shardsOf(f)], [self('parallelSelf'), arg(0, 'shardList')]),
  method('synchronize', () => [{ timeoutMs: 5000 }], [
    self('parallelSelf'),
    arg(0, 'waitOptions'),
    prop(0, 'timeoutMs', 'timeoutMs'),
  ]),
  ...['dispose', Symbol.dispose].map((name) =>
    method(name, () => [], [self('parallelSelfDisposeOk')], true),
  ),
];
