/**
 * The stage benchmark's inputs: the hash gives the values Python's formula gives (the same
 * expression as torch_stage_bench.py's, evaluated once with Python integers and pasted here), and
 * the channels-last storage is the reference's own layout conversion of the NCDHW values, for
 * activations, weights, the transposed weight and biases.
 */
import { describe, expect, it } from 'vitest';
import { convertLayout } from '../reference/index.js';
import {
  BENCH_SALTS,
  type BenchInput,
  benchDims,
  benchInput,
  benchSampleIndices,
  benchStorageIndex,
  benchValue,
} from './bench-inputs.js';
import { upAsConvolution } from './check.js';
import { type StageShape, stageConvProblem, stageElementCounts, stageUpProblem } from './shape.js';

describe('the stage benchmark inputs', () => {
  it('hash as the Python side does', () => {
    expect([0, 1, 2, 12345678, 16777215].map((i) => benchValue(i, 3, 2, 0.5))).toEqual([
      0.20143153192475438, -0.14146079891361296, -0.09592213877476752, 0.48644834151491523,
      -0.488578891614452,
    ]);
  });

  it('are stored channels-last exactly as the reference converts NCDHW', () => {
    const base: StageShape = { n: 2, c: 3, cDown: 5, size: [4, 2, 6], layout: 'ncdhw' };
    const last: StageShape = { ...base, layout: 'ndhwc' };
    const full = stageConvProblem(base, 'conv1');
    const down = stageConvProblem(base, 'down');
    const up = upAsConvolution(base);
    const cases: Array<[BenchInput, Parameters<typeof convertLayout>[0], 'x' | 'w' | 'y']> = [
      ['x', full, 'x'],
      ['dy', full, 'x'],
      ['w1', full, 'w'],
      ['wd', down, 'w'],
      ['wu', up, 'w'],
    ];
    for (const [name, problem, role] of cases) {
      const ncdhw = Float64Array.from(benchInput(base, name, 1));
      const ndhwc = Float64Array.from(benchInput(last, name, 1));
      expect(ndhwc, name).toEqual(convertLayout(problem, role, ncdhw, 'ncdhw', 'ndhwc'));
      expect(ncdhw.length).toBe(stageElementCounts(base)[name]);
      for (const i of [0, 7, ncdhw.length - 1]) {
        expect(ndhwc[benchStorageIndex(benchDims(last, name), 'ndhwc', i)], `${name}[${i}]`).toBe(
          ncdhw[i],
        );
      }
    }
    expect(Array.from(benchInput(last, 'b1', 1))).toEqual(Array.from(benchInput(base, 'b1', 1)));
    expect(stageUpProblem(base).cIn).toBe(5);
  });

  it('differ per tensor and per round, and stay inside the scale', () => {
    const s: StageShape = { n: 1, c: 4, cDown: 8, size: [4, 4, 4], layout: 'ncdhw' };
    const x1 = benchInput(s, 'x', 1);
    expect(benchInput(s, 'x', 2)).not.toEqual(x1);
    expect(benchInput(s, 'dy', 1)).not.toEqual(x1);
    const w = benchInput(s, 'w1', 1);
    const bound = Math.sqrt(3 / (27 * 4));
    expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(bound);
    expect(Math.max(...w.map(Math.abs))).toBeGreaterThan(bound * 0.9);
    expect(Object.keys(BENCH_SALTS)).toHaveLength(9);
    expect(benchSampleIndices(32, 4)).toEqual([4, 12, 20, 28]);
  });
});
