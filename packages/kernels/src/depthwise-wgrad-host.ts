/** What backward-filter's two-pass launch computes, on the host in f64 (for tests). */
import type { DepthwiseLaunch } from './depthwise-launch.js';
import { WGRAD_TAPS } from './depthwise-wgrad.js';
import { WGRAD_ROW_V } from './depthwise-wgrad-row.js';

/** What {@link wgradHost} returns: dw, and pass 1's partial sums as the workspace holds them. */
export interface WgradHostResult {
  readonly out: Float64Array;
  /** [slot][C][taps], slot y the sum over the slices y, y + slots, …, in order. */
  readonly partials: Float64Array;
}

/**
 * Backward-filter as `wgrad`/`wgradcl` then `wgradsum` compute it, read from the launch's own
 * parameters (cuda/depthwise-wgrad.cuh): block (c or channel group, slot y, tap group z) sums the
 * slices y, y + slots, … (slice k: chunk k % chunks of sample k / chunks, positions
 * [chunk · len, + len) of the output plane) into partial[y][c][t], every element written once
 * (a second write throws); then dw = alpha · Σ_y partial[y] (in slot order) + beta · dw.
 * `x`, `dy` are NCDHW (wgrad) or NDHWC (wgradcl); `out` is dw [C][taps].
 */
export function wgradHost(
  launch: DepthwiseLaunch,
  x: ArrayLike<number>,
  dy: ArrayLike<number>,
  out: Float64Array,
  alpha: number,
  beta: number,
): WgradHostResult {
  const reduce = launch.reduce;
  const kernels = ['wgrad', 'wgradcl', 'wgradrow'];
  if (reduce === undefined || !kernels.includes(launch.kernel)) {
    throw new Error(`wgradHost takes a two-pass backward-filter launch, not ${launch.kernel}`);
  }
  const q = launch.ints;
  const [channels, iD, iH, iW, oD, oH, oW, kD, kH, kW] = q as readonly number[] as [
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
  const [sD, sH, sW, pD, pH, pW, dD, dH, dW, chunks, len] = q.slice(10) as [
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
    number,
  ];
  const cl = launch.kernel === 'wgradcl';
  const taps = kD * kH * kW;
  const batch = launch.planes / channels;
  const inPlane = iD * iH * iW;
  const outPlane = oD * oH * oW;
  const [gridX, slots, groups] = launch.grid;
  // Taps a block sums: all of them in wgradrow (one group), WGRAD_TAPS in the others.
  const perGroup = launch.kernel === 'wgradrow' ? taps : WGRAD_TAPS;
  if (slots !== reduce.slots || reduce.count !== channels * taps) {
    throw new Error('the launch and its reduce disagree on the slots or the count');
  }
  // The output positions of chunk `chunk` of a sample's plane: positions (wgrad, wgradcl) or
  // segments of WGRAD_ROW_V outputs of a row (wgradrow) [chunk · len, + len).
  const segsRow = Math.ceil(oW / WGRAD_ROW_V);
  const slice = (chunk: number): number[] => {
    const lo = chunk * len;
    if (launch.kernel !== 'wgradrow') return range(lo, Math.min(outPlane, lo + len));
    const out: number[] = [];
    for (let s = lo; s < Math.min(oD * oH * segsRow, lo + len); s++) {
      const row = Math.floor(s / segsRow);
      const ow0 = (s - row * segsRow) * WGRAD_ROW_V;
      for (let v = ow0; v < Math.min(oW, ow0 + WGRAD_ROW_V); v++) out.push(row * oW + v);
    }
    return out;
  };
  const partials = new Float64Array(slots * channels * taps);
  const written = new Uint8Array(partials.length);
  const xAt = (n: number, c: number, i: number) =>
    cl ? (n * inPlane + i) * channels + c : (n * channels + c) * inPlane + i;
  const dyAt = (n: number, c: number, o: number) =>
    cl ? (n * outPlane + o) * channels + c : (n * channels + c) * outPlane + o;
  for (let bx = 0; bx < gridX; bx++) {
    const cs = cl ? range(bx * 32, Math.min(channels, bx * 32 + 32)) : [bx];
    for (let y = 0; y < slots; y++) {
      for (let z = 0; z < groups; z++) {
        const t0 = z * perGroup;
        for (const c of cs) {
          for (let t = t0; t < Math.min(taps, t0 + perGroup); t++) {
            const kd = Math.floor(t / (kH * kW));
            const kh = Math.floor(t / kW) % kH;
            const kw = t % kW;
            let sum = 0;
            for (let k = y; k < batch * chunks; k += slots) {
              const n = Math.floor(k / chunks);
              for (const o of slice(k - n * chunks)) {
                const od = Math.floor(o / (oH * oW));
                const oh = Math.floor(o / oW) % oH;
                const ow = o % oW;
                const id = od * sD - pD + kd * dD;
                const ih = oh * sH - pH + kh * dH;
                const iw = ow * sW - pW + kw * dW;
                if (id < 0 || id >= iD || ih < 0 || ih >= iH || iw < 0 || iw >= iW) continue;
                sum += x[xAt(n, c, (id * iH + ih) * iW + iw)]! * dy[dyAt(n, c, o)]!;
              }
            }
            const at = (y * channels + c) * taps + t;
            if (written[at] !== 0) throw new Error(`partial ${at} written twice`);
            written[at] = 1;
            partials[at] = sum;
          }
        }
      }
    }
  }
  if (written.includes(0)) throw new Error('a partial sum was never written');
  return { out: wgradSumHost(partials, slots, reduce.count, out, alpha, beta), partials };
}

/** Pass 2 (`wgradsum`): dw[e] = alpha · Σ over the slots in order of partial[s][e] + beta · dw[e]. */
function wgradSumHost(
  partials: Float64Array,
  slots: number,
  count: number,
  out: Float64Array,
  alpha: number,
  beta: number,
): Float64Array {
  for (let e = 0; e < count; e++) {
    let v = 0;
    for (let s = 0; s < slots; s++) v += partials[s * count + e]!;
    out[e] = alpha * v + (beta !== 0 ? beta * out[e]! : 0);
  }
  return out;
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: Math.max(0, hi - lo) }, (_, i) => lo + i);
}
