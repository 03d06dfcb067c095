/**
 * A transposed convolution whose outputPadding passes its after-padding on some axis: its output
 * has trailing planes that no input element reaches. The convolution it transposes covers only
 * the reached box (ConvTranspose3dDescriptor#conv); this runs each pass of the full problem on
 * that plan core through plan-owned dense scratch of the box and cudnnTransformTensor, which takes
 * strided views of the caller's tensor:
 * - forward: the convolution's backward-data into scratch (alpha 1, beta 0), then y_box = alpha ·
 *   scratch + beta · y_box, and each trailing box y_t = 0 + beta · y_t from a zeroed buffer (beta
 *   0 writes zeros: cuDNN does not read an output scaled by 0);
 * - backward-data and backward-filter: the reached box of dy copied into scratch, then the
 *   convolution's forward or backward-filter on it (the trailing planes of dy reach nothing).
 * @internal
 */
import { ElementKind } from '@baracuda/types';
import type { Conv3dPass, Operands } from '../core/pass.js';
import { type AlgorithmInfo, type RunScalars, renamed } from '../core/types.js';
import { bindStream } from '../cudnn/handle.js';
import { check } from '../cudnn/status.js';
import { stridesFor } from '../descriptor-shape.js';
import { cudnn, driver, type OwnedBuffer, type StreamLike, type TensorDescriptor } from '../sys.js';
import type { ExecContext, InnerPlan } from './executor.js';

export const TRAILING_SUFFIX = '(reached planes; the trailing planes by cudnnTransformTensor)';

/** One trailing box of the output: its logical shape and its element offset in the full tensor. */
interface Box {
  readonly shape: readonly number[];
  readonly offset: number;
}

/**
 * The output's boxes outside the reached one: up to three, disjoint (past the reached depth; then
 * within it past the reached height; then within both past the reached width).
 */
export function trailingBoxes(
  full: readonly number[],
  reached: readonly number[],
  strides: readonly number[],
): Box[] {
  const [n, c, D, H, W] = full as [number, number, number, number, number];
  const [, , d, h, w] = reached as [number, number, number, number, number];
  const boxes: Box[] = [];
  if (D > d) boxes.push({ shape: [n, c, D - d, H, W], offset: d * strides[2]! });
  if (H > h) boxes.push({ shape: [n, c, d, H - h, W], offset: h * strides[3]! });
  if (W > w) boxes.push({ shape: [n, c, d, h, W - w], offset: w * strides[4]! });
  return boxes;
}

/** @internal */
export class TrailingPlanes {
  readonly #core: InnerPlan;
  readonly #ctx: ExecContext;
  /** The full transposed output's dense strides in the layout (logical order). */
  readonly #fullStrides: readonly number[];
  readonly #boxes: Box[];
  readonly #one: Float32Array | Float64Array;
  readonly #zero: Float32Array | Float64Array;
  readonly #alpha: Float32Array | Float64Array;
  readonly #beta: Float32Array | Float64Array;
  #scratch: OwnedBuffer | undefined;
  #zeros: OwnedBuffer | undefined;
  #descs:
    | { view: TensorDescriptor; dense: TensorDescriptor; boxes: TensorDescriptor[][] }
    | undefined;

  /** `core` is the reached box's convolution's plan core; `full` the transposed output's shape. */
  constructor(core: InnerPlan, full: readonly number[]) {
    this.#core = core;
    this.#ctx = core.ctx;
    this.#fullStrides = stridesFor(full, core.ctx.desc.layout);
    this.#boxes = trailingBoxes(full, core.ctx.desc.xShape, this.#fullStrides);
    const f64 = core.ctx.desc.element === ElementKind.F64;
    const make = (v: number) => (f64 ? Float64Array.of(v) : Float32Array.of(v));
    this.#one = make(1);
    this.#zero = make(0);
    this.#alpha = make(1);
    this.#beta = make(0);
  }

  /** What a transposed pass runs on (the convolution's pass), named as it runs here. */
  info(convPass: Conv3dPass): AlgorithmInfo {
    return renamed(this.#core.executor(convPass).info(), TRAILING_SUFFIX);
  }

  /** The legacy descriptors: the reached box as a view of the full tensor and dense, and each trailing box as a view and dense. */
  #descriptors() {
    if (this.#descs !== undefined) return this.#descs;
    const { legacy, desc } = this.#ctx;
    const reached = desc.xShape;
    this.#descs = {
      view: legacy.tensor(reached, this.#fullStrides, 'reached planes (view)'),
      dense: legacy.tensor(reached, desc.xStrides, 'reached planes (scratch)'),
      boxes: this.#boxes.map((b, i) => [
        legacy.tensor(b.shape, this.#fullStrides, `trailing box ${i} (view)`),
        legacy.tensor(b.shape, stridesFor(b.shape, desc.layout), `trailing box ${i} (zeros)`),
      ]),
    };
    return this.#descs;
  }

  #buffers(stream: StreamLike): { scratch: bigint; zeros: bigint } {
    const { desc, device } = this.#ctx;
    if (this.#scratch === undefined) {
      this.#scratch = driver.DeviceBuffer.alloc(desc.xElements * desc.elementBytes, {
        device,
        stream,
      });
    }
    if (this.#zeros === undefined) {
      const largest = Math.max(1, ...this.#boxes.map((b) => b.shape.reduce((a, e) => a * e, 1)));
      this.#zeros = driver.DeviceBuffer.alloc(largest * desc.elementBytes, { device, stream });
      this.#zeros.memset(0, stream);
    }
    return { scratch: this.#scratch.devicePtr, zeros: this.#zeros.devicePtr };
  }

  #transform(
    alpha: Float32Array | Float64Array,
    src: TensorDescriptor,
    srcPtr: bigint,
    beta: Float32Array | Float64Array,
    dst: TensorDescriptor,
    dstPtr: bigint,
    what: string,
  ): void {
    const shared = this.#ctx.scope.handle;
    check(
      cudnn.cudnnTransformTensor(shared.handle, alpha, src, srcPtr, beta, dst, dstPtr),
      'cudnnTransformTensor',
      `${this.#ctx.problem} (${what})`,
    );
  }

  /**
   * Run the convolution pass `convPass` for the full transposed problem; `ops` are the
   * convolution's operands with x the caller's full transposed-output-shaped tensor (y_t for the
   * forward, dy_t otherwise).
   */
  run(convPass: Conv3dPass, ops: Operands, scalars: RunScalars): void {
    const { stream } = scalars;
    const descs = this.#descriptors();
    const { scratch, zeros } = this.#buffers(stream);
    const exec = this.#core.executor(convPass);
    const bytes = this.#ctx.desc.elementBytes;
    bindStream(this.#ctx.scope.handle, stream.raw, this.#ctx.problem);
    if (convPass !== 'bwData') {
      // dy_t's reached planes into dense scratch; its trailing planes reach no input.
      this.#transform(this.#one, descs.view, ops.x, this.#zero, descs.dense, scratch, 'dy box');
      exec.run({ ...ops, x: scratch }, scalars);
      return;
    }
    exec.run({ ...ops, x: scratch }, { ...scalars, alpha: 1, beta: 0 });
    // The inner plan bound the same shared handle to the same stream.
    this.#alpha[0] = scalars.alpha;
    this.#beta[0] = scalars.beta;
    this.#transform(this.#alpha, descs.dense, scratch, this.#beta, descs.view, ops.x, 'y box');
    this.#boxes.forEach((box, i) => {
      const [view, dense] = descs.boxes[i]!;
      const at = ops.x + BigInt(box.offset * bytes);
      this.#transform(this.#one, dense!, zeros, this.#beta, view!, at, `trailing box ${i}`);
    });
  }

  /** Free the scratch and the zeros (the descriptors go with the scope). */
  dispose(): void {
    this.#scratch?.dispose();
    this.#zeros?.dispose();
    this.#scratch = undefined;
    this.#zeros = undefined;
  }
}
