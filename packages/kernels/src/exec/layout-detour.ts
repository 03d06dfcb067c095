/**
 * The layout detour: a problem run as the same problem in the other layout (NCDHW through NDHWC,
 * NDHWC through NCDHW): our transposes of the operands into plan-owned scratch, the inner
 * problem's own plan, and the result transposed back; cudnnTransformTensor where our layout
 * kernels do not load. It holds the inner plan (an {@link InnerPlan}, never a Conv3dPlan).
 */
import { ElementKind, WorkspaceTooSmallError } from '@baracuda/types';
import { type Conv3dPass, type Operands, PASS_SPEC, ROLES, type Role } from '../core/pass.js';
import { type RunScalars, renamed } from '../core/types.js';
import { bindStream } from '../cudnn/handle.js';
import { check } from '../cudnn/status.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import type { Erratum } from '../errata.js';
import {
  type LayoutKernels,
  layoutTransposes,
  type OperandTransposes,
  type TransposeShape,
} from '../layout.js';
import { cudnn, type TensorDescriptor } from '../sys.js';
import type { ExecContext, InnerPlan, PassExecutor } from './executor.js';

const VIA_NDHWC_SUFFIX = 'via NDHWC (cuDNN 9.8–9.14 erratum)';

/** The problem in the other layout (NCDHW ↔ NDHWC). */
export function otherLayout(desc: Conv3dDescriptor): Conv3dDescriptor {
  return desc.withLayout(desc.layout === 'ncdhw' ? 'ndhwc' : 'ncdhw');
}

/** Each operand's transposes into the other layout (`in`) and back (`out`). */
function detourTransposes(
  desc: Conv3dDescriptor,
): Record<Role, { readonly in: TransposeShape; readonly out: TransposeShape }> {
  const t = layoutTransposes(desc);
  const toNdhwc = desc.layout === 'ncdhw';
  const of = (o: OperandTransposes) =>
    toNdhwc ? { in: o.toNdhwc, out: o.toNcdhw } : { in: o.toNcdhw, out: o.toNdhwc };
  return { x: of(t.x), w: of(t.w), y: of(t.y) };
}

/** @internal */
export class LayoutDetour<P extends InnerPlan = InnerPlan> {
  /** The erratum that sends every pass this way, if one does. */
  readonly erratum: Erratum | undefined;
  /** Every pass takes it (an erratum, or `options.layoutDetour: 'always'`). */
  readonly every: boolean;
  /** The problem in the other layout. */
  readonly inner: P;
  readonly #ctx: ExecContext;
  /** Our layout kernels, or null (then cudnnTransformTensor). */
  readonly #layout: () => LayoutKernels | null;
  /** The batched transposes of x, w and y (our layout kernels): into the inner layout, and back. */
  readonly #transposes: Record<Role, { readonly in: TransposeShape; readonly out: TransposeShape }>;
  /** Legacy tensor descriptors: the caller's strides, and the scratch's (the inner layout's). */
  #descs:
    | { caller: Record<Role, TensorDescriptor>; scratch: Record<Role, TensorDescriptor> }
    | undefined;
  readonly #one: Float32Array | Float64Array;
  readonly #zero: Float32Array | Float64Array;
  readonly #alphaBuf: Float32Array | Float64Array;
  readonly #betaBuf: Float32Array | Float64Array;
  readonly #executors = new Map<Conv3dPass, PassExecutor>();

  constructor(
    ctx: ExecContext,
    layout: () => LayoutKernels | null,
    erratum: Erratum | undefined,
    every: boolean,
    inner: P,
  ) {
    const f64 = ctx.desc.element === ElementKind.F64;
    const scale = (v: number) => (f64 ? Float64Array.of(v) : Float32Array.of(v));
    this.#ctx = ctx;
    this.#layout = layout;
    this.erratum = erratum;
    this.every = every;
    this.inner = inner;
    this.#transposes = detourTransposes(ctx.desc);
    this.#one = scale(1);
    this.#zero = scale(0);
    this.#alphaBuf = scale(1);
    this.#betaBuf = scale(0);
  }

  /** The detour of one pass, as an executor. */
  executor(pass: Conv3dPass): PassExecutor {
    let e = this.#executors.get(pass);
    if (e === undefined) {
      const suffix =
        this.erratum !== undefined
          ? VIA_NDHWC_SUFFIX
          : `via ${this.inner.ctx.desc.layout.toUpperCase()}`;
      e = {
        // The inner plan's truth, named as the detour it is.
        info: () => renamed(this.inner.executor(pass).info(), suffix),
        workspaceBytes: () => this.inner.executor(pass).workspaceBytes(),
        built: () => this.inner.built(pass),
        run: (ops, scalars) => this.run(pass, ops, scalars),
      };
      this.#executors.set(pass, e);
    }
    return e;
  }

  /** Whether `e` is this detour's executor of some pass. */
  owns(e: PassExecutor | undefined): boolean {
    return e !== undefined && [...this.#executors.values()].includes(e);
  }

  /**
   * The inputs transposed into scratch in the other layout, that layout's plan into scratch, and
   * the result transposed into the caller's output. Our transposes move the caller's output in too
   * when beta must read it, and the plan takes the caller's alpha and beta; with
   * cudnnTransformTensor the plan runs with alpha 1 and beta 0 and the last transform applies the
   * caller's (so beta 1 accumulates exactly once). Every check happens before anything is written
   * to the caller's output.
   */
  run(pass: Conv3dPass, ptr: Operands, args: RunScalars): void {
    const { alpha, beta, stream, userWs } = args;
    if (userWs !== null) {
      // The inner plan checks it again; checked here first so a short one writes nothing at all.
      const needed = this.inner.executor(pass).workspaceBytes();
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
    }
    const { desc: d, scope } = this.#ctx;
    const bytes = d.elementBytes;
    const scratch: Record<Role, bigint> = {
      x: scope.scratch('x', d.xElements * bytes, stream),
      w: scope.scratch('w', d.wElements * bytes, stream),
      y: scope.scratch('y', d.yElements * bytes, stream),
    };
    const out = PASS_SPEC[pass].output;
    const layout = this.#layout();
    if (layout !== null) {
      const t = this.#transposes;
      for (const role of ROLES) {
        if (role !== out || beta !== 0) {
          layout.transpose(stream, ptr[role], scratch[role], t[role].in, bytes);
        }
      }
      this.inner.executor(pass).run(scratch, args);
      layout.transpose(stream, scratch[out], ptr[out], t[out].out, bytes);
      return;
    }
    const descs = this.#descriptors();
    const shared = scope.handle;
    const innerLayout = this.inner.ctx.desc.layout.toUpperCase();
    bindStream(shared, stream.raw, this.#ctx.problem);
    for (const role of ROLES) {
      if (role === out) continue;
      check(
        cudnn.cudnnTransformTensor(
          shared.handle,
          this.#one,
          descs.caller[role],
          ptr[role],
          this.#zero,
          descs.scratch[role],
          scratch[role],
        ),
        'cudnnTransformTensor',
        `${this.#ctx.problem} ${pass} (${role} into ${innerLayout})`,
      );
    }
    this.inner.executor(pass).run(scratch, { alpha: 1, beta: 0, stream, userWs });
    // The inner plan bound the same shared handle to the same stream.
    this.#alphaBuf[0] = alpha;
    this.#betaBuf[0] = beta;
    check(
      cudnn.cudnnTransformTensor(
        shared.handle,
        this.#alphaBuf,
        descs.scratch[out],
        scratch[out],
        this.#betaBuf,
        descs.caller[out],
        ptr[out],
      ),
      'cudnnTransformTensor',
      `${this.#ctx.problem} ${pass} (${out} back from ${innerLayout})`,
    );
  }

  /** The legacy tensor descriptors of the layout transforms (made once). */
  #descriptors(): {
    caller: Record<Role, TensorDescriptor>;
    scratch: Record<Role, TensorDescriptor>;
  } {
    if (this.#descs !== undefined) return this.#descs;
    const caller = {} as Record<Role, TensorDescriptor>;
    const scratch = {} as Record<Role, TensorDescriptor>;
    const operands = (
      d: Conv3dDescriptor,
    ): Record<Role, [readonly number[], readonly number[]]> => ({
      x: [d.xShape, d.xStrides],
      w: [d.wShape, d.wStrides],
      y: [d.yShape, d.yStrides],
    });
    const own = this.#ctx.desc;
    const innerDesc = this.inner.ctx.desc;
    const mine = operands(own);
    const other = operands(innerDesc);
    for (const role of ROLES) {
      const [dims, strides] = mine[role];
      caller[role] = this.#ctx.legacy.tensor(dims, strides, `${role} ${own.layout}`);
      const [, innerStrides] = other[role];
      scratch[role] = this.#ctx.legacy.tensor(dims, innerStrides, `${role} ${innerDesc.layout}`);
    }
    this.#descs = { caller, scratch };
    return this.#descs;
  }
}
