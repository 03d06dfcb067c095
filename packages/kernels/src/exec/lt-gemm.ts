/**
 * The patch-embedding route's inner 1×1×1 convolution as one cuBLASLt matrix product per pass
 * (gemm.ts's math, sys-cublaslt.ts's calls): an {@link InnerPlan} that the space-to-depth executor
 * runs between its transforms, in place of the inner problem's cuDNN plan. Alpha and beta are the
 * product's own; the workspace is the caller's or the plan's (grown on first use); NCDHW
 * backward-filter over a batch of more than one first permutes dy and the transformed x into plan
 * scratch so the sum over the batch is one product.
 */
import { type ElementKind, WorkspaceTooSmallError } from '@baracuda/types';
import type { Conv3dPass, Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { type GemmSpec, gemmSpec } from '../gemm.js';
import { intendedMathPrecision } from '../policy.js';
import type { SpaceToDepthKernels } from '../space-to-depth-kernels.js';
import { computeTypeOf, LtHandle, LtMatmul } from '../sys-cublaslt.js';
import type { ExecContext, InnerPlan, PassExecutor } from './executor.js';

/** What algorithm() calls it (inside the route's name: "patch GEMM: space-to-depth + cuBLASLt 1×1×1"). */
export const CUBLASLT_NAME = 'cuBLASLt';

/** One pass of the inner problem as a cuBLASLt product. */
export class LtGemmExecutor implements PassExecutor {
  readonly spec: GemmSpec;
  readonly #ctx: ExecContext;
  readonly #matmul: LtMatmul;
  readonly #kernels: SpaceToDepthKernels;
  readonly #info: AlgorithmInfo;

  constructor(ctx: ExecContext, spec: GemmSpec, matmul: LtMatmul, kernels: SpaceToDepthKernels) {
    this.#ctx = ctx;
    this.spec = spec;
    this.#matmul = matmul;
    this.#kernels = kernels;
    const { element } = ctx.desc;
    this.#info = Object.freeze({
      path: 'cublaslt' as const,
      name: CUBLASLT_NAME,
      numericalNotes: Object.freeze([]),
      workspaceBytes: matmul.workspaceBytes,
      deterministic: true,
      mathPrecision: intendedMathPrecision(element, ctx.preference.allowTf32),
    });
  }

  info(): AlgorithmInfo {
    return this.#info;
  }
  workspaceBytes(): number {
    return this.#matmul.workspaceBytes;
  }
  built(): AlgorithmInfo | undefined {
    return this.#info;
  }
  dispose(): void {
    this.#matmul.dispose();
  }

  run(ops: Operands, { alpha, beta, stream, userWs }: RunScalars): void {
    const needed = this.#matmul.workspaceBytes;
    let ws: bigint;
    if (userWs !== null) {
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
      ws = userWs.devicePtr;
    } else {
      ws = this.#ctx.scope.workspace(needed, stream);
    }
    const t: Record<'x' | 'w' | 'y', bigint> = { x: ops.x, w: ops.w, y: ops.y };
    const bytes = this.#ctx.desc.elementBytes;
    for (const { tensor, map } of this.spec.permute) {
      // dy' in the 'y' scratch, x' in the 'w' one (the patch route's filter needs none).
      const to = this.#ctx.scope.scratch(tensor === 'y' ? 'y' : 'w', map.total * bytes, stream);
      this.#kernels.gather(stream, t[tensor], to, map, bytes);
      t[tensor] = to;
    }
    const { a, b, d } = this.spec;
    this.#matmul.run(alpha, beta, t[a.tensor], t[b.tensor], t[d.tensor], ws, stream.raw);
  }
}

/** The inner problem's plan of cuBLASLt products: one handle, one product per pass made. */
export class LtGemmPlan implements InnerPlan {
  readonly ctx: ExecContext;
  readonly #handle: LtHandle;
  readonly #kernels: SpaceToDepthKernels;
  readonly #executors = new Map<Conv3dPass, LtGemmExecutor>();

  /**
   * The plan with `pass` built (throws UnsupportedError when cuBLASLt has no algorithm for it).
   * `outer` is the route's context; the inner problem `inner` shares its scope and device.
   */
  constructor(
    outer: ExecContext,
    inner: Conv3dDescriptor,
    pass: Conv3dPass,
    kernels: SpaceToDepthKernels,
  ) {
    this.ctx = Object.freeze({ ...outer, desc: inner, problem: inner.describe() });
    this.#kernels = kernels;
    outer.device.makeCurrent?.();
    this.#handle = new LtHandle();
    try {
      this.executor(pass);
    } catch (error) {
      this.#handle.dispose();
      throw error;
    }
  }

  executor(pass: Conv3dPass): LtGemmExecutor {
    let executor = this.#executors.get(pass);
    if (executor === undefined) {
      const { desc, preference } = this.ctx;
      const spec = gemmSpec(desc, pass);
      const element: ElementKind = desc.element;
      const matmul = new LtMatmul(
        this.#handle,
        spec,
        element,
        computeTypeOf(element, preference.allowTf32),
        preference.maxWorkspaceBytes,
      );
      executor = new LtGemmExecutor(this.ctx, spec, matmul, this.#kernels);
      this.#executors.set(pass, executor);
    }
    return executor;
  }
  built(pass: Conv3dPass): AlgorithmInfo | undefined {
    return this.#executors.get(pass)?.built();
  }
  dispose(): void {
    for (const executor of this.#executors.values()) executor.dispose();
    this.#executors.clear();
    this.#handle.dispose();
  }
}
