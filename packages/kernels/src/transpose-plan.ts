/**
 * ConvTranspose3dPlan: a 3-D transposed convolution as a facade over the plan core of the
 * convolution it is the backward-data of (ConvTranspose3dDescriptor#conv): its forward runs that
 * convolution's backward-data, its backward-data the convolution's forward, its backward-filter
 * the convolution's backward-filter with x and dy swapped. Everything the convolution's plan does
 * (errata, the layout detour, our depthwise kernels, backward-data as forward, autotune and its
 * cache, the legacy fallback) applies unchanged; Conv3dPlan has no branch for it.
 */
import {
  ConvKind,
  InvalidArgumentError,
  type KernelSku,
  type PlanPreference,
  type PrecisionGuarantee,
} from '@baracuda/types';
import { type ResolvedPlanPreference, resolvePlanPreference } from './compat.js';
import { type Conv3dPass, PASSES } from './core/pass.js';
import type { AlgorithmInfo, Conv3dSelectReport } from './core/types.js';
import type { Conv3dDescriptor } from './descriptor.js';
import { skuEpilogue } from './epilogue/epilogue.js';
import { checkBwEpilogue, checkEpilogueFw } from './epilogue/run-args.js';
import { TrailingPlanes } from './exec/trailing-planes.js';
import { FACTORY_TOKEN, type FactoryToken, requireFactoryToken } from './factory.js';
import { checkStream } from './plan/arguments.js';
import { type Conv3dPlanOptions, resolveOptions } from './plan/options.js';
import { kernelSku, precisionGuarantee } from './plan/report.js';
import type {
  ConvTranspose3dBwDataArgs,
  ConvTranspose3dBwEpilogueArgs,
  ConvTranspose3dDwArgs,
  ConvTranspose3dFwArgs,
} from './plan/transpose-arguments.js';
import { fullOutputConv } from './plan/transpose-full-output.js';
import { TransposeTails } from './plan/transpose-tails.js';
import { guardReceivers } from './receivers.js';
import { checkRunArgs, type RunArgsSpec, type RunTarget } from './run-args.js';
import { prepare } from './select/autotune/tune.js';
import type { PlanCore } from './select/core.js';
import { createCore } from './select/create.js';
import type { StreamLike, TimingEvent } from './sys.js';
import {
  type ConvTranspose3dDescriptor,
  isConvTranspose3dDescriptor,
} from './transpose-descriptor.js';

/** The convolution's pass each transposed pass runs. */
const CONV_PASS: Record<Conv3dPass, Conv3dPass> = {
  fw: 'bwData',
  bwData: 'fw',
  bwFilter: 'bwFilter',
};

/**
 * Per transposed pass, its method and arguments, each named with the convolution's operand it is
 * (x_conv = the transposed output, y_conv = the transposed input).
 */
const SPECS: Record<Conv3dPass, RunArgsSpec> = {
  fw: {
    method: 'runFw',
    args: [
      ['x', 'y'],
      ['w', 'w'],
      ['y', 'x'],
    ],
  },
  bwData: {
    method: 'runBwData',
    args: [
      ['w', 'w'],
      ['dy', 'x'],
      ['dx', 'y'],
    ],
  },
  bwFilter: {
    method: 'runDw',
    args: [
      ['x', 'y'],
      ['dy', 'x'],
      ['dw', 'w'],
    ],
  },
};

/**
 * A 3-D transposed convolution plan over cuDNN: forward (y = alpha · convTranspose(x, w) + beta ·
 * y), backward-data and backward-filter, on the same selection modes, dtypes and layouts as
 * Conv3dPlan. Made by `select` / `selectSync` only.
 */
export class ConvTranspose3dPlan {
  readonly descriptor: ConvTranspose3dDescriptor;
  readonly preference: ResolvedPlanPreference;
  /** The cuDNN version the plan runs on (cudnnGetVersion() encoding). */
  readonly cudnnVersion: number;
  /** Ids of errata that changed what this plan does. */
  readonly errataApplied: readonly string[];
  readonly #core: PlanCore;
  /** The run of a problem with trailing planes no input reaches (outputPadding > padAfter), or null. */
  readonly #trailing: TrailingPlanes | null;
  readonly #runTarget: RunTarget;
  /** The epilogue after the forward and the input activation's backward after backward-data. */
  readonly #tails: TransposeTails;
  /** Wall milliseconds of select. */
  #selectMs = 0;

  static {
    guardReceivers(
      ConvTranspose3dPlan,
      'ConvTranspose3dPlan',
      (o) => typeof o === 'object' && o !== null && #core in o,
    );
  }

  private constructor(
    token: FactoryToken,
    desc: ConvTranspose3dDescriptor,
    core: PlanCore,
    checked: Conv3dDescriptor,
    trailing: TrailingPlanes | null,
  ) {
    requireFactoryToken(
      token,
      'ConvTranspose3dPlan',
      'ConvTranspose3dPlan.select or ConvTranspose3dPlan.selectSync',
    );
    this.#core = core;
    this.#trailing = trailing;
    this.#runTarget = {
      descriptor: checked,
      device: core.ctx.device,
      stream: core.ctx.stream,
    };
    this.#tails = new TransposeTails(core, desc, trailing, this.#runTarget);
    this.descriptor = desc;
    this.preference = core.ctx.preference;
    this.cudnnVersion = core.ctx.cudnnVersion;
    this.errataApplied = core.errataApplied;
  }

  /**
   * Validate, load cuDNN and make the plan; with `algorithm: 'autotune'`, tune the passes in
   * `options.passes` (the transposed passes' names) without blocking the event loop.
   */
  static async select(
    stream: StreamLike,
    desc: ConvTranspose3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): Promise<ConvTranspose3dPlan> {
    const started = performance.now();
    const plan = ConvTranspose3dPlan.#create(stream, desc, preference, options);
    try {
      for (const gen of plan.#tuning(options)) {
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
  }

  /** Like `select`, synchronously (autotune blocks the thread while it tunes). */
  static selectSync(
    stream: StreamLike,
    desc: ConvTranspose3dDescriptor,
    preference?: Partial<PlanPreference>,
    options?: Conv3dPlanOptions,
  ): ConvTranspose3dPlan {
    const started = performance.now();
    const plan = ConvTranspose3dPlan.#create(stream, desc, preference, options);
    try {
      for (const gen of plan.#tuning(options)) {
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

  /** What select runs: autotune's passes, then (autotune) each tail's fused-or-not choice. */
  *#tuning(options: Conv3dPlanOptions | undefined): Generator<Generator<TimingEvent, void, void>> {
    yield prepare(this.#core, convOptions(options));
    if (this.preference.algorithm !== 'autotune') return;
    const passes = resolveOptions(options).passes;
    for (const pass of ['fw', 'bwData'] as const) {
      const route = passes.includes(pass) ? this.#tails.route(pass) : undefined;
      if (route !== undefined) yield route.tune();
    }
  }

  static #create(
    stream: StreamLike,
    desc: ConvTranspose3dDescriptor,
    preference: Partial<PlanPreference> | undefined,
    options: Conv3dPlanOptions | undefined,
  ): ConvTranspose3dPlan {
    if (!isConvTranspose3dDescriptor(desc)) {
      throw new InvalidArgumentError('desc', 'a ConvTranspose3dDescriptor', desc);
    }
    desc.validate();
    const asked = resolvePlanPreference(preference);
    convOptions(options);
    checkStream(stream, 'stream');
    const trailing = desc.trailingPlanes().some((p) => p > 0);
    const checked = trailing ? fullOutputConv(desc) : desc.conv();
    const core = createCore(stream, desc.conv(), asked, resolveOptions(options));
    return new ConvTranspose3dPlan(
      FACTORY_TOKEN,
      desc,
      core,
      checked,
      trailing ? new TrailingPlanes(core, desc.yShape) : null,
    );
  }

  /** Output extents [D, H, W]. */
  outputDims(): [number, number, number] {
    this.#core.checkNotDisposed();
    return this.descriptor.outputDims();
  }

  /** Workspace bytes of the forward pass (builds its plan if needed). */
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
    const route = this.#tails.route(pass);
    if (route !== undefined) return route.workspaceBytes();
    return this.#core.executor(CONV_PASS[pass]).workspaceBytes();
  }

  /** What runs a transposed pass (the convolution pass it maps to; builds its plan if needed). */
  algorithm(pass: Conv3dPass): AlgorithmInfo {
    this.#core.checkNotDisposed();
    if (!PASSES.includes(pass)) {
      throw new InvalidArgumentError('pass', "'fw', 'bwData' or 'bwFilter'", pass);
    }
    const route = this.#tails.route(pass);
    if (route !== undefined) return route.info();
    if (this.#trailing !== null) return this.#trailing.info(CONV_PASS[pass]);
    return this.#core.executor(CONV_PASS[pass]).info();
  }

  /**
   * What select timed (as Conv3dPlan#selectReport), each pass named as the transposed pass it
   * serves (the convolution's backward-data is this plan's 'fw').
   */
  selectReport(): Conv3dSelectReport {
    this.#core.checkNotDisposed();
    const passes = PASSES.flatMap((p) => {
      const done = this.#core.selection.get(CONV_PASS[p]);
      return done === undefined ? [] : [Object.freeze({ ...done, pass: p })];
    });
    return Object.freeze({ wallMs: this.#selectMs, passes: Object.freeze(passes) });
  }

  /** The precision the plan gives (as Conv3dPlan#precisionGuarantee). */
  precisionGuarantee(): PrecisionGuarantee {
    this.#core.checkNotDisposed();
    return precisionGuarantee(this.#core);
  }

  /** Identity of the kernel; `op` is `'conv_transpose3d'`, `epilogue` the descriptor's (as Conv3dPlan#sku). */
  sku(): KernelSku {
    this.#core.checkNotDisposed();
    return {
      ...kernelSku(this.#core),
      op: ConvKind.ConvTranspose3d,
      epilogue: skuEpilogue(this.descriptor.epilogue),
    };
  }

  /**
   * Enqueue y = alpha · convTranspose(x, w) + beta · y (the convolution's backward-data); with the
   * descriptor's epilogue y = act(alpha · convTranspose(x, w) + beta · y + bias[c] + z): one fused
   * cuDNN graph where an engine runs it, else the pass then our kernel (`algorithm('fw')` says
   * which).
   */
  runFw(args: ConvTranspose3dFwArgs): void {
    this.#run('fw', args);
  }

  /**
   * The training backward of the descriptor's epilogue (as Conv3dPlan#runBwEpilogue): dyPre = dy ·
   * act'(·) from `y` or `preActivation`, then dBias[c] = Σ dyPre. Returns without waiting.
   */
  runBwEpilogue(args: ConvTranspose3dBwEpilogueArgs): void {
    this.#core.checkNotDisposed();
    const checked = checkBwEpilogue(args, this.#runTarget, this.#tails.output());
    this.#core.checkNotDisposed();
    this.#tails.epilogue().runBackward(checked);
  }

  /**
   * Enqueue dx = alpha · convTransposeBwData(w, dy) + beta · dx (the convolution's forward); with
   * the descriptor's input activation, then dx · act'(·) of `x` or `preActivation`.
   */
  runBwData(args: ConvTranspose3dBwDataArgs): void {
    this.#run('bwData', args);
  }

  /** Enqueue dw = alpha · convTransposeBwFilter(x, dy) + beta · dw (the convolution's backward-filter on (dy, x)). */
  runDw(args: ConvTranspose3dDwArgs): void {
    this.#run('bwFilter', args);
  }

  #run(pass: Conv3dPass, args: unknown): void {
    this.#core.checkNotDisposed();
    const { px, pw, py, scalars } = checkRunArgs(
      CONV_PASS[pass],
      args,
      this.#runTarget,
      SPECS[pass],
    );
    const given = args as Record<string, unknown>;
    const epilogue =
      pass === 'fw' && this.#tails.hasEpilogue
        ? checkEpilogueFw(given, this.#runTarget, this.#tails.output())
        : undefined;
    const saved =
      pass === 'bwData' && this.#tails.hasInputActivation
        ? this.#tails.checkSaved(given)
        : undefined;
    // A getter of the arguments may have disposed the plan.
    this.#core.checkNotDisposed();
    const ops = { x: px, w: pw, y: py };
    if (epilogue !== undefined) {
      this.#tails.epilogue().runFw({ ...ops, ...epilogue }, scalars);
      return;
    }
    if (saved !== undefined) {
      this.#tails.inputActivation().runFw({ ...ops, bias: 0n, z: 0n, pre: 0n, saved }, scalars);
      return;
    }
    if (this.#trailing !== null) this.#trailing.run(CONV_PASS[pass], ops, scalars);
    else this.#core.executor(CONV_PASS[pass]).run(ops, scalars);
  }

  /** Destroy every cuDNN object of the plan and release what it holds. Idempotent. */
  dispose(): void {
    if (this.#core.disposed) return;
    this.#tails.dispose();
    this.#trailing?.dispose();
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

/** The options with the transposed passes named as the convolution's passes they run. */
function convOptions(options: Conv3dPlanOptions | undefined) {
  const opts = resolveOptions(options);
  return { ...opts, passes: [...new Set(opts.passes.map((p) => CONV_PASS[p]))] };
}
