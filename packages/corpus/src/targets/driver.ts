/** @baracuda/driver: every class, factory, method and getter, on the fake libcuda's two devices. */
import * as driver from '@baracuda/driver';
import type { Fixtures, PackageCorpus, Prepared } from '../model.js';
import { track } from '../track.js';
import {
  arg,
  fixture,
  member,
  memberLabel,
  prop,
  self,
  type TargetSpec,
  targetsOf,
} from './build.js';
import { DRIVER_VALUES, newBuffer, newEvent, newModule, newStream, PTX } from './driver-values.js';

const {
  Device,
  DeviceBuffer,
  Event,
  KernelFunction,
  KernelParams,
  Module,
  PinnedHostBuffer,
  Stream,
} = driver;

type Disposable = { dispose(): void };
const freeing = (value: unknown) => {
  if (typeof (value as Disposable | null)?.dispose === 'function') (value as Disposable).dispose();
};

/** `new` on a class only its factories should build (named here: bundling renames classes). */
function construct(Class: Function, name: string): TargetSpec {
  return {
    id: `${name}()`,
    slots: [arg(0, 'ctorArgument')],
    baselineAcceptable: false,
    prepare: (f) => ({
      self: undefined,
      args: [],
      call: (_s, args) =>
        track(f, Reflect.construct(Class as new () => unknown, args) as unknown, freeing),
    }),
  };
}

/** A static call; what it returns is freed after the case. */
function statics(
  id: string,
  args: (f: Fixtures) => unknown[],
  slots: TargetSpec['slots'] = [],
): TargetSpec {
  const [className, name] = id.replace(/~.*$/, '').split('.') as [string, string];
  const Class = (driver as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[
    className
  ]!;
  return {
    id,
    slots,
    prepare: (f) => ({
      self: Class,
      args: args(f),
      call: (s, a) => track(f, Class[name]!.apply(s, a), freeing),
    }),
  };
}

/** An instance member: `make` builds the object (and says how to dispose it mid-call). */
function method(
  className: string,
  name: string | symbol,
  make: (f: Fixtures) => { object: object; victim?: () => void },
  args: (f: Fixtures, object: object) => unknown[],
  slots: TargetSpec['slots'],
): TargetSpec {
  const Class = (driver as unknown as Record<string, { prototype: object }>)[className]!;
  return {
    id: `${className}#${memberLabel(name)}`,
    slots,
    // Device and KernelParams have nothing to dispose mid-call.
    hasVictim: className !== 'Device' && className !== 'KernelParams',
    prepare: (f): Prepared => {
      const { object, victim } = make(f);
      const call = member(Class.prototype, name);
      return {
        self: object,
        args: args(f, object),
        call: (s, a) => track(f, call(s, a), freeing),
        victim: victim ?? (() => (object as Disposable).dispose()),
      };
    },
  };
}

const stream = (f: Fixtures) => ({ object: newStream(f) });
const event = (f: Fixtures) => ({ object: newEvent(f) });
const buffer = (f: Fixtures) => ({ object: newBuffer(f) });
const module = (f: Fixtures) => ({ object: newModule(f) });
const pinned = (f: Fixtures) => ({
  object: track(f, PinnedHostBuffer.alloc(16), freeing),
});
const device = () => ({ object: Device.get(0), victim: () => {} });
const params = () => ({ object: new KernelParams(), victim: () => {} });
const kernel = (f: Fixtures) => {
  const owner = newModule(f);
  return { object: owner.getFunction('corpus_kernel'), victim: () => owner.dispose() };
};
const none = () => [];
const u8 = () => new Uint8Array(16);

type Make = (f: Fixtures) => { object: object; victim?: () => void };
const disposable = (className: string, make: Make) =>
  ['dispose', Symbol.dispose].map((name) =>
    method(className, name, make, none, [self('selfDisposeOk')]),
  );
const getters = (className: string, make: Make, names: string[]) =>
  names.map((name) =>
    method(className, name, make, none, [self(name === 'disposed' ? 'selfDisposeOk' : 'self')]),
  );

const SPECS: TargetSpec[] = [
  { id: 'probe', prepare: () => ({ self: undefined, args: [], call: () => driver.probe() }) },

  construct(Device, 'Device'),
  statics('Device.count', none),
  statics('Device.get', () => [0], [arg(0, 'ordinal')]),
  statics('Device.all', none),
  ...['memoryInfo', 'synchronizeSync', 'makeCurrent', 'toString'].map((name) =>
    method('Device', name, device, none, [self('selfNoDispose')]),
  ),
  method('Device', 'createStream', device, () => [{ nonBlocking: false }], [
    self('selfNoDispose'),
    arg(0, 'options'),
    prop(0, 'nonBlocking', 'flag'),
  ]),

  construct(Stream, 'Stream'),
  statics('Stream.create', () => [Device.get(0), { nonBlocking: true }], [
    arg(0, 'device'),
    arg(1, 'options'),
    prop(1, 'nonBlocking', 'flag'),
  ]),
  ...getters('Stream', stream, ['raw', 'disposed', 'handle']),
  ...['synchronize', 'synchronizeSync', 'query'].map((name) =>
    method('Stream', name, stream, none, [self('self')]),
  ),
  method('Stream', 'waitEvent', stream, (f) => [newEvent(f)], [self('self'), arg(0, 'event')]),
  ...disposable('Stream', stream),

  construct(Event, 'Event'),
  statics('Event.create', () => [Device.get(0), { timing: true, blockingSync: false }], [
    arg(0, 'device'),
    arg(1, 'options'),
    prop(1, 'timing', 'flag'),
    prop(1, 'blockingSync', 'flag'),
  ]),
  statics(
    'Event.elapsedMs',
    (f) => {
      const on = newStream(f);
      const [start, end] = [newEvent(f), newEvent(f)];
      start.record(on);
      end.record(on);
      return [start, end];
    },
    [arg(0, 'timingEvent'), arg(1, 'timingEvent')],
  ),
  ...getters('Event', event, ['disposed', 'handle']),
  method('Event', 'record', event, (f) => [newStream(f)], [self('self'), arg(0, 'stream')]),
  ...['query', 'synchronizeSync', 'synchronize'].map((name) =>
    method('Event', name, event, none, [self('self')]),
  ),
  ...disposable('Event', event),

  construct(DeviceBuffer, 'DeviceBuffer'),
  statics('DeviceBuffer.alloc', () => [64, { device: Device.get(0) }], [
    arg(0, 'byteLength'),
    arg(1, 'options'),
    prop(1, 'device', 'device'),
  ]),
  statics(
    'DeviceBuffer.alloc~stream',
    (f) => [64, { device: Device.get(0), stream: newStream(f) }],
    [prop(1, 'device', 'deviceOf0'), prop(1, 'stream', 'optionalStream')],
  ),
  statics('DeviceBuffer.allocElements', () => ['f32', 16, { device: Device.get(0) }], [
    arg(0, 'elementKind'),
    arg(1, 'byteLength'),
    arg(2, 'options'),
  ]),
  ...getters('DeviceBuffer', buffer, ['devicePtr', 'disposed']),
  ...['uploadSync', 'downloadSync'].map((name) =>
    method('DeviceBuffer', name, buffer, () => [u8(), 0], [
      self('self'),
      arg(0, 'hostView'),
      arg(1, 'byteOffset'),
    ]),
  ),
  ...['upload', 'download'].map((name) =>
    method('DeviceBuffer', name, buffer, (f) => [u8(), newStream(f), 0], [
      self('self'),
      arg(0, 'hostView'),
      arg(1, 'stream'),
      arg(2, 'byteOffset'),
    ]),
  ),
  method('DeviceBuffer', 'memsetSync', buffer, () => [0], [self('self'), arg(0, 'byte')]),
  method('DeviceBuffer', 'memset', buffer, (f) => [0, newStream(f)], [
    self('self'),
    arg(0, 'byte'),
    arg(1, 'stream'),
  ]),
  method('DeviceBuffer', 'fillSync32', buffer, () => [0], [self('self'), arg(0, 'u32')]),
  method('DeviceBuffer', 'fill32', buffer, (f) => [0, newStream(f)], [
    self('self'),
    arg(0, 'u32'),
    arg(1, 'stream'),
  ]),
  method('DeviceBuffer', 'fillSync16', buffer, () => [0], [self('self'), arg(0, 'u16')]),
  method('DeviceBuffer', 'fill16', buffer, (f) => [0, newStream(f)], [
    self('self'),
    arg(0, 'u16'),
    arg(1, 'stream'),
  ]),
  method('DeviceBuffer', 'copyFromSync', buffer, (f) => [plainSlice(f)], [
    self('self'),
    arg(0, 'deviceSlice'),
  ]),
  method('DeviceBuffer', 'copyFrom', buffer, (f) => [plainSlice(f), newStream(f)], [
    self('self'),
    arg(0, 'deviceSlice'),
    arg(1, 'stream'),
  ]),
  method('DeviceBuffer', 'slice', buffer, () => [0, 16], [
    self('self'),
    arg(0, 'sliceOffset'),
    arg(1, 'sliceLength'),
  ]),
  ...disposable('DeviceBuffer', buffer),

  construct(PinnedHostBuffer, 'PinnedHostBuffer'),
  statics('PinnedHostBuffer.alloc', () => [16, { device: Device.get(0) }], [
    arg(0, 'byteLength'),
    arg(1, 'options'),
    prop(1, 'device', 'device'),
  ]),
  ...getters('PinnedHostBuffer', pinned, ['bytes', 'disposed']),
  ...disposable('PinnedHostBuffer', pinned),

  construct(Module, 'Module'),
  statics('Module.load', () => [PTX, Device.get(0)], [arg(0, 'moduleImage'), arg(1, 'device')]),
  ...getters('Module', module, ['disposed', 'handle']),
  method('Module', 'getFunction', module, () => ['corpus_kernel'], [
    self('self'),
    arg(0, 'kernelName'),
  ]),
  ...disposable('Module', module),

  construct(KernelFunction, 'KernelFunction'),
  method(
    'KernelFunction',
    'launch',
    kernel,
    (f) => [newStream(f), [1, 1, 1], [1, 1, 1], 0, new Uint8Array(8)],
    [
      self('self'),
      arg(0, 'launchStream'),
      arg(1, 'dim3'),
      arg(2, 'dim3'),
      arg(3, 'sharedBytes'),
      arg(4, 'params'),
    ],
  ),

  {
    id: 'KernelParams()',
    slots: [arg(0, 'capacity')],
    prepare: () => ({
      self: undefined,
      args: [64],
      call: (_s, a) => Reflect.construct(KernelParams, a),
    }),
  },
  ...getters('KernelParams', params, ['byteLength']).map((t) => ({
    ...t,
    slots: [self('selfNoDispose')],
  })),
  ...(
    [
      ['u32', 'u32Param', 1],
      ['i32', 'i32Param', -1],
      ['u64', 'u64Param', 1n],
      ['f32', 'floatParam', 0.5],
      ['f64', 'floatParam', 0.5],
      ['ptr', 'ptrParam', 16n],
    ] as const
  ).map(([name, kind, valid]) =>
    method('KernelParams', name, params, () => [valid], [self('selfNoDispose'), arg(0, kind)]),
  ),
  ...['bytes', 'reset'].map((name) =>
    method('KernelParams', name, params, none, [self('selfNoDispose')]),
  ),
];

/** A plain DeviceSlice over 16 bytes of a live buffer on device 0. */
function plainSlice(f: Fixtures): { devicePtr: bigint; byteLength: number } {
  return { devicePtr: newBuffer(f).devicePtr, byteLength: 16 };
}

export const DRIVER_CORPUS: PackageCorpus = {
  pkg: 'driver',
  load: async () => {
    const f: Fixtures = { values: DRIVER_VALUES };
    // Both fake devices' contexts are made before the first case, outside any case's timing.
    fixture(f, 'device0');
    fixture(f, 'device1');
    return f;
  },
  targets: targetsOf('driver', SPECS),
  data: [],
};
