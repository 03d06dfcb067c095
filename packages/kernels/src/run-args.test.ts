/**
 * The run calls' argument checks (run-args.ts) on their own: exact texts for every refusal, each
 * property of the caller's objects read once, and the operands handed on in cuDNN's uid order.
 * run-args-plans.test.ts shows every run path of a plan applies them.
 */
import {
  BufferTooSmallError,
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  makeTensorRef,
  Workspace,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { fakeDevice, fakeStream, smallProblem } from './fake-cudnn.test-helpers.js';
import { checkRunArgs, type RunTarget } from './run-args.js';

const desc = smallProblem(ElementKind.F32);
const target: RunTarget = { descriptor: desc, device: fakeDevice, stream: fakeStream };
const otherDevice = { ...fakeDevice, ordinal: 1 };

function slice(devicePtr: bigint, elements: number, extra: object = {}) {
  return { devicePtr, byteLength: elements * desc.elementBytes, ...extra };
}
const x = slice(0x10000n, desc.xElements);
const w = slice(0x20000n, desc.wElements);
const y = slice(0x30000n, desc.yElements);

function fwError(args: Record<string, unknown>): unknown {
  try {
    checkRunArgs('fw', { x, w, y, ...args }, target);
  } catch (error) {
    return error;
  }
  return 'accepted';
}

describe('run arguments', () => {
  it('hands the operands on in uid order (x-like, w-like, y-like) with the defaults', () => {
    const defaults = { alpha: 1, beta: 0, stream: fakeStream, userWs: null };
    expect(checkRunArgs('fw', { x, w, y }, target)).toEqual({
      px: 0x10000n,
      pw: 0x20000n,
      py: 0x30000n,
      scalars: defaults,
    });
    expect(checkRunArgs('bwData', { w, dy: y, dx: x }, target)).toEqual({
      px: 0x10000n,
      pw: 0x20000n,
      py: 0x30000n,
      scalars: defaults,
    });
    expect(checkRunArgs('bwFilter', { x, dy: y, dw: w }, target)).toEqual({
      px: 0x10000n,
      pw: 0x20000n,
      py: 0x30000n,
      scalars: defaults,
    });
  });

  it('refuses something that is not an arguments object, naming the method', () => {
    expect(() => checkRunArgs('fw', null, target)).toThrow(
      new InvalidArgumentError('runFw arguments', 'an object {x, w, y}', null),
    );
    expect(() => checkRunArgs('bwData', 7, target)).toThrow(
      'Expected an object {w, dy, dx} for runBwData arguments but received 7 of type number',
    );
    expect(() => checkRunArgs('bwFilter', 'x', target)).toThrow(
      'Expected an object {x, dy, dw} for runDw arguments but received "x" of type string',
    );
  });

  it('refuses a byte length that is not a safe non-negative integer', () => {
    for (const [bad, shown] of [
      [Number.NaN, 'NaN of type number'],
      [-1, '-1 of type number'],
      [1.5, '1.5 of type number'],
      [2 ** 53, '9007199254740992 of type number'],
      ['256', '"256" of type string'],
      [undefined, 'undefined'],
    ] as const) {
      const error = fwError({ x: { devicePtr: 0x10000n, byteLength: bad } });
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toBe(
        `Expected a non-negative safe integer for x.byteLength but received ${shown}`,
      );
    }
  });

  it('refuses a device address outside [1, 2^64)', () => {
    for (const [bad, shown] of [
      [0n, '0n of type bigint'],
      [-4n, '-4n of type bigint'],
      [2n ** 64n, '18446744073709551616n of type bigint'],
      [2n ** 64n + 0x10000n, '18446744073709617152n of type bigint'],
      [0x10000, '65536 of type number'],
    ] as const) {
      expect((fwError({ y: { devicePtr: bad, byteLength: y.byteLength } }) as Error).message).toBe(
        `Expected a bigint from 1 to 2^64 - 1 (a device address) for y.devicePtr but received ${shown}`,
      );
    }
  });

  it('refuses a range that runs past the end of the address space', () => {
    const near = 2n ** 64n - 256n;
    expect(fwError({ w: { devicePtr: near, byteLength: w.byteLength } })).toEqual(
      new InvalidArgumentError(
        'w.byteLength',
        'at most 256 bytes (a range from 0xffffffffffffff00 ends by 2^64)',
        w.byteLength,
      ),
    );
  });

  it('refuses a short or misaligned tensor and one that is not a slice', () => {
    expect(fwError({ x: { devicePtr: 0x10000n, byteLength: 8 } })).toEqual(
      new BufferTooSmallError('x', x.byteLength, 8),
    );
    expect((fwError({ x: { ...x, devicePtr: 0x10002n } }) as Error).message).toBe(
      'Expected a multiple of 4 bytes (one f32 element) for x device address but received "0x10002" of type string',
    );
    expect((fwError({ w: {} }) as Error).message).toBe(
      'Expected a TensorRef or a DeviceSlice for w but received an object',
    );
    expect((fwError({ w: 5n }) as Error).message).toBe(
      'Expected a TensorRef or a DeviceSlice for w but received 5n of type bigint',
    );
  });

  it('checks a TensorRef: element, shape, strides and its data', () => {
    const ref = makeTensorRef(ElementKind.F32, desc.xShape, undefined, x);
    expect(checkRunArgs('fw', { x: ref, w, y }, target).px).toBe(0x10000n);
    expect((fwError({ x: { ...ref, element: ElementKind.F16 } }) as Error).message).toBe(
      'Expected element f32 for x.element but received "f16" of type string',
    );
    expect(fwError({ x: { ...ref, shape: [1, 4, 4, 4, Symbol('s')] } })).toEqual(
      new InvalidProblemError(
        'Expected x of shape [1, 4, 4, 4, 4] but received shape [1, 4, 4, 4, Symbol(s) of type symbol]',
        'x',
      ),
    );
    expect((fwError({ x: { ...ref, strides: 'dense' } }) as Error).message).toBe(
      'Expected x with the dense ncdhw strides [256, 64, 16, 4, 1] but received strides "dense" of type string',
    );
    expect((fwError({ x: { ...ref, data: null } }) as Error).message).toBe(
      'Expected a DeviceSlice for x.data but received null',
    );
    expect(
      (fwError({ x: { ...ref, data: { devicePtr: 0n, byteLength: 1024 } } }) as Error).message,
    ).toBe(
      'Expected a bigint from 1 to 2^64 - 1 (a device address) for x.data.devicePtr but received 0n of type bigint',
    );
  });

  it('refuses a buffer or a stream of another device', () => {
    expect(fwError({ y: { ...y, device: otherDevice } })).toEqual(
      new InvalidArgumentError('y.device.ordinal', "device 0 (the plan's device)", 1),
    );
    expect((fwError({ y: { ...y, device: otherDevice } }) as Error).message).toBe(
      "Expected device 0 (the plan's device) for y.device.ordinal but received 1 of type number",
    );
    const ref = makeTensorRef(ElementKind.F32, desc.wShape, undefined, {
      ...w,
      device: otherDevice,
    } as typeof w);
    expect((fwError({ w: ref }) as Error).message).toBe(
      "Expected device 0 (the plan's device) for w.data.device.ordinal but received 1 of type number",
    );
    expect((fwError({ stream: { raw: 5n, device: otherDevice } }) as Error).message).toBe(
      "Expected device 0 (the plan's device) for stream.device.ordinal but received 1 of type number",
    );
    expect(
      (
        fwError({
          workspace: { devicePtr: 0x40000n, byteLength: 64, device: otherDevice },
        }) as Error
      ).message,
    ).toBe(
      "Expected device 0 (the plan's device) for workspace.device.ordinal but received 1 of type number",
    );
    // The same device, or none told, is accepted.
    const same = { raw: 5n, device: fakeDevice };
    expect(
      checkRunArgs('fw', { x, w, y: { ...y, device: fakeDevice }, stream: same }, target).scalars
        .stream,
    ).toBe(same);
  });

  it('refuses a stream that is not one', () => {
    expect((fwError({ stream: 1n }) as Error).message).toBe(
      'Expected a Stream from @baracuda/driver for stream but received 1n of type bigint',
    );
    expect((fwError({ stream: { raw: -1n } }) as Error).message).toBe(
      'Expected a bigint from 0 to 2^64 - 1 (a CUstream) for stream.raw but received -1n of type bigint',
    );
    expect((fwError({ stream: { raw: 2n ** 64n } }) as Error).message).toBe(
      'Expected a bigint from 0 to 2^64 - 1 (a CUstream) for stream.raw but received 18446744073709551616n of type bigint',
    );
  });

  it('alpha and beta: finite, and within f32 for an f32-scaled plan', () => {
    expect((fwError({ alpha: Number.NaN }) as Error).message).toBe(
      'Expected a finite number for alpha but received NaN of type number',
    );
    expect((fwError({ beta: Number.POSITIVE_INFINITY }) as Error).message).toBe(
      'Expected a finite number for beta but received Infinity of type number',
    );
    expect((fwError({ beta: '1' }) as Error).message).toBe(
      'Expected a finite number for beta but received "1" of type string',
    );
    expect((fwError({ alpha: 1e39 }) as Error).message).toBe(
      "Expected a finite number within the f32 range (the plan's alpha and beta are f32) for alpha but received 1e+39 of type number",
    );
    const f64 = smallProblem(ElementKind.F64);
    const big = (n: number) => ({ devicePtr: 0x10000n, byteLength: n * 8 });
    const run = checkRunArgs(
      'fw',
      {
        x: big(f64.xElements),
        w: big(f64.wElements),
        y: big(f64.yElements),
        alpha: 1e39,
        beta: 0.5,
      },
      { ...target, descriptor: f64 },
    );
    expect(run.scalars.alpha).toBe(1e39);
    expect(run.scalars.beta).toBe(0.5);
  });

  it('workspace: a slice, a Workspace, or the plan own; a cyclic one is refused, not followed', () => {
    const ws = { devicePtr: 0x40000n, byteLength: 512 };
    expect(checkRunArgs('fw', { x, w, y, workspace: ws }, target).scalars.userWs).toEqual(ws);
    expect(
      checkRunArgs('fw', { x, w, y, workspace: Workspace.borrowed(ws) }, target).scalars.userWs,
    ).toEqual(ws);
    expect(
      checkRunArgs('fw', { x, w, y, workspace: Workspace.none() }, target).scalars.userWs,
    ).toEqual({ devicePtr: 0n, byteLength: 0 });
    expect(checkRunArgs('fw', { x, w, y, workspace: null }, target).scalars.userWs).toBe(null);
    // An empty slice may sit at address 0; a non-empty one may not.
    expect(
      checkRunArgs('fw', { x, w, y, workspace: { devicePtr: 0n, byteLength: 0 } }, target).scalars
        .userWs,
    ).toEqual({ devicePtr: 0n, byteLength: 0 });
    expect((fwError({ workspace: { devicePtr: 0n, byteLength: 64 } }) as Error).message).toBe(
      'Expected a bigint from 1 to 2^64 - 1 (a device address) for workspace.devicePtr but received 0n of type bigint',
    );
    const cyclic: Record<string, unknown> = { kind: 'borrowed' };
    cyclic.slice = cyclic;
    expect((fwError({ workspace: cyclic }) as Error).message).toBe(
      'Expected a DeviceSlice for workspace.slice but received an object',
    );
    // A Workspace that is its own slice, with a slice's fields too: still one level only.
    const selfSlice: Record<string, unknown> = { kind: 'borrowed', ...ws };
    selfSlice.slice = selfSlice;
    expect((fwError({ workspace: selfSlice }) as Error).message).toBe(
      'Expected a DeviceSlice for workspace.slice but received an object',
    );
    const nested = { kind: 'borrowed', slice: Workspace.borrowed(ws) };
    expect((fwError({ workspace: nested }) as Error).message).toBe(
      'Expected a DeviceSlice for workspace.slice but received an object',
    );
    expect((fwError({ workspace: 42 }) as Error).message).toBe(
      'Expected a DeviceSlice, a Workspace or undefined for workspace but received 42 of type number',
    );
    expect((fwError({ workspace: { kind: 'borrowed' } }) as Error).message).toBe(
      'Expected a DeviceSlice for workspace.slice but received undefined',
    );
    expect(
      (fwError({ workspace: { devicePtr: 0x40000n, byteLength: Number.NaN } }) as Error).message,
    ).toBe(
      'Expected a non-negative safe integer for workspace.byteLength but received NaN of type number',
    );
  });

  it('reads each property of the caller once', () => {
    const reads: string[] = [];
    const counted = <T extends object>(name: string, value: T): T =>
      new Proxy(value, {
        get(target, key, receiver) {
          if (typeof key === 'string') reads.push(`${name}.${key}`);
          return Reflect.get(target, key, receiver);
        },
      });
    checkRunArgs(
      'fw',
      counted('args', {
        x: counted('x', { ...x }),
        w,
        y,
        stream: counted('stream', { raw: 1n, device: fakeDevice }),
        workspace: counted('ws', { kind: 'borrowed', slice: counted('slice', { ...w }) }),
        alpha: 2,
      }),
      target,
    );
    const counts = new Map<string, number>();
    for (const r of reads) counts.set(r, (counts.get(r) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect([...counts.keys()].sort()).toEqual([
      'args.alpha',
      'args.beta',
      'args.stream',
      'args.w',
      'args.workspace',
      'args.x',
      'args.y',
      'slice.byteLength',
      'slice.device',
      'slice.devicePtr',
      'slice.kind',
      'stream.device',
      'stream.raw',
      'ws.kind',
      'ws.slice',
      'x.byteLength',
      'x.device',
      'x.devicePtr',
    ]);
  });
});
