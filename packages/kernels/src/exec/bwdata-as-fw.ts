/**
 * Backward-data of a stride-1 layer run as the forward pass of the problem
 * {@link bwDataAsForward} gives: the filter transposed per group and flipped in space into
 * plan-owned scratch, then that problem's own plan (an {@link InnerPlan} sharing the handle) on
 * (dy, flipped W) into dx. Autotune takes it when it times faster than every backward-data engine
 * (PyTorch's cuDNN took 107.7 µs for the suite's pointwise f32 backward-data and 82.8 µs for the
 * same as a forward pass, run 36).
 */
import { UnsupportedError } from '@baracuda/types';
import type { Operands } from '../core/pass.js';
import { type AlgorithmInfo, type RunScalars, renamed } from '../core/types.js';
import type { FilterFlip, LayoutKernels } from '../layout.js';
import type { StreamLike } from '../sys.js';
import type { ExecContext, InnerPlan, PassExecutor } from './executor.js';

export const BWDATA_AS_FW_SUFFIX = 'as forward on the flipped filter';

/** @internal */
export class BwDataAsForwardExecutor<P extends InnerPlan = InnerPlan> implements PassExecutor {
  /** The forward problem's plan. */
  readonly inner: P;
  readonly #ctx: ExecContext;
  readonly #layout: LayoutKernels;
  readonly #flip: FilterFlip;

  constructor(ctx: ExecContext, inner: P, layout: LayoutKernels, flip: FilterFlip) {
    this.#ctx = ctx;
    this.inner = inner;
    this.#layout = layout;
    this.#flip = flip;
  }

  /** The plan-owned scratch the flipped filter goes to (allocated on first use). */
  flippedScratch(stream: StreamLike): bigint {
    const d = this.#ctx.desc;
    return this.#ctx.scope.scratch('w', d.wElements * d.elementBytes, stream);
  }

  /** Enqueue the flipped filter of `w` into plan-owned scratch; returns the scratch. */
  flippedFilter(w: bigint, stream: StreamLike): bigint {
    const flipped = this.flippedScratch(stream);
    if (!this.#layout.flipFilter(stream, w, flipped, this.#flip, this.#ctx.desc.elementBytes)) {
      throw new UnsupportedError(`No filter-flip kernel for ${this.#ctx.problem}`);
    }
    return flipped;
  }

  info(): AlgorithmInfo {
    return renamed(this.inner.executor('fw').info(), BWDATA_AS_FW_SUFFIX);
  }
  workspaceBytes(): number {
    return this.inner.executor('fw').workspaceBytes();
  }
  built(): AlgorithmInfo | undefined {
    return this.inner.built('fw');
  }
  /** Dispose the forward problem's plan. */
  dispose(): void {
    this.inner.dispose();
  }
  /** dx = alpha * conv(dy, flipped W) + beta * dx: the flipped filter into scratch, then the forward plan. */
  run(ops: Operands, scalars: RunScalars): void {
    const w = this.flippedFilter(ops.w, scalars.stream);
    this.inner.executor('fw').run({ x: ops.y, w, y: ops.x }, scalars);
  }
}
