/**
 * scripts/wgrad-x3d-check.mjs, the device check's f64 reference for backward-filter at X3D's
 * size: its plain loop equals the tests' definition (depthwise-wgrad.test-helpers.ts), strides,
 * dilations and padding included, so a GPU result it passes is right.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types (the device check's).
import { directDw as scriptDw } from '../scripts/wgrad-x3d-check.mjs';
import { type Case, desc, directDw, maxAbsDiff, random } from './depthwise-wgrad.test-helpers.js';

describe("the device check's backward-filter reference", () => {
  it.each<[string, Case]>([
    ['X3D-like', { c: 3, n: 2, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] }],
    [
      'strides, dilations, uneven pads',
      {
        c: 2,
        n: 2,
        in: [7, 8, 9],
        k: [2, 3, 2],
        pad: [1, 2, 0],
        stride: [2, 1, 2],
        dil: [2, 2, 1],
      },
    ],
  ])('%s: equals the definition', (_name, t) => {
    const d = desc(t);
    const x = random(d.xElements, 7);
    const dy = random(d.yElements, 8);
    expect(maxAbsDiff(scriptDw(d, x, dy), directDw(d, x, dy))).toBeLessThan(1e-12);
  });
});
