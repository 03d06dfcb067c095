/** What the NDHWC marching kernel (`clmarch`) computes, on the host in f64 (for tests). */
import type { DepthwiseLaunch } from './depthwise-launch.js';

/**
 * `clmarch` read from the launch's own parameters and followed as cuda/depthwise-march.cuh runs
 * it: for each (sample, chunk of output depths [chunk · len, + len), column, channel) it walks
 * the input slices the chunk reads in depth order, adds each slice's in-range taps into the
 * rotating per-depth sums acc[j] (output depth od + j, od the depth the slice completes, j =
 * (kD − 1 − kd) · dD, j < 3), stores acc[0] once od reaches the chunk, then shifts. The filter
 * runs reversed with flip. out = alpha · Σ + beta · out (out not read when beta is 0). An output
 * stored twice, or never, throws.
 */
export function clmarchHost(
  launch: DepthwiseLaunch,
  input: ArrayLike<number>,
  w: ArrayLike<number>,
  out: Float64Array,
  alpha: number,
  beta: number,
): Float64Array {
  const q = launch.ints;
  const [C, iD, iH, iW, oD, oH, oW, kD, kH, kW] = q as unknown as number[];
  const [pD, pH, pW, dD, dH, dW, flip, , chunks, len] = q.slice(10) as unknown as number[];
  const taps = kD! * kH! * kW!;
  const reachD = (kD! - 1) * dD!;
  if (reachD + 1 > SPAN) throw new Error(`clmarch takes a reach in depth of ${SPAN} at most`);
  const batch = launch.planes / C!;
  const written = new Uint8Array(out.length);
  for (let n = 0; n < batch; n++) {
    for (let chunk = 0; chunk < chunks!; chunk++) {
      const odLo = chunk * len!;
      const odHi = Math.min(oD!, odLo + len!);
      for (let oh = 0; oh < oH!; oh++) {
        for (let ow = 0; ow < oW!; ow++) {
          for (let c = 0; c < C!; c++) {
            const acc = new Float64Array(SPAN);
            for (let id = odLo - pD!; id <= odHi - 1 - pD! + reachD; id++) {
              if (id >= 0 && id < iD!) {
                for (let kh = 0; kh < kH!; kh++) {
                  const ih = oh - pH! + kh * dH!;
                  if (ih < 0 || ih >= iH!) continue;
                  for (let kw = 0; kw < kW!; kw++) {
                    const iw = ow - pW! + kw * dW!;
                    if (iw < 0 || iw >= iW!) continue;
                    const v = input[(((n * iD! + id) * iH! + ih) * iW! + iw) * C! + c]!;
                    for (let j = 0; j < SPAN; j++) {
                      if (j > reachD || j % dD! !== 0) continue;
                      const kd = kD! - 1 - j / dD!;
                      const t = (kd * kH! + kh) * kW! + kw;
                      acc[j]! += v * w[c * taps + (flip === 1 ? taps - 1 - t : t)]!;
                    }
                  }
                }
              }
              const od = id + pD! - reachD;
              if (od >= odLo) {
                const at = (((n * oD! + od) * oH! + oh) * oW! + ow) * C! + c;
                if (written[at] !== 0) throw new Error(`clmarch output ${at} written twice`);
                written[at] = 1;
                out[at] = alpha * acc[0]! + (beta !== 0 ? beta * out[at]! : 0);
              }
              acc.copyWithin(0, 1);
              acc[SPAN - 1] = 0;
            }
          }
        }
      }
    }
  }
  if (written.includes(0)) throw new Error('a clmarch output was never written');
  return out;
}

/** The output depths the kernel keeps in registers (cuda's kMarchSpan). */
const SPAN = 3;
