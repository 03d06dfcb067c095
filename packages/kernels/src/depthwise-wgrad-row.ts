/**
 * Which NCDHW backward-filter problems the row-segment pass 1 (`wgradrow`,
 * cuda/depthwise-wgrad-row.cuh) takes, and its segments and slices. Pure arithmetic;
 * depthwise-wgrad.ts adds the slots and pass 2, as for `wgrad`.
 * @internal
 */
import type { Conv3dDescriptor } from './descriptor.js';

/** Outputs of one output row a segment takes (cuda's kWgradRowV). */
export const WGRAD_ROW_V = 4;
/** Threads of a block (a multiple of 32, at most cuda's kWgradThreads). */
export const WGRAD_ROW_THREADS = 256;
/**
 * Blocks aimed for at least: the batch is cut into slices until the grid (C × slices) has them,
 * or a slice would get fewer than WGRAD_ROW_MIN_SEGMENTS segments a thread.
 */
export const WGRAD_ROW_MIN_BLOCKS = 1024;
const WGRAD_ROW_MIN_SEGMENTS = 4;

/** A `wgradrow` launch's slices: a sample's segments cut into `chunks` of `len`. */
export interface WgradRowShape {
  readonly threads: number;
  readonly chunks: number;
  readonly len: number;
  /** Segments of one sample's output plane: output rows × ⌈outW / WGRAD_ROW_V⌉. */
  readonly segments: number;
}

/**
 * Why `wgradrow` does not take a problem, or null where it does: NCDHW, a 3×3×3 filter, stride 1
 * and dilation 1 along W (any stride, dilation and padding along D and H, any padding along W).
 * The choice is by the shape alone.
 */
export function wgradRowRefusal(desc: Conv3dDescriptor): string | null {
  if (desc.layout !== 'ncdhw') return 'NDHWC';
  if (desc.dFilt !== 3 || desc.hFilt !== 3 || desc.wFilt !== 3) {
    return `a ${desc.dFilt}×${desc.hFilt}×${desc.wFilt} filter (it takes 3×3×3)`;
  }
  if (desc.strideW !== 1 || desc.dilationW !== 1) {
    return `stride ${desc.strideW} and dilation ${desc.dilationW} along W (it takes 1 and 1)`;
  }
  return null;
}

/** `wgradrow`'s slices of a problem it takes ({@link wgradRowRefusal} null), at least `minBlocks` blocks aimed for. */
export function wgradRowShape(
  desc: Conv3dDescriptor,
  minBlocks = WGRAD_ROW_MIN_BLOCKS,
): WgradRowShape {
  const [oD, oH, oW] = desc.outputDims();
  const segments = oD * oH * Math.ceil(oW / WGRAD_ROW_V);
  const want = Math.ceil(minBlocks / desc.cIn);
  const most = Math.max(1, Math.floor(segments / (WGRAD_ROW_MIN_SEGMENTS * WGRAD_ROW_THREADS)));
  let chunks = Math.min(most, Math.max(1, Math.ceil(want / desc.batch)));
  if (desc.batch * chunks >= 2 ** 31) chunks = 1;
  const len = Math.ceil(segments / chunks);
  return { threads: WGRAD_ROW_THREADS, chunks: Math.ceil(segments / len), len, segments };
}
