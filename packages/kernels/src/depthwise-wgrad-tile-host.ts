/**
 * `wgradtile`'s pass 1 on the host, in the kernel's own order (cuda/depthwise-wgrad-tile.cuh), for
 * tests: what each thread sums, the butterfly in each warp and the warps in order.
 */
import type { DepthwiseLaunch } from './depthwise-launch.js';

/**
 * The partial sums [slot][C][taps] a `wgradtile` launch writes. Block (c, y), of T threads: thread
 * tid sums, for the slices k = y, y + slots, … (slice k: output depths [chunk · len, + len) of
 * sample k / chunks, chunk = k % chunks), each depth in order, its positions tid, tid + T, … of
 * the plane, every tap's staged input (0 outside the input) times dy, from 0; then in each warp
 * v[l] ← v[l] + v[l xor m] for m = 16, 8, 4, 2, 1 (lane 0's is the warp's), and the warps are added
 * from 0 in order. `round` rounds each operation's result to the accumulator (identity: f64;
 * Math.fround: f32, the kernel compiled without fused multiply-adds).
 */
export function wgradTilePartials(
  launch: DepthwiseLaunch,
  x: ArrayLike<number>,
  dy: ArrayLike<number>,
  round: (v: number) => number = (v) => v,
): Float64Array {
  if (launch.kernel !== 'wgradtile') {
    throw new Error(`wgradTilePartials takes a wgradtile launch, not ${launch.kernel}`);
  }
  const q = launch.ints;
  const [channels, iD, iH, iW, oD, oH, oW, kD, kH, kW] = q.slice(0, 10) as number[] as Ten;
  const [, , , pD, pH, pW, dD, dH, dW, chunks, len] = q.slice(10) as number[] as Eleven;
  const taps = kD * kH * kW;
  const batch = launch.planes / channels;
  const threads = launch.block[0];
  const slots = launch.grid[1];
  const plane = oH * oW;
  const inPlane = iD * iH * iW;
  const partials = new Float64Array(slots * channels * taps);
  const xAt = (n: number, c: number, id: number, ih: number, iw: number) =>
    id < 0 || id >= iD || ih < 0 || ih >= iH || iw < 0 || iw >= iW
      ? 0
      : x[(n * channels + c) * inPlane + (id * iH + ih) * iW + iw]!;
  for (let c = 0; c < channels; c++) {
    for (let y = 0; y < slots; y++) {
      const acc = Array.from({ length: threads }, () => new Float64Array(taps));
      for (let k = y; k < batch * chunks; k += slots) {
        const n = Math.floor(k / chunks);
        const d0 = (k - n * chunks) * len;
        for (let od = d0; od < Math.min(oD, d0 + len); od++) {
          for (let tid = 0; tid < threads; tid++) {
            const a = acc[tid]!;
            for (let o = tid; o < plane; o += threads) {
              const oh = Math.floor(o / oW);
              const ow = o % oW;
              const g = dy[((n * channels + c) * oD + od) * plane + o]!;
              for (let t = 0; t < taps; t++) {
                const kd = Math.floor(t / (kH * kW));
                const kh = Math.floor(t / kW) % kH;
                const kw = t % kW;
                const v = xAt(n, c, od - pD + kd * dD, oh - pH + kh * dH, ow - pW + kw * dW);
                a[t] = round(a[t]! + round(v * g));
              }
            }
          }
        }
      }
      for (let t = 0; t < taps; t++) {
        let sum = 0;
        for (let w = 0; w < threads / 32; w++) {
          let v = Array.from({ length: 32 }, (_, l) => acc[w * 32 + l]![t]!);
          for (let m = 16; m > 0; m >>= 1) v = v.map((e, l) => round(e + v[l ^ m]!));
          sum = round(sum + v[0]!);
        }
        partials[(y * channels + c) * taps + t] = sum;
      }
    }
  }
  return partials;
}

type Ten = [number, number, number, number, number, number, number, number, number, number];
type Eleven = [...Ten, number];
