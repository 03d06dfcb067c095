/**
 * The 3xTF32 split of an f32 tensor into a TF32 high part and a TF32 remainder, on our own kernel
 * (cuda/split-tf32.cu, shipped as PTX in split-tf32-ptx.ts and compiled by the driver at first
 * use), its launch geometry, and the same split on the host, bit for bit (tests, device checks).
 * @internal
 */
import { type ModuleLoader, perDevice } from './module-cache.js';
import { SPLIT_TF32_PTX, SPLIT_TF32_SASS } from './split-tf32-ptx.js';
import { type DeviceLike, driver, type KernelFunctionLike, type StreamLike } from './sys.js';

const EXPONENT = 0x7f800000;
const MANTISSA = 0x007fffff;
const SIGN = 0x80000000;
const HALF_ULP = 0x1000;
const KEEP = 0xffffe000;
const QUIET_NAN = 0x7fc00000;

/**
 * The bits of `bits` (an f32) rounded to TF32 as cuda/split-tf32.cu rounds them: to nearest,
 * ties away from zero; Inf kept; NaN made a quiet NaN of its sign; truncated where rounding up
 * would overflow.
 */
export function tf32RoundBits(bits: number): number {
  const b = bits >>> 0;
  if ((b & EXPONENT) === EXPONENT) {
    return (b & MANTISSA) === 0 ? b : ((b & SIGN) | QUIET_NAN) >>> 0;
  }
  const rounded = ((b + HALF_ULP) & KEEP) >>> 0;
  if ((rounded & EXPONENT) === EXPONENT) return (b & KEEP) >>> 0;
  return rounded;
}

/** Whether the f32 of `bits` is exactly representable in TF32 (its low 13 mantissa bits clear). */
export function isTf32Bits(bits: number): boolean {
  return ((bits >>> 0) & ~KEEP) === 0;
}

/**
 * `hi = tf32(src)` and `lo = tf32(src − hi)` element by element, as the kernel computes them
 * (Inf: lo 0; NaN: a quiet NaN in hi, lo 0). Returns `{ hi, lo }`.
 */
export function splitTf32Host(
  src: Float32Array,
  hi: Float32Array = new Float32Array(src.length),
  lo: Float32Array = new Float32Array(src.length),
): { hi: Float32Array; lo: Float32Array } {
  const srcBits = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const hiBits = new Uint32Array(hi.buffer, hi.byteOffset, hi.length);
  const loBits = new Uint32Array(lo.buffer, lo.byteOffset, lo.length);
  const one = new Float32Array(1);
  const oneBits = new Uint32Array(one.buffer);
  for (let i = 0; i < src.length; i++) {
    const bits = srcBits[i]!;
    hiBits[i] = tf32RoundBits(bits);
    if ((bits & EXPONENT) >>> 0 === EXPONENT) {
      loBits[i] = 0;
      continue;
    }
    // f32 subtraction (exact here), then the remainder's rounding.
    one[0] = src[i]! - hi[i]!;
    loBits[i] = tf32RoundBits(oneBits[0]!);
  }
  return { hi, lo };
}

/** Threads a block. */
export const SPLIT_BLOCK = 256;
/** The grid stops here; its threads loop over the rest (grid-stride). */
export const SPLIT_MAX_BLOCKS = 4096;

/** How one split launches: the vector kernel or not, and the grid. */
export interface SplitLaunch {
  readonly vector: boolean;
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
}

/**
 * The launch of a split of `count` elements: float4 steps where all three pointers are 16-byte
 * aligned and `count` is a multiple of 4, else one element a step; one thread per step up to
 * {@link SPLIT_MAX_BLOCKS} blocks of {@link SPLIT_BLOCK}.
 */
export function splitLaunch(src: bigint, hi: bigint, lo: bigint, count: number): SplitLaunch {
  const vector = count % 4 === 0 && (src | hi | lo) % 16n === 0n;
  const steps = vector ? count / 4 : count;
  const blocks = Math.min(Math.ceil(steps / SPLIT_BLOCK), SPLIT_MAX_BLOCKS);
  return { vector, grid: [Math.max(1, blocks), 1, 1], block: [SPLIT_BLOCK, 1, 1] };
}

const SCALAR_KERNEL = 'baracuda_split_tf32';
const VECTOR_KERNEL = 'baracuda_split_tf32_v4';

/** The split kernels loaded on one device. */
export class SplitKernels {
  readonly #scalar: KernelFunctionLike;
  readonly #vector: KernelFunctionLike;
  /** src, hi, lo, count: four 8-byte parameters, as cuda/split-tf32.cu declares. */
  readonly #params = new driver.KernelParams(32);

  private constructor(scalar: KernelFunctionLike, vector: KernelFunctionLike) {
    this.#scalar = scalar;
    this.#vector = vector;
  }

  /** Enqueue `hi, lo = split(src)` of `count` f32 elements on `stream` (nothing for 0). */
  split(stream: StreamLike, src: bigint, hi: bigint, lo: bigint, count: number): void {
    if (count === 0) return;
    const launch = splitLaunch(src, hi, lo, count);
    const params = this.#params.reset().ptr(src).ptr(hi).ptr(lo).u64(count).bytes();
    const fn = launch.vector ? this.#vector : this.#scalar;
    fn.launch(stream, launch.grid, launch.block, 0, params);
  }

  static readonly #perDevice = new Map<number, SplitKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there.
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): SplitKernels | Error {
    return perDevice(
      SplitKernels.#perDevice,
      device,
      { unit: 'split-tf32', ptx: SPLIT_TF32_PTX, sass: SPLIT_TF32_SASS },
      load,
      (module) =>
        new SplitKernels(module.getFunction(SCALAR_KERNEL), module.getFunction(VECTOR_KERNEL)),
    );
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    SplitKernels.#perDevice.clear();
  }
}
