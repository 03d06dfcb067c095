/**
 * Our epilogue kernels (cuda/epilogue.cu, shipped as PTX in epilogue-ptx.ts): the epilogue applied
 * in place after a convolution where no fused cuDNN graph runs it, and the two backward pieces.
 * Launch geometry and parameters only; what runs when is the executor's.
 * @internal
 */
import { ElementKind, UnsupportedError } from '@baracuda/types';
import { EPILOGUE_PTX, EPILOGUE_SASS } from '../epilogue-ptx.js';
import { type ModuleLoader, perDevice } from '../module-cache.js';
import { type DeviceLike, driver, type KernelFunctionLike, type StreamLike } from '../sys.js';
import { ACTIVATION_CODE, type Epilogue } from './epilogue.js';

const SUFFIX: Record<ElementKind, string | undefined> = {
  [ElementKind.F32]: 'f32',
  [ElementKind.F64]: 'f64',
  [ElementKind.F16]: 'f16',
  [ElementKind.Bf16]: 'bf16',
} as Record<ElementKind, string | undefined>;

/** Threads a block (cuda/epilogue.cu's `__launch_bounds__(256)`; the dBias kernels' shared array). */
export const EPILOGUE_BLOCK = 256;
/** Blocks of an element-wise grid at most; its threads loop over the rest. */
export const EPILOGUE_MAX_BLOCKS = 2 ** 20;

/** How the elements of y map to channels: channel (i / inner) % channels. */
export interface ChannelMap {
  /** Elements of y. */
  readonly total: number;
  readonly channels: number;
  /** D·H·W for NCDHW, 1 for NDHWC. */
  readonly inner: number;
  /** N for NCDHW, N·D·H·W for NDHWC: total = outer · channels · inner. */
  readonly outer: number;
}

/** The channel map of a [N, C, D, H, W] tensor in `layout`. */
export function channelMap(shape: readonly number[], layout: 'ncdhw' | 'ndhwc'): ChannelMap {
  const [n, c, d, h, w] = shape as [number, number, number, number, number];
  const spatial = d * h * w;
  const total = n * c * spatial;
  return layout === 'ncdhw'
    ? { total, channels: c, inner: spatial, outer: n }
    : { total, channels: c, inner: 1, outer: n * spatial };
}

/** The grid of an element-wise kernel over `total` elements. */
export function elementwiseGrid(total: number): [number, number, number] {
  return [Math.max(1, Math.min(Math.ceil(total / EPILOGUE_BLOCK), EPILOGUE_MAX_BLOCKS)), 1, 1];
}

/**
 * How dBias is split: `blocks` along the channels (32 channels a block for NDHWC, one for NCDHW)
 * by `parts` along the rest: about 1,000-4,000 blocks at most, a few thousand elements each, and
 * at most 512 parts a channel for the second pass (8 threads a channel) to add.
 */
export function biasGradSplit(map: ChannelMap): { blocks: number; parts: number } {
  if (map.inner === 1) {
    const blocks = Math.ceil(map.channels / 32);
    return {
      blocks,
      parts: Math.max(1, Math.min(Math.ceil(map.outer / 256), Math.ceil(1024 / blocks), 512)),
    };
  }
  const count = map.outer * map.inner;
  return {
    blocks: map.channels,
    parts: Math.max(1, Math.min(Math.ceil(count / 2048), Math.ceil(4096 / map.channels), 512)),
  };
}

/** Bytes of the partial sums {@link EpilogueKernels.biasGrad} needs (f64 sums for f64, else f32). */
export function biasGradScratchBytes(element: ElementKind, map: ChannelMap): number {
  if (map.channels === 0) return 0;
  return biasGradSplit(map).parts * map.channels * (element === ElementKind.F64 ? 8 : 4);
}

interface ElementKernels {
  readonly apply: KernelFunctionLike;
  readonly actGrad: KernelFunctionLike;
  readonly biasGradPartial: KernelFunctionLike;
  readonly biasGradFinish: KernelFunctionLike;
}

/** The epilogue kernels loaded on one device. */
export class EpilogueKernels {
  readonly #kernels: Readonly<Record<string, ElementKernels>>;
  /** Eleven 8-byte parameters at most (apply's). */
  readonly #params = new driver.KernelParams(96);
  readonly #block: [number, number, number] = [EPILOGUE_BLOCK, 1, 1];

  private constructor(kernels: Record<string, ElementKernels>) {
    this.#kernels = kernels;
  }

  #of(element: ElementKind): ElementKernels {
    const k = this.#kernels[SUFFIX[element] ?? ''];
    if (k === undefined) {
      throw new UnsupportedError(
        `Expected f32, f64, f16 or bf16 for the epilogue kernels but received ${String(element)}`,
      );
    }
    return k;
  }

  /**
   * Enqueue y = act(y + bias[c] + z) in place (`bias`, `z`, `pre` 0n when absent; `pre` receives
   * the value before the activation).
   */
  apply(
    stream: StreamLike,
    element: ElementKind,
    epilogue: Epilogue,
    map: ChannelMap,
    ptrs: { y: bigint; bias: bigint; z: bigint; pre: bigint },
  ): void {
    if (map.total === 0) return;
    const params = this.#params
      .reset()
      .ptr(ptrs.y)
      .ptr(ptrs.bias)
      .ptr(ptrs.z)
      .ptr(ptrs.pre)
      .u64(map.total)
      .u64(map.channels)
      .u64(map.inner)
      .i32(ACTIVATION_CODE[epilogue.activation])
      .f64(epilogue.slope)
      .f64(epilogue.min)
      .f64(epilogue.max)
      .bytes();
    this.#of(element).apply.launch(stream, elementwiseGrid(map.total), this.#block, 0, params);
  }

  /** Enqueue dyPre = dy · act'(saved) (saved: the output or the pre-activation, as the activation needs). */
  actGrad(
    stream: StreamLike,
    element: ElementKind,
    epilogue: Epilogue,
    total: number,
    ptrs: { dy: bigint; saved: bigint; dyPre: bigint },
  ): void {
    if (total === 0) return;
    const params = this.#params
      .reset()
      .ptr(ptrs.dy)
      .ptr(ptrs.saved)
      .ptr(ptrs.dyPre)
      .u64(total)
      .i32(ACTIVATION_CODE[epilogue.activation])
      .f64(epilogue.slope)
      .f64(epilogue.min)
      .f64(epilogue.max)
      .bytes();
    this.#of(element).actGrad.launch(stream, elementwiseGrid(total), this.#block, 0, params);
  }

  /**
   * Enqueue dBias[c] = Σ dy over the batch and space of channel c, in two deterministic passes
   * (cuda/epilogue.cu): the parts of {@link biasGradSplit} into `partial` (at least
   * {@link biasGradScratchBytes} bytes, on `stream`'s order), then each channel's parts in order.
   */
  biasGrad(
    stream: StreamLike,
    element: ElementKind,
    map: ChannelMap,
    ptrs: { dy: bigint; dBias: bigint; partial: bigint },
  ): void {
    if (map.channels === 0) return;
    const { blocks, parts } = biasGradSplit(map);
    const k = this.#of(element);
    const first = this.#params
      .reset()
      .ptr(ptrs.dy)
      .ptr(ptrs.partial)
      .u64(map.channels)
      .u64(map.inner)
      .u64(map.outer)
      .u64(parts)
      .bytes();
    k.biasGradPartial.launch(stream, [blocks, parts, 1], this.#block, 0, first);
    const second = this.#params
      .reset()
      .ptr(ptrs.partial)
      .ptr(ptrs.dBias)
      .u64(map.channels)
      .u64(parts)
      .bytes();
    // Pass 2: 32 channels a block, 8 threads a channel.
    const finishBlocks = Math.ceil(map.channels / 32);
    k.biasGradFinish.launch(stream, [finishBlocks, 1, 1], this.#block, 0, second);
  }

  static readonly #perDevice = new Map<number, EpilogueKernels | Error>();

  /** The kernels on `device`, loaded once per process; the Error when they cannot load there. */
  static forDevice(device: DeviceLike, load?: ModuleLoader): EpilogueKernels | Error {
    return perDevice(
      EpilogueKernels.#perDevice,
      device,
      { unit: 'epilogue', ptx: EPILOGUE_PTX, sass: EPILOGUE_SASS },
      load,
      (module) => {
        const kernels: Record<string, ElementKernels> = {};
        for (const suffix of ['f32', 'f64', 'f16', 'bf16']) {
          kernels[suffix] = {
            apply: module.getFunction(`baracuda_epilogue_apply_${suffix}`),
            actGrad: module.getFunction(`baracuda_epilogue_act_grad_${suffix}`),
            biasGradPartial: module.getFunction(`baracuda_epilogue_bias_grad_partial_${suffix}`),
            biasGradFinish: module.getFunction(`baracuda_epilogue_bias_grad_finish_${suffix}`),
          };
        }
        return new EpilogueKernels(kernels);
      },
    );
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    EpilogueKernels.#perDevice.clear();
  }
}
