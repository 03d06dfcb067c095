/** The arguments of a plan's runs, checked before anything is enqueued. */
import {
  BufferTooSmallError,
  type DeviceSlice,
  describeValue,
  InvalidArgumentError,
  InvalidProblemError,
  type TensorRef,
  type Workspace,
} from '@baracuda/types';
import type { RunScalars } from '../core/types.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import type { StreamLike } from '../sys.js';

/** A tensor argument: a TensorRef (checked for element, shape, strides and size) or a plain DeviceSlice (taken as dense in the descriptor's layout). */
export type Conv3dTensorArg = TensorRef | DeviceSlice;

interface RunCommon {
  /**
   * Scratch memory: a DeviceSlice or `Workspace.borrowed(slice)`; `Workspace.none()` allows only
   * workspace-free plans. Defaults to `undefined`: the plan allocates, grows and keeps its own.
   */
  workspace?: DeviceSlice | Workspace | null;
  /** Scale of the convolution result. Defaults to `1`. */
  alpha?: number;
  /** Scale of the output's prior content (1 accumulates). Defaults to `0`. */
  beta?: number;
  /** Stream to enqueue on. Defaults to the stream given to `select`. */
  stream?: StreamLike;
}
/** Arguments of `runFw`: y = alpha * conv(x, w) + beta * y. */
export interface Conv3dFwArgs extends RunCommon {
  x: Conv3dTensorArg;
  w: Conv3dTensorArg;
  y: Conv3dTensorArg;
}
/** Arguments of `runBwData`: dx = alpha * convBwData(w, dy) + beta * dx. */
export interface Conv3dBwDataArgs extends RunCommon {
  w: Conv3dTensorArg;
  dy: Conv3dTensorArg;
  dx: Conv3dTensorArg;
}
/** Arguments of `runDw`: dw = alpha * convBwFilter(x, dy) + beta * dw. */
export interface Conv3dDwArgs extends RunCommon {
  x: Conv3dTensorArg;
  dy: Conv3dTensorArg;
  dw: Conv3dTensorArg;
}

function isTensorRef(value: unknown): value is TensorRef {
  return typeof value === 'object' && value !== null && 'shape' in value && 'data' in value;
}

function sameArray(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function checkFinite(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError(name, 'a finite number', value);
  }
  return value;
}

const NO_WORKSPACE: DeviceSlice = Object.freeze({ devicePtr: 0n, byteLength: 0 });

/** The caller's workspace as a slice (null: the plan's own). */
function workspaceSlice(value: unknown): DeviceSlice | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.devicePtr === 'bigint' && typeof v.byteLength === 'number')
      return v as unknown as DeviceSlice;
    if (v.kind === 'none') return NO_WORKSPACE;
    if (v.kind === 'borrowed') return workspaceSlice(v.slice);
  }
  throw new InvalidArgumentError('workspace', 'a DeviceSlice, a Workspace or undefined', value);
}

export function checkStream(value: unknown, name: string): StreamLike {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { raw?: unknown }).raw !== 'bigint'
  ) {
    throw new InvalidArgumentError(name, 'a Stream from @baracuda/driver', value);
  }
  return value as StreamLike;
}

/** Check a run's common arguments, once, whichever path the run then takes. */
export function runScalars(args: RunCommon, defaultStream: StreamLike): RunScalars {
  return {
    alpha: checkFinite('alpha', args.alpha, 1),
    beta: checkFinite('beta', args.beta, 0),
    stream: args.stream === undefined ? defaultStream : checkStream(args.stream, 'stream'),
    userWs: workspaceSlice(args.workspace),
  };
}

/** Check one tensor argument of `desc`'s problem; returns its device pointer. */
export function tensorPointer(
  desc: Conv3dDescriptor,
  name: string,
  arg: unknown,
  shape: readonly number[],
  strides: readonly number[],
  elements: number,
): bigint {
  let slice: DeviceSlice;
  if (isTensorRef(arg)) {
    if (arg.element !== desc.element) {
      throw new InvalidArgumentError(`${name}.element`, `element ${desc.element}`, arg.element);
    }
    if (!Array.isArray(arg.shape) || !sameArray(arg.shape, shape)) {
      throw new InvalidProblemError(
        `Expected ${name} of shape [${shape.join(', ')}] but received shape ${Array.isArray(arg.shape) ? `[${arg.shape.join(', ')}]` : describeValue(arg.shape)}`,
        name,
      );
    }
    if (!Array.isArray(arg.strides) || !sameArray(arg.strides, strides)) {
      throw new InvalidProblemError(
        `Expected ${name} with the dense ${desc.layout} strides [${strides.join(', ')}] but received strides ${Array.isArray(arg.strides) ? `[${arg.strides.join(', ')}]` : describeValue(arg.strides)}`,
        name,
      );
    }
    slice = arg.data;
  } else {
    slice = arg as DeviceSlice;
  }
  if (
    typeof slice !== 'object' ||
    slice === null ||
    typeof slice.devicePtr !== 'bigint' ||
    typeof slice.byteLength !== 'number'
  ) {
    throw new InvalidArgumentError(name, 'a TensorRef or a DeviceSlice', arg);
  }
  const needed = elements * desc.elementBytes;
  if (slice.byteLength < needed) throw new BufferTooSmallError(name, needed, slice.byteLength);
  if (slice.devicePtr % BigInt(desc.elementBytes) !== 0n) {
    // A kernel would fault on it (misaligned address), poisoning the CUDA context.
    throw new InvalidArgumentError(
      `${name} device address`,
      `a multiple of ${desc.elementBytes} bytes (one ${desc.element} element)`,
      `0x${slice.devicePtr.toString(16)}`,
    );
  }
  return slice.devicePtr;
}
