/** What our layout kernels compute, on the host (for tests and the device checks' references). */
import type { FilterFlip, TransposeShape } from './layout.js';

/** The CPU meaning of a filter flip, for tests (and the reference it is checked against). */
export function flipFilterHost<T extends { length: number; [i: number]: number }>(
  src: T,
  out: T,
  flip: FilterFlip,
): T {
  const { kg, cg, spatial, total } = flip;
  for (let o = 0; o < total; o++) {
    let k: number;
    let s: number;
    let oc: number;
    if (flip.layout === 'ndhwc') {
      k = o % kg;
      s = Math.floor(o / kg) % spatial;
      oc = Math.floor(o / (kg * spatial));
    } else {
      s = o % spatial;
      k = Math.floor(o / spatial) % kg;
      oc = Math.floor(o / (spatial * kg));
    }
    const g = Math.floor(oc / cg);
    const c = oc % cg;
    const row = g * kg + k;
    const tap = spatial - 1 - s;
    out[o] =
      src[
        flip.layout === 'ndhwc' ? (row * spatial + tap) * cg + c : (row * cg + c) * spatial + tap
      ]!;
  }
  return out;
}

/** The CPU meaning of one transpose, for tests (and the reference it is checked against). */
export function transposeHost<T extends { length: number; [i: number]: number }>(
  src: T,
  out: T,
  shape: TransposeShape,
): T {
  const { batch, rows, cols } = shape;
  for (let b = 0; b < batch; b++) {
    const base = b * rows * cols;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) out[base + c * rows + r] = src[base + r * cols + c]!;
    }
  }
  return out;
}
