/**
 * The stage's f64 reference step: its gradients against central finite differences of the loss
 * ⟨y, dy⟩ on a tiny stage (both layouts), and the shape's rules.
 */
import { describe, expect, it } from 'vitest';
import { dot, seededRandom } from '../reference/index.js';
import { type StageParams, stageBackward, stageForward } from './reference.js';
import {
  checkStageShape,
  describeStage,
  type StageShape,
  stageElementCounts,
  stageMacs,
} from './shape.js';

function values(count: number, random: () => number, scale = 1): Float64Array {
  return Float64Array.from({ length: count }, () => (random() * 2 - 1) * scale);
}

function setup(shape: StageShape, seed: number) {
  const random = seededRandom(seed);
  const n = stageElementCounts(shape);
  const params: StageParams = {
    w1: values(n.w1, random, 0.3),
    b1: values(n.b1, random, 0.2),
    w2: values(n.w2, random, 0.3),
    b2: values(n.b2, random, 0.2),
    wd: values(n.wd, random, 0.3),
    bd: values(n.bd, random, 0.2),
    wu: values(n.wu, random, 0.5),
  };
  return { params, x: values(n.x, random), dy: values(n.dy, random) };
}

const loss = (shape: StageShape, params: StageParams, x: Float64Array, dy: Float64Array): number =>
  dot(stageForward(shape, params, x).y, dy);

describe.each(['ncdhw', 'ndhwc'] as const)('the stage reference step (%s)', (layout) => {
  const shape: StageShape = { n: 1, c: 2, cDown: 3, size: [4, 4, 4], layout };

  it('has every gradient of <y, dy> within 1e-6 of central finite differences', () => {
    const { params, x, dy } = setup(shape, 23);
    const acts = stageForward(shape, params, x);
    const grads = stageBackward(shape, params, x, acts, dy);
    const targets: Array<[string, Float64Array, Float64Array]> = [
      ['x', x, grads.dx],
      ['w1', params.w1, grads.dw1],
      ['b1', params.b1, grads.db1],
      ['w2', params.w2, grads.dw2],
      ['b2', params.b2, grads.db2],
      ['wd', params.wd, grads.dwd],
      ['bd', params.bd, grads.dbd],
      ['wu', params.wu, grads.dwu],
    ];
    const h = 1e-6;
    let checked = 0;
    for (const [name, tensor, gradient] of targets) {
      expect(gradient.length, name).toBe(tensor.length);
      for (let i = 0; i < tensor.length; i++) {
        const saved = tensor[i]!;
        tensor[i] = saved + h;
        const up = loss(shape, params, x, dy);
        tensor[i] = saved - h;
        const down = loss(shape, params, x, dy);
        tensor[i] = saved;
        const numeric = (up - down) / (2 * h);
        expect(Math.abs(numeric - gradient[i]!), `${name}[${i}]`).toBeLessThan(1e-6);
        checked++;
      }
    }
    expect(checked).toBe(Object.values(params).reduce((sum, p) => sum + p.length, 0) + x.length);
    // Not a vacuous pass: the ReLUs neither pass nor block everything, and every gradient moves.
    for (const a of [acts.a1, acts.a2, acts.a3]) {
      const zeros = a.filter((v) => v === 0).length;
      expect(zeros).toBeGreaterThan(0);
      expect(zeros).toBeLessThan(a.length);
    }
    for (const [name, , gradient] of targets) {
      expect(
        gradient.some((v) => v !== 0),
        name,
      ).toBe(true);
    }
  });

  it('chains the layers: the intermediate gradients are those the next layer consumed', () => {
    const { params, x, dy } = setup(shape, 7);
    const acts = stageForward(shape, params, x);
    const g = stageBackward(shape, params, x, acts, dy);
    for (let i = 0; i < g.dp3.length; i++) {
      expect(g.dp3[i]! + 0).toBe(acts.a3[i]! > 0 ? g.da3[i] : 0);
    }
    for (let i = 0; i < g.dp1.length; i++) {
      expect(g.dp1[i]! + 0).toBe(acts.a1[i]! > 0 ? g.da1[i] : 0);
    }
    expect(acts.y.length).toBe(x.length);
  });
});

describe('the stage shape', () => {
  it('counts the tensors and the work', () => {
    const shape: StageShape = { n: 2, c: 32, cDown: 64, size: [64, 64, 64], layout: 'ndhwc' };
    const n = stageElementCounts(shape);
    expect(n.x).toBe(2 * 32 * 64 ** 3);
    expect(n.a3).toBe(2 * 64 * 32 ** 3);
    expect(n.wd).toBe(64 * 32 * 27);
    expect(n.wu).toBe(64 * 32 * 8);
    expect(stageMacs(shape)).toBe(3 * (2 * n.x * 32 * 27 + n.a3 * 32 * 27 + n.a3 * 32 * 8));
    expect(describeStage(shape)).toBe('n=2 c=32→64 64×64×64 ndhwc');
  });

  it('refuses odd extents and bad sizes with typed errors naming them', () => {
    const base: StageShape = { n: 1, c: 2, cDown: 2, size: [4, 4, 4], layout: 'ncdhw' };
    expect(() => checkStageShape({ ...base, size: [4, 3, 4] })).toThrow(
      'Expected an even extent (the down convolution halves it, the up convolution doubles it back) for sizeH but received 3 of type number',
    );
    expect(() => checkStageShape({ ...base, c: 0 })).toThrow(
      'Expected a positive integer for c but received 0 of type number',
    );
    expect(() => checkStageShape({ ...base, layout: 'nchw' as never })).toThrow(
      "Expected 'ncdhw' or 'ndhwc' for layout",
    );
  });
});
