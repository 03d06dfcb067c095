// The shapes s2d-device-check.mjs runs: the maps its kernel check uses, the plans it checks
// against the f64 reference (the suite's rows with their batch cut, held-out shapes, shapes the
// routes must not take) and the suite's two rows it times at full size (conv3d-suite.json).

/**
 * Problems whose transform maps the kernel check runs (three patches, two stems): the fast
 * division's divisors of 1 (a 1-deep block, a batch of 1) and VideoMAE's 16s and 14s among them.
 */
export const mapCases = [
  { cIn: 3, cOut: 4, n: 2, in: [5, 9, 10], k: [2, 4, 4], stride: [2, 4, 4] },
  { cIn: 3, cOut: 4, n: 1, in: [3, 17, 20], k: [1, 8, 8], stride: [1, 8, 8] },
  { cIn: 3, cOut: 4, n: 1, in: [4, 224, 224], k: [2, 16, 16], stride: [2, 16, 16] },
  { cIn: 3, cOut: 4, n: 1, in: [9, 10, 11], k: [7, 7, 7], stride: [2, 2, 2], pad: [3, 3, 3] },
  { cIn: 2, cOut: 3, n: 2, in: [7, 8, 9], k: [5, 3, 4], stride: [2, 2, 2], pad: [2, 1, 0] },
];

/** Plans checked end to end; `route`: whether the route must be taken. */
export const planCases = [
  // The suite's rows (conv3d-suite.json), batch cut for the host reference.
  {
    name: 'videomae-patch n=1',
    cIn: 3,
    cOut: 768,
    n: 1,
    in: [16, 224, 224],
    k: [2, 16, 16],
    stride: [2, 16, 16],
    route: true,
  },
  {
    name: 'i3d-stem n=1 d=16',
    cIn: 3,
    cOut: 64,
    n: 1,
    in: [16, 224, 224],
    k: [7, 7, 7],
    stride: [2, 2, 2],
    pad: [3, 3, 3],
    route: true,
  },
  // Held out.
  {
    name: 'swin 2×4×4',
    cIn: 3,
    cOut: 96,
    n: 2,
    in: [8, 56, 56],
    k: [2, 4, 4],
    stride: [2, 4, 4],
    route: true,
  },
  {
    name: 'patch 1×8×8 non-divisible',
    cIn: 3,
    cOut: 64,
    n: 2,
    in: [3, 61, 67],
    k: [1, 8, 8],
    stride: [1, 8, 8],
    route: true,
  },
  {
    name: 'patch 4×4×4 non-divisible',
    cIn: 4,
    cOut: 48,
    n: 2,
    in: [17, 18, 19],
    k: [4, 4, 4],
    stride: [4, 4, 4],
    route: true,
  },
  {
    name: 'stem 5×5×5 odd extents',
    cIn: 3,
    cOut: 32,
    n: 2,
    in: [17, 33, 35],
    k: [5, 5, 5],
    stride: [2, 2, 2],
    pad: [2, 2, 2],
    route: true,
  },
  {
    name: 'stem 3×7×7 pad 1,3,3',
    cIn: 2,
    cOut: 24,
    n: 1,
    in: [15, 45, 47],
    k: [3, 7, 7],
    stride: [2, 2, 2],
    pad: [1, 3, 3],
    route: true,
  },
  // Must not apply.
  {
    name: 'kernel ≠ stride',
    cIn: 3,
    cOut: 32,
    n: 1,
    in: [8, 32, 32],
    k: [2, 4, 4],
    stride: [2, 2, 4],
    route: false,
  },
  {
    name: 'padded patch',
    cIn: 3,
    cOut: 32,
    n: 1,
    in: [8, 32, 32],
    k: [2, 4, 4],
    stride: [2, 4, 4],
    pad: [0, 1, 1],
    route: false,
  },
  {
    name: 'grouped patch',
    cIn: 4,
    cOut: 32,
    n: 1,
    in: [8, 32, 32],
    k: [2, 4, 4],
    stride: [2, 4, 4],
    groups: 2,
    route: false,
  },
  {
    name: 'dilated patch',
    cIn: 3,
    cOut: 32,
    n: 1,
    in: [8, 32, 32],
    k: [2, 4, 4],
    stride: [2, 4, 4],
    dil: [1, 2, 1],
    route: false,
  },
  {
    name: 'stem cIn 8',
    cIn: 8,
    cOut: 16,
    n: 1,
    in: [9, 20, 21],
    k: [3, 3, 3],
    stride: [2, 2, 2],
    pad: [1, 1, 1],
    route: false,
  },
];

/** The suite's patch and stem rows, timed. */
export const suite = [
  {
    name: 'videomae-patch',
    cIn: 3,
    cOut: 768,
    n: 8,
    in: [16, 224, 224],
    k: [2, 16, 16],
    stride: [2, 16, 16],
  },
  {
    name: 'i3d-stem',
    cIn: 3,
    cOut: 64,
    n: 8,
    in: [32, 224, 224],
    k: [7, 7, 7],
    stride: [2, 2, 2],
    pad: [3, 3, 3],
  },
];
