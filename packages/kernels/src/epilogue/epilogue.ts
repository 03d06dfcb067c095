/**
 * What a convolution does to its result before it is stored: y = act(alpha·conv(x, w) + beta·y +
 * bias[c] + z). An immutable value that a descriptor carries (`withEpilogue`); the transposed
 * convolution's descriptor can carry the same value.
 */
import { EpilogueKind } from '@baracuda/types';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from '../factory.js';
import { guardReceivers } from '../receivers.js';
import {
  type EpilogueActivation,
  type EpilogueFields,
  type EpilogueOptions,
  INPUT_ACTIVATION_KEYS,
  type InputActivationOptions,
  resolveEpilogue,
} from './validate.js';

export type { EpilogueActivation, EpilogueOptions, InputActivationOptions } from './validate.js';

/**
 * Which tensor the activation's backward reads: `'none'` (identity: dyPre = dy), `'output'` (relu,
 * sigmoid, tanh, clamp: the derivative follows from y itself), `'preActivation'` (leakyRelu, gelu,
 * geluTanh, silu: keep act's input, the value before the activation).
 */
export type EpilogueBackwardInput = 'none' | 'output' | 'preActivation';

const FROM_OUTPUT: readonly EpilogueActivation[] = ['relu', 'sigmoid', 'tanh', 'clamp'];

/** The activation codes cuda/epilogue.cu switches on (its `Act` enum). */
export const ACTIVATION_CODE: Readonly<Record<EpilogueActivation, number>> = {
  identity: 0,
  relu: 1,
  leakyRelu: 2,
  gelu: 3,
  geluTanh: 4,
  silu: 5,
  sigmoid: 6,
  tanh: 7,
  clamp: 8,
};

/** A convolution's epilogue: bias, residual and activation. Made by `Epilogue.create`. */
export class Epilogue {
  /** Add `bias[c]`. */
  readonly bias: boolean;
  readonly activation: EpilogueActivation;
  /** leakyRelu's slope below zero (0.01 unless set; unused by other activations). */
  readonly slope: number;
  /** clamp's lower bound (-Infinity unless set). */
  readonly min: number;
  /** clamp's upper bound (Infinity unless set). */
  readonly max: number;
  /** Add the residual `z`. */
  readonly residual: boolean;
  /** The brand a method's `this` is checked for. */
  readonly #isEpilogue = true;

  static {
    guardReceivers(
      Epilogue,
      'Epilogue',
      (o) => typeof o === 'object' && o !== null && #isEpilogue in o,
    );
  }

  /** No bias, no residual, identity: the plain convolution. */
  static readonly NONE: Epilogue = new Epilogue(FACTORY_TOKEN, resolveEpilogue({}));

  private constructor(token: FactoryToken, fields: EpilogueFields) {
    requireFactoryToken(token, 'Epilogue', 'Epilogue.create');
    this.bias = fields.bias;
    this.activation = fields.activation;
    this.slope = fields.slope;
    this.min = fields.min;
    this.max = fields.max;
    this.residual = fields.residual;
    Object.freeze(this);
  }

  /** Check the options (typed errors with the exact reason) and make the epilogue. */
  static create(options: EpilogueOptions): Epilogue {
    return Epilogue.#of(resolveEpilogue(options));
  }

  /**
   * The activation alone (no bias, no residual), as `withInputActivation` takes it; typed errors
   * name `inputActivation.<key>`.
   */
  static createInputActivation(options: InputActivationOptions): Epilogue {
    return Epilogue.#of(resolveEpilogue(options, 'inputActivation', INPUT_ACTIVATION_KEYS));
  }

  static #of(fields: EpilogueFields): Epilogue {
    const none = !fields.bias && !fields.residual && fields.activation === 'identity';
    return none ? Epilogue.NONE : new Epilogue(FACTORY_TOKEN, fields);
  }

  /** True when it changes nothing: no bias, no residual, identity. */
  get isNone(): boolean {
    return !this.bias && !this.residual && this.activation === 'identity';
  }

  /** Which tensor the activation's backward needs kept from the forward pass. */
  get backwardInput(): EpilogueBackwardInput {
    if (this.activation === 'identity') return 'none';
    return FROM_OUTPUT.includes(this.activation) ? 'output' : 'preActivation';
  }

  /** e.g. `bias+relu`, `bias+z+leakyRelu(0.2)`, `clamp(0,6)`, `none`. */
  describe(): string {
    if (this.isNone) return 'none';
    const parts: string[] = [];
    if (this.bias) parts.push('bias');
    if (this.residual) parts.push('z');
    const a = this.activation;
    if (a === 'leakyRelu') parts.push(`leakyRelu(${this.slope})`);
    else if (a === 'clamp') parts.push(`clamp(${this.min},${this.max})`);
    else if (a !== 'identity') parts.push(a);
    return parts.join('+');
  }

  toString(): string {
    return this.describe();
  }
}

/**
 * The epilogue as a kernel SKU names it (`KernelSku.epilogue`): identity, bias, bias_relu,
 * bias_gelu or bias_silu; undefined for the combinations the SKU vocabulary has no name for (a
 * residual, another activation, an activation without a bias).
 */
export function skuEpilogue(e: Epilogue): EpilogueKind | undefined {
  if (e.isNone) return EpilogueKind.Identity;
  if (!e.bias || e.residual) return undefined;
  const kinds: Partial<Record<EpilogueActivation, EpilogueKind>> = {
    identity: EpilogueKind.Bias,
    relu: EpilogueKind.BiasRelu,
    gelu: EpilogueKind.BiasGelu,
    silu: EpilogueKind.BiasSilu,
  };
  return kinds[e.activation];
}
