/**
 * A problem's plan without its public face: the context its executors share, and per pass the
 * executor that runs it, chosen on first use in the one dispatch order there is (our depthwise
 * kernels, the 3xTF32 split, the route autotune installed, the layout detour every pass takes,
 * cuDNN) from what the selection (heuristic, pinned, or autotune's installed choices) left. A
 * detour's inner problem is a PlanCore of its own, sharing the handle.
 */
import { DisposedError, ElementKind } from '@baracuda/types';
import type { ResolvedPlanPreference } from '../compat.js';
import { type Conv3dPass, PASSES } from '../core/pass.js';
import type { AlgorithmInfo } from '../core/types.js';
import { acquireHandle, type SharedHandle } from '../cudnn/handle.js';
import { LegacyApi } from '../cudnn/legacy.js';
import { CudnnScope } from '../cudnn/scope.js';
import { depthwiseUntuned } from '../depthwise.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { type Erratum, errataFor } from '../errata.js';
import { CudnnExecutor } from '../exec/cudnn.js';
import { type DepthwiseExecutor, depthwiseExecutor } from '../exec/depthwise.js';
import type { ExecContext, InnerPlan, PassExecutor } from '../exec/executor.js';
import { LayoutDetour, otherLayout } from '../exec/layout-detour.js';
import { Tf32x3Split } from '../exec/split-tf32.js';
import { LayoutKernels, layoutTransposes, transposeGrid } from '../layout.js';
import type { SplitKernels } from '../split-tf32.js';
import type { DeviceLike, StreamLike } from '../sys.js';
import type { PassSelection } from './autotune/budget.js';
import type { TunedChoice } from './autotune/cache-codec.js';
import { selectGraph } from './graph-choice.js';

/** @internal What one pass has so far. */
interface PassState {
  /** Our depthwise kernels run the pass (null: they do not; undefined: not decided yet). */
  depthwise: DepthwiseExecutor | null | undefined;
  /** The pass on cuDNN (made on first use). */
  cudnn: CudnnExecutor | undefined;
  /** What autotune chose (now or from its cache). */
  tuned: TunedChoice | undefined;
  /**
   * The route autotune installed (now or from its cache), or backward-data as forward for every
   * select (`bwDataAsForward: 'always'`): backward-data as a forward pass, the layout detour, or
   * any executor a candidate hands over.
   */
  installed: PassExecutor | undefined;
}

/**
 * Whether the layout detour may take `desc` into its other layout: no erratum covers that layout
 * (the f16/bf16 NCDHW defect of cuDNN 9.8–9.14 keeps NDHWC problems where they are).
 */
export function otherLayoutClean(
  desc: Conv3dDescriptor,
  version: number,
  pref: ResolvedPlanPreference,
): boolean {
  return errataFor(otherLayout(desc), version, pref).length === 0;
}

/** @internal */
export class PlanCore implements InnerPlan {
  readonly ctx: ExecContext;
  /** Ids of errata that changed what this plan does. */
  readonly errataApplied: readonly string[];
  /** This plan is a layout detour's inner plan, which takes no layout detour of its own. */
  readonly isTwin: boolean;
  /** What select did per pass that it timed or took from the cache (the plan's select report). */
  readonly selection = new Map<Conv3dPass, PassSelection>();
  readonly #passes: Record<Conv3dPass, PassState>;
  #disposed = false;
  /**
   * The layout detour: made at creation when a 'via-ndhwc' erratum applies or `layoutDetour` is
   * `'always'` (every pass takes it), or by autotune when it times faster for some pass.
   */
  #detour: LayoutDetour<PlanCore> | undefined;
  /** Our layout kernels for this plan's detour: undefined until asked, null when unusable. */
  #layout: LayoutKernels | null | undefined;
  /** Every pass as three TF32 products (`math: '3xtf32'`), over an inner TF32 plan. */
  readonly #split: Tf32x3Split<PlanCore> | undefined;

  constructor(
    stream: StreamLike,
    device: DeviceLike,
    desc: Conv3dDescriptor,
    preference: ResolvedPlanPreference,
    cudnnVersion: number,
    handle: SharedHandle,
    errataApplied: string[],
    options: {
      isTwin?: boolean;
      detour?: { erratum: Erratum | undefined; inner: PlanCore };
      split?: { kernels: SplitKernels; inner: PlanCore };
    } = {},
  ) {
    const problem = desc.describe();
    const scope = new CudnnScope(this, handle, problem, device);
    this.ctx = {
      desc,
      problem,
      preference,
      cudnnVersion,
      stream,
      device,
      scope,
      legacy: new LegacyApi(scope, desc, preference),
    };
    this.errataApplied = Object.freeze(errataApplied);
    this.isTwin = options.isTwin ?? false;
    const state = (): PassState => ({
      depthwise: undefined,
      cudnn: undefined,
      tuned: undefined,
      installed: undefined,
    });
    this.#passes = { fw: state(), bwData: state(), bwFilter: state() };
    const d = options.detour;
    if (d !== undefined) this.#detour = this.#makeDetour(d.erratum, true, d.inner);
    const split = options.split;
    this.#split =
      split &&
      new Tf32x3Split(this.ctx, split.kernels, split.inner, (pass) => {
        // On cuDNN, the accumulating calls' own plan (alpha 1, beta 1); another route's as it says.
        const e = split.inner.executor(pass);
        const cudnn = split.inner.cudnn(pass);
        return e === cudnn ? cudnn.choice(1, 1, 16).workspaceBytes : e.workspaceBytes();
      });
  }

  /**
   * The problem in the other layout as its own plan (heuristics, autotune and legacy fallback as
   * for any problem), sharing the device's handle: the layout detour's.
   */
  static twin(
    stream: StreamLike,
    device: DeviceLike,
    desc: Conv3dDescriptor,
    pref: ResolvedPlanPreference,
    version: number,
  ): PlanCore {
    const innerDesc = otherLayout(desc);
    const handle = acquireHandle(device.ordinal, innerDesc.describe());
    return new PlanCore(stream, device, innerDesc, pref, version, handle, [], { isTwin: true });
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  checkNotDisposed(): void {
    if (this.#disposed) throw new DisposedError('Conv3dPlan');
  }

  // -------------------------------------------------------------------------------------------
  // the one dispatch order

  /**
   * The executor that runs `pass`: ours (a depthwise problem's default, or autotune's choice),
   * else the 3xTF32 split (`math: '3xtf32'`, the passes it covers), else the route installed for it, else the layout
   * detour every pass takes, else cuDNN.
   */
  executor(pass: Conv3dPass): PassExecutor {
    const depthwise = this.depthwise(pass);
    if (depthwise !== null) return depthwise;
    if (this.#split?.covers(pass)) return this.#split.executor(pass);
    const installed = this.#passes[pass].installed;
    if (installed !== undefined) return installed;
    const every = this.everyPassDetour;
    if (every !== undefined) return every.executor(pass);
    return this.cudnn(pass);
  }

  /** What runs `pass` as built so far, deciding nothing. */
  built(pass: Conv3dPass): AlgorithmInfo | undefined {
    const st = this.#passes[pass];
    if (st.depthwise) return st.depthwise.built();
    if (this.#split?.covers(pass)) return this.#split.executor(pass).built();
    if (st.installed !== undefined) return st.installed.built();
    const every = this.everyPassDetour;
    if (every !== undefined) return every.inner.built(pass);
    return st.cudnn?.built();
  }

  /** What every pass built so far runs. */
  builtInfos(): AlgorithmInfo[] {
    return PASSES.map((p) => this.built(p)).filter((i): i is AlgorithmInfo => i !== undefined);
  }

  // -------------------------------------------------------------------------------------------
  // the routes' state

  /**
   * Whether our depthwise kernels run the pass, decided once: every pass of a depthwise problem
   * they take, except in pinned mode, or when autotune (now or from its cache) chose something
   * else. An untuned pass takes them where {@link depthwiseUntuned} says.
   */
  depthwise(pass: Conv3dPass): DepthwiseExecutor | null {
    const st = this.#passes[pass];
    if (st.depthwise !== undefined) return st.depthwise;
    const tuned = st.tuned;
    const allowed =
      this.ctx.preference.algorithm !== 'pinned' &&
      (tuned === undefined || tuned.kind === 'depthwise');
    const candidate = allowed ? depthwiseExecutor(this.ctx, pass) : null;
    st.depthwise =
      candidate !== null && (tuned !== undefined || depthwiseUntuned(candidate.call.launch))
        ? candidate
        : null;
    return st.depthwise;
  }

  /** The pass on cuDNN: the pinned legacy algorithm, or the graph API as selected (tuned choice first). */
  cudnn(pass: Conv3dPass): CudnnExecutor {
    const st = this.#passes[pass];
    if (st.cudnn === undefined) {
      const build =
        this.ctx.preference.algorithm === 'pinned'
          ? null
          : (alpha: number, beta: number, align: number) =>
              selectGraph(this.ctx, pass, alpha, beta, align, st.tuned);
      st.cudnn = new CudnnExecutor(this.ctx, pass, build);
    }
    return st.cudnn;
  }

  /** The 3xTF32 split every pass takes (`math: '3xtf32'`), if there is one. */
  get split(): Tf32x3Split<PlanCore> | undefined {
    return this.#split;
  }

  /** The detour every pass takes, if there is one. */
  get everyPassDetour(): LayoutDetour<PlanCore> | undefined {
    return this.#detour?.every === true ? this.#detour : undefined;
  }

  /** The layout detour when it runs `pass`: every pass, or the passes autotune chose it for. */
  detourFor(pass: Conv3dPass): LayoutDetour<PlanCore> | undefined {
    const d = this.#detour;
    return d !== undefined && (d.every || d.owns(this.#passes[pass].installed)) ? d : undefined;
  }

  /** The route installed for `pass`, if one is. */
  installed(pass: Conv3dPass): PassExecutor | undefined {
    return this.#passes[pass].installed;
  }

  /** What autotune chose for `pass`, if it did. */
  tuned(pass: Conv3dPass): TunedChoice | undefined {
    return this.#passes[pass].tuned;
  }

  /**
   * Autotune's result for one pass, installed in one step: the choice (the cache's entry) and the
   * route it takes (our depthwise kernels, decided; or an executor a candidate handed over).
   */
  install(
    pass: Conv3dPass,
    choice: TunedChoice,
    route: { depthwise?: DepthwiseExecutor | null; executor?: PassExecutor },
  ): void {
    const st = this.#passes[pass];
    st.tuned = choice;
    if (route.depthwise !== undefined) st.depthwise = route.depthwise;
    if (route.executor !== undefined) st.installed = route.executor;
  }

  /** A route for every select of this plan (backward-data as forward with `'always'`). */
  useRoute(pass: Conv3dPass, executor: PassExecutor): void {
    this.#passes[pass].installed = executor;
  }

  // -------------------------------------------------------------------------------------------
  // the layout detour

  #makeDetour(
    erratum: Erratum | undefined,
    every: boolean,
    inner: PlanCore,
  ): LayoutDetour<PlanCore> {
    return new LayoutDetour(this.ctx, () => this.layoutKernels(), erratum, every, inner);
  }

  /**
   * Whether autotune times the layout detour (see `options.layoutDetour`): a problem of f32, TF32,
   * f16 or bf16 (f64 has no tensor-core engines to gain), not itself a detour's inner plan, that
   * does not take it for every pass already, whose other layout no erratum covers (the f16/bf16
   * NCDHW defect of cuDNN 9.8–9.14: an NDHWC problem does not detour into it), on a device where
   * our layout kernels load.
   */
  detourTunable(): boolean {
    return this.ctx.preference.algorithm === 'autotune' && this.detourAvailable();
  }

  /**
   * Whether a detour could be timed for a pass, autotune or not (the default mode's quick tune
   * times it where our depthwise kernel applies): as {@link detourTunable}, in any mode but pinned.
   */
  detourAvailable(): boolean {
    const { desc: d, preference, cudnnVersion } = this.ctx;
    return (
      !this.isTwin &&
      d.element !== ElementKind.F64 &&
      preference.algorithm !== 'pinned' &&
      this.#detour?.every !== true &&
      otherLayoutClean(d, cudnnVersion, preference) &&
      this.layoutKernels() !== null
    );
  }

  /** The detour autotune times, made on first use; kept only if some pass takes it. */
  ensureDetour(): LayoutDetour<PlanCore> {
    if (this.#detour !== undefined) return this.#detour;
    const { stream, device, desc, preference, cudnnVersion } = this.ctx;
    const inner = PlanCore.twin(stream, device, desc, preference, cudnnVersion);
    this.#detour = this.#makeDetour(undefined, false, inner);
    return this.#detour;
  }

  /** Drop an autotuned detour no pass took, with its plan and its x and y scratch. */
  dropUnusedDetour(): void {
    const d = this.#detour;
    if (d === undefined || d.every || PASSES.some((p) => d.owns(this.#passes[p].installed))) return;
    this.#detour = undefined;
    d.inner.dispose();
    this.ctx.scope.dropScratch(['x', 'y']);
  }

  /** Our layout kernels for this plan's transposes, or null (then cudnnTransformTensor serves). */
  layoutKernels(): LayoutKernels | null {
    if (this.#layout !== undefined) return this.#layout;
    const { device, desc, problem } = this.ctx;
    const loaded = LayoutKernels.forDevice(device);
    const shapes = Object.values(layoutTransposes(desc)).flatMap((t) => [t.toNdhwc, t.toNcdhw]);
    if (loaded instanceof Error) {
      process.emitWarning(
        `baracuda's layout kernels did not load on ${device.name} (${loaded.message}); ${problem} transposes with cudnnTransformTensor, which is much slower`,
        { type: 'BaracudaWarning', code: 'BARACUDA_LAYOUT_KERNELS' },
      );
      this.#layout = null;
    } else {
      this.#layout = shapes.every((t) => transposeGrid(t) !== null) ? loaded : null;
    }
    return this.#layout;
  }

  // -------------------------------------------------------------------------------------------
  // lifetime

  /** Destroy every cuDNN object, release the shared handle, free owned memory. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#detour?.inner.dispose();
    this.#split?.dispose();
    for (const pass of PASSES) this.#passes[pass].installed?.dispose?.();
    for (const pass of PASSES) this.#passes[pass].cudnn?.dispose();
    this.ctx.scope.release(this);
  }
}
