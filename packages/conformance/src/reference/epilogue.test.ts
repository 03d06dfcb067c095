import { describe, expect, it } from 'vitest';
import { conv3dForward } from './conv3d.js';
import {
  type ActivationSpec,
  activate,
  activationDerivative,
  activationDerivativeFromOutput,
  type EpilogueActivationName,
  epilogueBackward,
  epilogueForward,
  erf,
} from './epilogue.js';
import type { ConvProblem } from './problem.js';
import { seededRandom } from './random.js';

const ACTS: EpilogueActivationName[] = [
  'identity',
  'relu',
  'leakyRelu',
  'gelu',
  'geluTanh',
  'silu',
  'sigmoid',
  'tanh',
  'clamp',
];

const problem = (layout: 'ncdhw' | 'ndhwc'): ConvProblem => ({
  n: 2,
  cIn: 3,
  cOut: 4,
  in: [3, 4, 5],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
  layout,
});

describe('the epilogue reference', () => {
  it('erf matches known values', () => {
    expect(erf(0)).toBe(0);
    expect(erf(0.5)).toBeCloseTo(0.5204998778130465, 15);
    expect(erf(1)).toBeCloseTo(0.8427007929497149, 15);
    expect(erf(-2)).toBeCloseTo(-0.9953222650189527, 15);
    expect(erf(3)).toBeCloseTo(0.9999779095030014, 15);
    expect(erf(10)).toBe(1);
  });

  it.each(ACTS)('%s: its derivative is the slope of the activation', (activation) => {
    const spec: ActivationSpec = { activation, slope: 0.2, min: -0.5, max: 0.7 };
    for (const v of [-2.3, -0.9, -0.31, 0.13, 0.42, 1.7]) {
      const h = 1e-6;
      const slope = (activate(spec, v + h) - activate(spec, v - h)) / (2 * h);
      expect(activationDerivative(spec, v)).toBeCloseTo(slope, 6);
    }
  });

  it.each(['relu', 'sigmoid', 'tanh', 'clamp'] as const)(
    '%s: the derivative from the output is the derivative at the input',
    (activation) => {
      const spec: ActivationSpec = { activation, min: -0.5, max: 0.7 };
      for (const v of [-2.3, -0.9, -0.31, 0.13, 0.42, 1.7]) {
        expect(activationDerivativeFromOutput(spec, activate(spec, v))).toBeCloseTo(
          activationDerivative(spec, v),
          14,
        );
      }
      expect(() => activationDerivativeFromOutput({ activation: 'gelu' }, 0)).toThrow(
        "Expected 'relu', 'sigmoid', 'tanh' or 'clamp' (a derivative from the output) for activation but received \"gelu\" of type string",
      );
    },
  );

  it('gives the textbook values', () => {
    expect(activate({ activation: 'relu' }, -1)).toBe(0);
    expect(activate({ activation: 'leakyRelu' }, -1)).toBe(-0.01);
    expect(activate({ activation: 'gelu' }, 1)).toBeCloseTo(0.8413447460685429, 14);
    expect(activate({ activation: 'geluTanh' }, 1)).toBeCloseTo(0.8411919906082768, 14);
    expect(activate({ activation: 'silu' }, 1)).toBeCloseTo(0.7310585786300049, 14);
    expect(activate({ activation: 'clamp', min: 0, max: 6 }, 7)).toBe(6);
    expect(activate({ activation: 'clamp', min: 0 }, 7)).toBe(7);
  });

  it.each(['ncdhw', 'ndhwc'] as const)(
    'forward and backward in %s: bias by channel, z by element',
    (layout) => {
      const p = problem(layout);
      const rnd = seededRandom(7);
      const x = Float64Array.from({ length: 2 * 3 * 60 }, () => rnd() * 2 - 1);
      const w = Float64Array.from({ length: 4 * 3 * 27 }, () => rnd() * 2 - 1);
      const conv = conv3dForward(p, x, w);
      const bias = Float64Array.from([1, -2, 3, -4]);
      const z = Float64Array.from(conv, (_, i) => i * 1e-3);
      const { y, pre } = epilogueForward(p, conv, { activation: 'relu', bias, z });
      // Element (n=1, c=2, d=1, h=2, w=3) in each layout.
      const at =
        layout === 'ncdhw'
          ? ((1 * 4 + 2) * 3 + 1) * 20 + 2 * 5 + 3
          : (((1 * 3 + 1) * 4 + 2) * 5 + 3) * 4 + 2;
      expect(pre[at]).toBeCloseTo(conv[at]! + 3 + at * 1e-3, 14);
      expect(y[at]).toBe(Math.max(pre[at]!, 0));
      const dy = Float64Array.from(conv, () => rnd() * 2 - 1);
      const { dyPre, dBias } = epilogueBackward(p, dy, pre, { activation: 'relu' });
      expect(dyPre[at]).toBe(pre[at]! > 0 ? dy[at] : 0);
      let sum = 0;
      for (let i = 0; i < dy.length; i++) {
        const c = layout === 'ncdhw' ? Math.floor(i / 60) % 4 : i % 4;
        if (c === 2) sum += dyPre[i]!;
      }
      expect(dBias[2]).toBeCloseTo(sum, 12);
      expect(() =>
        epilogueForward(p, conv, { activation: 'relu', bias: new Float64Array(3) }),
      ).toThrow('bias holds 3 elements but the epilogue needs 4');
    },
  );
});
