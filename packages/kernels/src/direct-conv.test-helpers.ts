/**
 * A direct f64 convolution for tests (cross-correlation, PyTorch semantics, both layouts, groups
 * 1): out = alpha·pass + beta·out. Deliberately naive, so that it is obviously right.
 */
import type { Conv3dPass } from './core/pass.js';
import type { Conv3dDescriptor } from './descriptor.js';

/** out = alpha·pass(a, b) + beta·out: fw (x, w → y), bwData (w, dy → dx), bwFilter (x, dy → dw). */
export function directConv(
  d: Conv3dDescriptor,
  pass: Conv3dPass,
  ops: { x: Float64Array; w: Float64Array; y: Float64Array },
  alpha = 1,
  beta = 0,
): void {
  const [od, oh, ow] = d.outputDims();
  const { batch: N, cIn: C, cOut: K, dIn: D, hIn: H, wIn: W } = d;
  const [kd, kh, kw] = [d.dFilt, d.hFilt, d.wFilt];
  const ndhwc = d.layout === 'ndhwc';
  const xi = (n: number, c: number, z: number, h: number, w: number) =>
    ndhwc ? (((n * D + z) * H + h) * W + w) * C + c : (((n * C + c) * D + z) * H + h) * W + w;
  const wi = (k: number, c: number, z: number, h: number, w: number) =>
    ndhwc ? (((k * kd + z) * kh + h) * kw + w) * C + c : (((k * C + c) * kd + z) * kh + h) * kw + w;
  const yi = (n: number, k: number, z: number, h: number, w: number) =>
    ndhwc ? (((n * od + z) * oh + h) * ow + w) * K + k : (((n * K + k) * od + z) * oh + h) * ow + w;
  const out = pass === 'fw' ? ops.y : pass === 'bwData' ? ops.x : ops.w;
  const acc = new Float64Array(out.length);
  for (let n = 0; n < N; n++)
    for (let k = 0; k < K; k++)
      for (let c = 0; c < C; c++)
        for (let z = 0; z < od; z++)
          for (let h = 0; h < oh; h++)
            for (let w = 0; w < ow; w++)
              for (let a = 0; a < kd; a++)
                for (let b = 0; b < kh; b++)
                  for (let e = 0; e < kw; e++) {
                    const iz = z * d.strideD - d.padD + a * d.dilationD;
                    const ih = h * d.strideH - d.padH + b * d.dilationH;
                    const iw = w * d.strideW - d.padW + e * d.dilationW;
                    if (iz < 0 || iz >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                    const x = xi(n, c, iz, ih, iw);
                    const f = wi(k, c, a, b, e);
                    const y = yi(n, k, z, h, w);
                    if (pass === 'fw') acc[y]! += ops.x[x]! * ops.w[f]!;
                    else if (pass === 'bwData') acc[x]! += ops.y[y]! * ops.w[f]!;
                    else acc[f]! += ops.x[x]! * ops.y[y]!;
                  }
  for (let i = 0; i < out.length; i++) out[i] = alpha * acc[i]! + (beta === 0 ? 0 : beta * out[i]!);
}
