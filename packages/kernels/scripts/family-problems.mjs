// The conv family check's problems (family-device-check.mjs): the transposed and plain problems
// of its rows, their descriptors, and the saved tensors an activation's backward reads.
import { activate } from '../../conformance/src/reference/index.ts';
import { Conv3dDescriptor, ConvTranspose3dDescriptor } from '../dist/index.js';
import { elementArray, storeElement } from './device-helpers.mjs';
import { random } from './epilogue-rows.mjs';

export const FROM_OUTPUT = ['relu', 'sigmoid', 'tanh', 'clamp'];
/** Transposed problems (reference field names): odd shapes; stride 2 with output padding (trailing planes on D); groups. */
export const TRANSPOSED = [
  {
    n: 2,
    cIn: 5,
    cOut: 3,
    in: [3, 4, 5],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    outputPadding: [0, 0, 0],
    stride: [1, 1, 1],
    groups: 1,
  },
  {
    n: 1,
    cIn: 8,
    cOut: 6,
    in: [3, 5, 4],
    k: [2, 3, 3],
    pad: [0, 1, 1],
    outputPadding: [1, 1, 0],
    stride: [2, 2, 2],
    groups: 1,
  },
  {
    n: 1,
    cIn: 4,
    cOut: 6,
    in: [4, 3, 5],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    outputPadding: [1, 1, 1],
    stride: [2, 2, 2],
    groups: 2,
  },
];
/** Convolutions for the input activation's backward (runBwData): odd shapes, stride 2, groups. */
export const CONVS = [
  {
    n: 2,
    cIn: 3,
    cOut: 5,
    in: [5, 6, 7],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [1, 1, 1],
    groups: 1,
  },
  {
    n: 1,
    cIn: 6,
    cOut: 8,
    in: [7, 6, 9],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 2, 2],
    groups: 2,
  },
];

export const product = (shape) => shape.reduce((a, b) => a * b, 1);

export function transposed(p, element, layout) {
  return ConvTranspose3dDescriptor.create({
    batch: p.n,
    cIn: p.cIn,
    dIn: p.in[0],
    hIn: p.in[1],
    wIn: p.in[2],
    cOut: p.cOut,
    dFilt: p.k[0],
    hFilt: p.k[1],
    wFilt: p.k[2],
    element,
  })
    .withPadding(...p.pad)
    .withOutputPadding(...p.outputPadding)
    .withStride(...p.stride)
    .withGroups(p.groups)
    .withLayout(layout);
}
export function convolution(p, element, layout) {
  return Conv3dDescriptor.create({
    batch: p.n,
    cIn: p.cIn,
    dIn: p.in[0],
    hIn: p.in[1],
    wIn: p.in[2],
    cOut: p.cOut,
    dFilt: p.k[0],
    hFilt: p.k[1],
    wFilt: p.k[2],
    element,
  })
    .withPadding(...p.pad)
    .withStride(...p.stride)
    .withGroups(p.groups)
    .withLayout(layout);
}
export const refProblem = (p, layout) => ({ ...p, dil: [1, 1, 1], layout });

export function savedTensors(element, act, count) {
  const preT = random(element, count, 2);
  const outT = { host: elementArray(element, count), values: new Float64Array(count) };
  for (let i = 0; i < count; i++) {
    outT.values[i] = storeElement(element, outT.host, i, activate(act, preT.values[i]));
  }
  return { preT, outT };
}

export function interleave(lists) {
  const out = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length) out.push(l[i]);
  }
  return out;
}
