/**
 * One U-Net stage training step on the GPU (shape.ts), built only on the public API of
 * @baracuda/kernels: conv1 and conv2 (one Conv3dPlan: the same problem) and the down convolution
 * with the fused epilogue bias + ReLU, the transposed up convolution without one (its descriptor
 * takes no epilogue here); the backward is runBwEpilogue (dyPre, dBias), runBwData and runDw of
 * every layer. The kernels module comes in as an argument, so the CLI loads it lazily and the
 * device scripts pass their bundled copy.
 */
import { type DeviceSlice, DisposedError, InvalidArgumentError } from '@baracuda/types';
import {
  STAGE_TENSORS,
  type StageLayer,
  type StageShape,
  type StageTensor,
  stageConvProblem,
  stageElementCounts,
  stageUpProblem,
} from './shape.js';

/** The element types a stage runs in (`tf32`: f32 storage, TF32 tensor-core math). */
export type StageDtype = 'f32' | 'tf32' | 'f16' | 'bf16';
const STAGE_DTYPES: readonly unknown[] = ['f32', 'tf32', 'f16', 'bf16'];

/** One call of the step, named `layer.pass` (e.g. `conv2.bwEpilogue`), enqueued by `run`. */
export interface StageOp {
  readonly name: string;
  readonly run: () => void;
}

/** The part of @baracuda/kernels the stage uses. */
export type StageKernels = Pick<
  typeof import('@baracuda/kernels'),
  'Conv3dDescriptor' | 'Conv3dPlan' | 'ConvTranspose3dDescriptor' | 'ConvTranspose3dPlan'
>;

type Conv3dPlan = import('@baracuda/kernels').Conv3dPlan;
type ConvTranspose3dPlan = import('@baracuda/kernels').ConvTranspose3dPlan;
type Stream = Parameters<StageKernels['Conv3dPlan']['select']>[0];

/** Device memory the stage holds one tensor in. */
export interface StageBuffer extends DeviceSlice {
  dispose(): void;
}

/** How to select the stage's plans. */
export interface StageOptions {
  /** Defaults to `'heuristic'`. */
  readonly algorithm?: 'heuristic' | 'autotune';
}

/** Bytes per stored element. */
export function stageElementBytes(dtype: StageDtype): 2 | 4 {
  return dtype === 'f16' || dtype === 'bf16' ? 2 : 4;
}

/** One algorithm the step runs: which layer, which call, what ran. */
export interface StageAlgorithm {
  readonly layer: StageLayer;
  readonly pass: 'fw' | 'bwData' | 'bwFilter';
  readonly name: string;
}

/** A stage's plans and every tensor of its step, on one device. */
export class UnetStage<B extends StageBuffer> {
  readonly shape: StageShape;
  readonly dtype: StageDtype;
  /** Every tensor of the step, allocated dense in the shape's layout (STAGE_TENSORS). */
  readonly tensors: Readonly<Record<StageTensor, B>>;
  readonly #full: Conv3dPlan;
  readonly #down: Conv3dPlan;
  readonly #up: ConvTranspose3dPlan;
  #disposed = false;

  private constructor(
    shape: StageShape,
    dtype: StageDtype,
    tensors: Record<StageTensor, B>,
    plans: { full: Conv3dPlan; down: Conv3dPlan; up: ConvTranspose3dPlan },
  ) {
    this.shape = shape;
    this.dtype = dtype;
    this.tensors = Object.freeze(tensors);
    this.#full = plans.full;
    this.#down = plans.down;
    this.#up = plans.up;
  }

  /** Select the three plans and allocate the tensors (`alloc(bytes)`); frees what it made on failure. */
  static async create<B extends StageBuffer>(
    kernels: StageKernels,
    stream: Stream,
    shape: StageShape,
    dtype: StageDtype,
    alloc: (byteLength: number) => B,
    options: StageOptions = {},
  ): Promise<UnetStage<B>> {
    if (!STAGE_DTYPES.includes(dtype)) {
      throw new InvalidArgumentError('dtype', "'f32', 'tf32', 'f16' or 'bf16'", dtype);
    }
    const element = dtype === 'tf32' ? 'f32' : dtype;
    const preference = { algorithm: options.algorithm ?? 'heuristic', allowTf32: dtype === 'tf32' };
    const epilogue = { bias: true, activation: 'relu' } as const;
    const convDescriptor = (layer: 'conv1' | 'down') => {
      const p = stageConvProblem(shape, layer);
      return kernels.Conv3dDescriptor.create({
        batch: p.n,
        cIn: p.cIn,
        dIn: p.in[0],
        hIn: p.in[1],
        wIn: p.in[2],
        cOut: p.cOut,
        dFilt: 3,
        hFilt: 3,
        wFilt: 3,
        element,
      })
        .withPadding(1, 1, 1)
        .withStride(p.stride[0], p.stride[1], p.stride[2])
        .withLayout(shape.layout)
        .withEpilogue(epilogue);
    };
    const u = stageUpProblem(shape);
    const upDescriptor = kernels.ConvTranspose3dDescriptor.create({
      batch: u.n,
      cIn: u.cIn,
      dIn: u.in[0],
      hIn: u.in[1],
      wIn: u.in[2],
      cOut: u.cOut,
      dFilt: 2,
      hFilt: 2,
      wFilt: 2,
      element,
    })
      .withStride(2, 2, 2)
      .withLayout(shape.layout);
    const made: Array<{ dispose(): void }> = [];
    try {
      const full = await kernels.Conv3dPlan.select(stream, convDescriptor('conv1'), preference);
      made.push(full);
      const down = await kernels.Conv3dPlan.select(stream, convDescriptor('down'), preference);
      made.push(down);
      const up = await kernels.ConvTranspose3dPlan.select(stream, upDescriptor, preference);
      made.push(up);
      const counts = stageElementCounts(shape);
      const bytes = stageElementBytes(dtype);
      const tensors = {} as Record<StageTensor, B>;
      for (const name of STAGE_TENSORS) {
        const buffer = alloc(counts[name] * bytes);
        made.push(buffer);
        tensors[name] = buffer;
      }
      return new UnetStage(shape, dtype, tensors, { full, down, up });
    } catch (error) {
      for (const thing of made.reverse()) thing.dispose();
      throw error;
    }
  }

  #live(): void {
    if (this.#disposed) throw new DisposedError('UnetStage');
  }

  /** Enqueue the forward pass: a1, a2, a3 (fused conv + bias + ReLU), y (transposed conv). */
  forward(stream?: Stream): void {
    for (const op of this.forwardOps(stream)) op.run();
  }

  /** Enqueue the backward pass of the loss ⟨y, dy⟩ from the forward's activations. */
  backward(stream?: Stream): void {
    for (const op of this.backwardOps(stream)) op.run();
  }

  /** The forward pass as its calls, in order, each named `layer.pass` (for a per-call timing). */
  forwardOps(stream?: Stream): StageOp[] {
    this.#live();
    const t = this.tensors;
    const s = stream === undefined ? {} : { stream };
    return [
      {
        name: 'conv1.fw',
        run: () => this.#full.runFw({ x: t.x, w: t.w1, y: t.a1, bias: t.b1, ...s }),
      },
      {
        name: 'conv2.fw',
        run: () => this.#full.runFw({ x: t.a1, w: t.w2, y: t.a2, bias: t.b2, ...s }),
      },
      {
        name: 'down.fw',
        run: () => this.#down.runFw({ x: t.a2, w: t.wd, y: t.a3, bias: t.bd, ...s }),
      },
      { name: 'up.fw', run: () => this.#up.runFw({ x: t.a3, w: t.wu, y: t.y, ...s }) },
    ];
  }

  /** The backward pass as its calls, in order, each named `layer.pass`. */
  backwardOps(stream?: Stream): StageOp[] {
    this.#live();
    const t = this.tensors;
    const s = stream === undefined ? {} : { stream };
    const ops: StageOp[] = [
      { name: 'up.bwData', run: () => this.#up.runBwData({ dy: t.dy, w: t.wu, dx: t.da3, ...s }) },
      { name: 'up.bwFilter', run: () => this.#up.runDw({ x: t.a3, dy: t.dy, dw: t.dwu, ...s }) },
    ];
    const layers = [
      ['down', this.#down, t.a2, t.wd, t.a3, t.da3, t.dp3, t.dbd, t.da2, t.dwd],
      ['conv2', this.#full, t.a1, t.w2, t.a2, t.da2, t.dp2, t.db2, t.da1, t.dw2],
      ['conv1', this.#full, t.x, t.w1, t.a1, t.da1, t.dp1, t.db1, t.dx, t.dw1],
    ] as const;
    for (const [layer, plan, x, w, y, dy, dyPre, dBias, dx, dw] of layers) {
      ops.push(
        {
          name: `${layer}.bwEpilogue`,
          run: () => plan.runBwEpilogue({ dy, y, dyPre, dBias, ...s }),
        },
        { name: `${layer}.bwData`, run: () => plan.runBwData({ w, dy: dyPre, dx, ...s }) },
        { name: `${layer}.bwFilter`, run: () => plan.runDw({ x, dy: dyPre, dw, ...s }) },
      );
    }
    return ops;
  }

  /** Enqueue one training step: forward then backward. */
  step(stream?: Stream): void {
    this.forward(stream);
    this.backward(stream);
  }

  /** What each layer's calls run (conv1 and conv2 share one plan). */
  algorithms(): StageAlgorithm[] {
    this.#live();
    const plans = { conv1: this.#full, conv2: this.#full, down: this.#down, up: this.#up };
    const rows: StageAlgorithm[] = [];
    for (const [layer, plan] of Object.entries(plans) as Array<[StageLayer, Conv3dPlan]>) {
      for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
        rows.push({ layer, pass, name: plan.algorithm(pass).name });
      }
    }
    return rows;
  }

  /** Free the plans and the tensors. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#full.dispose();
    this.#down.dispose();
    this.#up.dispose();
    for (const name of STAGE_TENSORS) this.tensors[name].dispose();
  }
}
