// For depthwise-device-check.mjs: backward-filter on the GPU at full size checked against dw straight from its definition in f64 (the host emulation
// of the launch, depthwiseHost, is too slow at X3D's size; this plain loop takes about a second).
import { elementArray, loadElement, relL2 } from './device-helpers.mjs';

/** dw[c][t] = Σ over n and the output positions of x · dy, NCDHW, in f64. */
export function directDw(d, x, dy) {
  const [oD, oH, oW] = d.outputDims();
  const [iD, iH, iW] = [d.dIn, d.hIn, d.wIn];
  const [kD, kH, kW] = [d.dFilt, d.hFilt, d.wFilt];
  const C = d.cIn;
  const dw = new Float64Array(C * kD * kH * kW);
  for (let n = 0; n < d.batch; n++) {
    for (let c = 0; c < C; c++) {
      const xs = (n * C + c) * iD * iH * iW;
      const ys = (n * C + c) * oD * oH * oW;
      for (let t = 0; t < kD * kH * kW; t++) {
        const kd = Math.floor(t / (kH * kW));
        const kh = Math.floor(t / kW) % kH;
        const kw = t % kW;
        // The output columns whose input column is inside: e·s − p + kw·d in [0, iW).
        const shift = kw * d.dilationW - d.padW;
        const eLo = Math.max(0, Math.ceil(-shift / d.strideW));
        const eHi = Math.min(oW, Math.floor((iW - 1 - shift) / d.strideW) + 1);
        let sum = 0;
        for (let a = 0; a < oD; a++) {
          const id = a * d.strideD - d.padD + kd * d.dilationD;
          if (id < 0 || id >= iD) continue;
          for (let b = 0; b < oH; b++) {
            const ih = b * d.strideH - d.padH + kh * d.dilationH;
            if (ih < 0 || ih >= iH) continue;
            const row = xs + (id * iH + ih) * iW;
            const grad = ys + (a * oH + b) * oW;
            for (let e = eLo; e < eHi; e++) sum += x[row + e * d.strideW + shift] * dy[grad + e];
          }
        }
        dw[c * kD * kH * kW + t] += sum;
      }
    }
  }
  return dw;
}

/**
 * Each NCDHW backward-filter launch of `launches` on the GPU (dw poisoned with 0xff bytes first,
 * alpha 1, beta 0) against `want` (directDw of the operands as rounded to the element): one line
 * each, PASS or FAIL by relative L2 within `el.tol`. Returns the lines and the failures.
 */
export function checkWgrad(kernels, stream, o, name, launches, want) {
  const lines = [];
  let failed = 0;
  // The timing before wrote y (forward) and x (backward-data) in place: the operands again, as
  // `want` has them (run 75 checked the overwritten ones: both kernels 2.7e3 off, equally).
  o.x.uploadSync(o.hosts.x);
  o.y.uploadSync(o.hosts.y);
  for (const launch of launches) {
    const call = kernels.call(launch, o.el.kind);
    o.w.memsetSync(0xff);
    call.run(stream, o.x.devicePtr, o.y.devicePtr, o.w.devicePtr, 1, 0, o.ws.devicePtr);
    stream.synchronizeSync();
    const got = elementArray(name, o.d.wElements);
    o.w.downloadSync(got);
    const err = relL2(
      Float64Array.from(got, (_, i) => loadElement(name, got, i)),
      want,
    );
    const ok = err <= o.el.tol;
    if (!ok) failed++;
    lines.push(
      `${ok ? 'PASS' : 'FAIL'} x3d ${name} bwFilter ${launch.kernel} at full size against f64: rel L2 ${err.toExponential(2)}`,
    );
  }
  return { lines, failed };
}
