/**
 * A transposed problem's fields checked (the convolution's rules, plus outputPadding below
 * max(stride, dilation)) and its output extents derived: (in − 1)·stride − pad − padAfter +
 * dilation·(k − 1) + outputPadding + 1 per axis (PyTorch's nn.ConvTranspose3d with 2·pad split
 * into its two sides).
 * @internal
 */
import { describeValue, InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { INT32_MAX } from './descriptor-shape.js';
import type { Fields } from './descriptor-validate.js';

/** @internal Every field of a ConvTranspose3dDescriptor: a convolution's, plus output padding. */
export interface TransposeFields extends Fields {
  outputPaddingD: number;
  outputPaddingH: number;
  outputPaddingW: number;
}

/** One transposed output extent; pure, may be ≤ 0 for an impossible problem. */
export function transposeOutputExtent(
  input: number,
  pad: number,
  padAfter: number,
  dilation: number,
  filter: number,
  stride: number,
  outputPadding: number,
): number {
  return (input - 1) * stride - pad - padAfter + dilation * (filter - 1) + outputPadding + 1;
}

const POSITIVE = [
  'batch',
  'cIn',
  'dIn',
  'hIn',
  'wIn',
  'cOut',
  'dFilt',
  'hFilt',
  'wFilt',
  'strideD',
  'strideH',
  'strideW',
  'dilationD',
  'dilationH',
  'dilationW',
  'groups',
] as const;
const NON_NEGATIVE = [
  'padD',
  'padH',
  'padW',
  'padAfterD',
  'padAfterH',
  'padAfterW',
  'outputPaddingD',
  'outputPaddingH',
  'outputPaddingW',
] as const;

/**
 * Check the fields (types first, then signs, groups, int32 limits, output padding, extents);
 * typed errors in the words of the convolution's. Returns the output extents [D, H, W].
 */
export function checkTransposeFields(f: TransposeFields): [number, number, number] {
  const get = (name: string) => (f as unknown as Record<string, unknown>)[name];
  for (const name of POSITIVE) {
    const v = get(name);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw new InvalidArgumentError(name, 'a positive integer', v);
    }
  }
  for (const name of NON_NEGATIVE) {
    const v = get(name);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw new InvalidArgumentError(name, 'a non-negative integer', v);
    }
  }
  for (const name of POSITIVE) {
    const v = get(name) as number;
    if (v <= 0) {
      throw new InvalidProblemError(
        `Expected a positive integer for ${name} but received ${describeValue(v)}`,
        name,
      );
    }
  }
  for (const name of NON_NEGATIVE) {
    const v = get(name) as number;
    if (v < 0) {
      throw new InvalidProblemError(
        `Expected a non-negative integer for ${name} but received ${describeValue(v)}`,
        name,
      );
    }
  }
  const inOk = f.cIn % f.groups === 0;
  const outOk = f.cOut % f.groups === 0;
  if (!inOk || !outOk) {
    const which = !inOk && !outOk ? 'cIn or cOut' : !inOk ? 'cIn' : 'cOut';
    throw new InvalidProblemError(
      `Expected groups (${f.groups}) to divide cIn (${f.cIn}) and cOut (${f.cOut}), but it does not divide ${which}`,
      'groups',
    );
  }
  for (const name of [...POSITIVE, ...NON_NEGATIVE]) {
    const v = get(name) as number;
    if (v > INT32_MAX) {
      throw new InvalidProblemError(
        `Expected ${name} to fit cuDNN's int32 limit of ${INT32_MAX} but received ${v}`,
        name,
      );
    }
  }
  const axes = [
    ['depth', 'D', f.dIn, f.padD, f.padAfterD, f.dilationD, f.dFilt, f.strideD, f.outputPaddingD],
    ['height', 'H', f.hIn, f.padH, f.padAfterH, f.dilationH, f.hFilt, f.strideH, f.outputPaddingH],
    ['width', 'W', f.wIn, f.padW, f.padAfterW, f.dilationW, f.wFilt, f.strideW, f.outputPaddingW],
  ] as const;
  const out: number[] = [];
  for (const [word, a, input, pad, after, dil, k, stride, op] of axes) {
    const limit = Math.max(stride, dil);
    if (op >= limit) {
      throw new InvalidProblemError(
        `Expected outputPadding${a} below max(stride${a}, dilation${a}) = ${limit} but received ${op}`,
        `outputPadding${a}`,
      );
    }
    const extent = transposeOutputExtent(input, pad, after, dil, k, stride, op);
    if (extent <= 0 || extent > INT32_MAX) {
      const l = a.toLowerCase();
      const pads = pad === after ? `2*${pad}` : `${pad} - ${after}`;
      throw new InvalidProblemError(
        `Expected a positive output extent within cuDNN's int32 limit, but the output ${word} is ${extent}: ` +
          `${l}In=${input} stride${a}=${stride} pad${a}=${pad} padAfter${a}=${after} dilation${a}=${dil} ` +
          `${l}Filt=${k} outputPadding${a}=${op} gives (${input}-1)*${stride} - ${pads} + ${dil}*(${k}-1) + ${op} + 1 = ${extent}`,
        `output ${word}`,
      );
    }
    out.push(extent);
  }
  return out as [number, number, number];
}
