/**
 * A space-to-depth route as an executor (the math in space-to-depth.ts, the steps in
 * space-to-depth-steps.ts): our transforms into plan-owned scratch, the inner problem's own plan
 * (an {@link InnerPlan}: a 1×1×1 convolution for a patch embedding, a GEMM that cuDNN runs with
 * its NDHWC/NCDHW pointwise engines; a stride-1 convolution on 8·cIn channels for the stem), and
 * the result transformed back where the inner pass writes scratch. Stream-ordered; the scratch is
 * allocated on the first run only.
 */
import { WorkspaceTooSmallError } from '@baracuda/types';
import type { Conv3dPass, Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import type { SpaceToDepthRoute } from '../space-to-depth.js';
import type { SpaceToDepthKernels } from '../space-to-depth-kernels.js';
import type { ExecContext, InnerPlan, PassExecutor } from './executor.js';
import { routeSteps, type Step, type StepTensor } from './space-to-depth-steps.js';

/** What algorithm() calls the route around the inner plan's choice `inner`. */
export function spaceToDepthName(route: SpaceToDepthRoute, inner: string): string {
  const d = route.inner;
  if (route.kind === 'patch') return `patch GEMM: space-to-depth + ${inner} 1×1×1`;
  return `stem: space-to-depth 2×2×2 + ${inner} ${d.dFilt}×${d.hFilt}×${d.wFilt} stride 1`;
}

/** @internal */
export class SpaceToDepthExecutor<P extends InnerPlan = InnerPlan> implements PassExecutor {
  /** The inner problem's plan. */
  readonly inner: P;
  readonly route: SpaceToDepthRoute;
  readonly #ctx: ExecContext;
  readonly #pass: Conv3dPass;
  readonly #kernels: SpaceToDepthKernels;
  /** The steps for beta 0, beta 1 and any other beta (made once each). */
  readonly #steps = new Map<0 | 1 | 2, readonly Step[]>();

  constructor(
    ctx: ExecContext,
    pass: Conv3dPass,
    route: SpaceToDepthRoute,
    inner: P,
    kernels: SpaceToDepthKernels,
  ) {
    this.#ctx = ctx;
    this.#pass = pass;
    this.route = route;
    this.inner = inner;
    this.#kernels = kernels;
  }

  info(): AlgorithmInfo {
    const info = this.inner.executor(this.#pass).info();
    return Object.freeze({ ...info, name: spaceToDepthName(this.route, info.name) });
  }
  workspaceBytes(): number {
    return this.inner.executor(this.#pass).workspaceBytes();
  }
  built(): AlgorithmInfo | undefined {
    const info = this.inner.built(this.#pass);
    return info && Object.freeze({ ...info, name: spaceToDepthName(this.route, info.name) });
  }
  /** Dispose the inner problem's plan. */
  dispose(): void {
    this.inner.dispose();
  }

  /** Bytes of the two plan-owned scratch tensors (the transformed x or dx, and filter or dw). */
  scratchBytes(): { xs: number; ws: number } {
    const bytes = this.#ctx.desc.elementBytes;
    return { xs: this.route.x.elements * bytes, ws: (this.route.w?.elements ?? 0) * bytes };
  }

  /** The steps for this beta (see space-to-depth-steps.ts). */
  steps(beta: number): readonly Step[] {
    const key = beta === 0 ? 0 : beta === 1 ? 1 : 2;
    let steps = this.#steps.get(key);
    if (steps === undefined) {
      steps = routeSteps(this.route, this.#pass, beta);
      this.#steps.set(key, steps);
    }
    return steps;
  }

  /**
   * The steps on our kernels and the inner plan. The workspace is checked first, so a short one
   * writes nothing at all.
   */
  run(ops: Operands, scalars: RunScalars): void {
    const { stream, userWs, beta } = scalars;
    const inner = this.inner.executor(this.#pass);
    if (userWs !== null) {
      const needed = inner.workspaceBytes();
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
    }
    const { desc: d, scope } = this.#ctx;
    const sizes = this.scratchBytes();
    const t: Record<StepTensor, bigint> = {
      x: ops.x,
      w: ops.w,
      y: ops.y,
      xs: scope.scratch('x', sizes.xs, stream),
      ws: sizes.ws === 0 ? 0n : scope.scratch('w', sizes.ws, stream),
    };
    const bytes = d.elementBytes;
    for (const step of this.steps(beta)) {
      if (step.op === 'gather') {
        this.#kernels.gather(stream, t[step.from], t[step.to], step.map, bytes);
      } else if (step.op === 'inverse') {
        const { map, mode } = step;
        this.#kernels.inverse(stream, t[step.from], t[step.to], map, mode, beta, d.element, bytes);
      } else {
        inner.run({ x: t[step.x], w: t[step.w], y: t[step.y] }, scalars);
      }
    }
  }
}
