/**
 * Asymmetric and 'same' padding of Conv3dDescriptor: the API, its validation (exact messages),
 * output extents against a brute-force count of window positions, and what the plans do with it
 * on the fakes: the graph gets pre and post paddings, pinned mode refuses, the legacy fallback is
 * skipped, our depthwise kernels are not chosen, and backward-data as forward pads each side.
 */

import {
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  UnsupportedError,
} from '@baracuda/types';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { bwDataAsForward } from './bwdata-forward.js';
import { depthwiseUnsupported } from './depthwise.js';
import { Conv3dDescriptor, convOutputExtent } from './descriptor.js';
import { fakeStream, smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';
import { C } from './sys.js';
import { startTrace, stopTrace } from './trace-recorder.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fakeCudnn = useFakeCudnn();
const savedEngines = process.env.FAKE_CUDNN_ENGINES;
process.env.FAKE_CUDNN_ENGINES = '28';
afterAll(() => {
  if (savedEngines === undefined) delete process.env.FAKE_CUDNN_ENGINES;
  else process.env.FAKE_CUDNN_ENGINES = savedEngines;
});
const fakeCuda = useFakeCuda();

const base = () =>
  Conv3dDescriptor.create({
    batch: 1,
    cIn: 2,
    dIn: 5,
    hIn: 6,
    wIn: 7,
    cOut: 3,
    dFilt: 3,
    hFilt: 2,
    wFilt: 4,
    element: ElementKind.F32,
  });

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('withPadding: the three forms', () => {
  it('keeps the symmetric form (after = before) and its describe()', () => {
    const d = base().withPadding(1, 0, 2);
    expect([d.padD, d.padH, d.padW, d.padAfterD, d.padAfterH, d.padAfterW]).toEqual([
      1, 0, 2, 1, 0, 2,
    ]);
    expect(d.paddingMode).toBe('explicit');
    expect(d.describe()).toContain(' pad=1×0×2 stride=');
    expect(d.outputDims()).toEqual([5, 5, 8]);
  });

  it('takes before and after per axis; describe() shows both (before/after)', () => {
    const d = base().withPadding({ before: [0, 1, 2], after: [2, 0, 1] });
    expect([d.padD, d.padH, d.padW, d.padAfterD, d.padAfterH, d.padAfterW]).toEqual([
      0, 1, 2, 2, 0, 1,
    ]);
    expect(d.describe()).toContain(' pad=0×1×2/2×0×1 stride=');
    // (5 + 0 + 2 - 2 - 1) + 1, (6 + 1 + 0 - 1 - 1) + 1, (7 + 2 + 1 - 3 - 1) + 1
    expect(d.outputDims()).toEqual([5, 6, 7]);
    expect(d.yShape).toEqual([1, 3, 5, 6, 7]);
    // An asymmetric form with equal sides is the symmetric problem (the same autotune key).
    expect(
      base()
        .withPadding({ before: [1, 1, 1], after: [1, 1, 1] })
        .describe(),
    ).toBe(base().withPadding(1, 1, 1).describe());
  });

  it("'same' follows PyTorch: total dilation·(k−1), floor half before, the rest after", () => {
    const d = base().withPadding('same');
    // k = 3, 2, 4: totals 2, 1, 3.
    expect([d.padD, d.padH, d.padW, d.padAfterD, d.padAfterH, d.padAfterW]).toEqual([
      1, 0, 1, 1, 1, 2,
    ]);
    expect(d.paddingMode).toBe('same');
    expect(d.outputDims()).toEqual([5, 6, 7]);
    // Dilation set afterwards re-resolves it: totals 2·2, 3·1, 1·3.
    const dil = d.withDilation(2, 3, 1);
    expect([dil.padD, dil.padH, dil.padW, dil.padAfterD, dil.padAfterH, dil.padAfterW]).toEqual([
      2, 1, 1, 2, 2, 2,
    ]);
    expect(dil.outputDims()).toEqual([5, 6, 7]);
    // An explicit padding afterwards replaces it.
    expect(d.withPadding(0, 0, 0).paddingMode).toBe('explicit');
  });

  it("'same' takes stride 1 only: a typed error at withPadding and at validate", () => {
    const message =
      "Expected stride 1×1×1 with padding 'same' (PyTorch's rule: 'same' is defined for stride 1 only) " +
      'but received stride 1×2×1; give the padding explicitly';
    const e = errorOf(() => base().withStride(1, 2, 1).withPadding('same'));
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe(message);
    const late = base().withPadding('same').withStride(1, 2, 1);
    expect(errorOf(() => late.validate()).message).toBe(message);
  });

  it('refuses a malformed padding with typed errors naming what was expected', () => {
    const d = base();
    const e = errorOf(() => d.withPadding({ before: [1, 1], after: [1, 1, 1] } as never));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(
      'Expected an array of 3 non-negative integers [d, h, w] for padding.before but received an array of length 2',
    );
    expect(errorOf(() => d.withPadding({ before: [1, 1, 1] } as never)).message).toBe(
      'Expected an array of 3 non-negative integers [d, h, w] for padding.after but received undefined',
    );
    expect(errorOf(() => d.withPadding('valid' as never)).message).toBe(
      'Expected three numbers (d, h, w), { before: [d, h, w], after: [d, h, w] } or \'same\' for padding but received "valid" of type string',
    );
    expect(
      errorOf(() => d.withPadding({ before: [0, 0, 0], after: [0, -1, 0] }).validate()).message,
    ).toBe('Expected a non-negative integer for padAfterH but received -1 of type number');
    expect(
      errorOf(() => d.withPadding({ before: [0, 0, 0], after: [0, 0, 0.5] }).validate()).message,
    ).toBe('Expected a non-negative integer for padAfterW but received 0.5 of type number');
    expect(
      errorOf(() => d.withPadding({ before: [0, 0, 0], after: [2 ** 31, 0, 0] }).validate())
        .message,
    ).toBe("Expected padAfterD to fit cuDNN's int32 limit of 2147483647 but received 2147483648");
  });

  it('names both sides when an asymmetric output extent is empty', () => {
    const d = base()
      .withPadding({ before: [0, 0, 0], after: [0, 0, 0] })
      .withDilation(1, 1, 3);
    expect(
      errorOf(() => d.withPadding({ before: [0, 0, 1], after: [0, 0, 0] }).validate()).message,
    ).toBe(
      'Expected a positive output extent, but the output width is -1: wIn=7 padW=1 padAfterW=0 dilationW=3 wFilt=4 stride' +
        'W=1 gives (7 + 1 + 0 - 3*(4-1) - 1)/1 + 1 = -1',
    );
  });
});

/** How many window starts o·stride − before (o ≥ 0) fit the padded axis [−before, in + after). */
function bruteExtent(
  input: number,
  before: number,
  after: number,
  dil: number,
  k: number,
  stride: number,
): number {
  let count = 0;
  for (let start = -before; start + dil * (k - 1) < input + after; start += stride) count++;
  return count;
}

describe('output extents', () => {
  it('agree with a brute-force count of window positions over 5,000 seeded random descriptors', () => {
    let seed = 0x2545f491;
    const int = (lo: number, hi: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return lo + (seed % (hi - lo + 1));
    };
    let checked = 0;
    for (let i = 0; i < 5000; i++) {
      const input = [int(1, 12), int(1, 12), int(1, 12)];
      const k = [int(1, 5), int(1, 5), int(1, 5)];
      const dil = [int(1, 3), int(1, 3), int(1, 3)];
      const stride = [int(1, 3), int(1, 3), int(1, 3)];
      const before = [int(0, 4), int(0, 4), int(0, 4)];
      const after = [int(0, 4), int(0, 4), int(0, 4)];
      const expected = [0, 1, 2].map((a) =>
        bruteExtent(input[a]!, before[a]!, after[a]!, dil[a]!, k[a]!, stride[a]!),
      );
      const d = Conv3dDescriptor.create({
        batch: 1,
        cIn: 1,
        dIn: input[0]!,
        hIn: input[1]!,
        wIn: input[2]!,
        cOut: 1,
        dFilt: k[0]!,
        hFilt: k[1]!,
        wFilt: k[2]!,
        element: ElementKind.F32,
      })
        .withDilation(dil[0]!, dil[1]!, dil[2]!)
        .withStride(stride[0]!, stride[1]!, stride[2]!)
        .withPadding({ before: before as never, after: after as never });
      for (let a = 0; a < 3; a++) {
        const extent = convOutputExtent(
          input[a]!,
          before[a]!,
          dil[a]!,
          k[a]!,
          stride[a]!,
          after[a]!,
        );
        if (expected[a]! > 0) expect(extent).toBe(expected[a]);
        else expect(extent).toBeLessThanOrEqual(0);
      }
      if (expected.every((e) => e > 0)) {
        expect(d.outputDims()).toEqual(expected);
        checked++;
      } else {
        expect(() => d.validate()).toThrow(InvalidProblemError);
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('routes that take one padding per axis', () => {
  const asym = () =>
    smallProblem(ElementKind.F32).withPadding({ before: [0, 1, 0], after: [0, 2, 1] });

  it('our depthwise kernels are not chosen for asymmetric padding', () => {
    const dw = Conv3dDescriptor.create({
      batch: 1,
      cIn: 4,
      dIn: 4,
      hIn: 5,
      wIn: 6,
      cOut: 4,
      dFilt: 3,
      hFilt: 3,
      wFilt: 3,
      element: ElementKind.F32,
    }).withGroups(4);
    expect(depthwiseUnsupported(dw.withPadding(1, 1, 1), 'fw')).toBeNull();
    expect(
      depthwiseUnsupported(dw.withPadding({ before: [1, 1, 1], after: [1, 1, 2] }), 'fw'),
    ).toBe('asymmetric padding');
  });

  it('backward-data as forward pads dilation·(k−1) − before before and dilation·(k−1) − after after', () => {
    const d = Conv3dDescriptor.create({
      batch: 1,
      cIn: 2,
      dIn: 5,
      hIn: 6,
      wIn: 7,
      cOut: 3,
      dFilt: 3,
      hFilt: 2,
      wFilt: 4,
      element: ElementKind.F32,
    }).withPadding({ before: [0, 1, 2], after: [2, 0, 1] });
    const f = bwDataAsForward(d)!;
    expect([f.padD, f.padH, f.padW, f.padAfterD, f.padAfterH, f.padAfterW]).toEqual([
      2, 0, 1, 0, 1, 2,
    ]);
    expect(f.outputDims()).toEqual([5, 6, 7]);
    // Past the reach on one side only: null.
    expect(bwDataAsForward(d.withPadding({ before: [0, 0, 0], after: [3, 0, 0] }))).toBeNull();
    // And it is the adjoint: the forward of dy on the flipped filter is the layer's dx.
    expect(maxAdjointGap(d, f)).toBeLessThan(1e-12);
  });

  describe.skipIf(fakeCudnn === null || fakeCuda === null)('on the fakes', () => {
    it('the graph gets pre and post paddings; the trace of a symmetric problem sends before twice', () => {
      for (const [d, pre, post] of [
        [asym(), 'i64[0,1,0]', 'i64[0,2,1]'],
        [smallProblem(ElementKind.F32).withPadding(1, 0, 1), 'i64[1,0,1]', 'i64[1,0,1]'],
      ] as const) {
        const lines = startTrace();
        const plan = Conv3dPlan.selectSync(fakeStream, d);
        plan.queryFwWorkspaceSize();
        plan.dispose();
        stopTrace();
        const attr = (a: number) =>
          lines.filter((l) => l.includes(`, ${a}, ${C.CUDNN_TYPE_INT64}, `));
        expect(attr(C.CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS)).toEqual([
          expect.stringContaining(`, ${pre})`),
        ]);
        expect(attr(C.CUDNN_ATTR_CONVOLUTION_POST_PADDINGS)).toEqual([
          expect.stringContaining(`, ${post})`),
        ]);
      }
    });

    it('pinned mode refuses asymmetric padding at select, saying why and what to use', () => {
      const d = asym();
      const e = errorOf(() => Conv3dPlan.selectSync(fakeStream, d, { algorithm: 'pinned' }));
      expect(e).toBeInstanceOf(UnsupportedError);
      expect(e.message).toBe(
        `The legacy cuDNN API (cudnnSetConvolutionNdDescriptor), which pinned mode and the legacy fallback run, takes one padding per axis for both sides, and ${d.describe()} pads asymmetrically; use algorithm 'heuristic' or 'autotune', whose graph-API engines take pre and post paddings`,
      );
      // Symmetric problems still select pinned.
      Conv3dPlan.selectSync(fakeStream, smallProblem(ElementKind.F32), {
        algorithm: 'pinned',
      }).dispose();
    });

    it('the legacy fallback is skipped: no engine config, no legacy call, a typed error', () => {
      process.env.FAKE_CUDNN_ENGINES = '';
      try {
        const lines = startTrace();
        const plan = Conv3dPlan.selectSync(fakeStream, asym());
        const e = errorOf(() => plan.queryFwWorkspaceSize());
        plan.dispose();
        stopTrace();
        expect(e).toBeInstanceOf(UnsupportedError);
        expect(e.message).toMatch(/^The legacy cuDNN API .* pads asymmetrically; use algorithm/);
        expect(
          lines.filter((l) => /SetConvolutionNdDescriptor|FindConvolution|GetConvolution/.test(l)),
        ).toEqual([]);
      } finally {
        process.env.FAKE_CUDNN_ENGINES = '28';
      }
    });
  });
});

/**
 * |⟨bwData(dy), x⟩ − ⟨dy, conv(x)⟩|-style check done directly: dx of `d` by its definition, and
 * the forward of `f` on (dy, flipped w), compared element by element (largest gap).
 */
function maxAdjointGap(d: Conv3dDescriptor, f: Conv3dDescriptor): number {
  const rand = (n: number) =>
    Float64Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + n) * 0.5);
  const [N, C, D, H, W] = d.xShape as [number, number, number, number, number];
  const [, K, Od, Oh, Ow] = d.yShape as [number, number, number, number, number];
  const [kd, kh, kw] = [d.dFilt, d.hFilt, d.wFilt];
  const w = rand(K * C * kd * kh * kw); // [K, C, kd, kh, kw], groups 1
  const dy = rand(N * K * Od * Oh * Ow);
  const dx = new Float64Array(N * C * D * H * W);
  for (let k = 0; k < K; k++)
    for (let c = 0; c < C; c++)
      for (let od = 0; od < Od; od++)
        for (let oh = 0; oh < Oh; oh++)
          for (let ow = 0; ow < Ow; ow++)
            for (let td = 0; td < kd; td++)
              for (let th = 0; th < kh; th++)
                for (let tw = 0; tw < kw; tw++) {
                  const i = od + td * d.dilationD - d.padD;
                  const j = oh + th * d.dilationH - d.padH;
                  const l = ow + tw * d.dilationW - d.padW;
                  if (i < 0 || i >= D || j < 0 || j >= H || l < 0 || l >= W) continue;
                  dx[((c * D + i) * H + j) * W + l]! +=
                    dy[((k * Od + od) * Oh + oh) * Ow + ow]! *
                    w[(((k * C + c) * kd + td) * kh + th) * kw + tw]!;
                }
  // The forward of f: x = dy [K, Od, Oh, Ow], filter flipped [C, K, kd, kh, kw], y = dx.
  let gap = 0;
  for (let c = 0; c < C; c++)
    for (let i = 0; i < D; i++)
      for (let j = 0; j < H; j++)
        for (let l = 0; l < W; l++) {
          let s = 0;
          for (let k = 0; k < K; k++)
            for (let td = 0; td < kd; td++)
              for (let th = 0; th < kh; th++)
                for (let tw = 0; tw < kw; tw++) {
                  const od = i - f.padD + td * f.dilationD;
                  const oh = j - f.padH + th * f.dilationH;
                  const ow = l - f.padW + tw * f.dilationW;
                  if (od < 0 || od >= Od || oh < 0 || oh >= Oh || ow < 0 || ow >= Ow) continue;
                  const flipped =
                    w[
                      (((k * C + c) * kd + (kd - 1 - td)) * kh + (kh - 1 - th)) * kw + (kw - 1 - tw)
                    ]!;
                  s += dy[((k * Od + od) * Oh + oh) * Ow + ow]! * flipped;
                }
          gap = Math.max(gap, Math.abs(s - dx[((c * D + i) * H + j) * W + l]!));
        }
  return gap;
}
