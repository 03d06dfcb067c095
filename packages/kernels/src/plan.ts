/**
 * Conv3dPlan: the public face of a 3-D convolution plan. It checks what the caller gives, and
 * hands each pass to its executor (select/core.ts, the one dispatch order); what runs a pass is
 * chosen by the selection (heuristic, pinned, or autotune in select/autotune/).
 */
import {
  InvalidArgumentError,
  type KernelSku,
  type PlanPreference,
  type PrecisionGuarantee,
} from '@baracuda/types';
import { type ResolvedPlanPreference, resolvePlanPreference } from './compat.js';
import { type Conv3dPass, PASSES } from './core/pass.js';
import type { AlgorithmInfo, Conv3dSelectReport } from './core/types.js';
import { type Conv3dDescriptor, isConv3dDescriptor } from './descriptor.js';
import {
  checkBwEpilogue,
  checkEpilogueFw,
  checkInputActivation,
  type EpilogueShape,
} from './epilogue/run-args.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import {
  type Conv3dBwDataArgs,
  type Conv3dBwEpilogueArgs,
  type Conv3dDwArgs,
  type Conv3dFwArgs,
  checkStream,
} from './plan/arguments.js';
import { type Conv3dPlanOptions, resolveOptions } from './plan/options.js';
import { kernelSku, precisionGuarantee } from './plan/report.js';
import { guardReceivers } from './receivers.js';
import { checkRunArgs, type RunTarget } from './run-args.js';
import { prepare } from './select/autotune/tune.js';
import type { PlanCore } from './select/core.js';
import { createCore } from './select/create.js';
import { convSite, EpiloguePlan } from './select/epilogue.js';
import type { StreamLike, TimingEvent } from './sys.js';

export type { Conv3dPass } from './core/pass.js';
export type { AlgorithmInfo, Conv3dSelectReport, PassSelection } from './core/types.js';
export type {
  Conv3dBwDataArgs,
  Conv3dBwEpilogueArgs,
  Conv3dDwArgs,
  Conv3dFwArgs,
  Conv3dTensorArg,
} from './plan/arguments.js';
export type { Conv3dPlanOptions } from './plan/options.js';

/**
 * A 3-D convolution plan over cuDNN: forward, backward-data and backward-filter.
 *
 * Execution plans are built lazily, per pass, on the first query or run of that pass (and
 * again for a new alpha/beta pair or pointer-alignment class, which cuDNN bakes into the plan),
 * except with `algorithm: 'autotune'`, which tunes the selected passes inside `select`.
 */
export class Conv3dPlan {
  readonly descriptor: Conv3dDescriptor;
  readonly preference: ResolvedPlanPreference;
  /** The cuDNN version the plan runs on (cudnnGetVersion() encoding). */
  readonly cudnnVersion: number;
  /** Ids of errata that changed what this plan does (e.g. forced strict f32). */
  readonly errataApplied: readonly string[];
  readonly #core: PlanCore;
  /** What the run calls' argument checks need (run-args.ts). */
  readonly #runTarget: RunTarget;
  /** Wall milliseconds select took (set when it returns). */
  #selectMs = 0;
  /** The epilogue's route and backward pieces (made on first use; the descriptor has an epilogue). */
  #epilogue: EpiloguePlan | undefined;
  /** The backward-data route with the input activation's backward (the descriptor has one). */
  #inputActivation: EpiloguePlan | undefined;

  static {
    guardReceivers(
      Conv3dPlan,
      'Conv3dPlan',
      (o) => typeof o === 'object' && o !== null && #core in o,
    );
  }

  private constructor(token: FactoryToken, core: PlanCore) {
    requireFactoryToken(token, 'Conv3dPlan', 'Conv3dPlan.select or Conv3dPlan.selectSync');
    this.#core = core;
    this.#runTarget = {
      descriptor: core.ctx.desc,
      device: core.ctx.device,
      stream: core.ctx.stream,
    };
    this.descriptor = core.ctx.desc;
    this.preference = core.ctx.preference;
    this.cudnnVersion = core.ctx.cudnnVersion;
    this.errataApplied = core.errataApplied;
  }

  /**
   * Validate the problem, load cuDNN and make a plan. With `algorithm: 'autotune'`, tunes the
   * passes in `options.passes` here, within `options.autotuneBudgetMs` per pass; in the default
   * mode, the first select of a problem quick-tunes them (`options.heuristic`); both wait on the
   * GPU without blocking the event loop. `selectReport()` says what was timed.
   */
  static async select(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): Promise<Conv3dPlan> {
    const stack = new Error().stack;
    const started = performance.now();
    try {
      const plan = Conv3dPlan.#create(stream, desc, preference, options);
      try {
        for (const gen of plan.#tuning(resolveOptions(options))) {
          let step = gen.next();
          while (!step.done) {
            await step.value.synchronize();
            step = gen.next();
          }
        }
      } catch (error) {
        plan.dispose();
        throw error;
      }
      plan.#selectMs = performance.now() - started;
      return plan;
    } catch (error) {
      if (error instanceof Error && stack) {
        error.stack = `${error.stack}\n    --- select() called from ---\n${stack.split('\n').slice(1).join('\n')}`;
      }
      throw error;
    }
  }

  /**
   * Like `select`, synchronously. With `algorithm: 'autotune'` it blocks the thread while it
   * tunes (up to the budget per pass), and the default mode's quick tune while it times (up to
   * about 200 ms per pass, the first time it meets a problem).
   */
  static selectSync(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): Conv3dPlan {
    const started = performance.now();
    const plan = Conv3dPlan.#create(stream, desc, preference, options);
    try {
      for (const gen of plan.#tuning(resolveOptions(options))) {
        let step = gen.next();
        while (!step.done) {
          step.value.synchronizeSync();
          step = gen.next();
        }
      }
    } catch (error) {
      plan.dispose();
      throw error;
    }
    plan.#selectMs = performance.now() - started;
    return plan;
  }

  /** What select runs before it returns: autotune's passes, then its epilogue route (fused or not). */
  *#tuning(opts: ReturnType<typeof resolveOptions>): Generator<Generator<TimingEvent, void, void>> {
    yield prepare(this.#core, opts);
    const autotune = this.preference.algorithm === 'autotune';
    if (autotune && opts.passes.includes('fw') && this.#hasEpilogue()) {
      yield this.#epiloguePlan().tune();
    }
    if (autotune && opts.passes.includes('bwData') && this.#hasInputActivation()) {
      yield this.#inputActivationPlan().tune();
    }
  }

  static #create(
    stream: StreamLike,
    desc: Conv3dDescriptor,
    preference: Partial<PlanPreference> | undefined,
    options: Conv3dPlanOptions | undefined,
  ): Conv3dPlan {
    if (!isConv3dDescriptor(desc)) {
      throw new InvalidArgumentError('desc', 'a Conv3dDescriptor', desc);
    }
    desc.validate();
    const asked = resolvePlanPreference(preference);
    const opts = resolveOptions(options);
    checkStream(stream, 'stream');
    return new Conv3dPlan(FACTORY_TOKEN, createCore(stream, desc, asked, opts));
  }

  /**
   * What select did, its time to plan: the wall milliseconds it took, and for each pass it timed
   * (autotune, or the default mode's quick tune) or took from the autotune cache, how many configs
   * and routes were timed, under what budget, whether the budget cut the search, and its wall
   * time. A pass the heuristics chose without timing (`heuristic: 'first'`, or nothing to choose
   * between) has no entry.
   */
  selectReport(): Conv3dSelectReport {
    this.#core.checkNotDisposed();
    return Object.freeze({
      wallMs: this.#selectMs,
      passes: Object.freeze(PASSES.flatMap((p) => this.#core.selection.get(p) ?? [])),
    });
  }

  /** Output extents [D, H, W]. */
  outputDims(): [number, number, number] {
    this.#core.checkNotDisposed();
    return this.descriptor.outputDims();
  }

  /** Workspace bytes of the forward pass (builds its plan if needed: alpha 1, beta 0, 16-byte aligned pointers). */
  queryFwWorkspaceSize(): number {
    return this.#workspaceBytes('fw');
  }
  /** Workspace bytes of the backward-data pass (builds its plan if needed). */
  queryBwDataWorkspaceSize(): number {
    return this.#workspaceBytes('bwData');
  }
  /** Workspace bytes of the backward-filter pass (builds its plan if needed). */
  queryBwFilterWorkspaceSize(): number {
    return this.#workspaceBytes('bwFilter');
  }

  #workspaceBytes(pass: Conv3dPass): number {
    this.#core.checkNotDisposed();
    if (pass === 'fw' && this.#hasEpilogue()) return this.#epiloguePlan().workspaceBytes();
    if (pass === 'bwData' && this.#hasInputActivation()) {
      return this.#inputActivationPlan().workspaceBytes();
    }
    return this.#core.executor(pass).workspaceBytes();
  }

  /** What was chosen for a pass (builds its plan if needed). */
  algorithm(pass: Conv3dPass): AlgorithmInfo {
    this.#core.checkNotDisposed();
    if (!PASSES.includes(pass)) {
      throw new InvalidArgumentError('pass', "'fw', 'bwData' or 'bwFilter'", pass);
    }
    if (pass === 'fw' && this.#hasEpilogue()) return this.#epiloguePlan().info();
    if (pass === 'bwData' && this.#hasInputActivation()) return this.#inputActivationPlan().info();
    return this.#core.executor(pass).info();
  }

  /**
   * The precision the plan gives. Before any pass is built, the preference's intent; after,
   * the truth of the chosen engines/algorithms (TF32 if any built f32 pass uses tensor cores,
   * nondeterministic if any built pass is).
   */
  precisionGuarantee(): PrecisionGuarantee {
    this.#core.checkNotDisposed();
    return precisionGuarantee(this.#core);
  }

  /**
   * Identity of the kernel: element, layout, arch from the device's compute capability, and the
   * backend: `'native'` when every pass built so far runs on baracuda's own kernels (a depthwise
   * plan of forward and backward-data only, say), else `'cudnn'`.
   */
  sku(): KernelSku {
    this.#core.checkNotDisposed();
    return kernelSku(this.#core);
  }

  /**
   * Enqueue y = alpha * conv(x, w) + beta * y on the stream (with the descriptor's epilogue:
   * y = act(alpha * conv(x, w) + beta * y + bias[c] + z)); returns without waiting.
   */
  runFw(args: Conv3dFwArgs): void {
    this.#run('fw', args);
  }

  /**
   * The training backward of the descriptor's epilogue, enqueued: dyPre = dy · act'(·) from `y`
   * (relu, sigmoid, tanh, clamp) or `preActivation` (leakyRelu, gelu, geluTanh, silu: kept by
   * passing `preActivation` to `runFw`), then dBias[c] = Σ dyPre over the batch and space (Σ dy
   * for identity). dyPre is then the gradient that `runBwData` and `runDw` take as `dy` (and the
   * residual's gradient). Returns without waiting.
   */
  runBwEpilogue(args: Conv3dBwEpilogueArgs): void {
    this.#core.checkNotDisposed();
    const checked = checkBwEpilogue(args, this.#runTarget);
    this.#core.checkNotDisposed();
    this.#epiloguePlan().runBackward(checked);
  }

  #hasEpilogue(): boolean {
    return !this.descriptor.epilogue.isNone;
  }

  #epiloguePlan(): EpiloguePlan {
    this.#epilogue ??= new EpiloguePlan(this.#core);
    return this.#epilogue;
  }

  #hasInputActivation(): boolean {
    return !this.descriptor.inputActivation.isNone;
  }

  #inputActivationPlan(): EpiloguePlan {
    this.#inputActivation ??= new EpiloguePlan(
      this.#core,
      convSite(this.#core, 'activationBackward'),
    );
    return this.#inputActivation;
  }

  /** dx as the input activation's arguments are checked against it. */
  #dxShape(): EpilogueShape {
    const d = this.descriptor;
    return {
      epilogue: d.inputActivation,
      shape: d.xShape,
      strides: d.xStrides,
      describe: () => d.describe(),
    };
  }

  /**
   * Enqueue dx = alpha * convBwData(w, dy) + beta * dx; returns without waiting. With the
   * descriptor's input activation (`withInputActivation`), dx is then multiplied by act'(·) of `x`
   * or `preActivation` (one fused cuDNN graph where an engine runs it, else our kernel after the
   * pass: `algorithm('bwData')` says which).
   */
  runBwData(args: Conv3dBwDataArgs): void {
    this.#run('bwData', args);
  }

  /** Enqueue dw = alpha * convBwFilter(x, dy) + beta * dw; returns without waiting. */
  runDw(args: Conv3dDwArgs): void {
    this.#run('bwFilter', args);
  }

  /** Check a run's arguments once (run-args.ts), then run the pass on its executor. */
  #run(pass: Conv3dPass, args: unknown): void {
    this.#core.checkNotDisposed();
    const { px, pw, py, scalars } = checkRunArgs(pass, args, this.#runTarget);
    const given = args as Record<string, unknown>;
    const epilogue =
      pass === 'fw' && this.#hasEpilogue() ? checkEpilogueFw(given, this.#runTarget) : undefined;
    const saved =
      pass === 'bwData' && this.#hasInputActivation()
        ? checkInputActivation(given, this.#runTarget, this.#dxShape())
        : undefined;
    // A getter of the arguments may have disposed the plan.
    this.#core.checkNotDisposed();
    if (epilogue !== undefined) {
      this.#epiloguePlan().runFw({ x: px, w: pw, y: py, ...epilogue }, scalars);
      return;
    }
    if (saved !== undefined) {
      const ops = { x: px, w: pw, y: py, bias: 0n, z: 0n, pre: 0n, saved };
      this.#inputActivationPlan().runFw(ops, scalars);
      return;
    }
    this.#core.executor(pass).run({ x: px, w: pw, y: py }, scalars);
  }

  /** Destroy every cuDNN object of the plan, release the shared handle, free the owned workspace. Idempotent. */
  dispose(): void {
    this.#epilogue?.dispose();
    this.#inputActivation?.dispose();
    this.#core.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.#core.disposed;
  }
}
