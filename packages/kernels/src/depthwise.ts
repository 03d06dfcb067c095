/**
 * Depthwise convolution (groups = C_in = C_out, NCDHW or NDHWC) forward and backward-data on our
 * own kernels (cuda/depthwise.cu, shipped as PTX in depthwise-ptx.ts and compiled by the driver
 * at first use): Conv3dPlan's 'native' path. cuDNN has no fast kernel for these: on an H200 its
 * best engines took 2.2–2.4× PyTorch's own depthwise kernel on X3D's 3×3×3 layer in NCDHW
 * (forward) and 1.5× (backward-data), and ~1.4 ms in NDHWC f16/bf16, under 2% of the roofline.
 * Backward-filter stays on cuDNN, whose engines beat PyTorch there.
 * @internal
 */
import { ElementKind, UnsupportedError } from '@baracuda/types';
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
export type DepthwisePass = 'fw' | 'bwData';

/** Why our depthwise kernels cannot run a problem, or null when they can. */
export function depthwiseUnsupported(desc: Conv3dDescriptor): string | null {
  if (SUFFIX[desc.element] === undefined) return `element ${desc.element}`;
  if (desc.groups < 2 || desc.groups !== desc.cIn || desc.cOut !== desc.cIn) {
    return `groups=${desc.groups} with ${desc.cIn}→${desc.cOut} channels (they take groups = C_in = C_out)`;
  }
  return null;
}

/** One launch of a depthwise kernel: which kernel, its geometry and its integer parameters. */
export interface DepthwiseLaunch {
  /**
   * gathercl: the gather kernel over NDHWC operands; clvec: the same with `vec` channels per thread
   * and the filter staged in shared memory.
   */
  readonly kernel: 'tiled' | 'gather' | 'gathercl' | 'clvec';
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  readonly sharedBytes: number;
  /** N × C: the planes of one operand. */
  readonly planes: number;
  /**
   * The `int` parameters in cuda/depthwise.cu's order. tiled: channels, in D/H/W, out D/H/W,
   * filter D/H/W, pads D/H/W, dilations D/H/W, flip, tilesW. gather and gathercl: channels,
   * in D/H/W, out D/H/W, filter D/H/W, strides D/H/W, pads D/H/W, dilations D/H/W, backward;
   * clvec: those and vec.
   */
  readonly ints: readonly number[];
}

const TILE_W = 32;
const TILE_H = 16;
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
/** Bytes one thread of the NDHWC vector kernel loads per tap at most. */
const CLVEC_LOAD_BYTES = 16;

/** Channels per thread of the NDHWC vector kernel: the most, up to 16 bytes, that divides C. */
export function clvecWidth(channels: number, elementBytes: number): number {
  let vec = Math.max(1, CLVEC_LOAD_BYTES / elementBytes);
  while (vec > 1 && channels % vec !== 0) vec /= 2;
  return vec;
}

/**
 * How a pass of a depthwise problem launches. NDHWC runs the channels-last vector kernel (several
 * channels per thread, the filter in shared memory), or the channels-last gather kernel when the
 * filter would need more than 48 KiB of shared memory. In
 * NCDHW, stride 1 runs the shared-memory tiled kernel (backward-data as the forward kernel on dy
 * with the filter reversed and padding d·(k−1) − p, when that padding is not negative); anything
 * else, or a tile whose shared memory would exceed 48 KiB, the one-thread-per-element gather kernel.
 */
export function depthwiseLaunch(desc: Conv3dDescriptor, pass: DepthwisePass): DepthwiseLaunch {
  const [yD, yH, yW] = desc.outputDims();
  const xDims = [desc.dIn, desc.hIn, desc.wIn];
  const yDims = [yD, yH, yW];
  const k = [desc.dFilt, desc.hFilt, desc.wFilt];
  const s = [desc.strideD, desc.strideH, desc.strideW];
  const p = [desc.padD, desc.padH, desc.padW];
  const d = [desc.dilationD, desc.dilationH, desc.dilationW];
  const planes = desc.batch * desc.cIn;
  const [inDims, outDims] = pass === 'fw' ? [xDims, yDims] : [yDims, xDims];
  const accBytes = desc.element === ElementKind.F64 ? 8 : 4;
  const tiledPads = pass === 'fw' ? p : p.map((pad, i) => d[i]! * (k[i]! - 1) - pad);
  const rowsIn = TILE_H + (k[1]! - 1) * d[1]!;
  const colsIn = TILE_W + (k[2]! - 1) * d[2]!;
  const sharedBytes = (k[0]! * k[1]! * k[2]! + rowsIn * colsIn) * accBytes;
  const tilesW = Math.ceil(outDims[2]! / TILE_W);
  const tiles = Math.ceil(outDims[1]! / TILE_H) * tilesW;
  if (
    desc.layout === 'ncdhw' &&
    s.every((v) => v === 1) &&
    tiledPads.every((v) => v >= 0) &&
    sharedBytes <= MAX_SHARED_BYTES &&
    tiles <= MAX_GRID_X
  ) {
    return {
      kernel: 'tiled',
      grid: [tiles, Math.min(outDims[0]!, MAX_GRID_YZ), Math.min(planes, MAX_GRID_YZ)],
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
 * What a launch computes, on the host in f64, read from the launch's own parameters exactly as
 * cuda/depthwise.cu reads them: out = alpha · Σ + beta · out (out not read when beta is 0). For
 * tests, against a direct definition of the passes.
 */
export function depthwiseHost(
  launch: DepthwiseLaunch,
  input: ArrayLike<number>,
  w: ArrayLike<number>,
  out: Float64Array,
  alpha: number,
  beta: number,
): Float64Array {
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
  const tiled = launch.kernel === 'tiled';
  const s = tiled ? [1, 1, 1] : q.slice(10, 13);
  const p = tiled ? q.slice(10, 13) : q.slice(13, 16);
  const d = tiled ? q.slice(13, 16) : q.slice(16, 19);
  const flip = tiled && q[16] === 1;
  const backward = !tiled && q[19] === 1;
  const taps = kD * kH * kW;
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
    const c = plane % channels;
    for (let o0 = 0; o0 < oD; o0++) {
      for (let o1 = 0; o1 < oH; o1++) {
        for (let o2 = 0; o2 < oW; o2++) {
          let acc = 0;
          for (let kd = 0; kd < kD; kd++) {
            const a = reach(o0, kd, 0, iD);
            if (a < 0) continue;
            for (let kh = 0; kh < kH; kh++) {
              const b = reach(o1, kh, 1, iH);
              if (b < 0) continue;
              for (let kw = 0; kw < kW; kw++) {
                const e = reach(o2, kw, 2, iW);
                if (e < 0) continue;
                const t = (kd * kH + kh) * kW + kw;
                acc +=
                  input[at(plane, inPlane, (a * iH + b) * iW + e)]! *
                  w[c * taps + (flip ? taps - 1 - t : t)]!;
              }
            }
          }
          const o = at(plane, outPlane, (o0 * oH + o1) * oW + o2);
          out[o] = alpha * acc + (beta !== 0 ? beta * out[o]! : 0);
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
   * Enqueue it on `stream`: `out = alpha · pass(input, w) + beta · out`, where input/out are x/y
   * (forward) or dy/dx (backward-data).
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
    const fn = this.#functions.get(`${launch.kernel}_${SUFFIX[element]}`);
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
      for (const kernel of ['tiled', 'gather', 'gathercl', 'clvec']) {
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
