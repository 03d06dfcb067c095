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
/** Arguments of `runFw`: y = alpha * conv(x, w) + beta * y (then the descriptor's epilogue). */
export interface Conv3dFwArgs extends RunCommon {
  x: Conv3dTensorArg;
  w: Conv3dTensorArg;
  y: Conv3dTensorArg;
  /** The epilogue's bias: `[cOut]`, of the descriptor's element. Required when the epilogue has a bias, refused otherwise. */
  bias?: Conv3dTensorArg;
  /** The epilogue's residual: y's shape and layout. Required when the epilogue has a residual, refused otherwise. */
  z?: Conv3dTensorArg;
  /**
   * Where to write the value before the activation too (y's shape and layout), for a backward that
   * reads it (leakyRelu, gelu, geluTanh, silu). Only with an epilogue. Defaults to none.
   */
  preActivation?: Conv3dTensorArg;
}
/**
 * Arguments of `runBwEpilogue`: dyPre = dy · act'(·), then dBias = Σ dyPre per channel. Pass `y`
 * for relu, sigmoid, tanh and clamp, `preActivation` for leakyRelu, gelu, geluTanh and silu, and
 * neither (nor dyPre) for identity; `dBias` exactly when the epilogue has a bias.
 */
export interface Conv3dBwEpilogueArgs {
  /**
   * The gradient of the layer's output. Omit it and pass `dyPre` and `dBias` alone where dyPre is
   * already through the activation (the next layer's runBwData with `withInputActivation` wrote
   * it): only dBias = Σ dyPre is computed.
   */
  dy?: Conv3dTensorArg;
  /** The forward output (relu, sigmoid, tanh, clamp). */
  y?: Conv3dTensorArg;
  /** The forward pre-activation (leakyRelu, gelu, geluTanh, silu), written by `runFw`'s `preActivation`. */
  preActivation?: Conv3dTensorArg;
  /** Receives dy · act'(·): y's shape (may be dy itself). */
  dyPre?: Conv3dTensorArg;
  /** Receives the bias gradient, `[cOut]`. */
  dBias?: Conv3dTensorArg;
  /** Stream to enqueue on. Defaults to the stream given to `select`. */
  stream?: StreamLike;
  /**
   * Device memory for dBias's partial sums (parts × cOut × 4 bytes, 8 for f64); the plan's own
   * workspace when omitted.
   */
  workspace?: RunCommon['workspace'];
}
/**
 * Arguments of `runBwData`: dx = alpha * convBwData(w, dy) + beta * dx (then, with the descriptor's
 * input activation, dx · act'(·)).
 */
export interface Conv3dBwDataArgs extends RunCommon {
  w: Conv3dTensorArg;
  dy: Conv3dTensorArg;
  dx: Conv3dTensorArg;
  /**
   * The input activation's output, which is this layer's input x (dx's shape): required for relu,
   * sigmoid, tanh and clamp (`withInputActivation`), refused otherwise.
   */
  x?: Conv3dTensorArg;
  /**
   * The value before the input activation (dx's shape, written by the previous layer's runFw
   * `preActivation`): required for leakyRelu, gelu, geluTanh and silu, refused otherwise.
   */
  preActivation?: Conv3dTensorArg;
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
