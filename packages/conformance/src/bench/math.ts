/**
 * Pure arithmetic of the benchmark: problem sizes, the roofline floor, medians and geometric means.
 */
import type { BenchCase, BenchDtype, BenchLayout, BenchPass, BenchRowKey } from './types.js';

// The rotation rule and the median are the library's: autotune ranks candidates the way the bench
// times them.
export { MAX_ROTATION_SETS, median, ROTATE_BELOW_BYTES, rotationSets } from '@baracuda/kernels';

/** Bytes per element of a bench dtype (tf32 and 3xtf32 are f32 storage). */
export function elementBytes(dtype: BenchDtype): number {
  switch (dtype) {
    case 'f16':
    case 'bf16':
      return 2;
    case 'f32':
    case 'tf32':
    case '3xtf32':
      return 4;
    case 'f64':
      return 8;
  }
}

/** Output extents [d, h, w], PyTorch's formula. */
export function outputDims(c: BenchCase): [number, number, number] {
  const out = [0, 1, 2].map((i) => {
    const extent = c.in[i]!;
    const effective = c.dil[i]! * (c.k[i]! - 1) + 1;
    return Math.floor((extent + 2 * c.pad[i]! - effective) / c.stride[i]!) + 1;
  });
  return [out[0]!, out[1]!, out[2]!];
}

export interface TensorCounts {
  x: number;
  w: number;
  y: number;
}

/** Element counts of x (input), w (filter) and y (output). */
export function tensorElements(c: BenchCase): TensorCounts {
  const [od, oh, ow] = outputDims(c);
  const spatialIn = c.in[0]! * c.in[1]! * c.in[2]!;
  const kernel = c.k[0]! * c.k[1]! * c.k[2]!;
  return {
    x: c.n * c.cIn * spatialIn,
    w: c.cOut * (c.cIn / c.groups) * kernel,
    y: c.n * c.cOut * od * oh * ow,
  };
}

/**
 * Multiply-accumulates of the forward pass. Backward-data and backward-filter do the same
 * number, so every pass of a case shares it.
 */
export function convMacs(c: BenchCase): number {
  const [od, oh, ow] = outputDims(c);
  const kernel = c.k[0]! * c.k[1]! * c.k[2]!;
  return c.n * c.cOut * od * oh * ow * (c.cIn / c.groups) * kernel;
}

/** 2 · MACs. */
export function convFlops(c: BenchCase): number {
  return 2 * convMacs(c);
}

/**
 * Bytes a pass moves when each tensor is read or written exactly once: x + w + y at the dtype's
 * size. Every pass touches the same three shapes (fw reads x, w and writes y; bwData reads dy, w
 * and writes dx; bwFilter reads x, dy and writes dw).
 */
export function convBytes(c: BenchCase, dtype: BenchDtype): number {
  const t = tensorElements(c);
  return (t.x + t.w + t.y) * elementBytes(dtype);
}

/** TFLOP/s of a pass that took `ms`. */
export function tflopsOf(flops: number, ms: number): number {
  return flops / (ms * 1e-3) / 1e12;
}

/**
 * The roofline floor in ms: max(FLOPs / peak FLOP/s, bytes / bandwidth). A missing peak drops
 * its term; with neither, there is no floor (null).
 */
export function rooflineFloorMs(
  flops: number,
  bytes: number,
  peakFlopsPerS: number | null | undefined,
  bytesPerS: number | null | undefined,
): number | null {
  const terms: number[] = [];
  if (peakFlopsPerS && peakFlopsPerS > 0) terms.push(flops / peakFlopsPerS);
  if (bytesPerS && bytesPerS > 0) terms.push(bytes / bytesPerS);
  if (terms.length === 0) return null;
  return Math.max(...terms) * 1e3;
}

/** Geometric mean of positive finite values; null for an empty list. */
export function geomean(values: readonly number[]): number | null {
  const usable = values.filter((v) => Number.isFinite(v) && v > 0);
  if (usable.length === 0) return null;
  const logSum = usable.reduce((sum, v) => sum + Math.log(v), 0);
  return Math.exp(logSum / usable.length);
}

/** The stable id of a row, shared with the PyTorch script: `case|dtype|layout|pass`. */
export function rowId(key: BenchRowKey): string {
  return `${key.case}|${key.dtype}|${key.layout}|${key.pass}`;
}

/** Layouts a dtype is benchmarked in: ncdhw always, ndhwc for f16 and bf16 only. */
export function layoutsFor(dtype: BenchDtype, wanted: readonly BenchLayout[]): BenchLayout[] {
  return wanted.filter((l) => l === 'ncdhw' || dtype === 'f16' || dtype === 'bf16');
}

/** Passes in report order. */
export function passOrder(p: BenchPass): number {
  return p === 'fw' ? 0 : p === 'bwData' ? 1 : 2;
}
