/**
 * Values made of @baracuda/driver objects, on the fake libcuda's two devices: streams, events,
 * buffers and DeviceSlices, live, disposed, on the other device, or look-alikes. kernels' corpus
 * uses them too.
 */
import * as driver from '@baracuda/driver';
import type { Fixtures } from '../model.js';
import { track } from '../track.js';
import type { ValueContext, ValueMaker } from '../values.js';

const { Device, DeviceBuffer, Event, PinnedHostBuffer, Stream } = driver;

export const PTX = [
  '.version 8.0',
  '.target sm_90',
  '.address_size 64',
  '.visible .entry corpus_kernel()',
  '{',
  '  ret;',
  '}',
  '',
].join('\n');

const disposing = (value: { dispose(): void }) => value.dispose();

export function newStream(f: Fixtures, ordinal = 0): driver.Stream {
  return track(f, Stream.create(Device.get(ordinal)), disposing);
}
export function newEvent(f: Fixtures, ordinal = 0, timing = true): driver.Event {
  return track(f, Event.create(Device.get(ordinal), { timing }), disposing);
}
export function newBuffer(f: Fixtures, bytes = 64, ordinal = 0): driver.DeviceBuffer {
  return track(f, DeviceBuffer.alloc(bytes, { device: Device.get(ordinal) }), disposing);
}
export function newModule(f: Fixtures): driver.Module {
  return track(f, driver.Module.load(PTX, Device.get(0)), disposing);
}

function disposed<T extends { dispose(): void }>(value: T): T {
  value.dispose();
  return value;
}

/** A plain DeviceSlice over a fresh 64-byte buffer of device 0, with `change` applied. */
function slice(change: (live: { devicePtr: bigint; byteLength: number }) => object): ValueMaker {
  return (ctx) => {
    const live = newBuffer(ctx.fixtures);
    return change({ devicePtr: live.devicePtr, byteLength: 16 });
  };
}

/** An instance of another class than `ctx.valid`'s (passing one object where another belongs). */
function otherClass(ctx: ValueContext): unknown {
  return ctx.valid instanceof Event ? newStream(ctx.fixtures) : newEvent(ctx.fixtures);
}

export const DRIVER_VALUES: Record<string, ValueMaker> = {
  device0: () => Device.get(0),
  device1: () => Device.get(1),
  deviceMimic: () => ({ ...Device.get(0) }),
  stream0: (ctx) => newStream(ctx.fixtures),
  stream1: (ctx) => newStream(ctx.fixtures, 1),
  streamDisposed: (ctx) => disposed(newStream(ctx.fixtures)),
  streamMimic: () => ({ raw: 0n, device: Device.get(0) }),
  streamRawNeg: () => ({ raw: -1n, device: Device.get(0) }),
  streamProtoMimic: () => Object.create(Stream.prototype),
  event0: (ctx) => newEvent(ctx.fixtures),
  event1: (ctx) => newEvent(ctx.fixtures, 1),
  eventDisposed: (ctx) => disposed(newEvent(ctx.fixtures)),
  eventNoTiming: (ctx) => newEvent(ctx.fixtures, 0, false),
  buffer0: (ctx) => newBuffer(ctx.fixtures),
  buffer1: (ctx) => newBuffer(ctx.fixtures, 64, 1),
  bufferDisposed: (ctx) => disposed(newBuffer(ctx.fixtures)),
  pinnedBytes: (ctx) => track(ctx.fixtures, PinnedHostBuffer.alloc(16), (p) => p.dispose()).bytes,
  sliceZeroPtr: slice((s) => ({ ...s, devicePtr: 0n })),
  sliceNegPtr: slice((s) => ({ ...s, devicePtr: -1n })),
  slicePtr2pow64: slice((s) => ({ ...s, devicePtr: 2n ** 64n })),
  sliceNumberPtr: slice((s) => ({ ...s, devicePtr: Number(s.devicePtr) })),
  sliceNaNLength: slice((s) => ({ ...s, byteLength: Number.NaN })),
  sliceHugeLength: slice((s) => ({ ...s, byteLength: 2 ** 53 })),
  sliceNegLength: slice((s) => ({ ...s, byteLength: -1 })),
  sliceWildPtr: slice((s) => ({ ...s, devicePtr: 0xdead0000n })),
  sliceMisaligned: slice((s) => ({ ...s, devicePtr: s.devicePtr + 1n })),
  kindF32: () => 'f32',
  kindBogus: () => 'f128',
  kindI8: () => 'i8',
  ptxText: () => PTX,
  ptxWithNul: () => `${PTX}\0.entry hidden()`,
  invalidPtx: () => 'FAKE_INVALID_PTX',
  kernelName: () => 'corpus_kernel',
  nameWithNul: () => 'corpus_kernel\0x',
  unknownKernel: () => 'no_such_kernel',
  longName: () => 'k'.repeat(300),
  disposedSelf: (ctx) => {
    ctx.victim?.();
    return ctx.valid;
  },
  mimicSelf: (ctx) => ({ ...(ctx.valid as object) }),
  protoMimic: (ctx) => Object.create(Object.getPrototypeOf(ctx.valid) as object),
  otherClass,
};
