/** The arguments of a plan's runs as the caller gives them (run-args.ts checks them), and the stream select takes. */
import {
  type DeviceSlice,
  InvalidArgumentError,
  type TensorRef,
  type Workspace,
} from '@baracuda/types';
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

/** The stream given to select: an object whose `raw` is a bigint in [0, 2^64) (a CUstream). */
export function checkStream(value: unknown, name: string): StreamLike {
  const raw = typeof value === 'object' && value !== null ? (value as StreamLike).raw : undefined;
  if (typeof raw !== 'bigint') {
    throw new InvalidArgumentError(name, 'a Stream from @baracuda/driver', value);
  }
  if (raw < 0n || raw >= 1n << 64n) {
    throw new InvalidArgumentError(`${name}.raw`, 'a bigint from 0 to 2^64 - 1 (a CUstream)', raw);
  }
  return value as StreamLike;
}
