/**
 * Layout transposes between the caller's NCDHW operands and NDHWC scratch, on our own kernel
 * (cuda/layout.cu, shipped as PTX in layout-ptx.ts and compiled by the driver at first use).
 * The NDHWC detour uses these whenever the module loads (on an H200, a bf16 c3d-conv2 pass through
 * the detour took 0.38–0.51 ms with them and 7.2–7.9 ms with `cudnnTransformTensor`), and falls
 * back to `cudnnTransformTensor` when it does not.
 * @internal
 */
import type { Conv3dDescriptor } from './descriptor.js';
import { LAYOUT_PTX } from './layout-ptx.js';
import { type ModuleLoader, perDevice } from './module-cache.js';
import { type DeviceLike, driver, type KernelFunctionLike, type StreamLike } from './sys.js';

/** A batched 2-D transpose: in [batch][rows][cols] → out [batch][cols][rows]. */
export interface TransposeShape {
  readonly batch: number;
  readonly rows: number;
  readonly cols: number;
}

/** The two transposes of one operand: the caller's NCDHW → NDHWC scratch, and back. */
export interface OperandTransposes {
  readonly toNdhwc: TransposeShape;
  readonly toNcdhw: TransposeShape;
}

/** The transposes of x, w and y of an NCDHW problem (dense, as Conv3dDescriptor lays them out). */
export function layoutTransposes(
  desc: Conv3dDescriptor,
): Record<'x' | 'w' | 'y', OperandTransposes> {
  const of = (batch: number, channels: number, spatial: number): OperandTransposes => ({
    toNdhwc: { batch, rows: channels, cols: spatial },
    toNcdhw: { batch, rows: spatial, cols: channels },
  });
  const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
  const [n, c, ...xs] = desc.xShape;
  const [k, cg, ...ws] = desc.wShape;
  const [yn, yk, ...ys] = desc.yShape;
  return {
    x: of(n!, c!, product(xs)),
    w: of(k!, cg!, product(ws)),
    y: of(yn!, yk!, product(ys)),
  };
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

const TILE = 32;
const MAX_GRID_X = 2 ** 31 - 1;
const MAX_GRID_Y = 65535;
const KERNEL_NAMES: Record<number, string> = {
  2: 'baracuda_transpose_b16',
  4: 'baracuda_transpose_b32',
  8: 'baracuda_transpose_b64',
};
/** 2-byte elements moved in pairs (64×64 tiles): even rows and cols, 4-byte aligned pointers. */
const PAIRS_KERNEL = 'baracuda_transpose_b16x2';

/**
 * Whether the paired 2-byte kernel applies. (Its grid of 64×64 tiles is never larger than the
 * plain kernel's, so it fits whenever that one does.)
 */
export function usesPairs(src: bigint, dst: bigint, shape: TransposeShape, elementBytes: number) {
  return (
    elementBytes === 2 &&
    shape.rows % 2 === 0 &&
    shape.cols % 2 === 0 &&
    (src & 3n) === 0n &&
    (dst & 3n) === 0n
  );
}

/** Launch geometry of a transpose with square tiles of `tile`; null when the grid is too large. */
export function transposeGrid(
  shape: TransposeShape,
  tile = TILE,
): { grid: [number, number, number]; tilesCols: number } | null {
  const tilesCols = Math.ceil(shape.cols / tile);
  const tiles = Math.ceil(shape.rows / tile) * tilesCols;
  if (tiles > MAX_GRID_X) return null;
  return {
    grid: [Math.max(1, tiles), Math.max(1, Math.min(shape.batch, MAX_GRID_Y)), 1],
    tilesCols,
  };
}

/** The transpose kernels loaded on one device. */
export class LayoutKernels {
  readonly #functions: Record<number, KernelFunctionLike>;
  readonly #pairs: KernelFunctionLike;
  /** in, out, rows, cols, tilesCols, batch: six 8-byte parameters, as cuda/layout.cu declares. */
  readonly #params = new driver.KernelParams(48);
  readonly #block: [number, number, number] = [TILE, 8, 1];

  private constructor(functions: Record<number, KernelFunctionLike>, pairs: KernelFunctionLike) {
    this.#functions = functions;
    this.#pairs = pairs;
  }

  /** Enqueue `dst = transpose(src)` on `stream`; false (nothing enqueued) when it cannot. */
  transpose(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    shape: TransposeShape,
    elementBytes: number,
  ): boolean {
    const pairs = usesPairs(src, dst, shape, elementBytes);
    const fn = pairs ? this.#pairs : this.#functions[elementBytes];
    const geometry = transposeGrid(shape, pairs ? 2 * TILE : TILE);
    if (fn === undefined || geometry === null) return false;
    if (shape.batch === 0 || shape.rows === 0 || shape.cols === 0) return true;
    const params = this.#params
      .reset()
      .ptr(src)
      .ptr(dst)
      .u64(shape.rows)
      .u64(shape.cols)
      .u64(geometry.tilesCols)
      .u64(shape.batch)
      .bytes();
    fn.launch(stream, geometry.grid, this.#block, 0, params);
    return true;
  }

  static readonly #perDevice = new Map<number, LayoutKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there (for
   * example a CUDA driver too old to compile our PTX).
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): LayoutKernels | Error {
    return perDevice(LayoutKernels.#perDevice, device, LAYOUT_PTX, load, (module) => {
      const functions: Record<number, KernelFunctionLike> = {};
      for (const [bytes, name] of Object.entries(KERNEL_NAMES)) {
        functions[Number(bytes)] = module.getFunction(name);
      }
      return new LayoutKernels(functions, module.getFunction(PAIRS_KERNEL));
    });
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    LayoutKernels.#perDevice.clear();
  }
}
