/**
 * Which NCDHW backward-filter problems the tiled pass 1 (`wgradtile`,
 * cuda/depthwise-wgrad-tile.cuh) takes, and its block, shared memory and slices. Pure arithmetic;
 * depthwise-wgrad.ts adds the slots and pass 2, as for `wgrad`.
 * @internal
 */
import { ElementKind } from '@baracuda/types';
import type { Conv3dDescriptor } from './descriptor.js';

/** Taps a thread of `wgradtile` keeps in registers at most (cuda's kWgradTileTaps). */
export const WGRAD_TILE_TAPS = 27;
/** Threads of a block at most (cuda's kWgradThreads, its warp-sum array's size). */
const MAX_THREADS = 256;
/** Shared memory of a block at most without opting in to more (static and dynamic together). */
const MAX_SHARED_BYTES = 48 * 1024;
/**
 * Blocks aimed for at least, as `wgrad`'s WGRAD_MIN_BLOCKS: the output depths of a sample are cut
 * into slices until the grid (C × slices) has them. A slice costs no halo (each output depth
 * stages its own kD input slices), so a slice may be one depth.
 */
const MIN_BLOCKS = 2048;

/** A `wgradtile` launch's shape: block, dynamic shared memory and its slices of output depths. */
export interface WgradTileShape {
  readonly threads: number;
  readonly sharedBytes: number;
  /** Slices a sample's output depths are cut into, and the depths of one. */
  readonly chunks: number;
  readonly len: number;
}

/**
 * The tiled pass 1's shape for a problem, or null where it does not take it: NDHWC, a stride
 * other than 1, more than 27 taps, or a staged tile (kD input slices of the output plane plus the
 * filter's reach, in the accumulator type) past 48 KiB with the warp sums (dy is not staged).
 * The choice is by the shape alone. Threads: the fewest rounds of at most 256 over the plane's
 * positions, then the fewest warps that take those rounds (784 positions: 4 rounds of 224).
 */
export function wgradTileShape(desc: Conv3dDescriptor): WgradTileShape | null {
  if (desc.layout !== 'ncdhw') return null;
  if (desc.strideD !== 1 || desc.strideH !== 1 || desc.strideW !== 1) return null;
  const taps = desc.dFilt * desc.hFilt * desc.wFilt;
  if (taps > WGRAD_TILE_TAPS) return null;
  const [oD, oH, oW] = desc.outputDims();
  const acc = desc.element === ElementKind.F64 ? 8 : 4;
  const hp = oH + (desc.hFilt - 1) * desc.dilationH;
  const wp = oW + (desc.wFilt - 1) * desc.dilationW;
  const staged = desc.dFilt * hp * wp;
  const sums = (MAX_THREADS / 32) * WGRAD_TILE_TAPS;
  if ((staged + sums) * acc > MAX_SHARED_BYTES) return null;
  const plane = oH * oW;
  const rounds = Math.ceil(plane / MAX_THREADS);
  const threads = Math.min(MAX_THREADS, 32 * Math.ceil(plane / rounds / 32));
  const want = Math.ceil(MIN_BLOCKS / desc.cIn);
  let chunks = Math.min(oD, Math.max(1, Math.ceil(want / desc.batch)));
  if (desc.batch * chunks >= 2 ** 31) chunks = 1;
  const len = Math.ceil(oD / chunks);
  return { threads, sharedBytes: staged * acc, chunks: Math.ceil(oD / len), len };
}
