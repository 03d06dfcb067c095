/**
 * The conv-family suites: `asym-pad` (convolutions padded differently before and after, and
 * PyTorch's padding='same' with even kernels and dilation) and `transpose` (ConvTranspose3d:
 * odd shapes, groups, dilation, output padding, a depthwise layer, one large volume). Shapes are
 * moderate so that every dtype × layout × pass × mode of both runs in about two minutes on one GPU.
 */
import type { TransposeProblem } from '../reference/conv-transpose3d.js';
import type { Triple } from '../reference/problem.js';
import type { SuiteCase } from './load.js';

/** One transposed-convolution shape of a suite, without its layout. */
export interface TransposeCase extends Omit<TransposeProblem, 'layout'> {
  readonly name: string;
}

/** PyTorch's padding='same' (stride 1): total dil·(k − 1), floor half before, the rest after. */
function same(k: Triple, dil: Triple = [1, 1, 1]): { pad: Triple; padAfter: Triple } {
  const total = [0, 1, 2].map((a) => dil[a]! * (k[a]! - 1));
  const before = total.map((t) => Math.floor(t / 2)) as unknown as Triple;
  return { pad: before, padAfter: total.map((t, a) => t - before[a]!) as unknown as Triple };
}

const base = { n: 1, stride: [1, 1, 1], dil: [1, 1, 1], groups: 1 } as const;

/** Asymmetric and 'same' padding on the convolution (pinned rows are refused: the legacy API is symmetric). */
export const ASYM_PAD_SUITE: readonly SuiteCase[] = [
  {
    ...base,
    name: 'same-k4x2x3',
    cIn: 3,
    cOut: 4,
    in: [6, 7, 8],
    k: [4, 2, 3],
    ...same([4, 2, 3]),
  },
  {
    ...base,
    name: 'same-k2-dil2x1x3',
    cIn: 4,
    cOut: 3,
    in: [7, 5, 9],
    k: [2, 2, 2],
    dil: [2, 1, 3],
    ...same([2, 2, 2], [2, 1, 3]),
  },
  {
    ...base,
    name: 'asym-strided',
    n: 2,
    cIn: 4,
    cOut: 6,
    in: [7, 9, 6],
    k: [3, 3, 3],
    stride: [2, 1, 2],
    pad: [0, 1, 2],
    padAfter: [2, 0, 1],
  },
  {
    ...base,
    name: 'asym-grouped',
    cIn: 4,
    cOut: 6,
    in: [5, 5, 5],
    k: [3, 3, 1],
    groups: 2,
    pad: [1, 2, 0],
    padAfter: [0, 0, 1],
  },
  {
    ...base,
    name: 'asym-depthwise',
    cIn: 8,
    cOut: 8,
    in: [6, 7, 5],
    k: [3, 3, 3],
    groups: 8,
    pad: [1, 1, 1],
    padAfter: [2, 0, 1],
  },
];

/** Transposed convolutions (ConvTranspose3d). */
export const TRANSPOSE_SUITE: readonly TransposeCase[] = [
  {
    ...base,
    name: 'up-k2s2',
    cIn: 8,
    cOut: 4,
    in: [4, 5, 6],
    k: [2, 2, 2],
    stride: [2, 2, 2],
    pad: [0, 0, 0],
  },
  {
    ...base,
    name: 'up-k3s2p1-outpad1',
    n: 2,
    cIn: 4,
    cOut: 6,
    in: [3, 4, 5],
    k: [3, 3, 3],
    stride: [2, 2, 2],
    pad: [1, 1, 1],
    outputPadding: [1, 1, 1],
  },
  {
    ...base,
    name: 'odd-asym',
    cIn: 3,
    cOut: 5,
    in: [5, 3, 4],
    k: [3, 2, 3],
    stride: [1, 2, 3],
    pad: [1, 0, 1],
    padAfter: [0, 1, 2],
    outputPadding: [0, 1, 0],
  },
  {
    ...base,
    name: 'grouped-dil',
    cIn: 6,
    cOut: 4,
    in: [4, 4, 4],
    k: [3, 3, 3],
    groups: 2,
    dil: [2, 1, 2],
    stride: [1, 2, 1],
    pad: [2, 1, 2],
    outputPadding: [1, 1, 0],
  },
  {
    ...base,
    name: 'depthwise-k3p1',
    cIn: 4,
    cOut: 4,
    groups: 4,
    in: [5, 6, 7],
    k: [3, 3, 3],
    pad: [1, 1, 1],
  },
  {
    ...base,
    name: 'outpad-gt-pad',
    cIn: 2,
    cOut: 3,
    in: [3, 3, 3],
    k: [3, 3, 3],
    stride: [2, 2, 2],
    pad: [0, 0, 0],
    outputPadding: [1, 0, 1],
  },
  {
    ...base,
    name: 'large-up-k2s2',
    cIn: 8,
    cOut: 8,
    in: [24, 24, 24],
    k: [2, 2, 2],
    stride: [2, 2, 2],
    pad: [0, 0, 0],
  },
];
