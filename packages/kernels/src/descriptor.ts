import {
  describeValue,
  ElementKind,
  InvalidArgumentError,
  parseElementKind,
  UnsupportedError,
} from '@baracuda/types';
import { elementInfo } from './compat.js';
import { convOutputExtent, INT32_MAX, stridesFor } from './descriptor-shape.js';
import { type Derived, deriveProblem, type Fields } from './descriptor-validate.js';
import {
  Epilogue,
  type EpilogueOptions,
  type InputActivationOptions,
} from './epilogue/epilogue.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import {
  checkSameStride,
  describePadding,
  explicitPadding,
  type PaddingSpec,
  samePadding,
} from './padding.js';
import { problemFields } from './problem-fields.js';
import { guardReceivers } from './receivers.js';

export type { AsymmetricPadding, PaddingSpec } from './padding.js';

export { convOutputExtent, INT32_MAX, stridesFor };

/** Memory layout of the activation and filter tensors. */
export type Conv3dLayout = 'ncdhw' | 'ndhwc';

/** The extents and element of a 3-D convolution, as given to `Conv3dDescriptor.create`. */
export interface Conv3dProblem {
  /** Batch size N. */
  batch: number;
  /** Input channels C. */
  cIn: number;
  /** Input depth D. */
  dIn: number;
  /** Input height H. */
  hIn: number;
  /** Input width W. */
  wIn: number;
  /** Output channels K. */
  cOut: number;
  /** Filter depth. */
  dFilt: number;
  /** Filter height. */
  hFilt: number;
  /** Filter width. */
  wFilt: number;
  /** Element kind of every tensor: f32, f64, f16 or bf16. */
  element: ElementKind;
}

const SUPPORTED: readonly ElementKind[] = [
  ElementKind.F32,
  ElementKind.F64,
  ElementKind.F16,
  ElementKind.Bf16,
];

let isDescriptorBrand: (value: unknown) => boolean = () => false;

/**
 * An immutable description of a 3-D convolution (cross-correlation, as PyTorch's nn.Conv3d).
 * Defaults: padding 0, stride 1, dilation 1, groups 1, layout 'ncdhw'.
 */
export class Conv3dDescriptor {
  readonly batch: number;
  readonly cIn: number;
  readonly dIn: number;
  readonly hIn: number;
  readonly wIn: number;
  readonly cOut: number;
  readonly dFilt: number;
  readonly hFilt: number;
  readonly wFilt: number;
  readonly element: ElementKind;
  readonly padD: number;
  readonly padH: number;
  readonly padW: number;
  /** Padding after (trailing) on each axis; equal to padD/padH/padW unless set asymmetrically. */
  readonly padAfterD: number;
  readonly padAfterH: number;
  readonly padAfterW: number;
  /** `'same'` when made by `withPadding('same')` (the padding follows the dilation), else `'explicit'`. */
  readonly paddingMode: 'explicit' | 'same';
  readonly strideD: number;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationD: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly groups: number;
  readonly layout: Conv3dLayout;
  /** What is applied to the result before it is stored (`withEpilogue`); `Epilogue.NONE` by default. */
  readonly epilogue: Epilogue;
  /**
   * The activation that made this layer's input x (the previous layer's, `withInputActivation`),
   * whose backward runBwData applies to dx; `Epilogue.NONE` by default.
   */
  readonly inputActivation: Epilogue;
  #derived: Derived | undefined;

  static {
    isDescriptorBrand = (o) => typeof o === 'object' && o !== null && #derived in o;
    guardReceivers(Conv3dDescriptor, 'Conv3dDescriptor', isDescriptorBrand);
  }

  private constructor(token: FactoryToken, fields: Fields) {
    requireFactoryToken(token, 'Conv3dDescriptor', 'Conv3dDescriptor.create');
    this.batch = fields.batch;
    this.cIn = fields.cIn;
    this.dIn = fields.dIn;
    this.hIn = fields.hIn;
    this.wIn = fields.wIn;
    this.cOut = fields.cOut;
    this.dFilt = fields.dFilt;
    this.hFilt = fields.hFilt;
    this.wFilt = fields.wFilt;
    this.element = fields.element;
    this.padD = fields.padD;
    this.padH = fields.padH;
    this.padW = fields.padW;
    this.padAfterD = fields.padAfterD;
    this.padAfterH = fields.padAfterH;
    this.padAfterW = fields.padAfterW;
    this.paddingMode = fields.paddingMode;
    if (fields.paddingMode === 'same') {
      // Resolved from the current dilation, so withDilation after withPadding('same') keeps 'same'.
      Object.assign(
        this,
        samePadding(
          [fields.dilationD, fields.dilationH, fields.dilationW],
          [fields.dFilt, fields.hFilt, fields.wFilt],
        ),
      );
    }
    this.strideD = fields.strideD;
    this.strideH = fields.strideH;
    this.strideW = fields.strideW;
    this.dilationD = fields.dilationD;
    this.dilationH = fields.dilationH;
    this.dilationW = fields.dilationW;
    this.groups = fields.groups;
    this.layout = fields.layout;
    this.epilogue = fields.epilogue ?? Epilogue.NONE;
    this.inputActivation = fields.inputActivation ?? Epilogue.NONE;
    Object.freeze(this);
  }

  /**
   * Describe a convolution. Nothing is checked here but the argument's shape;
   * `validate()` (called by every derived getter and by `Conv3dPlan.select`) checks the values.
   */
  static create(problem: Conv3dProblem): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, problemFields(problem));
  }

  #fields(): Fields {
    return { ...this } as unknown as Fields;
  }

  /**
   * A copy with padding. Three numbers `(d, h, w)` pad both sides of each axis alike (default
   * `(0, 0, 0)`); `{ before: [d, h, w], after: [d, h, w] }` pads each side on its own (cuDNN's
   * graph API pre/post paddings; pinned mode, which runs the legacy API, refuses it); `'same'` is
   * PyTorch's `padding='same'`: stride 1 only, total dilation·(k − 1) per axis, floor(total / 2)
   * before and the rest after (an even kernel's extra plane goes after).
   */
  withPadding(d: number, h: number, w: number): Conv3dDescriptor;
  withPadding(padding: PaddingSpec): Conv3dDescriptor;
  withPadding(d: number | PaddingSpec, h?: number, w?: number): Conv3dDescriptor {
    if (d === 'same') {
      checkSameStride([this.strideD, this.strideH, this.strideW]);
      return new Conv3dDescriptor(FACTORY_TOKEN, { ...this.#fields(), paddingMode: 'same' });
    }
    const symmetric = typeof d === 'number' || h !== undefined || w !== undefined;
    const pads = symmetric
      ? { padD: d, padH: h, padW: w, padAfterD: d, padAfterH: h, padAfterW: w }
      : explicitPadding(d);
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      ...this.#fields(),
      ...pads,
      paddingMode: 'explicit',
    } as Fields);
  }

  /** A copy with stride (d, h, w). Default `(1, 1, 1)`. */
  withStride(d: number, h: number, w: number): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      ...this.#fields(),
      strideD: d,
      strideH: h,
      strideW: w,
    });
  }

  /** A copy with dilation (d, h, w). Default `(1, 1, 1)`. */
  withDilation(d: number, h: number, w: number): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      ...this.#fields(),
      dilationD: d,
      dilationH: h,
      dilationW: w,
    });
  }

  /** A copy with the group count. Default `1`. */
  withGroups(groups: number): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, { ...this.#fields(), groups });
  }

  /** A copy with the layout: 'ncdhw' (default) or 'ndhwc' (channels-last-3d). */
  withLayout(layout: Conv3dLayout): Conv3dDescriptor {
    if (layout !== 'ncdhw' && layout !== 'ndhwc') {
      throw new InvalidArgumentError('layout', "'ncdhw' or 'ndhwc'", layout);
    }
    return new Conv3dDescriptor(FACTORY_TOKEN, { ...this.#fields(), layout });
  }

  /**
   * A copy whose forward pass stores y = act(alpha·conv(x, w) + beta·y + bias[c] + z): `bias` adds a
   * `[cOut]` tensor (run argument `bias`), `residual` a tensor of y's shape and layout (run argument
   * `z`), `activation` is applied last. Throws a typed error for a bad option. Default: none.
   */
  withEpilogue(options: EpilogueOptions): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      ...this.#fields(),
      epilogue: Epilogue.create(options),
    });
  }

  /**
   * A copy whose backward-data pass stores dx = (alpha·convBwData(w, dy) + beta·dx) · act'(·): the
   * gradient before the activation that made this layer's input x (the previous layer's, e.g. its
   * epilogue's `{ activation: 'relu' }`), so a stack of layers needs no runBwEpilogue between
   * them. runBwData then takes `x` (this layer's input, the activation's output: relu, sigmoid,
   * tanh, clamp) or `preActivation` (the value before it: leakyRelu, gelu, geluTanh, silu; kept by
   * the previous layer's runFw). The options are an activation's: `{ activation, slope?, min?,
   * max? }`. Default: identity (runBwData unchanged).
   */
  withInputActivation(options: InputActivationOptions): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      ...this.#fields(),
      inputActivation: Epilogue.createInputActivation(options),
    });
  }

  /**
   * Check every condition of the seed's `select()` plus what JS needs (integers only,
   * int32 limits of cuDNN's descriptors). Throws a typed error naming what was expected
   * and what was received; returns `this` when valid.
   * @param expectedElement the element a plan expects, when it has one.
   */
  validate(expectedElement?: ElementKind): this {
    if (this.#derived !== undefined && expectedElement === undefined) return this;
    if (expectedElement !== undefined) parseElementKind(expectedElement, 'expectedElement');
    if (expectedElement !== undefined && this.element !== expectedElement) {
      throw new UnsupportedError(
        `Expected element ${expectedElement} but the descriptor has element ${describeValue(this.element)}`,
      );
    }
    if (!SUPPORTED.includes(this.element)) {
      throw new UnsupportedError(
        `Expected one of f32, f64, f16, bf16 for element (cuDNN 3-D convolution) but received ${describeValue(this.element)}`,
      );
    }
    if (this.#derived !== undefined) return this;
    this.#derivedSet(deriveProblem(this));
    return this;
  }

  #derivedSet(derived: Derived): void {
    // The instance is frozen, but private fields stay writable: a cache, not state.
    this.#derived = derived;
  }

  #get(): Derived {
    this.validate();
    return this.#derived!;
  }

  /** Output extents [D, H, W]. Validates first. */
  outputDims(): [number, number, number] {
    const [d, h, w] = this.#get().outputDims;
    return [d, h, w];
  }
  /** Input shape [N, C, D, H, W] (logical order, whatever the layout). */
  get xShape(): readonly number[] {
    return this.#get().xShape;
  }
  /** Filter shape [K, C/groups, kd, kh, kw]. */
  get wShape(): readonly number[] {
    return this.#get().wShape;
  }
  /** Output shape [N, K, Do, Ho, Wo]. */
  get yShape(): readonly number[] {
    return this.#get().yShape;
  }
  /** Input strides in elements, logical order, for the descriptor's layout. */
  get xStrides(): readonly number[] {
    return this.#get().xStrides;
  }
  /** Filter strides in elements (KCDHW for ncdhw, KDHWC for ndhwc), logical order. */
  get wStrides(): readonly number[] {
    return this.#get().wStrides;
  }
  /** Output strides in elements, logical order. */
  get yStrides(): readonly number[] {
    return this.#get().yStrides;
  }
  get xElements(): number {
    return this.#get().xElements;
  }
  get wElements(): number {
    return this.#get().wElements;
  }
  get yElements(): number {
    return this.#get().yElements;
  }
  /** Bytes of one element. */
  get elementBytes(): number {
    return elementInfo(this.element).byteSize;
  }

  /** One line for logs and errors; does not validate. */
  describe(): string {
    return (
      `conv3d n=${this.batch} c=${this.cIn}→${this.cOut} in=${this.dIn}×${this.hIn}×${this.wIn} ` +
      `k=${this.dFilt}×${this.hFilt}×${this.wFilt} ${describePadding(this)} ` +
      `stride=${this.strideD}×${this.strideH}×${this.strideW} ` +
      `dil=${this.dilationD}×${this.dilationH}×${this.dilationW} groups=${this.groups} ` +
      `${String(this.element)} ${this.layout}` +
      (this.epilogue.isNone ? '' : ` epilogue=${this.epilogue.describe()}`) +
      (this.inputActivation.isNone ? '' : ` inputActivation=${this.inputActivation.describe()}`)
    );
  }

  toString(): string {
    return this.describe();
  }
}

/**
 * Whether `value` is a Conv3dDescriptor made by `Conv3dDescriptor.create` (a brand check:
 * `Object.create(Conv3dDescriptor.prototype)` passes `instanceof` but not this). @internal
 */
export function isConv3dDescriptor(value: unknown): value is Conv3dDescriptor {
  return isDescriptorBrand(value);
}
