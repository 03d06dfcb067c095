/**
 * Layout transposes between the caller's NCDHW operands and NDHWC scratch, on our own kernel
 * (cuda/layout.cu, shipped as PTX in layout-ptx.ts and compiled by the driver at first use).
 * The NDHWC detour uses these whenever the module loads (on an H200, a bf16 c3d-conv2 pass through
 * the detour took 0.38–0.51 ms with them and 7.2–7.9 ms with `cudnnTransformTensor`), and falls
 * back to `cudnnTransformTensor` when it does not.
 * @internal
 */
import type { Conv3dDescriptor } from './descriptor.js';
import { LAYOUT_PTX, LAYOUT_SASS } from './layout-ptx.js';
import { type ModuleLoader, perDevice } from './module-cache.js';
import { type DeviceLike, driver, type KernelFunctionLike, type StreamLike } from './sys.js';

export { flipFilterHost, transposeHost } from './layout-host.js';

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

/**
 * A filter transposed per group and flipped in space (cuda/layout.cu's baracuda_flip_filter_*):
 * the filter of the forward problem that is a stride-1 layer's backward-data.
 */
export interface FilterFlip {
  /** Output channels a group of the layer (input channels a group of the flipped filter). */
  readonly kg: number;
  /** Input channels a group of the layer. */
  readonly cg: number;
  /** Taps: T*R*S. */
  readonly spatial: number;
  /** Elements: groups * kg * cg * spatial. */
  readonly total: number;
  readonly layout: 'ncdhw' | 'ndhwc';
}

/** The flip of a layer's filter (see {@link FilterFlip}). */
export function filterFlip(desc: Conv3dDescriptor): FilterFlip {
  return {
    kg: desc.cOut / desc.groups,
    cg: desc.cIn / desc.groups,
    spatial: desc.dFilt * desc.hFilt * desc.wFilt,
    total: desc.wElements,
    layout: desc.layout,
  };
}

const TILE = 32;
const MAX_GRID_X = 2 ** 31 - 1;
const MAX_GRID_Y = 65535;
const KERNEL_NAMES: Record<number, string> = {
  2: 'baracuda_transpose_b16',
  4: 'baracuda_transpose_b32',
  8: 'baracuda_transpose_b64',
};
const FLIP_KERNEL_NAMES: Record<number, string> = {
  2: 'baracuda_flip_filter_b16',
  4: 'baracuda_flip_filter_b32',
  8: 'baracuda_flip_filter_b64',
};
const FLIP_BLOCK = 256;
/** 2-byte elements moved in pairs (64×64 tiles): even rows and cols, 4-byte aligned pointers. */
const PAIRS_KERNEL = 'baracuda_transpose_b16x2';
/** 16-byte vectors on both sides (see {@link vectorTranspose}). */
const VECTOR_KERNEL_NAMES: Record<number, string> = {
  2: 'baracuda_transpose_v16_b16',
  4: 'baracuda_transpose_v16_b32',
  8: 'baracuda_transpose_v16_b64',
};
const VECTOR_BYTES = 16;
/** Threads a block of the vector kernels, at most. */
const VECTOR_THREADS = 256;
/** Vectors across an input row a block reads, before the rest go down the rows. */
const VECTOR_ACROSS = 16;

/** A matrix with at most this many rows or columns takes the narrow kernels. */
const NARROW_MAX = 16;
const NARROW_KERNEL_NAMES: Record<number, string> = {
  2: 'baracuda_transpose_narrow_b16',
  4: 'baracuda_transpose_narrow_b32',
  8: 'baracuda_transpose_narrow_b64',
};
const NARROW_BLOCK = 256;
/** The narrow kernels' grid stops here; its threads loop over the rest. */
const NARROW_MAX_BLOCKS = 2 ** 20;

/**
 * How the narrow kernel (cuda/layout.cu's transposeNarrow: one thread per element of the long
 * side) would run the transpose, or null where neither side is at most 16 long. `narrowCols`: the
 * columns are the short side (NDHWC → NCDHW of a 3-channel input, say).
 */
export function narrowTranspose(
  shape: TransposeShape,
): { grid: [number, number, number]; narrowCols: boolean } | null {
  if (Math.min(shape.rows, shape.cols) > NARROW_MAX) return null;
  const narrowCols = shape.cols <= shape.rows;
  const longSide = narrowCols ? shape.rows : shape.cols;
  const blocks = Math.min(Math.ceil((shape.batch * longSide) / NARROW_BLOCK), NARROW_MAX_BLOCKS);
  return { grid: [Math.max(1, blocks), 1, 1], narrowCols };
}

function pow2AtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** Launch geometry of the vector transpose kernels (cuda/layout.cu's transposeVec). */
export interface VectorTransposeLaunch {
  grid: [number, number, number];
  /** (CG, RG): vectors across the input rows, vector groups down them. */
  block: [number, number, 1];
  sharedBytes: number;
  tilesCols: number;
}

/**
 * How the 16-byte vector kernel would run the transpose, or null where it does not apply: rows
 * or cols not a multiple of 16 / `elementBytes`, a pointer not 16-byte aligned, or a grid too
 * large. Each thread moves a square of 16 / `elementBytes` elements each way; the block takes up
 * to {@link VECTOR_ACROSS} vectors across the input's rows and as many vector groups down them as
 * fill 256 threads (more across where the matrix has few rows), so that both the reads of a row
 * and the writes of an output row are runs of 16-byte vectors.
 */
export function vectorTranspose(
  src: bigint,
  dst: bigint,
  shape: TransposeShape,
  elementBytes: number,
): VectorTransposeLaunch | null {
  const ve = VECTOR_BYTES / elementBytes;
  if (VECTOR_KERNEL_NAMES[elementBytes] === undefined) return null;
  if (shape.rows % ve !== 0 || shape.cols % ve !== 0) return null;
  if ((src | dst) % BigInt(VECTOR_BYTES) !== 0n) return null;
  const rowVecs = shape.rows / ve;
  const colVecs = shape.cols / ve;
  const down = Math.min(
    VECTOR_THREADS / Math.min(VECTOR_ACROSS, pow2AtLeast(colVecs)),
    pow2AtLeast(rowVecs),
  );
  const across = Math.min(VECTOR_THREADS / down, pow2AtLeast(colVecs));
  const tilesCols = Math.ceil(colVecs / across);
  const tiles = Math.ceil(rowVecs / down) * tilesCols;
  if (tiles > MAX_GRID_X) return null;
  return {
    grid: [Math.max(1, tiles), Math.max(1, Math.min(shape.batch, MAX_GRID_Y)), 1],
    block: [across, down, 1],
    sharedBytes: across * down * ve * VECTOR_BYTES,
    tilesCols,
  };
}

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
  readonly #vectors: Record<number, KernelFunctionLike>;
  readonly #narrow: Record<number, KernelFunctionLike>;
  readonly #flips: Record<number, KernelFunctionLike>;
  /** in, out, rows, cols, tilesCols, batch: six 8-byte parameters, as cuda/layout.cu declares. */
  readonly #params = new driver.KernelParams(48);
  readonly #block: [number, number, number] = [TILE, 8, 1];

  /** in, out, kg, cg, spatial, total, ndhwc: seven 8-byte parameters. */
  readonly #flipParams = new driver.KernelParams(56);

  private constructor(
    functions: Record<number, KernelFunctionLike>,
    pairs: KernelFunctionLike,
    vectors: Record<number, KernelFunctionLike>,
    narrow: Record<number, KernelFunctionLike>,
    flips: Record<number, KernelFunctionLike>,
  ) {
    this.#functions = functions;
    this.#pairs = pairs;
    this.#vectors = vectors;
    this.#narrow = narrow;
    this.#flips = flips;
  }

  /** Enqueue `dst = flip(src)` (see {@link FilterFlip}) on `stream`; false (nothing enqueued) when it cannot. */
  flipFilter(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    flip: FilterFlip,
    elementBytes: number,
  ): boolean {
    const fn = this.#flips[elementBytes];
    if (fn === undefined) return false;
    if (flip.total === 0) return true;
    const params = this.#flipParams
      .reset()
      .ptr(src)
      .ptr(dst)
      .u64(flip.kg)
      .u64(flip.cg)
      .u64(flip.spatial)
      .u64(flip.total)
      .u64(flip.layout === 'ndhwc' ? 1 : 0)
      .bytes();
    const blocks = Math.min(Math.ceil(flip.total / FLIP_BLOCK), MAX_GRID_Y);
    fn.launch(stream, [blocks, 1, 1], [FLIP_BLOCK, 1, 1], 0, params);
    return true;
  }

  /**
   * Enqueue `dst = transpose(src)` on `stream`; false (nothing enqueued) when it cannot. Takes the
   * 16-byte vector kernel where it applies ({@link vectorTranspose}), else the narrow one for a
   * short side of at most 16 ({@link narrowTranspose}), else the paired 2-byte one
   * ({@link usesPairs}), else the plain kernel of the element size.
   */
  transpose(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    shape: TransposeShape,
    elementBytes: number,
  ): boolean {
    const launch = this.#transposeLaunch(src, dst, shape, elementBytes);
    if (launch === null) return false;
    if (shape.batch === 0 || shape.rows === 0 || shape.cols === 0) return true;
    // in, out, rows, cols, then the kernel's two: (tilesCols, batch), or (batch, narrowCols).
    const params = this.#params
      .reset()
      .ptr(src)
      .ptr(dst)
      .u64(shape.rows)
      .u64(shape.cols)
      .u64(launch.last[0])
      .u64(launch.last[1])
      .bytes();
    launch.fn.launch(stream, launch.grid, launch.block, launch.shared, params);
    return true;
  }

  /** Which kernel runs the transpose, how, and its last two parameters; null when none can. */
  #transposeLaunch(
    src: bigint,
    dst: bigint,
    shape: TransposeShape,
    elementBytes: number,
  ): {
    fn: KernelFunctionLike;
    grid: [number, number, number];
    block: [number, number, number];
    shared: number;
    last: [number, number];
  } | null {
    const vector = vectorTranspose(src, dst, shape, elementBytes);
    const vectorFn = this.#vectors[elementBytes];
    if (vector !== null && vectorFn !== undefined) {
      const { grid, block, sharedBytes, tilesCols } = vector;
      return { fn: vectorFn, grid, block, shared: sharedBytes, last: [tilesCols, shape.batch] };
    }
    const narrow = narrowTranspose(shape);
    const narrowFn = this.#narrow[elementBytes];
    if (narrow !== null && narrowFn !== undefined) {
      const last: [number, number] = [shape.batch, narrow.narrowCols ? 1 : 0];
      return { fn: narrowFn, grid: narrow.grid, block: [NARROW_BLOCK, 1, 1], shared: 0, last };
    }
    const pairs = usesPairs(src, dst, shape, elementBytes);
    const fn = pairs ? this.#pairs : this.#functions[elementBytes];
    const geometry = transposeGrid(shape, pairs ? 2 * TILE : TILE);
    if (fn === undefined || geometry === null) return null;
    const last: [number, number] = [geometry.tilesCols, shape.batch];
    return { fn, grid: geometry.grid, block: this.#block, shared: 0, last };
  }

  static readonly #perDevice = new Map<number, LayoutKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there (for
   * example a CUDA driver too old to compile our PTX).
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): LayoutKernels | Error {
    return perDevice(
      LayoutKernels.#perDevice,
      device,
      { unit: 'layout', ptx: LAYOUT_PTX, sass: LAYOUT_SASS },
      load,
      (module) => {
        const named = (names: Record<number, string>) => {
          const functions: Record<number, KernelFunctionLike> = {};
          for (const [bytes, name] of Object.entries(names)) {
            functions[Number(bytes)] = module.getFunction(name);
          }
          return functions;
        };
        return new LayoutKernels(
          named(KERNEL_NAMES),
          module.getFunction(PAIRS_KERNEL),
          named(VECTOR_KERNEL_NAMES),
          named(NARROW_KERNEL_NAMES),
          named(FLIP_KERNEL_NAMES),
        );
      },
    );
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    LayoutKernels.#perDevice.clear();
  }
}
