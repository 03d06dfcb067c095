import {
  describeValue,
  ElementKind,
  expectInteger,
  expectIntegerArray,
  InvalidArgumentError,
  InvalidProblemError,
  parseElementKind,
  UnsupportedError,
} from '@baracuda/types';
import { elementInfo } from './compat.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { guardReceivers } from './receivers.js';

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

/** cuDNN's legacy descriptors take `int` dims and strides. */
export const INT32_MAX = 2147483647;

const SUPPORTED: readonly ElementKind[] = [
  ElementKind.F32,
  ElementKind.F64,
  ElementKind.F16,
  ElementKind.Bf16,
];

/**
 * One output extent: floor((in + 2*pad - dil*(k-1) - 1) / stride) + 1.
 * Pure; may return 0 or a negative number for an impossible window.
 */
export function convOutputExtent(
  input: number,
  pad: number,
  dilation: number,
  filter: number,
  stride: number,
): number {
  // cuDNN's descriptors take int32 extents, so do the descriptor's checks.
  expectInteger('input', input, { min: 0, max: INT32_MAX });
  expectInteger('pad', pad, { min: 0, max: INT32_MAX });
  expectInteger('dilation', dilation, { min: 1, max: INT32_MAX });
  expectInteger('filter', filter, { min: 1, max: INT32_MAX });
  expectInteger('stride', stride, { min: 1, max: INT32_MAX });
  return Math.floor((input + 2 * pad - dilation * (filter - 1) - 1) / stride) + 1;
}

interface Fields extends Conv3dProblem {
  padD: number;
  padH: number;
  padW: number;
  strideD: number;
  strideH: number;
  strideW: number;
  dilationD: number;
  dilationH: number;
  dilationW: number;
  groups: number;
  layout: Conv3dLayout;
}

/** @internal Shapes and strides computed once a descriptor validates. */
interface Derived {
  outputDims: [number, number, number];
  xShape: readonly number[];
  wShape: readonly number[];
  yShape: readonly number[];
  xStrides: readonly number[];
  wStrides: readonly number[];
  yStrides: readonly number[];
  xElements: number;
  wElements: number;
  yElements: number;
}

/** Dense strides of a logical [N, C, D, H, W] tensor in the given layout, in logical order. */
export function stridesFor(shape: readonly number[], layout: Conv3dLayout): number[] {
  const [, c, d, h, w] = expectIntegerArray('shape', shape, {
    length: 5,
    min: 0,
    max: INT32_MAX,
  }) as [number, number, number, number, number];
  if (layout !== 'ncdhw' && layout !== 'ndhwc') {
    throw new InvalidArgumentError('layout', "'ncdhw' or 'ndhwc'", layout);
  }
  if (layout === 'ncdhw') {
    return [c * d * h * w, d * h * w, h * w, w, 1];
  }
  return [d * h * w * c, 1, h * w * c, w * c, c];
}

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
  readonly strideD: number;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationD: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly groups: number;
  readonly layout: Conv3dLayout;
  #derived: Derived | undefined;

  static {
    guardReceivers(
      Conv3dDescriptor,
      'Conv3dDescriptor',
      (o) => typeof o === 'object' && o !== null && #derived in o,
    );
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
    this.strideD = fields.strideD;
    this.strideH = fields.strideH;
    this.strideW = fields.strideW;
    this.dilationD = fields.dilationD;
    this.dilationH = fields.dilationH;
    this.dilationW = fields.dilationW;
    this.groups = fields.groups;
    this.layout = fields.layout;
    Object.freeze(this);
  }

  /**
   * Describe a convolution. Nothing is checked here but the argument's shape;
   * `validate()` (called by every derived getter and by `Conv3dPlan.select`) checks the values.
   */
  static create(problem: Conv3dProblem): Conv3dDescriptor {
    if (typeof problem !== 'object' || problem === null) {
      throw new InvalidArgumentError(
        'problem',
        'an object {batch, cIn, dIn, hIn, wIn, cOut, dFilt, hFilt, wFilt, element}',
        problem,
      );
    }
    return new Conv3dDescriptor(FACTORY_TOKEN, {
      batch: problem.batch,
      cIn: problem.cIn,
      dIn: problem.dIn,
      hIn: problem.hIn,
      wIn: problem.wIn,
      cOut: problem.cOut,
      dFilt: problem.dFilt,
      hFilt: problem.hFilt,
      wFilt: problem.wFilt,
      element: problem.element,
      padD: 0,
      padH: 0,
      padW: 0,
      strideD: 1,
      strideH: 1,
      strideW: 1,
      dilationD: 1,
      dilationH: 1,
      dilationW: 1,
      groups: 1,
      layout: 'ncdhw',
    });
  }

  #fields(): Fields {
    return { ...this } as unknown as Fields;
  }

  /** A copy with padding (d, h, w). Default `(0, 0, 0)`. */
  withPadding(d: number, h: number, w: number): Conv3dDescriptor {
    return new Conv3dDescriptor(FACTORY_TOKEN, { ...this.#fields(), padD: d, padH: h, padW: w });
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
    const positive: (keyof Fields)[] = [
      'batch',
      'cIn',
      'dIn',
      'hIn',
      'wIn',
      'cOut',
      'dFilt',
      'hFilt',
      'wFilt',
    ];
    const strideDil: (keyof Fields)[] = [
      'strideD',
      'strideH',
      'strideW',
      'dilationD',
      'dilationH',
      'dilationW',
    ];
    const pads: (keyof Fields)[] = ['padD', 'padH', 'padW'];
    // Types first: a non-integer anywhere is an argument error, whatever the other fields say.
    for (const name of [...positive, ...strideDil, 'groups' as const]) {
      expectIntegerField(this, name, 'a positive integer');
    }
    for (const name of pads) expectIntegerField(this, name, 'a non-negative integer');
    for (const name of positive) expectPositive(this, name);
    for (const name of strideDil) expectPositive(this, name);
    for (const name of pads) {
      const value = this[name] as number;
      if (value < 0) {
        throw new InvalidProblemError(
          `Expected a non-negative integer for ${name} but received ${describeValue(value)}`,
          name,
        );
      }
    }
    expectPositive(this, 'groups');
    const inOk = this.cIn % this.groups === 0;
    const outOk = this.cOut % this.groups === 0;
    if (!inOk || !outOk) {
      const which = !inOk && !outOk ? 'cIn or cOut' : !inOk ? 'cIn' : 'cOut';
      throw new InvalidProblemError(
        `Expected groups (${this.groups}) to divide cIn (${this.cIn}) and cOut (${this.cOut}), but it does not divide ${which}`,
        'groups',
      );
    }
    for (const name of [...positive, ...strideDil, ...pads, 'groups' as const]) {
      const value = this[name] as number;
      if (value > INT32_MAX) {
        throw new InvalidProblemError(
          `Expected ${name} to fit cuDNN's int32 limit of ${INT32_MAX} but received ${value}`,
          name,
        );
      }
    }
    const axes = [
      ['depth', 'D', this.dIn, this.padD, this.dilationD, this.dFilt, this.strideD],
      ['height', 'H', this.hIn, this.padH, this.dilationH, this.hFilt, this.strideH],
      ['width', 'W', this.wIn, this.padW, this.dilationW, this.wFilt, this.strideW],
    ] as const;
    const out: number[] = [];
    for (const [word, a, input, pad, dil, k, stride] of axes) {
      const extent = convOutputExtent(input, pad, dil, k, stride);
      if (extent <= 0) {
        const f = a.toLowerCase();
        throw new InvalidProblemError(
          `Expected a positive output extent, but the output ${word} is ${extent}: ` +
            `${f}In=${input} pad${a}=${pad} dilation${a}=${dil} ${f}Filt=${k} stride${a}=${stride} ` +
            `gives (${input} + 2*${pad} - ${dil}*(${k}-1) - 1)/${stride} + 1 = ${extent}`,
          `output ${word}`,
        );
      }
      out.push(extent);
    }
    const [dOut, hOut, wOut] = out as [number, number, number];
    const xShape = [this.batch, this.cIn, this.dIn, this.hIn, this.wIn];
    const wShape = [this.cOut, this.cIn / this.groups, this.dFilt, this.hFilt, this.wFilt];
    const yShape = [this.batch, this.cOut, dOut, hOut, wOut];
    const xStrides = stridesFor(xShape, this.layout);
    const wStrides = stridesFor(wShape, this.layout);
    const yStrides = stridesFor(yShape, this.layout);
    const xElements = checkedProduct('x', xShape);
    const wElements = checkedProduct('w', wShape);
    const yElements = checkedProduct('y', yShape);
    for (const [name, strides] of [
      ['x', xStrides],
      ['w', wStrides],
      ['y', yStrides],
    ] as const) {
      for (const s of strides) {
        if (s > INT32_MAX) {
          throw new InvalidProblemError(
            `Tensor ${name} has a stride of ${s} elements, more than cuDNN's int32 limit of ${INT32_MAX}; use a smaller problem or split it`,
            name,
          );
        }
      }
    }
    this.#derivedSet({
      outputDims: [dOut, hOut, wOut],
      xShape: Object.freeze(xShape),
      wShape: Object.freeze(wShape),
      yShape: Object.freeze(yShape),
      xStrides: Object.freeze(xStrides),
      wStrides: Object.freeze(wStrides),
      yStrides: Object.freeze(yStrides),
      xElements,
      wElements,
      yElements,
    });
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
      `k=${this.dFilt}×${this.hFilt}×${this.wFilt} pad=${this.padD}×${this.padH}×${this.padW} ` +
      `stride=${this.strideD}×${this.strideH}×${this.strideW} ` +
      `dil=${this.dilationD}×${this.dilationH}×${this.dilationW} groups=${this.groups} ` +
      `${String(this.element)} ${this.layout}`
    );
  }

  toString(): string {
    return this.describe();
  }
}

function expectIntegerField(desc: Conv3dDescriptor, name: keyof Fields, expected: string): void {
  const value = (desc as unknown as Record<string, unknown>)[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(name, expected, value);
  }
}

function expectPositive(desc: Conv3dDescriptor, name: keyof Fields): void {
  const value = (desc as unknown as Record<string, number>)[name] as number;
  if (value <= 0) {
    throw new InvalidProblemError(
      `Expected a positive integer for ${name} but received ${describeValue(value)}`,
      name,
    );
  }
}

/** Product of extents, refusing anything past int32 (cuDNN descriptors) long before 2^53. */
function checkedProduct(name: string, shape: readonly number[]): number {
  let n = 1;
  for (const e of shape) n *= e;
  // Each factor is <= INT32_MAX, so the running product is exact until it passes 2^53;
  // by then it is already far past INT32_MAX, and the comparison below stays right.
  if (n > INT32_MAX) {
    const exact = shape.reduce((a, e) => a * BigInt(e), 1n);
    throw new InvalidProblemError(
      `Tensor ${name} has ${exact} elements, more than cuDNN's int32 limit of ${INT32_MAX}; ` +
        `split the batch or use smaller extents (shape [${shape.join(', ')}])`,
      name,
    );
  }
  return n;
}

/**
 * The forward problem whose result is this problem's backward-data, when there is one: with
 * stride 1 in every dimension, dx is the forward convolution of dy (cOut channels, padded by
 * dilation * (k - 1) - pad) with the filter transposed per group to [cIn, cOut / groups, T, R, S]
 * and flipped in space (see `filterFlip` in layout.ts). Null for a strided layer, or one padded by
 * more than dilation * (k - 1) on some side (its dx would need a negative padding).
 */
export function bwDataAsForward(d: Conv3dDescriptor): Conv3dDescriptor | null {
  d.validate();
  if (d.strideD !== 1 || d.strideH !== 1 || d.strideW !== 1) return null;
  const pad = [
    d.dilationD * (d.dFilt - 1) - d.padD,
    d.dilationH * (d.hFilt - 1) - d.padH,
    d.dilationW * (d.wFilt - 1) - d.padW,
  ] as const;
  if (pad.some((p) => p < 0)) return null;
  const [od, oh, ow] = d.outputDims();
  const forward = Conv3dDescriptor.create({
    batch: d.batch,
    cIn: d.cOut,
    dIn: od,
    hIn: oh,
    wIn: ow,
    cOut: d.cIn,
    dFilt: d.dFilt,
    hFilt: d.hFilt,
    wFilt: d.wFilt,
    element: d.element,
  })
    .withPadding(...pad)
    .withDilation(d.dilationD, d.dilationH, d.dilationW)
    .withGroups(d.groups)
    .withLayout(d.layout)
    .validate();
  const [fd, fh, fw] = forward.outputDims();
  return fd === d.dIn && fh === d.hIn && fw === d.wIn ? forward : null;
}
