/** What a launch of our depthwise kernels computes, on the host in f64 (for tests). */
import { type DepthwiseLaunch, MAX_ROWS, ROWS_PER_PASS, TILE_W } from './depthwise-launch.js';
import { clmarchHost } from './depthwise-march-host.js';
import { wgradHost } from './depthwise-wgrad-host.js';
/**
 * What a launch computes, on the host in f64, read from the launch's own parameters exactly as
 * cuda/depthwise.cu reads them: out = alpha · Σ + beta · out (out not read when beta is 0). The
 * tiled kernel is followed block by block and thread by thread (its patches, chunks and rotating
 * per-depth sums); the others by their definition. For tests, against a direct definition of the
 * passes.
 */
export function depthwiseHost(
  launch: DepthwiseLaunch,
  input: ArrayLike<number>,
  w: ArrayLike<number>,
  out: Float64Array,
  alpha: number,
  beta: number,
): Float64Array {
  if (launch.kernel === 'tiled') return tiledHost(launch, input, w, out, alpha, beta);
  if (launch.kernel === 'clmarch') return clmarchHost(launch, input, w, out, alpha, beta);
  // input is x, w is dy, out is dw: the two passes, slot by slot.
  if (launch.reduce !== undefined) return wgradHost(launch, input, w, out, alpha, beta).out;
  const sums = new Float64Array(out.length);
  const taps = launch.ints[7]! * launch.ints[8]! * launch.ints[9]!;
  const channels = launch.ints[0]!;
  forEachTap(launch, (plane, at, o, t) => {
    sums[o]! += input[at]! * w[(plane % channels) * taps + t]!;
  });
  for (let o = 0; o < out.length; o++) {
    out[o] = alpha * sums[o]! + (beta !== 0 ? beta * out[o]! : 0);
  }
  return out;
}

/**
 * Every (plane, output position, tap t) of a gather-style launch (gather, gathercl, clvec)
 * whose input position is in range, read from the launch's parameters as cuda/depthwise.cu's
 * `forEachTap` reads them: visit(plane, input index, output index, t), the indices into the
 * operands (NDHWC for the channels-last kernels, NCDHW otherwise).
 */
function forEachTap(
  launch: DepthwiseLaunch,
  visit: (plane: number, at: number, o: number, t: number) => void,
): void {
  const q = launch.ints;
  const [channels, iD, iH, iW, oD, oH, oW, kD, kH, kW] = q as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const s = q.slice(10, 13);
  const p = q.slice(13, 16);
  const d = q.slice(16, 19);
  const backward = q[19] === 1;
  const inPlane = iD * iH * iW;
  const outPlane = oD * oH * oW;
  // Where (plane, position) is in an operand: NCDHW planes, or NDHWC with the channel fastest.
  const at =
    launch.kernel === 'gathercl' || launch.kernel === 'clvec'
      ? (plane: number, size: number, position: number) =>
          (Math.floor(plane / channels) * size + position) * channels + (plane % channels)
      : (plane: number, size: number, position: number) => plane * size + position;
  /** The input index a forward window or a backward gather reaches along one dimension, or -1. */
  const reach = (o: number, kk: number, dim: number, extent: number): number => {
    let a: number;
    if (backward) {
      const num = o + p[dim]! - kk * d[dim]!;
      if (num < 0 || num % s[dim]! !== 0) return -1;
      a = num / s[dim]!;
    } else {
      a = o * s[dim]! - p[dim]! + kk * d[dim]!;
    }
    return a >= 0 && a < extent ? a : -1;
  };
  for (let plane = 0; plane < launch.planes; plane++) {
    for (let o0 = 0; o0 < oD; o0++) {
      for (let o1 = 0; o1 < oH; o1++) {
        for (let o2 = 0; o2 < oW; o2++) {
          const o = at(plane, outPlane, (o0 * oH + o1) * oW + o2);
          for (let kd = 0; kd < kD; kd++) {
            const a = reach(o0, kd, 0, iD);
            if (a < 0) continue;
            for (let kh = 0; kh < kH; kh++) {
              const b = reach(o1, kh, 1, iH);
              if (b < 0) continue;
              for (let kw = 0; kw < kW; kw++) {
                const e = reach(o2, kw, 2, iW);
                if (e < 0) continue;
                visit(
                  plane,
                  at(plane, inPlane, (a * iH + b) * iW + e),
                  o,
                  (kd * kH + kh) * kW + kw,
                );
              }
            }
          }
        }
      }
    }
  }
}

/** {@link depthwiseHost} of a tiled launch: cuda/depthwise.cu's `tiled`, block by block. */
function tiledHost(
  launch: DepthwiseLaunch,
  input: ArrayLike<number>,
  w: ArrayLike<number>,
  out: Float64Array,
  alpha: number,
  beta: number,
): Float64Array {
  const [channels, iD, iH, iW, oD, oH, oW, kD, kH, kW, pD, pH, pW, dD, dH, dW, flip, tilesW] =
    launch.ints;
  const [chunk, rows] = launch.ints.slice(18) as [number, number];
  const span = launch.span ?? 0;
  const reachD = (kD! - 1) * dD!;
  if (reachD + 1 > span)
    throw new Error(`a filter reach of ${reachD + 1} needs more than span ${span}`);
  const nTaps = kD! * kH! * kW!;
  const rowsIn = ROWS_PER_PASS * rows + (kH! - 1) * dH!;
  const colsIn = TILE_W + (kW! - 1) * dW!;
  const [threadsX, threadsY] = launch.block;
  const [gridX, gridY, gridZ] = launch.grid;
  const tapAt = Array.from({ length: span }, (_, j) =>
    j <= reachD && j % dD! === 0 ? (kD! - 1 - j / dD!) * kH! * kW! : -1,
  );
  const patch = new Float64Array(rowsIn * colsIn);
  const threads = threadsX * threadsY;
  // acc[((thread * MAX_ROWS) + r) * span + j]
  const acc = new Float64Array(threads * MAX_ROWS * span);
  for (let z = 0; z < gridZ; z++) {
    for (let plane = z; plane < launch.planes; plane += gridZ) {
      const c = plane % channels!;
      const taps = Array.from(
        { length: nTaps },
        (_, t) => w[c * nTaps + (flip ? nTaps - 1 - t : t)]!,
      );
      const src = plane * iD! * iH! * iW!;
      const dst = plane * oD! * oH! * oW!;
      for (let bx = 0; bx < gridX; bx++) {
        for (let by = 0; by < gridY; by++) {
          const oh0 = Math.floor(bx / tilesW!) * ROWS_PER_PASS * rows;
          const ow0 = (bx % tilesW!) * TILE_W;
          const odLo = by * chunk;
          const odHi = Math.min(oD!, odLo + chunk);
          acc.fill(0);
          for (let id = odLo - pD!; id <= odHi - 1 - pD! + reachD; id++) {
            if (id >= 0 && id < iD!) {
              for (let i = 0; i < patch.length; i++) {
                const r = Math.floor(i / colsIn);
                const ih = oh0 - pH! + r;
                const iw = ow0 - pW! + (i - r * colsIn);
                patch[i] =
                  ih >= 0 && ih < iH! && iw >= 0 && iw < iW!
                    ? input[src + (id * iH! + ih) * iW! + iw]!
                    : 0;
              }
              for (let t = 0; t < threads; t++) {
                const tx = t % threadsX;
                const ty = Math.floor(t / threadsX);
                for (let kh = 0; kh < kH!; kh++) {
                  for (let kw = 0; kw < kW!; kw++) {
                    for (let r = 0; r < rows; r++) {
                      const v = patch[(ty * rows + r + kh * dH!) * colsIn + tx + kw * dW!]!;
                      for (let j = 0; j < span; j++) {
                        if (tapAt[j]! < 0) continue;
                        acc[(t * MAX_ROWS + r) * span + j]! += v * taps[tapAt[j]! + kh * kW! + kw]!;
                      }
                    }
                  }
                }
              }
            }
            const od = id + pD! - reachD;
            for (let t = 0; t < threads; t++) {
              const ow = ow0 + (t % threadsX);
              for (let r = 0; r < MAX_ROWS; r++) {
                const a = (t * MAX_ROWS + r) * span;
                const oh = oh0 + Math.floor(t / threadsX) * rows + r;
                if (od >= odLo && r < rows && oh < oH! && ow < oW!) {
                  const o = dst + (od * oH! + oh) * oW! + ow;
                  out[o] = alpha * acc[a]! + (beta !== 0 ? beta * out[o]! : 0);
                }
                acc.copyWithin(a, a + 1, a + span);
                acc[a + span - 1] = 0;
              }
            }
          }
        }
      }
    }
  }
  return out;
}
