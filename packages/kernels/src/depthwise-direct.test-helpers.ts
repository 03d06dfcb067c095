/** The depthwise passes straight from their definition, in f64, for the kernels' tests. */
import type { Conv3dDescriptor } from './descriptor.js';

/**
 * The passes by their definition, independent of the kernels' formulation: forward sums each
 * output's window; backward-data scatters each (output, tap) pair back to the input it read.
 */
export function direct(d: Conv3dDescriptor, x: Float64Array, w: Float64Array, dy: Float64Array) {
  const [oD, oH, oW] = d.outputDims();
  const [iD, iH, iW] = [d.dIn, d.hIn, d.wIn];
  const [kD, kH, kW] = [d.dFilt, d.hFilt, d.wFilt];
  const y = new Float64Array(d.yElements);
  const dx = new Float64Array(d.xElements);
  const dw = new Float64Array(d.wElements);
  // NDHWC: element (n, c, position) sits at (n·positions + position)·C + c.
  const at = (plane: number, positions: number, position: number) =>
    d.layout === 'ndhwc'
      ? (Math.floor(plane / d.cIn) * positions + position) * d.cIn + (plane % d.cIn)
      : plane * positions + position;
  for (let plane = 0; plane < d.batch * d.cIn; plane++) {
    const c = plane % d.cIn;
    for (let o0 = 0; o0 < oD; o0++)
      for (let o1 = 0; o1 < oH; o1++)
        for (let o2 = 0; o2 < oW; o2++) {
          const yi = at(plane, oD * oH * oW, (o0 * oH + o1) * oW + o2);
          for (let a = 0; a < kD; a++)
            for (let b = 0; b < kH; b++)
              for (let e = 0; e < kW; e++) {
                const i0 = o0 * d.strideD - d.padD + a * d.dilationD;
                const i1 = o1 * d.strideH - d.padH + b * d.dilationH;
                const i2 = o2 * d.strideW - d.padW + e * d.dilationW;
                if (i0 < 0 || i0 >= iD || i1 < 0 || i1 >= iH || i2 < 0 || i2 >= iW) continue;
                const xi = at(plane, iD * iH * iW, (i0 * iH + i1) * iW + i2);
                const tap = w[c * kD * kH * kW + (a * kH + b) * kW + e]!;
                y[yi]! += x[xi]! * tap;
                dx[xi]! += dy[yi]! * tap;
                dw[c * kD * kH * kW + (a * kH + b) * kW + e]! += x[xi]! * dy[yi]!;
              }
        }
  }
  return { y, dx, dw };
}
