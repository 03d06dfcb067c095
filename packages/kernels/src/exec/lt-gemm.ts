/**
 * The patch-embedding route's inner 1×1×1 convolution as one cuBLASLt matrix product per pass
 * (gemm.ts's math, sys-cublaslt.ts's calls): an {@link InnerPlan} that the space-to-depth executor
 * runs between its transforms, in place of the inner problem's cuDNN plan. Alpha and beta are the
 * product's own; operands aligned less than 16 bytes get a product of their own alignment class; the workspace is the caller's or the plan's (grown on first use); NCDHW
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
import { alignmentOf, computeTypeOf, LtHandle, LtMatmul } from '../sys-cublaslt.js';
import type { ExecContext, InnerPlan, PassExecutor } from './executor.js';

/** What algorithm() calls it (inside the route's name: "patch GEMM: space-to-depth + cuBLASLt 1×1×1"). */
export const CUBLASLT_NAME = 'cuBLASLt';

/**
 * The pointer alignment the default product is built for (as cuDNN's default choice is): 16
 * bytes. Operands aligned less get a product of their own alignment class, made on first use.
 */
export const LT_DEFAULT_ALIGNMENT = 16;

/** Makes the product of one alignment class (bytes). */
export type LtMatmulFactory = (alignment: number) => LtMatmul;

/** One pass of the inner problem as a cuBLASLt product. */
export class LtGemmExecutor implements PassExecutor {
  readonly spec: GemmSpec;
  readonly #ctx: ExecContext;
  readonly #matmul: LtMatmul;
  readonly #make: LtMatmulFactory;
  /** The products of smaller alignment classes, made on first use. */
  readonly #byAlignment = new Map<number, LtMatmul>();
  readonly #kernels: SpaceToDepthKernels;
  readonly #info: AlgorithmInfo;

  /** Builds the default product (throws UnsupportedError when cuBLASLt has none). */
  constructor(
    ctx: ExecContext,
    spec: GemmSpec,
    make: LtMatmulFactory,
    kernels: SpaceToDepthKernels,
  ) {
    this.#ctx = ctx;
    this.spec = spec;
    this.#make = make;
    const matmul = make(LT_DEFAULT_ALIGNMENT);
    this.#matmul = matmul;
    this.#byAlignment.set(LT_DEFAULT_ALIGNMENT, matmul);
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
    for (const matmul of this.#byAlignment.values()) matmul.dispose();
    this.#byAlignment.clear();
  }

  /** The product for operands aligned to `alignment` bytes (made on first use). */
  #matmulFor(alignment: number): LtMatmul {
    let matmul = this.#byAlignment.get(alignment);
    if (matmul === undefined) {
      matmul = this.#make(alignment);
      this.#byAlignment.set(alignment, matmul);
    }
    return matmul;
  }

  run(ops: Operands, { alpha, beta, stream, userWs }: RunScalars): void {
    const { a, b, d } = this.spec;
    const t: Record<'x' | 'w' | 'y', bigint> = { x: ops.x, w: ops.w, y: ops.y };
    const permuted = new Set(this.spec.permute.map((p) => p.tensor));
    // Permuted copies live in plan scratch (aligned); the caller's pointers set the class.
    const callers = [a.tensor, b.tensor, d.tensor].filter((r) => !permuted.has(r as 'x' | 'y'));
    const alignment = alignmentOf(
      callers.map((r) => t[r]),
      LT_DEFAULT_ALIGNMENT,
    );
    // Checked before anything is enqueued: a short workspace writes nothing.
    const matmul = this.#matmulFor(alignment);
    const needed = matmul.workspaceBytes;
    let ws: bigint;
    if (userWs !== null) {
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
      ws = userWs.devicePtr;
    } else {
      ws = this.#ctx.scope.workspace(needed, stream);
    }
    const bytes = this.#ctx.desc.elementBytes;
    for (const { tensor, map } of this.spec.permute) {
      // dy' in the 'y' scratch, x' in the 'w' one (the patch route's filter needs none).
      const to = this.#ctx.scope.scratch(tensor === 'y' ? 'y' : 'w', map.total * bytes, stream);
      this.#kernels.gather(stream, t[tensor], to, map, bytes);
      t[tensor] = to;
    }
    matmul.run(alpha, beta, t[a.tensor], t[b.tensor], t[d.tensor], ws, stream.raw);
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
      const compute = computeTypeOf(element, preference.allowTf32);
      const make: LtMatmulFactory = (alignment) =>
        new LtMatmul(this.#handle, spec, element, compute, preference.maxWorkspaceBytes, alignment);
      executor = new LtGemmExecutor(this.ctx, spec, make, this.#kernels);
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
