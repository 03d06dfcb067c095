/**
 * Which of our depthwise kernels takes a pass of a depthwise problem, and its launch: grid, block,
 * shared memory and the integer parameters cuda/depthwise.cu reads. Pure arithmetic.
 * @internal
 */
import { ElementKind, InvalidArgumentError } from '@baracuda/types';
import {
  type DepthwiseReduce,
  type WgradChoice,
  type WgradKernel,
  wgradGeometry,
  wgradUnsupported,
} from './depthwise-wgrad.js';
import type { Conv3dDescriptor } from './descriptor.js';
import { isAsymmetric } from './padding.js';

export type { DepthwiseReduce } from './depthwise-wgrad.js';

/** Bytes of one element of each kind the kernels take. */
function elementBytes(element: ElementKind): number {
  return element === ElementKind.F64 ? 8 : element === ElementKind.F32 ? 4 : 2;
}

/** Kernel name suffix of each element the kernels take. */
export const SUFFIX: Partial<Record<ElementKind, string>> = {
  [ElementKind.F32]: 'f32',
  [ElementKind.F64]: 'f64',
  [ElementKind.F16]: 'f16',
  [ElementKind.Bf16]: 'bf16',
};

/** The passes our depthwise kernels run. */
export type DepthwisePass = 'fw' | 'bwData' | 'bwFilter';

/**
 * Why our depthwise kernels cannot run a pass of a problem, or null when they can.
 * `maxWorkspaceBytes` bounds backward-filter's partial sums (the preference's; no bound if absent).
 */
export function depthwiseUnsupported(
  desc: Conv3dDescriptor,
  pass: DepthwisePass,
  maxWorkspaceBytes = Number.POSITIVE_INFINITY,
): string | null {
  if (SUFFIX[desc.element] === undefined) return `element ${desc.element}`;
  // The kernels take one padding per axis (the leading side); asymmetric problems go to cuDNN.
  if (isAsymmetric(desc)) return 'asymmetric padding';
  if (desc.groups < 2 || desc.groups !== desc.cIn || desc.cOut !== desc.cIn) {
    return `groups=${desc.groups} with ${desc.cIn}→${desc.cOut} channels (they take groups = C_in = C_out)`;
  }
  return pass === 'bwFilter' ? wgradUnsupported(desc, maxWorkspaceBytes) : null;
}

/** One launch of a depthwise kernel: which kernel, its geometry and its integer parameters. */
export interface DepthwiseLaunch {
  /**
   * gathercl: the gather kernel over NDHWC operands; clvec: the same with `vec` channels per thread
   * and the filter staged in shared memory; clmarch: NDHWC stride 1, `vec` channels of an output
   * column marching through a chunk of depths (cuda/depthwise-march.cuh); wgrad (NCDHW) and wgradcl (NDHWC): backward-filter's
   * pass 1, partial sums over slices of the batch, followed by `reduce`; wgradrow: NCDHW 3×3×3's
   * row-segment pass 1 (cuda/depthwise-wgrad-row.cuh), the same contract.
   */
  readonly kernel: 'tiled' | 'gather' | 'gathercl' | 'clvec' | 'clmarch' | WgradKernel;
  /**
   * tiled: the output depths one thread keeps in registers at most (3 or 8), at least the filter's
   * reach in depth, (kD − 1)·dD + 1; it picks the kernel function (`tiled3`, `tiled8`).
   */
  readonly span?: 3 | 8;
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  readonly sharedBytes: number;
  /** N × C: the planes of one operand. */
  readonly planes: number;
  /**
   * The `int` parameters in cuda/depthwise.cu's order. tiled: channels, in D/H/W, out D/H/W,
   * filter D/H/W, pads D/H/W, dilations D/H/W, flip, tilesW, chunk (output depths per block), rows
   * (output rows per thread). clmarch: channels, in D/H/W, out D/H/W, filter D/H/W, pads D/H/W
   * (as tiled's), dilations D/H/W, flip, vec, chunks (of output depths), len (depths a chunk).
   * gather and gathercl: channels,
   * in D/H/W, out D/H/W, filter D/H/W, strides D/H/W, pads D/H/W, dilations D/H/W, backward;
   * clvec: those and vec; wgrad, wgradcl and wgradrow: those but backward (x's extents are in, dy's
   * out), then chunks (slices a sample's output plane is cut into) and len (positions a slice;
   * wgradrow: segments of WGRAD_ROW_V outputs of a row).
   */
  readonly ints: readonly number[];
  /** Workspace the launch needs (pass 1's partial sums); 0 for the one-pass kernels. */
  readonly workspaceBytes: number;
  /** wgrad, wgradcl, wgradrow: pass 2 (`wgradsum`), the fixed-order sum of the partials into dw. */
  readonly reduce?: DepthwiseReduce;
}

export const TILE_W = 32;
/** Output rows of a tiled block per pass of its 8 thread rows; each thread takes `rows` of them. */
export const ROWS_PER_PASS = 8;
/** Output rows per thread of the tiled kernel at most (cuda/depthwise.cu's kMaxRows). */
export const MAX_ROWS = 4;
/** Patch elements of a tiled block at most: 6 loads for each of its 256 threads (kPatchLoads). */
const MAX_PATCH = 6 * 256;
/** Filter depth reach of each tiled kernel function: `tiled3`, `tiled8`. */
export const SPANS = [3, 8] as const;
/**
 * Blocks a tiled grid aims for at least, splitting the output depths into chunks: about one round
 * of the blocks an H200's 132 SMs hold at once (4 each). More chunks read more slices twice: on
 * X3D's layer (1,536 blocks unsplit) two chunks took 8% longer than one (run 49).
 */
const TILED_MIN_BLOCKS = 512;
const TILED_BLOCK: [number, number, number] = [32, 8, 1];
const GATHER_THREADS = 256;
/** Blocks of the grid-stride gather kernel at most (each loops over the rest). */
const GATHER_MAX_BLOCKS = 2 ** 20;
const MAX_GRID_X = 2 ** 31 - 1;
const MAX_GRID_YZ = 65535;
/** Static limit of shared memory per block without opting in to more. */
const MAX_SHARED_BYTES = 48 * 1024;
/**
 * Blocks of the NDHWC vector kernel at most: about 8 of 256 threads per SM of a 132-SM H200; each
 * stages the filter once and loops over the rest.
 */
const CLVEC_MAX_BLOCKS = 1024;
/** Filter reach in depth of the NDHWC marching kernel at most (cuda's kMarchSpan). */
const MARCH_SPAN = 3;
/** Threads the NDHWC marching kernel aims for at least: 2 rounds of an H200's 132 × 2,048. */
const MARCH_MIN_THREADS = 2 ** 19;
/** Its blocks at most (each stages the filter, then loops over the rest). */
const MARCH_MAX_BLOCKS = 2048;
/** Bytes one thread of the NDHWC vector kernel loads per tap at most. */
const CLVEC_LOAD_BYTES = 16;

/** Channels per thread of the NDHWC vector kernel: the most, up to 16 bytes, that divides C. */
export function clvecWidth(channels: number, elementBytes: number): number {
  let vec = Math.max(1, CLVEC_LOAD_BYTES / elementBytes);
  while (vec > 1 && channels % vec !== 0) vec /= 2;
  return vec;
}

/** The tiled kernel's output depths a block (chunk) and output rows a thread (rows, 1 to 4). */
export interface TiledShape {
  readonly chunk?: number;
  readonly rows?: number;
  /** false: NDHWC takes `clvec` where it would march (`clmarch`); the device check times both. */
  readonly march?: boolean;
  /**
   * NCDHW backward-filter's pass 1 where its shape allows, and `wgradrow`'s blocks (the device
   * check and tests; depthwise-wgrad.ts's WgradChoice).
   */
  readonly wgrad?: WgradChoice;
}

/**
 * How a pass of a depthwise problem launches. NDHWC with stride 1, a filter reach in depth of at
 * most 3 and tiled padding (below) not negative runs `clmarch` (the channels-last kernel that
 * marches in depth, loading each input slice once for the kD output depths it feeds); other NDHWC
 * problems the channels-last vector kernel (several channels per thread, the filter in shared
 * memory); either way the channels-last gather kernel when the filter would need more than
 * 48 KiB of shared memory. In
 * NCDHW, stride 1 runs the tiled kernel that marches in depth (backward-data as the forward kernel
 * on dy with the filter reversed and padding d·(k−1) − p, when that padding is not negative), when
 * the filter's reach in depth is at most 8 and a patch of its tile fits; anything else the
 * one-thread-per-element gather kernel. Backward-filter runs in two passes (depthwise-wgrad.ts:
 * partial sums over slices of the batch into `workspaceBytes`, at most `maxWorkspaceBytes`, then
 * their fixed-order sum). `tiled` sets the tiled kernel's chunk
 * and rows instead of choosing them (the device check times other shapes; a `rows` whose patch
 * does not fit still gathers).
 */
export function depthwiseLaunch(
  desc: Conv3dDescriptor,
  pass: DepthwisePass,
  tiled: TiledShape = {},
  maxWorkspaceBytes = Number.POSITIVE_INFINITY,
): DepthwiseLaunch {
  const [yD, yH, yW] = desc.outputDims();
  const xDims = [desc.dIn, desc.hIn, desc.wIn];
  const yDims = [yD, yH, yW];
  const k = [desc.dFilt, desc.hFilt, desc.wFilt];
  const s = [desc.strideD, desc.strideH, desc.strideW];
  const p = [desc.padD, desc.padH, desc.padW];
  const d = [desc.dilationD, desc.dilationH, desc.dilationW];
  const planes = desc.batch * desc.cIn;
  if (pass === 'bwFilter') {
    const g = wgradGeometry(desc, maxWorkspaceBytes, tiled.wgrad);
    return {
      kernel: g.kernel,
      grid: g.grid,
      block: g.block,
      sharedBytes: 0,
      planes,
      ints: [desc.cIn, ...xDims, ...yDims, ...k, ...s, ...p, ...d, g.chunks, g.len],
      workspaceBytes: g.workspaceBytes,
      reduce: g.reduce,
    };
  }
  const [inDims, outDims] = pass === 'fw' ? [xDims, yDims] : [yDims, xDims];
  const accBytes = desc.element === ElementKind.F64 ? 8 : 4;
  const tiledPads = pass === 'fw' ? p : p.map((pad, i) => d[i]! * (k[i]! - 1) - pad);
  const span = SPANS.find((v) => v >= (k[0]! - 1) * d[0]! + 1);
  // The most output rows a thread (up to what the plane needs) whose patch fits the kernel's loads.
  const patch = (r: number) =>
    (ROWS_PER_PASS * r + (k[1]! - 1) * d[1]!) * (TILE_W + (k[2]! - 1) * d[2]!);
  for (const [name, v, max] of [
    ['tiled.rows', tiled.rows, MAX_ROWS],
    ['tiled.chunk', tiled.chunk, Number.MAX_SAFE_INTEGER],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= max)) {
      throw new InvalidArgumentError(name, `an integer from 1 to ${max}`, v);
    }
  }
  let rows = tiled.rows ?? Math.min(MAX_ROWS, Math.ceil(outDims[1]! / ROWS_PER_PASS));
  while (tiled.rows === undefined && rows > 1 && patch(rows) > MAX_PATCH) rows--;
  const sharedBytes = (k[0]! * k[1]! * k[2]! + 2 * patch(rows)) * accBytes;
  const tilesW = Math.ceil(outDims[2]! / TILE_W);
  const tiles = Math.ceil(outDims[1]! / (ROWS_PER_PASS * rows)) * tilesW;
  if (
    desc.layout === 'ncdhw' &&
    span !== undefined &&
    s.every((v) => v === 1) &&
    tiledPads.every((v) => v >= 0) &&
    patch(rows) <= MAX_PATCH &&
    inDims[1]! * inDims[2]! < 2 ** 31 &&
    sharedBytes <= MAX_SHARED_BYTES &&
    tiles <= MAX_GRID_X
  ) {
    // Split the output depths while the grid is short of TILED_MIN_BLOCKS and a chunk stays at least
    // 4 times the slices read twice (the filter's reach past a chunk), so those stay under a quarter.
    const twice = (k[0]! - 1) * d[0]!;
    const planeBlocks = tiles * Math.min(planes, MAX_GRID_YZ);
    let chunk = tiled.chunk ?? outDims[0]!;
    while (
      tiled.chunk === undefined &&
      planeBlocks * Math.ceil(outDims[0]! / chunk) < TILED_MIN_BLOCKS &&
      chunk > 1 &&
      Math.ceil(chunk / 2) >= 4 * twice
    ) {
      chunk = Math.ceil(chunk / 2);
    }
    return {
      kernel: 'tiled',
      span,
      grid: [tiles, Math.ceil(outDims[0]! / chunk), Math.min(planes, MAX_GRID_YZ)],
      block: TILED_BLOCK,
      sharedBytes,
      planes,
      workspaceBytes: 0,
      ints: [
        desc.cIn,
        ...inDims,
        ...outDims,
        ...k,
        ...tiledPads,
        ...d,
        pass === 'fw' ? 0 : 1,
        tilesW,
        chunk,
        rows,
      ],
    };
  }
  const total = planes * outDims[0]! * outDims[1]! * outDims[2]!;
  const filterBytes = k[0]! * k[1]! * k[2]! * desc.cIn * accBytes;
  const reachD = (k[0]! - 1) * d[0]!;
  if (
    desc.layout === 'ndhwc' &&
    tiled.march !== false &&
    filterBytes <= MAX_SHARED_BYTES &&
    s.every((v) => v === 1) &&
    tiledPads.every((v) => v >= 0) &&
    reachD + 1 <= MARCH_SPAN
  ) {
    // Cut the output depths into chunks while the grid has fewer than MARCH_MIN_THREADS and a
    // chunk stays at least 4 times the slices read twice (as the tiled kernel's chunks).
    const vec = clvecWidth(desc.cIn, elementBytes(desc.element));
    const columns = (total / outDims[0]! / vec) | 0;
    let len = outDims[0]!;
    while (columns * Math.ceil(outDims[0]! / len) < MARCH_MIN_THREADS && len > 1) {
      const half = Math.ceil(len / 2);
      if (half < 4 * reachD) break;
      len = half;
    }
    const chunks = Math.ceil(outDims[0]! / len);
    return {
      kernel: 'clmarch',
      grid: [
        Math.max(1, Math.min(Math.ceil((columns * chunks) / GATHER_THREADS), MARCH_MAX_BLOCKS)),
        1,
        1,
      ],
      block: [GATHER_THREADS, 1, 1],
      sharedBytes: filterBytes,
      planes,
      workspaceBytes: 0,
      ints: [
        desc.cIn,
        ...inDims,
        ...outDims,
        ...k,
        ...tiledPads,
        ...d,
        pass === 'fw' ? 0 : 1,
        vec,
        chunks,
        len,
      ],
    };
  }
  if (desc.layout === 'ndhwc' && filterBytes <= MAX_SHARED_BYTES) {
    const vec = clvecWidth(desc.cIn, elementBytes(desc.element));
    return {
      kernel: 'clvec',
      grid: [
        Math.max(1, Math.min(Math.ceil(total / vec / GATHER_THREADS), CLVEC_MAX_BLOCKS)),
        1,
        1,
      ],
      block: [GATHER_THREADS, 1, 1],
      sharedBytes: filterBytes,
      planes,
      workspaceBytes: 0,
      ints: [desc.cIn, ...inDims, ...outDims, ...k, ...s, ...p, ...d, pass === 'fw' ? 0 : 1, vec],
    };
  }
  return {
    kernel: desc.layout === 'ndhwc' ? 'gathercl' : 'gather',
    grid: [Math.max(1, Math.min(Math.ceil(total / GATHER_THREADS), GATHER_MAX_BLOCKS)), 1, 1],
    block: [GATHER_THREADS, 1, 1],
    sharedBytes: 0,
    planes,
    workspaceBytes: 0,
    ints: [desc.cIn, ...inDims, ...outDims, ...k, ...s, ...p, ...d, pass === 'fw' ? 0 : 1],
  };
}

/**
 * Whether a plan that did not autotune runs a launch of ours rather than cuDNN's heuristic choice.
 * Ours: the NCDHW tiled kernel and the NDHWC kernels (measured faster than cuDNN's engines), and
 * backward-filter in every layout and element (two passes). cuDNN's heuristic first engine for a
 * depthwise backward-filter is a cliff: on X3D's layer (cuDNN 9.19) engine 20 took 40 ms in
 * f16/bf16 NCDHW and 51 ms in NDHWC, engine 0 2.1 ms in f32 and f64, engine 30 2.6 ms in TF32,
 * against PyTorch's 0.83–1.19 ms (runs 54 and 59; its tuned engine 61 took 0.10–0.17 ms). Only
 * the NCDHW gather kernel (strided forward and backward-data) is left to autotune.
 */
export function depthwiseUntuned(launch: DepthwiseLaunch): boolean {
  return launch.kernel !== 'gather';
}
