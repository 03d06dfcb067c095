/**
 * A problem's fields checked (integers, positive extents, groups dividing the channels, cuDNN's
 * int32 limits, a positive output) and its shapes, strides and element counts derived.
 */
import { describeValue, InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import type { Conv3dLayout, Conv3dProblem } from './descriptor.js';
import { checkedProduct, convOutputExtent, INT32_MAX, stridesFor } from './descriptor-shape.js';
import type { Epilogue } from './epilogue/epilogue.js';
import { checkSameStride } from './padding.js';

/** @internal Every field of a descriptor. */
export interface Fields extends Conv3dProblem {
  padD: number;
  padH: number;
  padW: number;
  padAfterD: number;
  padAfterH: number;
  padAfterW: number;
  paddingMode: 'explicit' | 'same';
  strideD: number;
  strideH: number;
  strideW: number;
  dilationD: number;
  dilationH: number;
  dilationW: number;
  groups: number;
  layout: Conv3dLayout;
  /** Absent: `Epilogue.NONE`. */
  epilogue?: Epilogue;
  /** The activation whose backward runBwData applies (`withInputActivation`). Absent: `Epilogue.NONE`. */
  inputActivation?: Epilogue;
}

/** @internal Shapes and strides computed once a descriptor validates. */
export interface Derived {
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

function expectIntegerField(desc: Fields, name: keyof Fields, expected: string): void {
  const value = (desc as unknown as Record<string, unknown>)[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(name, expected, value);
  }
}

function expectPositive(desc: Fields, name: keyof Fields): void {
  const value = (desc as unknown as Record<string, number>)[name] as number;
  if (value <= 0) {
    throw new InvalidProblemError(
      `Expected a positive integer for ${name} but received ${describeValue(value)}`,
      name,
    );
  }
}

/** Check `f` (the element is checked by the caller) and derive its shapes; throws a typed error naming what was expected and what was received. */
export function deriveProblem(f: Fields): Derived {
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
  const pads: (keyof Fields)[] = ['padD', 'padH', 'padW', 'padAfterD', 'padAfterH', 'padAfterW'];
  // Types first: a non-integer anywhere is an argument error, whatever the other fields say.
  for (const name of [...positive, ...strideDil, 'groups' as const]) {
    expectIntegerField(f, name, 'a positive integer');
  }
  for (const name of pads) expectIntegerField(f, name, 'a non-negative integer');
  for (const name of positive) expectPositive(f, name);
  for (const name of strideDil) expectPositive(f, name);
  for (const name of pads) {
    const value = f[name] as number;
    if (value < 0) {
      throw new InvalidProblemError(
        `Expected a non-negative integer for ${name} but received ${describeValue(value)}`,
        name,
      );
    }
  }
  expectPositive(f, 'groups');
  const inOk = f.cIn % f.groups === 0;
  const outOk = f.cOut % f.groups === 0;
  if (!inOk || !outOk) {
    const which = !inOk && !outOk ? 'cIn or cOut' : !inOk ? 'cIn' : 'cOut';
    throw new InvalidProblemError(
      `Expected groups (${f.groups}) to divide cIn (${f.cIn}) and cOut (${f.cOut}), but it does not divide ${which}`,
      'groups',
    );
  }
  for (const name of [...positive, ...strideDil, ...pads, 'groups' as const]) {
    const value = f[name] as number;
    if (value > INT32_MAX) {
      throw new InvalidProblemError(
        `Expected ${name} to fit cuDNN's int32 limit of ${INT32_MAX} but received ${value}`,
        name,
      );
    }
  }
  if (f.paddingMode === 'same') checkSameStride([f.strideD, f.strideH, f.strideW]);
  const axes = [
    ['depth', 'D', f.dIn, f.padD, f.padAfterD, f.dilationD, f.dFilt, f.strideD],
    ['height', 'H', f.hIn, f.padH, f.padAfterH, f.dilationH, f.hFilt, f.strideH],
    ['width', 'W', f.wIn, f.padW, f.padAfterW, f.dilationW, f.wFilt, f.strideW],
  ] as const;
  const out: number[] = [];
  for (const [word, a, input, pad, after, dil, k, stride] of axes) {
    const extent = convOutputExtent(input, pad, dil, k, stride, after);
    if (extent <= 0) {
      const f = a.toLowerCase();
      const pads = pad === after ? `pad${a}=${pad}` : `pad${a}=${pad} padAfter${a}=${after}`;
      const sum = pad === after ? `2*${pad}` : `${pad} + ${after}`;
      throw new InvalidProblemError(
        `Expected a positive output extent, but the output ${word} is ${extent}: ` +
          `${f}In=${input} ${pads} dilation${a}=${dil} ${f}Filt=${k} stride${a}=${stride} ` +
          `gives (${input} + ${sum} - ${dil}*(${k}-1) - 1)/${stride} + 1 = ${extent}`,
        `output ${word}`,
      );
    }
    out.push(extent);
  }
  const [dOut, hOut, wOut] = out as [number, number, number];
  const xShape = [f.batch, f.cIn, f.dIn, f.hIn, f.wIn];
  const wShape = [f.cOut, f.cIn / f.groups, f.dFilt, f.hFilt, f.wFilt];
  const yShape = [f.batch, f.cOut, dOut, hOut, wOut];
  const xStrides = stridesFor(xShape, f.layout);
  const wStrides = stridesFor(wShape, f.layout);
  const yStrides = stridesFor(yShape, f.layout);
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
  return {
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
  };
}
