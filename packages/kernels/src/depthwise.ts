/**
 * Depthwise convolution (groups = C_in = C_out, NCDHW or NDHWC) forward and backward-data on our
 * own kernels (cuda/depthwise.cu, shipped as PTX in depthwise-ptx.ts and compiled by the driver
 * at first use): Conv3dPlan's 'native' path. cuDNN has no fast kernel for these: on an H200 its
 * best engines took 2.2–2.4× PyTorch's own depthwise kernel on X3D's 3×3×3 layer in NCDHW
 * (forward) and 1.5× (backward-data), and ~1.4 ms in NDHWC f16/bf16, under 2% of the roofline.
 * Backward-filter runs on our kernel in NCDHW (cuDNN's engines took 2.2× PyTorch's own kernel on
 * X3D's layer in f64, run 52); in NDHWC it stays on cuDNN.
 * @internal
 */
import { ElementKind, InvalidArgumentError, UnsupportedError } from '@baracuda/types';
import { DEPTHWISE_PTX } from './depthwise-ptx.js';
import type { Conv3dDescriptor } from './descriptor.js';
import { type ModuleLoader, perDevice } from './module-cache.js';
import { type DeviceLike, driver, type KernelFunctionLike, type StreamLike } from './sys.js';

/** Bytes of one element of each kind the kernels take. */
function elementBytes(element: ElementKind): number {
  return element === ElementKind.F64 ? 8 : element === ElementKind.F32 ? 4 : 2;
}

/** Kernel name suffix of each element the kernels take. */
const SUFFIX: Partial<Record<ElementKind, string>> = {
  [ElementKind.F32]: 'f32',
  [ElementKind.F64]: 'f64',
  [ElementKind.F16]: 'f16',
  [ElementKind.Bf16]: 'bf16',
};

/** The passes our depthwise kernels run. */
export type DepthwisePass = 'fw' | 'bwData' | 'bwFilter';

/** Why our depthwise kernels cannot run a pass of a problem, or null when they can. */
export function depthwiseUnsupported(desc: Conv3dDescriptor, pass: DepthwisePass): string | null {
  if (SUFFIX[desc.element] === undefined) return `element ${desc.element}`;
  if (desc.groups < 2 || desc.groups !== desc.cIn || desc.cOut !== desc.cIn) {
    return `groups=${desc.groups} with ${desc.cIn}→${desc.cOut} channels (they take groups = C_in = C_out)`;
  }
  if (pass !== 'bwFilter') return null;
  if (desc.layout === 'ndhwc') return 'backward-filter in NDHWC';
  const taps = desc.dFilt * desc.hFilt * desc.wFilt;
  if (wgradSharedBytes(taps) > WGRAD_MAX_OFFSET_BYTES) {
    return `a backward-filter of ${taps} taps (at most ${WGRAD_MAX_OFFSET_BYTES / 16})`;
  }
  if (desc.dIn * desc.hIn * desc.wIn >= 2 ** 31) {
    return `a backward-filter over planes of 2^31 elements or more (${desc.dIn}×${desc.hIn}×${desc.wIn})`;
  }
  return null;
}

/** One launch of a depthwise kernel: which kernel, its geometry and its integer parameters. */
export interface DepthwiseLaunch {
  /**
   * gathercl: the gather kernel over NDHWC operands; clvec: the same with `vec` channels per thread
   * and the filter staged in shared memory; wgrad: backward-filter (NCDHW), a block per channel.
   */
  readonly kernel: 'tiled' | 'gather' | 'gathercl' | 'clvec' | 'wgrad';
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
   * (output rows per thread). gather and gathercl: channels,
   * in D/H/W, out D/H/W, filter D/H/W, strides D/H/W, pads D/H/W, dilations D/H/W, backward;
   * clvec: those and vec; wgrad: those but backward (x's extents are in, dy's out).
   */
  readonly ints: readonly number[];
}

const TILE_W = 32;
/** Output rows of a tiled block per pass of its 8 thread rows; each thread takes `rows` of them. */
const ROWS_PER_PASS = 8;
/** Output rows per thread of the tiled kernel at most (cuda/depthwise.cu's kMaxRows). */
const MAX_ROWS = 4;
/** Patch elements of a tiled block at most: 6 loads for each of its 256 threads (kPatchLoads). */
const MAX_PATCH = 6 * 256;
/** Filter depth reach of each tiled kernel function: `tiled3`, `tiled8`. */
const SPANS = [3, 8] as const;
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
/** wgrad's dynamic shared memory at most, beside its 2 KiB of sums (16 × 16 f64). */
const WGRAD_MAX_OFFSET_BYTES = MAX_SHARED_BYTES - 2 * 1024;
/** wgrad's taps per pass over x and dy (cuda/depthwise.cu's kWgradTaps). */
const WGRAD_TAPS = 16;
/** wgrad's dynamic shared memory: an int4 of offsets a tap, the taps rounded up to 16. */
function wgradSharedBytes(taps: number): number {
  return Math.ceil(taps / WGRAD_TAPS) * WGRAD_TAPS * 16;
}
/**
 * Blocks of the NDHWC vector kernel at most: about 8 of 256 threads per SM of a 132-SM H200; each
 * stages the filter once and loops over the rest.
 */
const CLVEC_MAX_BLOCKS = 1024;
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
}

/**
 * How a pass of a depthwise problem launches. NDHWC runs the channels-last vector kernel (several
 * channels per thread, the filter in shared memory), or the channels-last gather kernel when the
 * filter would need more than 48 KiB of shared memory. In
 * NCDHW, stride 1 runs the tiled kernel that marches in depth (backward-data as the forward kernel
 * on dy with the filter reversed and padding d·(k−1) − p, when that padding is not negative), when
 * the filter's reach in depth is at most 8 and a patch of its tile fits; anything else the
 * one-thread-per-element gather kernel. Backward-filter (NCDHW; see {@link depthwiseUnsupported})
 * runs the wgrad kernel, a block of 512 threads per channel. `tiled` sets the tiled kernel's chunk
 * and rows instead of choosing them (the device check times other shapes; a `rows` whose patch
 * does not fit still gathers).
 */
export function depthwiseLaunch(
  desc: Conv3dDescriptor,
  pass: DepthwisePass,
  tiled: TiledShape = {},
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
    return {
      kernel: 'wgrad',
      grid: [Math.min(desc.cIn, MAX_GRID_X), 1, 1],
      block: [32, 16, 1],
      sharedBytes: wgradSharedBytes(k[0]! * k[1]! * k[2]!),
      planes,
      ints: [desc.cIn, ...xDims, ...yDims, ...k, ...s, ...p, ...d],
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
      ints: [desc.cIn, ...inDims, ...outDims, ...k, ...s, ...p, ...d, pass === 'fw' ? 0 : 1, vec],
    };
  }
  return {
    kernel: desc.layout === 'ndhwc' ? 'gathercl' : 'gather',
    grid: [Math.max(1, Math.min(Math.ceil(total / GATHER_THREADS), GATHER_MAX_BLOCKS)), 1, 1],
    block: [GATHER_THREADS, 1, 1],
    sharedBytes: 0,
    planes,
    ints: [desc.cIn, ...inDims, ...outDims, ...k, ...s, ...p, ...d, pass === 'fw' ? 0 : 1],
  };
}

/**
 * Whether a plan that did not autotune runs a launch of ours rather than cuDNN's heuristic choice:
 * the NCDHW tiled kernel and the NDHWC kernels measured faster than cuDNN's engines. The NCDHW
 * gather kernel (strided problems) and backward-filter are left to autotune: on X3D's layer wgrad
 * took 1.78–1.86 ms, cuDNN's engines 0.17 ms in f32 and 2.1 ms in f64 (runs 52–53).
 */
export function depthwiseUntuned(launch: DepthwiseLaunch): boolean {
  return launch.kernel !== 'gather' && launch.kernel !== 'wgrad';
}

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
  const sums = new Float64Array(out.length);
  const taps = launch.ints[7]! * launch.ints[8]! * launch.ints[9]!;
  const channels = launch.ints[0]!;
  if (launch.kernel === 'wgrad') {
    // input is x, w is dy, out is dw: dw[c, t] sums x · dy over every (n, o).
    forEachTap(launch, (plane, at, o, t) => {
      sums[(plane % channels) * taps + t]! += input[at]! * w[o]!;
    });
  } else {
    forEachTap(launch, (plane, at, o, t) => {
      sums[o]! += input[at]! * w[(plane % channels) * taps + t]!;
    });
  }
  for (let o = 0; o < out.length; o++) {
    out[o] = alpha * sums[o]! + (beta !== 0 ? beta * out[o]! : 0);
  }
  return out;
}

/**
 * Every (plane, output position, tap t) of a gather-style launch (gather, gathercl, clvec, wgrad)
 * whose input position is in range, read from the launch's parameters as cuda/depthwise.cu's
 * `forEachTap` reads them: visit(plane, input index, output index, t), the indices into the
 * operands (NDHWC for the channels-last kernels, NCDHW otherwise). wgrad's in/out are x/dy.
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
  const backward = launch.kernel !== 'wgrad' && q[19] === 1;
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

/** One launch of a depthwise kernel for one element, ready to enqueue. */
export interface DepthwiseCall {
  readonly launch: DepthwiseLaunch;
  /**
   * Enqueue it on `stream`: `out = alpha · pass(input, w) + beta · out`, where input, w, out are x,
   * w, y (forward), dy, w, dx (backward-data) or x, dy, dw (backward-filter).
   */
  run(stream: StreamLike, input: bigint, w: bigint, out: bigint, alpha: number, beta: number): void;
}

/** The depthwise kernels loaded on one device. */
export class DepthwiseKernels {
  readonly #functions: Map<string, KernelFunctionLike>;
  /** 3 pointers, planes, up to 21 ints, alpha and beta (f64 at most): 136 bytes with padding. */
  readonly #params = new driver.KernelParams(192);

  private constructor(functions: Map<string, KernelFunctionLike>) {
    this.#functions = functions;
  }

  /**
   * The launch for `element`, its kernel function looked up once (a plan makes one per pass, so a
   * run call only packs its parameters). UnsupportedError for an element the kernels do not take.
   */
  call(launch: DepthwiseLaunch, element: ElementKind): DepthwiseCall {
    const fn = this.#functions.get(`${launch.kernel}${launch.span ?? ''}_${SUFFIX[element]}`);
    if (fn === undefined) {
      throw new UnsupportedError(`baracuda's depthwise kernels do not take element ${element}`);
    }
    const f64 = element === ElementKind.F64;
    const packed = this.#params;
    return {
      launch,
      run(stream, input, w, out, alpha, beta) {
        const params = packed.reset().ptr(input).ptr(w).ptr(out).u64(launch.planes);
        for (const v of launch.ints) params.i32(v);
        if (f64) params.f64(alpha).f64(beta);
        else params.f32(alpha).f32(beta);
        fn.launch(stream, launch.grid, launch.block, launch.sharedBytes, params.bytes());
      },
    };
  }

  static readonly #perDevice = new Map<number, DepthwiseKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there.
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): DepthwiseKernels | Error {
    return perDevice(DepthwiseKernels.#perDevice, device, DEPTHWISE_PTX, load, (module) => {
      const functions = new Map<string, KernelFunctionLike>();
      for (const kernel of [
        ...SPANS.map((span) => `tiled${span}`),
        'gather',
        'gathercl',
        'clvec',
        'wgrad',
      ]) {
        for (const suffix of Object.values(SUFFIX) as string[]) {
          const name = `${kernel}_${suffix}`;
          functions.set(name, module.getFunction(`baracuda_depthwise_${name}`));
        }
      }
      return new DepthwiseKernels(functions);
    });
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    DepthwiseKernels.#perDevice.clear();
  }
}
