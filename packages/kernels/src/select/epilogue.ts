/**
 * The forward route of a descriptor with an epilogue, and its backward pieces. The route is chosen
 * once, on first use: one fused cuDNN graph (exec/fused-graph.ts) where the epilogue is fusable and
 * the plain pass would run on cuDNN in the descriptor's own layout, else the convolution on the
 * executor the plain pass gets (select/core.ts: our depthwise kernels, a layout detour, cuDNN)
 * followed by our epilogue kernel (exec/epilogue-kernel.ts). Pinned mode always takes the latter;
 * so do runs with beta ≠ 0 or a pre-activation to write, and problems cuDNN offers no fused engine
 * for. The backward pieces (activation gradient, bias gradient) are our kernels.
 */
import { CudnnError, UnsupportedError } from '@baracuda/types';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import { fusable, fusedForwardGraph } from '../cudnn/fused-graph.js';
import { channelMap, EpilogueKernels } from '../epilogue/kernels.js';
import type { CheckedBwEpilogue } from '../epilogue/run-args.js';
import { EpilogueAfterConv, type EpilogueOperands } from '../exec/epilogue-kernel.js';
import type { ExecContext } from '../exec/executor.js';
import { FUSED_SUFFIX, type FusedExec, FusedForward } from '../exec/fused-graph.js';
import { C, driver, type OwnedBuffer, type TimingEvent } from '../sys.js';
import { randomScratchBytes } from '../tuning.js';
import { tuneBench } from './autotune/bench.js';
import { TUNE_ROUNDS, timeAsFinalist } from './autotune/timing.js';
import type { PlanCore } from './core.js';
import { candidates, finalizeAllowed, graphInfo } from './graph-choice.js';

/**
 * The fused plan of (alpha, alignment class): the engines the heuristics offer for the fused
 * graph (mode A, then FALLBACK), the first that the preference allows, finalizes and fits the
 * workspace limit; null where none does.
 */
export function selectFused(ctx: ExecContext, alpha: number, align: number): FusedExec | null {
  let built: ReturnType<typeof fusedForwardGraph>;
  try {
    built = fusedForwardGraph(ctx.scope, ctx.desc, alpha, align);
  } catch (error) {
    // A cuDNN that refuses a node of the graph (a pointwise mode or attribute it lacks) has no
    // fused engine for it: the unfused route runs, as where the heuristics offer none.
    if (CudnnError.isInstance(error)) return null;
    throw error;
  }
  const { graph, parts, uids } = built;
  const found = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_FALLBACK]);
  let chosen: ReturnType<typeof finalizeAllowed> = null;
  for (const c of found) {
    if (chosen === null) {
      chosen = finalizeAllowed(ctx, c);
      if (chosen !== null) continue; // its engine config stays alive with the plan
    }
    ctx.scope.destroyBackend(c.cfg);
  }
  if (chosen === null) {
    for (const p of parts) ctx.scope.destroyBackend(p);
    return null;
  }
  const info = graphInfo(ctx, chosen.c, chosen.workspaceBytes);
  return {
    plan: chosen.plan,
    workspaceBytes: chosen.workspaceBytes,
    info: Object.freeze({ ...info, name: `${info.name} ${FUSED_SUFFIX}` }),
    uids,
  };
}

/** @internal A plan's epilogue: its forward route and backward pieces. */
export class EpiloguePlan {
  readonly #core: PlanCore;
  readonly #unfused: EpilogueAfterConv;
  /** The fused graph route, decided on first use (null: unfused only). */
  #fused: FusedForward | null | undefined;

  constructor(core: PlanCore) {
    this.#core = core;
    this.#unfused = new EpilogueAfterConv(
      core.ctx.desc,
      () => core.executor('fw'),
      () => this.#kernels(),
    );
  }

  /** Our kernels on the plan's device; a typed error where they do not load (a fused graph needs none). */
  #kernels(): EpilogueKernels {
    const { device, problem } = this.#core.ctx;
    const kernels = EpilogueKernels.forDevice(device);
    if (kernels instanceof Error) {
      throw new UnsupportedError(
        `baracuda's epilogue kernels did not load on ${device.name} (${kernels.message}); ${problem} cannot run its epilogue unfused`,
        { cause: kernels },
      );
    }
    return kernels;
  }

  /**
   * The route: fused where the epilogue is fusable, not pinned, and the plain pass would take cuDNN
   * in this layout (not our depthwise kernels, not a detour an erratum or autotune put in place).
   */
  #route(): FusedForward | EpilogueAfterConv {
    if (this.#fused === undefined) {
      const core = this.#core;
      const onCudnn =
        core.depthwise('fw') === null &&
        core.installed('fw') === undefined &&
        core.everyPassDetour === undefined;
      const allowed =
        core.ctx.preference.algorithm !== 'pinned' && fusable(core.ctx.desc) && onCudnn;
      const ctx = core.ctx;
      this.#fused = allowed
        ? new FusedForward(ctx, this.#unfused, (alpha, align) => selectFused(ctx, alpha, align))
        : null;
    }
    return this.#fused ?? this.#unfused;
  }

  /** What the forward pass runs as (algorithm('fw')). */
  info(): AlgorithmInfo {
    return this.#route().info();
  }
  workspaceBytes(): number {
    return this.#route().workspaceBytes();
  }

  /** Enqueue the forward pass with its epilogue. */
  runFw(ops: EpilogueOperands, scalars: RunScalars): void {
    this.#route().run(ops, scalars);
  }

  /**
   * Autotune's choice between the fused graph and the unfused route (the tuned convolution and our
   * kernel): both timed on the bench's operand sets (bias and z random), the faster kept. Nothing
   * to time where the fused route does not apply or no fused engine is offered. Not cached: every
   * autotune select times it again (the autotune cache holds the convolution's choice).
   */
  *tune(): Generator<TimingEvent, void, void> {
    const route = this.#route();
    if (!(route instanceof FusedForward) || route.choice(1, 16) === null) return;
    const ctx = this.#core.ctx;
    const d = ctx.desc;
    const bench = tuneBench(ctx);
    const owned: OwnedBuffer[] = [];
    try {
      const scratch = (elements: number) => {
        const b = driver.DeviceBuffer.alloc(elements * d.elementBytes, {
          device: ctx.device,
          stream: ctx.stream,
        });
        owned.push(b);
        b.uploadSync(randomScratchBytes(d.element, elements));
        return b.devicePtr;
      };
      const bias = d.epilogue.bias ? scratch(d.cOut) : 0n;
      const z = d.epilogue.residual ? scratch(d.yElements) : 0n;
      const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
      const timer = (r: FusedForward | EpilogueAfterConv) => (set: number) => {
        r.run({ ...bench.sets[set]!, bias, z, pre: 0n }, scalars);
        return true;
      };
      const fusedMs = yield* timeAsFinalist(bench, timer(route), TUNE_ROUNDS);
      const unfusedMs = yield* timeAsFinalist(bench, timer(this.#unfused), TUNE_ROUNDS);
      this.tuned = { fusedMs, unfusedMs };
      if (unfusedMs < fusedMs) {
        route.dispose();
        this.#fused = null;
      }
    } finally {
      for (const b of owned) b.dispose();
      bench.dispose();
    }
  }

  /** What {@link tune} measured (ms per run), if it ran. */
  tuned: { readonly fusedMs: number; readonly unfusedMs: number } | undefined;

  /** Free the fused route's variant packs. */
  dispose(): void {
    this.#fused?.dispose();
  }

  /** Enqueue dyPre = dy · act'(saved), then dBias = Σ dyPre (dy for identity) per channel. */
  runBackward(args: CheckedBwEpilogue): void {
    const d = this.#core.ctx.desc;
    const e = d.epilogue;
    const map = channelMap(d.yShape, d.layout);
    const kernels = this.#kernels();
    let grad = args.dy;
    if (args.dyPre !== 0n) {
      kernels.actGrad(args.stream, d.element, e, map.total, {
        dy: args.dy,
        saved: args.saved,
        dyPre: args.dyPre,
      });
      grad = args.dyPre;
    }
    if (args.dBias !== 0n) {
      kernels.biasGrad(args.stream, d.element, map, { dy: grad, dBias: args.dBias });
    }
  }
}
