/**
 * The tails' reference against sums written here from the definition: a transposed convolution's
 * epilogue and its backward (channels of the transposed output, both layouts), and an input
 * activation's backward after backward-data (from the output and from the pre-activation agree
 * where both apply).
 */
import { describe, expect, it } from 'vitest';
import { convTranspose3dForward, type TransposeProblem } from './conv-transpose3d.js';
import { activate, activationDerivative } from './epilogue.js';
import type { ConvProblem } from './problem.js';
import { randomArray, seededRandom } from './random.js';
import {
  convInput,
  epilogueBackwardOn,
  epilogueForwardOn,
  inputActivationBackward,
  transposeInput,
  transposeOutput,
} from './tails.js';

const up = (layout: 'ncdhw' | 'ndhwc'): TransposeProblem => ({
  n: 2,
  cIn: 4,
  cOut: 3,
  in: [2, 3, 2],
  k: [2, 3, 2],
  pad: [0, 1, 0],
  outputPadding: [1, 0, 1],
  stride: [2, 1, 2],
  dil: [1, 1, 1],
  groups: 1,
  layout,
});

/** The channel of element i of a [n, c, d, h, w] tensor in the layout, from its index. */
function channel(i: number, c: number, spatial: number, layout: 'ncdhw' | 'ndhwc'): number {
  return layout === 'ncdhw' ? Math.floor(i / spatial) % c : i % c;
}

describe('the tails reference', () => {
  for (const layout of ['ncdhw', 'ndhwc'] as const) {
    it(`transposed epilogue: act(convT + bias[c] + z) over the transposed output's channels (${layout})`, () => {
      const p = up(layout);
      const rnd = seededRandom(7);
      const t = transposeOutput(p);
      expect(t.dims).toEqual([5, 3, 5]);
      const x = randomArray(2 * 4 * 12, rnd);
      const w = randomArray(4 * 3 * 12, rnd);
      const conv = convTranspose3dForward(p, x, w);
      const spatial = 5 * 3 * 5;
      const bias = randomArray(3, rnd);
      const z = randomArray(conv.length, rnd);
      const spec = { activation: 'silu', bias, z } as const;
      const { y, pre } = epilogueForwardOn(t, conv, spec);
      for (let i = 0; i < conv.length; i++) {
        const v = conv[i]! + bias[channel(i, 3, spatial, layout)]! + z[i]!;
        expect(pre[i]).toBeCloseTo(v, 14);
        expect(y[i]).toBeCloseTo(v / (1 + Math.exp(-v)), 14);
      }
      const dy = randomArray(conv.length, rnd);
      const { dyPre, dBias } = epilogueBackwardOn(t, dy, pre, spec);
      const sums = [0, 0, 0];
      for (let i = 0; i < conv.length; i++) {
        const g = dy[i]! * activationDerivative(spec, pre[i]!);
        expect(dyPre[i]).toBeCloseTo(g, 14);
        sums[channel(i, 3, spatial, layout)]! += g;
      }
      for (let c = 0; c < 3; c++) expect(dBias[c]).toBeCloseTo(sums[c]!, 12);
    });
  }

  it('input activation backward: dx · act′, from the output and from the pre-activation alike', () => {
    const p: ConvProblem = {
      n: 1,
      cIn: 3,
      cOut: 2,
      in: [2, 2, 3],
      k: [1, 1, 1],
      pad: [0, 0, 0],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
      groups: 1,
      layout: 'ncdhw',
    };
    const t = convInput(p);
    const rnd = seededRandom(3);
    const pre = randomArray(36, rnd).map((v) => 3 * v);
    const dx = randomArray(36, rnd);
    for (const spec of [
      { activation: 'relu' },
      { activation: 'sigmoid' },
      { activation: 'tanh' },
      { activation: 'clamp', min: -1, max: 1 },
    ] as const) {
      const out = pre.map((v) => activate(spec, v));
      const fromPre = inputActivationBackward(t, dx, pre, spec);
      const fromOut = inputActivationBackward(t, dx, out, spec, true);
      for (let i = 0; i < 36; i++) {
        expect(fromPre[i]).toBeCloseTo(dx[i]! * activationDerivative(spec, pre[i]!), 14);
        expect(fromOut[i]).toBeCloseTo(fromPre[i]!, 10);
      }
    }
    expect(transposeInput(up('ncdhw'))).toEqual({ n: 2, c: 4, dims: [2, 3, 2], layout: 'ncdhw' });
  });
});
