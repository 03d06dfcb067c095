import { describe, expect, it } from 'vitest';
import { SHARED_SUITE } from '../suite/index.js';
import {
  convBytes,
  convFlops,
  convMacs,
  elementBytes,
  geomean,
  layoutsFor,
  outputDims,
  rooflineFloorMs,
  rowId,
  tensorElements,
  tflopsOf,
} from './math.js';
import type { BenchCase } from './types.js';

const suiteCase = (name: string): BenchCase => SHARED_SUITE.find((c) => c.name === name)!;

const c3d = suiteCase('c3d-conv2');
const videomae = suiteCase('videomae-patch');
const depthwise = suiteCase('x3d-depthwise');
const dilated = suiteCase('dilated');

/** MACs by brute force: count every (output point, reduction index) that the conv visits. */
function bruteMacs(c: BenchCase): number {
  const [od, oh, ow] = outputDims(c);
  let perOutputChannelPoint = 0;
  for (let z = 0; z < od; z++)
    for (let y = 0; y < oh; y++)
      for (let x = 0; x < ow; x++) perOutputChannelPoint += c.k[0]! * c.k[1]! * c.k[2]!;
  return c.n * c.cOut * (c.cIn / c.groups) * perOutputChannelPoint;
}

describe('problem sizes', () => {
  it('computes output dims like PyTorch', () => {
    expect(outputDims(c3d)).toEqual([16, 56, 56]);
    expect(outputDims(videomae)).toEqual([8, 14, 14]);
    expect(outputDims(dilated)).toEqual([32, 64, 64]);
    expect(outputDims({ ...c3d, stride: [2, 2, 2] })).toEqual([8, 28, 28]);
  });

  it('counts MACs: hand-computed values and a brute-force count agree', () => {
    expect(convMacs(c3d)).toBe(8 * 128 * 16 * 56 * 56 * 64 * 27);
    expect(convMacs(videomae)).toBe(8 * 768 * 8 * 14 * 14 * 3 * 2 * 16 * 16);
    expect(convMacs(depthwise)).toBe(8 * 192 * 16 * 28 * 28 * 27);
    for (const c of [c3d, videomae, depthwise, dilated]) expect(convMacs(c)).toBe(bruteMacs(c));
    expect(convFlops(c3d)).toBe(2 * convMacs(c3d));
  });

  it('counts tensor elements and bytes per dtype', () => {
    expect(tensorElements(depthwise)).toEqual({
      x: 8 * 192 * 16 * 28 * 28,
      w: 192 * 27,
      y: 8 * 192 * 16 * 28 * 28,
    });
    const elements = 8 * 64 * 16 * 56 * 56 + 128 * 64 * 27 + 8 * 128 * 16 * 56 * 56;
    expect(convBytes(c3d, 'f16')).toBe(elements * 2);
    expect(convBytes(c3d, 'bf16')).toBe(elements * 2);
    expect(convBytes(c3d, 'tf32')).toBe(elements * 4);
    expect(convBytes(c3d, '3xtf32')).toBe(elements * 4);
    expect(convBytes(c3d, 'f64')).toBe(elements * 8);
    expect(elementBytes('f32')).toBe(4);
  });
});

describe('roofline', () => {
  it('takes the larger of the compute and memory times', () => {
    // 1 TFLOP at 1 PFLOP/s = 1 ms; 1 GB at 4 TB/s = 0.25 ms.
    expect(rooflineFloorMs(1e12, 1e9, 1e15, 4e12)).toBeCloseTo(1, 12);
    // Memory-bound: 1 GFLOP (1 µs) but 4 GB (1 ms).
    expect(rooflineFloorMs(1e9, 4e9, 1e15, 4e12)).toBeCloseTo(1, 12);
  });
  it('drops a missing peak and returns null with neither', () => {
    expect(rooflineFloorMs(1e12, 1e9, null, 4e12)).toBeCloseTo(0.25, 12);
    expect(rooflineFloorMs(1e12, 1e9, 1e15, undefined)).toBeCloseTo(1, 12);
    expect(rooflineFloorMs(1e12, 1e9, null, null)).toBeNull();
    expect(rooflineFloorMs(1e12, 1e9, 0, 0)).toBeNull();
  });
  it('converts time to TFLOP/s', () => {
    expect(tflopsOf(2e12, 1000)).toBeCloseTo(2, 12);
    expect(tflopsOf(1e9, 0.001)).toBeCloseTo(1000, 9);
  });
});

describe('statistics', () => {
  it('geometric mean ignores non-positive and non-finite values', () => {
    expect(geomean([2, 8])).toBeCloseTo(4, 12);
    expect(geomean([0.5, 2, 1])).toBeCloseTo(1, 12);
    expect(geomean([4, 0, Number.NaN, Number.POSITIVE_INFINITY])).toBeCloseTo(4, 12);
    expect(geomean([])).toBeNull();
  });
});

describe('rows', () => {
  it('ids and layouts per dtype', () => {
    expect(rowId({ case: 'c3d-conv2', dtype: 'bf16', layout: 'ndhwc', pass: 'bwData' })).toBe(
      'c3d-conv2|bf16|ndhwc|bwData',
    );
    expect(layoutsFor('f32', ['ncdhw', 'ndhwc'])).toEqual(['ncdhw']);
    expect(layoutsFor('tf32', ['ndhwc'])).toEqual([]);
    expect(layoutsFor('f16', ['ncdhw', 'ndhwc'])).toEqual(['ncdhw', 'ndhwc']);
    expect(layoutsFor('bf16', ['ndhwc'])).toEqual(['ndhwc']);
  });
});
