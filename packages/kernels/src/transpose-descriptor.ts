/**
 * ConvTranspose3dDescriptor: a 3-D transposed convolution with PyTorch's nn.ConvTranspose3d
 * semantics, and the convolution it is the backward-data of (`conv()`), which its plan runs.
 */
import {
  describeValue,
  ElementKind,
  InvalidArgumentError,
  UnsupportedError,
} from '@baracuda/types';
import { elementInfo } from './compat.js';
import { Conv3dDescriptor, type Conv3dLayout, type Conv3dProblem } from './descriptor.js';
import {
  Epilogue,
  type EpilogueOptions,
  type InputActivationOptions,
} from './epilogue/epilogue.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { type AsymmetricPadding, describePadding, explicitPadding } from './padding.js';
import { problemFields } from './problem-fields.js';
import { guardReceivers } from './receivers.js';
import { checkTransposeFields, type TransposeFields } from './transpose-validate.js';

/**
 * The extents and element of a transposed convolution, as given to
 * `ConvTranspose3dDescriptor.create`: its input x `[batch, cIn, dIn, hIn, wIn]`, its output's
 * channels `cOut`, and the filter `[cIn, cOut / groups, dFilt, hFilt, wFilt]`.
 */
export type ConvTranspose3dProblem = Conv3dProblem;

const SUPPORTED: readonly ElementKind[] = [
  ElementKind.F32,
  ElementKind.F64,
  ElementKind.F16,
  ElementKind.Bf16,
];

interface Derived {
  outputDims: [number, number, number];
  /** Null where the input reaches no output plane on some axis (all padding and outputPadding). */
  conv: Conv3dDescriptor | null;
}

let isBrand: (value: unknown) => boolean = () => false;

/**
 * An immutable description of a 3-D transposed convolution (PyTorch's nn.ConvTranspose3d):
 * output extent (in − 1)·stride − padBefore − padAfter + dilation·(k − 1) + outputPadding + 1
 * per axis (padBefore = padAfter = pad in the symmetric form), outputPadding < max(stride,
 * dilation), weight `[cIn, cOut / groups, kD, kH, kW]`. Defaults: padding 0, output padding 0,
 * stride 1, dilation 1, groups 1, layout 'ncdhw'.
 */
export class ConvTranspose3dDescriptor {
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
  readonly padAfterD: number;
  readonly padAfterH: number;
  readonly padAfterW: number;
  readonly outputPaddingD: number;
  readonly outputPaddingH: number;
  readonly outputPaddingW: number;
  readonly strideD: number;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationD: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly groups: number;
  readonly layout: Conv3dLayout;
  /** What runFw applies to the result before it is stored (`withEpilogue`); `Epilogue.NONE` by default. */
  readonly epilogue: Epilogue;
  /** The activation whose backward runBwData applies (`withInputActivation`); `Epilogue.NONE` by default. */
  readonly inputActivation: Epilogue;
  #derived: Derived | undefined;

  static {
    isBrand = (o) => typeof o === 'object' && o !== null && #derived in o;
    guardReceivers(ConvTranspose3dDescriptor, 'ConvTranspose3dDescriptor', isBrand);
  }

  private constructor(token: FactoryToken, f: TransposeFields) {
    requireFactoryToken(token, 'ConvTranspose3dDescriptor', 'ConvTranspose3dDescriptor.create');
    this.batch = f.batch;
    this.cIn = f.cIn;
    this.dIn = f.dIn;
    this.hIn = f.hIn;
    this.wIn = f.wIn;
    this.cOut = f.cOut;
    this.dFilt = f.dFilt;
    this.hFilt = f.hFilt;
    this.wFilt = f.wFilt;
    this.element = f.element;
    this.padD = f.padD;
    this.padH = f.padH;
    this.padW = f.padW;
    this.padAfterD = f.padAfterD;
    this.padAfterH = f.padAfterH;
    this.padAfterW = f.padAfterW;
    this.outputPaddingD = f.outputPaddingD;
    this.outputPaddingH = f.outputPaddingH;
    this.outputPaddingW = f.outputPaddingW;
    this.strideD = f.strideD;
    this.strideH = f.strideH;
    this.strideW = f.strideW;
    this.dilationD = f.dilationD;
    this.dilationH = f.dilationH;
    this.dilationW = f.dilationW;
    this.groups = f.groups;
    this.layout = f.layout;
    this.epilogue = f.epilogue ?? Epilogue.NONE;
    this.inputActivation = f.inputActivation ?? Epilogue.NONE;
    Object.freeze(this);
  }

  /** Describe a transposed convolution; `validate()` checks the values. */
  static create(problem: ConvTranspose3dProblem): ConvTranspose3dDescriptor {
    return new ConvTranspose3dDescriptor(FACTORY_TOKEN, {
      ...problemFields(problem),
      outputPaddingD: 0,
      outputPaddingH: 0,
      outputPaddingW: 0,
    });
  }

  #with(changes: Partial<TransposeFields>): ConvTranspose3dDescriptor {
    return new ConvTranspose3dDescriptor(FACTORY_TOKEN, {
      ...({ ...this } as unknown as TransposeFields),
      paddingMode: 'explicit',
      ...changes,
    });
  }

  /**
   * A copy with padding (the planes removed from the output): `(d, h, w)` on both sides, or
   * `{ before: [d, h, w], after: [d, h, w] }` per side. Default `(0, 0, 0)`. ('same' is not
   * defined for a transposed convolution, as in PyTorch.)
   */
  withPadding(d: number, h: number, w: number): ConvTranspose3dDescriptor;
  withPadding(padding: AsymmetricPadding): ConvTranspose3dDescriptor;
  withPadding(d: number | AsymmetricPadding, h?: number, w?: number): ConvTranspose3dDescriptor {
    if (typeof d === 'number' || h !== undefined || w !== undefined) {
      return this.#with({
        padD: d as number,
        padH: h as number,
        padW: w as number,
        padAfterD: d as number,
        padAfterH: h as number,
        padAfterW: w as number,
      });
    }
    if ((d as unknown) === 'same') {
      throw new InvalidArgumentError(
        'padding',
        "three numbers (d, h, w) or { before: [d, h, w], after: [d, h, w] } ('same' is not defined for a transposed convolution)",
        d,
      );
    }
    return this.#with(explicitPadding(d));
  }

  /** A copy with output padding (d, h, w): extra trailing planes, each below max(stride, dilation). Default `(0, 0, 0)`. */
  withOutputPadding(d: number, h: number, w: number): ConvTranspose3dDescriptor {
    return this.#with({ outputPaddingD: d, outputPaddingH: h, outputPaddingW: w });
  }

  /** A copy with stride (d, h, w). Default `(1, 1, 1)`. */
  withStride(d: number, h: number, w: number): ConvTranspose3dDescriptor {
    return this.#with({ strideD: d, strideH: h, strideW: w });
  }

  /** A copy with dilation (d, h, w). Default `(1, 1, 1)`. */
  withDilation(d: number, h: number, w: number): ConvTranspose3dDescriptor {
    return this.#with({ dilationD: d, dilationH: h, dilationW: w });
  }

  /** A copy with the group count. Default `1`. */
  withGroups(groups: number): ConvTranspose3dDescriptor {
    return this.#with({ groups });
  }

  /** A copy with the layout: 'ncdhw' (default) or 'ndhwc'. */
  withLayout(layout: Conv3dLayout): ConvTranspose3dDescriptor {
    if (layout !== 'ncdhw' && layout !== 'ndhwc') {
      throw new InvalidArgumentError('layout', "'ncdhw' or 'ndhwc'", layout);
    }
    return this.#with({ layout });
  }

  /**
   * A copy whose forward pass stores y = act(alpha·convTranspose(x, w) + beta·y + bias[c] + z), with
   * Conv3dDescriptor#withEpilogue's options and checks: `bias` a `[cOut]` tensor (run argument
   * `bias`), `residual` a tensor of y's shape (run argument `z`). Default: none.
   */
  withEpilogue(options: EpilogueOptions): ConvTranspose3dDescriptor {
    return this.#with({ epilogue: Epilogue.create(options) });
  }

  /**
   * A copy whose backward-data pass stores dx · act'(·), the gradient before the activation that
   * made this layer's input x (as Conv3dDescriptor#withInputActivation): runBwData takes `x` or
   * `preActivation` (dx's shape). Default: identity.
   */
  withInputActivation(options: InputActivationOptions): ConvTranspose3dDescriptor {
    return this.#with({ inputActivation: Epilogue.createInputActivation(options) });
  }

  /** Check every field (typed errors as Conv3dDescriptor's); returns `this` when valid. */
  validate(): this {
    if (this.#derived !== undefined) return this;
    if (!SUPPORTED.includes(this.element)) {
      throw new UnsupportedError(
        `Expected one of f32, f64, f16, bf16 for element (cuDNN 3-D convolution) but received ${describeValue(this.element)}`,
      );
    }
    const fields = { ...this } as unknown as TransposeFields;
    const outputDims = checkTransposeFields(fields);
    this.#set({ outputDims, conv: equivalentConv(fields, outputDims) });
    return this;
  }

  #set(derived: Derived): void {
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

  /**
   * The convolution whose backward-data this is: its x is this output (`[batch, cOut, out]`), its
   * y this input, the same filter (`[cIn, cOut / groups, k]` is the convolution's `[K, C / groups,
   * k]`), the same stride, dilation and groups, padded `pad` before and `padAfter −
   * outputPadding` after. Where outputPadding > padAfter on some axis, the convolution covers only
   * the planes the input reaches (its x extent is this output's less the difference, post-padding
   * 0), and `trailingPlanes()` says how many it leaves out.
   */
  conv(): Conv3dDescriptor {
    const conv = this.#get().conv;
    if (conv === null) {
      throw new UnsupportedError(
        `${this.describe()}: no input element reaches the output on some axis (its planes are all padding and outputPadding), so no convolution transposes to it`,
      );
    }
    return conv;
  }

  /** Per axis [D, H, W], the trailing output planes no input element reaches: max(0, outputPadding − padAfter). */
  trailingPlanes(): [number, number, number] {
    this.validate();
    return [
      Math.max(0, this.outputPaddingD - this.padAfterD),
      Math.max(0, this.outputPaddingH - this.padAfterH),
      Math.max(0, this.outputPaddingW - this.padAfterW),
    ];
  }

  /** Input shape [N, cIn, D, H, W]. */
  get xShape(): readonly number[] {
    this.validate();
    return Object.freeze([this.batch, this.cIn, this.dIn, this.hIn, this.wIn]);
  }
  /** Filter shape [cIn, cOut / groups, kD, kH, kW]. */
  get wShape(): readonly number[] {
    this.validate();
    return Object.freeze([this.cIn, this.cOut / this.groups, this.dFilt, this.hFilt, this.wFilt]);
  }
  /** Output shape [N, cOut, Do, Ho, Wo]. */
  get yShape(): readonly number[] {
    const [d, h, w] = this.#get().outputDims;
    return Object.freeze([this.batch, this.cOut, d, h, w]);
  }
  /** Bytes of one element. */
  get elementBytes(): number {
    return elementInfo(this.element).byteSize;
  }

  /** One line for logs and errors; does not validate. */
  describe(): string {
    const op = `${this.outputPaddingD}×${this.outputPaddingH}×${this.outputPaddingW}`;
    return (
      `convTranspose3d n=${this.batch} c=${this.cIn}→${this.cOut} in=${this.dIn}×${this.hIn}×${this.wIn} ` +
      `k=${this.dFilt}×${this.hFilt}×${this.wFilt} ${describePadding(this)} outPad=${op} ` +
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

/** Brand check of ConvTranspose3dDescriptor. @internal */
export function isConvTranspose3dDescriptor(value: unknown): value is ConvTranspose3dDescriptor {
  return isBrand(value);
}

function equivalentConv(
  f: TransposeFields,
  out: [number, number, number],
): Conv3dDescriptor | null {
  const post = [
    f.padAfterD - f.outputPaddingD,
    f.padAfterH - f.outputPaddingH,
    f.padAfterW - f.outputPaddingW,
  ];
  const extent = out.map((e, a) => e + Math.min(0, post[a]!)) as [number, number, number];
  if (extent.some((e) => e <= 0)) return null;
  const after = post.map((p) => Math.max(0, p)) as [number, number, number];
  const conv = Conv3dDescriptor.create({
    batch: f.batch,
    cIn: f.cOut,
    dIn: extent[0],
    hIn: extent[1],
    wIn: extent[2],
    cOut: f.cIn,
    dFilt: f.dFilt,
    hFilt: f.hFilt,
    wFilt: f.wFilt,
    element: f.element,
  })
    .withPadding({ before: [f.padD, f.padH, f.padW], after })
    .withStride(f.strideD, f.strideH, f.strideW)
    .withDilation(f.dilationD, f.dilationH, f.dilationW)
    .withGroups(f.groups)
    .withLayout(f.layout)
    .validate();
  return conv;
}
