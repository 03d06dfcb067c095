/**
 * f64 reference of a convolution's epilogue, y = act(conv + bias[c] + z) (conv being alpha·conv(x,
 * w) + beta·y as the plain passes compute it), and of its training backward: dyPre = dy · act'(pre)
 * and dBias[c] = Σ dyPre over the batch and space. Every derivative is taken at the pre-activation
 * (the kernels take some from the output), so the two are checked against each other.
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { type ConvProblem, outputDims } from './problem.js';

/** The activations of `Conv3dDescriptor.withEpilogue`. */
export type EpilogueActivationName =
  | 'identity'
  | 'relu'
  | 'leakyRelu'
  | 'gelu'
  | 'geluTanh'
  | 'silu'
  | 'sigmoid'
  | 'tanh'
  | 'clamp';

/** The activation and its parameters. */
export interface ActivationSpec {
  readonly activation: EpilogueActivationName;
  /** leakyRelu's slope. Defaults to `0.01`. */
  readonly slope?: number;
  /** clamp's bounds. Default to `-Infinity` and `Infinity`. */
  readonly min?: number;
  readonly max?: number;
}

/** An epilogue with its tensors: `bias` [cOut], `z` of y's shape and layout. */
export interface EpilogueSpec extends ActivationSpec {
  readonly bias?: Float64Array;
  readonly z?: Float64Array;
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const GELU_CUBIC = 0.044715;

/** erf to about 1e-16 (a series near 0, a continued fraction of erfc beyond). */
export function erf(x: number): number {
  const a = Math.abs(x);
  if (a > 6) return Math.sign(x);
  if (a < 2.5) {
    // Maclaurin series: erf(x) = 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1)).
    let term = a;
    let sum = a;
    for (let n = 1; n < 200; n++) {
      term *= (-a * a) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * ((2 / Math.sqrt(Math.PI)) * sum);
  }
  // erfc(a) = exp(-a²)/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...)))), evaluated from the tail.
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (a + f);
  const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / (a + f);
  return Math.sign(x) * (1 - erfc);
}

function sigmoid(v: number): number {
  return 1 / (1 + Math.exp(-v));
}

/** act(v). */
export function activate(spec: ActivationSpec, v: number): number {
  switch (spec.activation) {
    case 'identity':
      return v;
    case 'relu':
      return Math.max(v, 0);
    case 'leakyRelu':
      return v > 0 ? v : v * (spec.slope ?? 0.01);
    case 'gelu':
      return 0.5 * v * (1 + erf(v / Math.SQRT2));
    case 'geluTanh':
      return 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + GELU_CUBIC * v * v * v)));
    case 'silu':
      return v * sigmoid(v);
    case 'sigmoid':
      return sigmoid(v);
    case 'tanh':
      return Math.tanh(v);
    case 'clamp':
      return Math.min(Math.max(v, spec.min ?? Number.NEGATIVE_INFINITY), spec.max ?? Infinity);
    default:
      throw new InvalidArgumentError('activation', 'an epilogue activation', spec.activation);
  }
}

/** act'(v), at the pre-activation v (0 at relu's and clamp's kinks, as PyTorch). */
export function activationDerivative(spec: ActivationSpec, v: number): number {
  switch (spec.activation) {
    case 'identity':
      return 1;
    case 'relu':
      return v > 0 ? 1 : 0;
    case 'leakyRelu':
      return v > 0 ? 1 : (spec.slope ?? 0.01);
    case 'gelu':
      return (
        0.5 * (1 + erf(v / Math.SQRT2)) + (v * Math.exp(-0.5 * v * v)) / Math.sqrt(2 * Math.PI)
      );
    case 'geluTanh': {
      const t = Math.tanh(SQRT_2_OVER_PI * (v + GELU_CUBIC * v * v * v));
      const du = SQRT_2_OVER_PI * (1 + 3 * GELU_CUBIC * v * v);
      return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * du;
    }
    case 'silu': {
      const s = sigmoid(v);
      return s * (1 + v * (1 - s));
    }
    case 'sigmoid': {
      const s = sigmoid(v);
      return s * (1 - s);
    }
    case 'tanh': {
      const t = Math.tanh(v);
      return 1 - t * t;
    }
    case 'clamp':
      return v > (spec.min ?? Number.NEGATIVE_INFINITY) && v < (spec.max ?? Infinity) ? 1 : 0;
    default:
      throw new InvalidArgumentError('activation', 'an epilogue activation', spec.activation);
  }
}

/** The activations whose derivative follows from the output alone. */
export const FROM_OUTPUT: readonly EpilogueActivationName[] = ['relu', 'sigmoid', 'tanh', 'clamp'];

/**
 * act' as a function of the output y = act(v), for relu, sigmoid, tanh and clamp: what a backward
 * that keeps only the output computes (0 at relu's and clamp's kinks).
 */
export function activationDerivativeFromOutput(spec: ActivationSpec, y: number): number {
  switch (spec.activation) {
    case 'relu':
      return y > 0 ? 1 : 0;
    case 'sigmoid':
      return y * (1 - y);
    case 'tanh':
      return 1 - y * y;
    case 'clamp':
      return y > (spec.min ?? Number.NEGATIVE_INFINITY) && y < (spec.max ?? Infinity) ? 1 : 0;
    default:
      throw new InvalidArgumentError(
        'activation',
        "'relu', 'sigmoid', 'tanh' or 'clamp' (a derivative from the output)",
        spec.activation,
      );
  }
}

/** The channel of each element of y: (i / inner) % cOut. */
function channelOf(p: ConvProblem): { count: number; inner: number } {
  const [d, h, w] = outputDims(p);
  const spatial = d * h * w;
  return { count: p.n * p.cOut * spatial, inner: p.layout === 'ncdhw' ? spatial : 1 };
}

function expectLength(value: Float64Array | undefined, name: string, needed: number): void {
  if (value !== undefined && value.length !== needed) {
    throw new InvalidProblemError(
      `${name} holds ${value.length} elements but the epilogue needs ${needed}`,
      name,
    );
  }
}

/** y = act(conv + bias[c] + z), and the pre-activation conv + bias[c] + z. */
export function epilogueForward(
  p: ConvProblem,
  conv: Float64Array,
  spec: EpilogueSpec,
): { y: Float64Array; pre: Float64Array } {
  const { count, inner } = channelOf(p);
  expectLength(conv, 'conv', count);
  expectLength(spec.bias, 'bias', p.cOut);
  expectLength(spec.z, 'z', count);
  const pre = new Float64Array(count);
  const y = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let v = conv[i]!;
    if (spec.bias) v += spec.bias[Math.floor(i / inner) % p.cOut]!;
    if (spec.z) v += spec.z[i]!;
    pre[i] = v;
    y[i] = activate(spec, v);
  }
  return { y, pre };
}

/**
 * dyPre = dy · act'(pre), dBias[c] = Σ dyPre over the elements of channel c. With `fromOutput`,
 * `pre` holds the output instead and act' is {@link activationDerivativeFromOutput}.
 */
export function epilogueBackward(
  p: ConvProblem,
  dy: Float64Array,
  pre: Float64Array,
  spec: ActivationSpec,
  fromOutput = false,
): { dyPre: Float64Array; dBias: Float64Array } {
  const { count, inner } = channelOf(p);
  expectLength(dy, 'dy', count);
  expectLength(pre, 'pre', count);
  const dyPre = new Float64Array(count);
  const dBias = new Float64Array(p.cOut);
  for (let i = 0; i < count; i++) {
    const s = pre[i]!;
    const g =
      dy[i]! *
      (fromOutput ? activationDerivativeFromOutput(spec, s) : activationDerivative(spec, s));
    dyPre[i] = g;
    dBias[Math.floor(i / inner) % p.cOut]! += g;
  }
  return { dyPre, dBias };
}
