/** The arithmetic of a problem's shapes: output extents, dense strides, element counts. */
import {
  expectInteger,
  expectIntegerArray,
  InvalidArgumentError,
  InvalidProblemError,
} from '@baracuda/types';
import type { Conv3dLayout } from './descriptor.js';

/** cuDNN's legacy descriptors take `int` dims and strides. */
export const INT32_MAX = 2147483647;

/**
 * One output extent: floor((in + pad + padAfter - dil*(k-1) - 1) / stride) + 1, where padAfter
 * (the trailing side) defaults to pad (symmetric: in + 2*pad).
 * Pure; may return 0 or a negative number for an impossible window.
 */
export function convOutputExtent(
  input: number,
  pad: number,
  dilation: number,
  filter: number,
  stride: number,
  padAfter: number = pad,
): number {
  // cuDNN's descriptors take int32 extents, so do the descriptor's checks.
  expectInteger('input', input, { min: 0, max: INT32_MAX });
  expectInteger('pad', pad, { min: 0, max: INT32_MAX });
  expectInteger('dilation', dilation, { min: 1, max: INT32_MAX });
  expectInteger('filter', filter, { min: 1, max: INT32_MAX });
  expectInteger('stride', stride, { min: 1, max: INT32_MAX });
  expectInteger('padAfter', padAfter, { min: 0, max: INT32_MAX });
  return Math.floor((input + pad + padAfter - dilation * (filter - 1) - 1) / stride) + 1;
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

/** Product of extents, refusing anything past int32 (cuDNN descriptors) long before 2^53. */
export function checkedProduct(name: string, shape: readonly number[]): number {
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
