/**
 * The default conformance suites, as data. Every list is dtype- and layout-agnostic: the check
 * runner crosses each case with the dtypes, layouts, passes and algorithm modes it is asked for.
 */
import type { Triple } from '../reference/problem.js';
import { loadSuite, type SuiteCase } from './load.js';
import { type ReducedCase, reduceCase } from './reduce.js';
import { SHARED_SUITE_SOURCE } from './shared-suite.js';

interface CaseFields {
  name: string;
  n?: number;
  cIn: number;
  cOut: number;
  in: Triple;
  k: Triple;
  pad?: Triple;
  stride?: Triple;
  dil?: Triple;
  groups?: number;
}

function suiteCase(fields: CaseFields): SuiteCase {
  return {
    n: 1,
    pad: [0, 0, 0],
    stride: [1, 1, 1],
    dil: [1, 1, 1],
    groups: 1,
    ...fields,
  };
}

/** A handful of 1–3-wide cases: the first thing to pass. */
export const TINY_SUITE: readonly SuiteCase[] = [
  suiteCase({ name: 'tiny-1x1x1', cIn: 1, cOut: 1, in: [1, 1, 1], k: [1, 1, 1] }),
  suiteCase({ name: 'tiny-pointwise', cIn: 2, cOut: 3, in: [2, 3, 2], k: [1, 1, 1] }),
  suiteCase({ name: 'tiny-k3-pad1', cIn: 2, cOut: 2, in: [3, 3, 3], k: [3, 3, 3], pad: [1, 1, 1] }),
  suiteCase({
    name: 'tiny-batch2',
    n: 2,
    cIn: 3,
    cOut: 2,
    in: [3, 2, 3],
    k: [3, 1, 2],
    pad: [1, 0, 1],
  }),
  suiteCase({
    name: 'tiny-stride2',
    cIn: 2,
    cOut: 3,
    in: [3, 3, 3],
    k: [1, 1, 1],
    stride: [2, 2, 2],
  }),
];

/**
 * Channels that are not multiples of 8, odd extents, and padding/stride/dilation that differ
 * per axis: shapes that fall off the vectorised fast paths.
 */
export const ODD_SUITE: readonly SuiteCase[] = [
  suiteCase({ name: 'odd-c3-c5', cIn: 3, cOut: 5, in: [7, 9, 11], k: [3, 3, 3], pad: [1, 1, 1] }),
  suiteCase({
    name: 'odd-c7-c13-per-axis',
    n: 2,
    cIn: 7,
    cOut: 13,
    in: [7, 9, 11],
    k: [3, 3, 3],
    pad: [0, 1, 2],
    stride: [1, 2, 3],
    dil: [2, 1, 1],
  }),
  suiteCase({
    name: 'odd-c13-c7-per-axis',
    cIn: 13,
    cOut: 7,
    in: [9, 7, 11],
    k: [2, 3, 1],
    pad: [1, 0, 0],
    stride: [2, 1, 1],
    dil: [1, 2, 1],
  }),
  suiteCase({
    name: 'odd-c5-c3-k5',
    n: 3,
    cIn: 5,
    cOut: 3,
    in: [11, 9, 7],
    k: [5, 3, 1],
    pad: [2, 1, 0],
    stride: [3, 1, 2],
    dil: [1, 1, 3],
  }),
];

/** Grouped and depthwise convolutions, with stride-2 variants. */
export const GROUPED_SUITE: readonly SuiteCase[] = [
  suiteCase({
    name: 'groups2',
    n: 2,
    cIn: 4,
    cOut: 6,
    in: [5, 6, 7],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    groups: 2,
  }),
  suiteCase({
    name: 'groups4',
    cIn: 8,
    cOut: 8,
    in: [6, 6, 6],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    groups: 4,
  }),
  suiteCase({
    name: 'groups4-stride2',
    cIn: 16,
    cOut: 8,
    in: [7, 8, 9],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 2, 2],
    groups: 4,
  }),
  suiteCase({
    name: 'depthwise',
    n: 2,
    cIn: 8,
    cOut: 8,
    in: [6, 7, 8],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    groups: 8,
  }),
  suiteCase({
    name: 'depthwise-stride2',
    cIn: 12,
    cOut: 12,
    in: [9, 9, 9],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 2, 2],
    groups: 12,
  }),
  suiteCase({
    name: 'depthwise-c7-stride-2x1x2',
    cIn: 7,
    cOut: 7,
    in: [7, 9, 11],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 1, 2],
    groups: 7,
  }),
  // Our depthwise kernels' tiles (32 outputs wide, up to 32 tall): planes over one tile,
  // dilation, uneven filters and pads, and a pad beyond d·(k−1) (backward-data then gathers).
  suiteCase({
    name: 'depthwise-plane-37x70',
    cIn: 3,
    cOut: 3,
    in: [3, 37, 70],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    groups: 3,
  }),
  suiteCase({
    name: 'depthwise-dil2-pad2',
    n: 2,
    cIn: 5,
    cOut: 5,
    in: [5, 9, 11],
    k: [3, 3, 3],
    pad: [2, 2, 2],
    dil: [2, 2, 2],
    groups: 5,
  }),
  suiteCase({
    name: 'depthwise-k1x3x5-pad0x1x3',
    cIn: 4,
    cOut: 4,
    in: [4, 6, 9],
    k: [1, 3, 5],
    pad: [0, 1, 3],
    groups: 4,
  }),
  suiteCase({
    name: 'depthwise-pad3-k3',
    cIn: 2,
    cOut: 2,
    in: [3, 4, 5],
    k: [3, 3, 3],
    pad: [3, 1, 1],
    groups: 2,
  }),
  suiteCase({
    name: 'depthwise-multiplier2',
    cIn: 6,
    cOut: 12,
    in: [5, 5, 5],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    groups: 6,
  }),
];

/** The forward-MAC budget the shared suite is reduced to for `shared-scaled`. */
export const SHARED_SCALED_BUDGET_MACS = 2e7;

/** The shared suite (`suites/conv3d-suite.json`) at full size. */
export const SHARED_SUITE: readonly SuiteCase[] = loadSuite(SHARED_SUITE_SOURCE);

/** How each shared case was reduced, for the runner to print. */
export const SHARED_SCALED_REDUCTIONS: readonly ReducedCase[] = SHARED_SUITE.map((c) =>
  reduceCase(c, SHARED_SCALED_BUDGET_MACS),
);

/** The shared suite reduced to `SHARED_SCALED_BUDGET_MACS`, names unchanged. */
export const SHARED_SCALED_SUITE: readonly SuiteCase[] = SHARED_SCALED_REDUCTIONS.map(
  (r) => r.case,
);

/** Output points the check runner verifies per pass on a `large` case. */
export const LARGE_SAMPLE_POINTS = 4096;

/** Element counts from which a case is checked on sampled points: 2^28. */
export const LARGE_ELEMENTS = 2 ** 28;

/**
 * The dtypes the large cases target. PyTorch's reports concern f16/bf16 (pytorch#163539,
 * pytorch#163581); pytorch#167024 says the broken kernel also affects f32 with TF32 math on
 * cuDNN 9.10.2–9.15, so a runner may add TF32 when it has the memory and time.
 */
export const LARGE_DTYPES = ['f16', 'bf16'] as const;

/**
 * Shapes with ≥ 2^28 elements in their largest tensor, meant to exercise the cuDNN 9.8–9.15
 * conv3d defect; checked on `LARGE_SAMPLE_POINTS` sampled points.
 *
 * - `pt163539-repro` is the reproducer of pytorch/pytorch#163539 ("conv3d bfloat16 wrong
 *   result", cuDNN 9.10.2): N=1, C=K=16, in 124×1282×722, kernel 1×3×3, no padding, stride 1
 *   → out 124×1280×720. x holds 1,836,398,336 elements (> 2^30, < 2^31), so no 64-bit indexing
 *   is needed; the defect is not an index overflow. PyTorch worked around it by disabling cuDNN
 *   for f16/bf16 3-D convolutions with a kernel other than 1×1×1 on cuDNN ≥ 9.8
 *   (pytorch/pytorch#163581), later limited to 9.8–9.14 (pytorch/pytorch#166480), and disabled
 *   TF32 for 3-D convolutions on 9.10.2–9.15 (pytorch/pytorch#167024).
 * - `unet3d-2^28` is the shared suite's `unet3d-enc1` widened to 64 channels: x and y hold
 *   exactly 2^28 elements, the smallest "large" shape of a real 3-D U-Net.
 */
export const LARGE_SUITE: readonly SuiteCase[] = [
  suiteCase({ name: 'pt163539-repro', cIn: 16, cOut: 16, in: [124, 1282, 722], k: [1, 3, 3] }),
  suiteCase({
    name: 'unet3d-2^28',
    n: 2,
    cIn: 64,
    cOut: 64,
    in: [128, 128, 128],
    k: [3, 3, 3],
    pad: [1, 1, 1],
  }),
];

/** The names of the default suites. */
export type DefaultSuiteName = 'tiny' | 'odd' | 'grouped' | 'shared-scaled' | 'large';

/** Every default suite by name, in the order a runner should check them. */
export const DEFAULT_SUITES: Readonly<Record<DefaultSuiteName, readonly SuiteCase[]>> = {
  tiny: TINY_SUITE,
  odd: ODD_SUITE,
  grouped: GROUPED_SUITE,
  'shared-scaled': SHARED_SCALED_SUITE,
  large: LARGE_SUITE,
};
