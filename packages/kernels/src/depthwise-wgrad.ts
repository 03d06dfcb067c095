/**
 * Depthwise backward-filter's launches (cuda/depthwise-wgrad.cuh): pass 1 (NCDHW: `wgradrow`
 * where depthwise-wgrad-row.ts takes the shape, else `wgrad`; `wgradcl` NDHWC) writes partial sums over slices of the batch into the plan's workspace, pass 2
 * (`wgradsum`) adds them in a fixed order into dw. Pure arithmetic.
 * @internal
 */
import { ElementKind } from '@baracuda/types';
import { wgradRowRefusal, wgradRowShape } from './depthwise-wgrad-row.js';
import type { Conv3dDescriptor } from './descriptor.js';

/** Taps one pass-1 block sums (cuda's kWgradTaps); the grid's z picks the group. */
export const WGRAD_TAPS = 16;
/** Threads of a pass-1 block: NCDHW (256), NDHWC (32 channels × 8 rows). */
const WGRAD_BLOCK_NCDHW: [number, number, number] = [256, 1, 1];
const WGRAD_BLOCK_NDHWC: [number, number, number] = [32, 8, 1];
/**
 * Pass-1 blocks aimed for at least: two rounds of the 8 blocks of 256 threads each of an H200's
 * 132 SMs holds. The batch is cut into slices until the grid has them (or a slice would get
 * fewer than 4 positions a thread, row of threads in NDHWC).
 */
const WGRAD_MIN_BLOCKS = 2048;
const WGRAD_MIN_LEN = { ncdhw: 4 * 256, ndhwc: 4 * 8 } as const;
const MAX_GRID_YZ = 65535;
const SUM_THREADS = 256;
const SUM_MAX_BLOCKS = 2 ** 20;

/** Pass 2 of a two-pass launch: the fixed-order sum of `slots` partials into each of `count`. */
export interface DepthwiseReduce {
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  /** Partial sums per element of dw (pass 1's grid y). */
  readonly slots: number;
  /** Elements of dw: C × taps. */
  readonly count: number;
}

/** Bytes of one partial sum: the accumulator (f64 for f64, f32 for the rest). */
function accBytes(desc: Conv3dDescriptor): number {
  return desc.element === ElementKind.F64 ? 8 : 4;
}

/** Workspace bytes of one slot of partial sums: C × taps accumulators. */
export function wgradSlotBytes(desc: Conv3dDescriptor): number {
  return desc.cIn * desc.dFilt * desc.hFilt * desc.wFilt * accBytes(desc);
}

/** Why the two-pass backward-filter cannot run a problem (null when it can). */
export function wgradUnsupported(desc: Conv3dDescriptor, maxWorkspaceBytes: number): string | null {
  const taps = desc.dFilt * desc.hFilt * desc.wFilt;
  if (Math.ceil(taps / WGRAD_TAPS) > MAX_GRID_YZ) {
    return `a backward-filter of ${taps} taps (at most ${WGRAD_TAPS * MAX_GRID_YZ})`;
  }
  // Every operand has fewer than 2^31 elements (Conv3dDescriptor checks), so the kernels' 32-bit
  // offsets within a plane fit.
  if (wgradSlotBytes(desc) > maxWorkspaceBytes) {
    return `a backward-filter needing ${wgradSlotBytes(desc)} bytes of workspace at least (C × taps partial sums) with preference.maxWorkspaceBytes ${maxWorkspaceBytes}`;
  }
  return null;
}

/** Backward-filter's pass-1 kernels. */
export type WgradKernel = 'wgrad' | 'wgradcl' | 'wgradrow';

/** What {@link wgradGeometry} may be told: a pass-1 kernel to take where the shape allows, and `wgradrow`'s blocks. */
export interface WgradChoice {
  /** NCDHW: this pass 1 where it takes the shape (else the default); the device check and tests. */
  readonly kernel?: 'wgrad' | 'wgradrow';
  /** `wgradrow`: blocks aimed for at least (WGRAD_ROW_MIN_BLOCKS by default). */
  readonly rowBlocks?: number;
}

/** Pass 1's geometry and parameters, pass 2's, and the workspace between them. */
export interface WgradGeometry {
  readonly kernel: WgradKernel;
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  /**
   * Output positions of one sample's plane a slice takes (wgradrow: segments), and the slices a
   * sample is cut into.
   */
  readonly len: number;
  readonly chunks: number;
  readonly workspaceBytes: number;
  readonly reduce: DepthwiseReduce;
}

/**
 * The two-pass launch of a problem's backward-filter. NCDHW takes the row-segment pass 1
 * (`wgradrow`) where depthwise-wgrad-row.ts takes the shape (a 3×3×3 filter, stride and dilation 1
 * along W), else `wgrad`; `choice.kernel` picks one where it takes the shape (the device check
 * and tests). `wgrad` cuts a sample's output positions into slices while the grid is short of
 * WGRAD_MIN_BLOCKS. Then as many slots of partial sums as slices (at most 65,535, and no more than
 * `maxWorkspaceBytes` holds: a slot then sums several slices, in order).
 * Call only where {@link wgradUnsupported} is null.
 */
export function wgradGeometry(
  desc: Conv3dDescriptor,
  maxWorkspaceBytes: number,
  choice: WgradChoice = {},
): WgradGeometry {
  const taps = desc.dFilt * desc.hFilt * desc.wFilt;
  if ((choice.kernel ?? 'wgradrow') === 'wgradrow' && wgradRowRefusal(desc) === null) {
    const row = wgradRowShape(desc, choice.rowBlocks);
    const slots = wgradSlots(desc, desc.batch * row.chunks, maxWorkspaceBytes);
    return {
      kernel: 'wgradrow',
      grid: [desc.cIn, slots, 1],
      block: [row.threads, 1, 1],
      len: row.len,
      chunks: row.chunks,
      workspaceBytes: slots * wgradSlotBytes(desc),
      reduce: wgradReduce(desc.cIn * taps, slots),
    };
  }
  const groups = Math.ceil(taps / WGRAD_TAPS);
  const ncdhw = desc.layout === 'ncdhw';
  const gridX = ncdhw ? desc.cIn : Math.ceil(desc.cIn / 32);
  const [oD, oH, oW] = desc.outputDims();
  const plane = oD * oH * oW;
  const batch = desc.batch;
  const want = Math.ceil(WGRAD_MIN_BLOCKS / (gridX * groups));
  const most = Math.max(1, Math.floor(plane / WGRAD_MIN_LEN[desc.layout]));
  let chunks = Math.min(most, Math.max(1, Math.ceil(want / batch)));
  if (batch * chunks >= 2 ** 31) chunks = 1;
  const len = Math.max(1, Math.ceil(plane / chunks));
  chunks = Math.max(1, Math.ceil(plane / len));
  const slots = wgradSlots(desc, batch * chunks, maxWorkspaceBytes);
  return {
    kernel: ncdhw ? 'wgrad' : 'wgradcl',
    grid: [gridX, slots, groups],
    block: ncdhw ? WGRAD_BLOCK_NCDHW : WGRAD_BLOCK_NDHWC,
    len,
    chunks,
    workspaceBytes: slots * wgradSlotBytes(desc),
    reduce: wgradReduce(desc.cIn * taps, slots),
  };
}

/** Slots of partial sums for `slices`: one each, at most 65,535 and what the workspace cap holds. */
function wgradSlots(desc: Conv3dDescriptor, slices: number, maxWorkspaceBytes: number): number {
  const fit = Math.max(1, Math.floor(maxWorkspaceBytes / wgradSlotBytes(desc)));
  return Math.min(slices, MAX_GRID_YZ, fit);
}

/** Pass 2: one thread per element of dw (grid-stride past SUM_MAX_BLOCKS blocks). */
function wgradReduce(count: number, slots: number): DepthwiseReduce {
  return {
    grid: [Math.max(1, Math.min(Math.ceil(count / SUM_THREADS), SUM_MAX_BLOCKS)), 1, 1],
    block: [SUM_THREADS, 1, 1],
    slots,
    count,
  };
}
