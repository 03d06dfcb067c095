/**
 * The route of a pass with a tail (the forward epilogue of a convolution, or of a transposed
 * convolution on its backward-data; an input activation's backward after backward-data), and the
 * epilogue's backward pieces. The route is chosen once, on first use: one fused cuDNN graph
 * (exec/fused-graph.ts) where the tail is fusable and the plain pass would run on cuDNN in the
 * descriptor's own layout, else the convolution on the executor the plain pass gets
 * (select/core.ts: our depthwise kernels, a layout detour, cuDNN) followed by our kernel
 * (exec/epilogue-kernel.ts). Pinned mode always takes the latter; so do runs with beta ≠ 0 or a
 * pre-activation to write, and problems cuDNN offers no fused engine for. The backward pieces
 * (activation gradient, bias gradient) are our kernels.
 */
import { CudnnError, UnsupportedError, WorkspaceTooSmallError } from '@baracuda/types';
import type { Conv3dPass } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import { type FusedTail, fusable, fusedGraph } from '../cudnn/fused-graph.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { biasGradScratchBytes, channelMap, EpilogueKernels } from '../epilogue/kernels.js';
import type { CheckedBwEpilogue } from '../epilogue/run-args.js';
import {
  EpilogueAfterConv,
  type EpilogueOperands,
  type TailSite,
} from '../exec/epilogue-kernel.js';
import type { ExecContext, PassExecutor } from '../exec/executor.js';
import { FUSED_SUFFIX, type FusedExec, FusedForward } from '../exec/fused-graph.js';
import { C, driver, type OwnedBuffer, type TimingEvent } from '../sys.js';
import { tuneBench } from './autotune/bench.js';
import { fillRandomTiled } from './autotune/random-fill.js';
import { TUNE_ROUNDS, timeAsFinalist } from './autotune/timing.js';
import type { PlanCore } from './core.js';
import { candidates, finalizeAllowed, graphInfo } from './graph-choice.js';

/** Where a plan's tail sits: the pass it follows, what runs that pass, whether it may fuse. */
export interface EpilogueSite extends TailSite {
  readonly pass: Conv3dPass;
  /** The plain pass's executor (asked on each use). */
  readonly conv: () => PassExecutor;
  /** False where only the unfused route applies (a transposed problem's trailing planes). */
  readonly mayFuse: boolean;
}

/** The site of a convolution's forward epilogue or its backward-data's input activation. */
export function convSite(core: PlanCore, kind: 'epilogue' | 'activationBackward'): EpilogueSite {
  const d: Conv3dDescriptor = core.ctx.desc;
  const fw = kind === 'epilogue';
  const pass: Conv3dPass = fw ? 'fw' : 'bwData';
  return {
    kind,
    pass,
    element: d.element,
    epilogue: fw ? d.epilogue : d.inputActivation,
    map: channelMap(fw ? d.yShape : d.xShape, d.layout),
    output: fw ? 'y' : 'x',
    conv: () => core.executor(pass),
    mayFuse: true,
  };
}

/**
 * The fused plan of (alpha, alignment class): the engines the heuristics offer for the fused
 * graph (mode A, then FALLBACK), the first that the preference allows, finalizes and fits the
 * workspace limit; null where none does.
 */
export function selectFused(
  ctx: ExecContext,
  tail: FusedTail,
  alpha: number,
  align: number,
): FusedExec | null {
  let built: ReturnType<typeof fusedGraph>;
  try {
    built = fusedGraph(ctx.scope, ctx.desc, tail, alpha, align);
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

/** @internal A plan's tail: its route and (for an epilogue) backward pieces. */
export class EpiloguePlan {
  readonly #core: PlanCore;
  readonly #site: EpilogueSite;
  readonly #unfused: EpilogueAfterConv;
  /** The fused graph route, decided on first use (null: unfused only). */
  #fused: FusedForward | null | undefined;

  /** `site`: where the tail sits (a convolution's forward epilogue unless given). */
  constructor(core: PlanCore, site: EpilogueSite = convSite(core, 'epilogue')) {
    this.#core = core;
    this.#site = site;
    this.#unfused = new EpilogueAfterConv(site, site.conv, () => this.#kernels());
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
   * The route: fused where the tail is fusable, not pinned, and the plain pass would take cuDNN in
   * this layout (not our depthwise kernels, not a detour an erratum or autotune put in place).
   */
  #route(): FusedForward | EpilogueAfterConv {
    if (this.#fused === undefined) {
      const core = this.#core;
      const { pass, kind, epilogue, mayFuse } = this.#site;
      const tail: FusedTail = { kind, pass, epilogue };
      const onCudnn =
        core.depthwise(pass) === null &&
        core.installed(pass) === undefined &&
        core.everyPassDetour === undefined;
      const allowed =
        mayFuse && core.ctx.preference.algorithm !== 'pinned' && fusable(tail) && onCudnn;
      const ctx = core.ctx;
      this.#fused = allowed
        ? new FusedForward(ctx, this.#unfused, (alpha, align) =>
            selectFused(ctx, tail, alpha, align),
          )
        : null;
    }
    return this.#fused ?? this.#unfused;
  }

  /** What the pass runs as (algorithm(pass)). */
  info(): AlgorithmInfo {
    return this.#route().info();
  }
  workspaceBytes(): number {
    return this.#route().workspaceBytes();
  }

  /** Enqueue the pass with its tail. */
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
    const site = this.#site;
    const bench = tuneBench(ctx);
    const owned: OwnedBuffer[] = [];
    try {
      const scratch = (elements: number) => {
        const b = driver.DeviceBuffer.alloc(elements * d.elementBytes, {
          device: ctx.device,
          stream: ctx.stream,
        });
        owned.push(b);
        fillRandomTiled(b, d.element, d.elementBytes, ctx.stream);
        return b.devicePtr;
      };
      const e = site.epilogue;
      const epilogue = site.kind === 'epilogue';
      const bias = epilogue && e.bias ? scratch(site.map.channels) : 0n;
      const z = epilogue && e.residual ? scratch(site.map.total) : 0n;
      const saved = epilogue ? 0n : scratch(site.map.total);
      const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
      const timer = (r: FusedForward | EpilogueAfterConv) => (set: number) => {
        r.run({ ...bench.sets[set]!, bias, z, pre: 0n, saved }, scalars);
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
    const { element, epilogue: e, map } = this.#site;
    const kernels = this.#kernels();
    let grad = args.dy;
    if (args.dyPre !== 0n) {
      kernels.actGrad(args.stream, element, e, map.total, {
        dy: args.dy,
        saved: args.saved,
        dyPre: args.dyPre,
      });
      grad = args.dyPre;
    }
    if (args.dBias !== 0n) {
      // The partial sums in the caller's workspace, else the plan's own (stream-ordered after the
      // pass that used it).
      const bytes = biasGradScratchBytes(element, map);
      let partial: bigint;
      if (args.userWs !== null) {
        if (args.userWs.byteLength < bytes) {
          throw new WorkspaceTooSmallError(bytes, args.userWs.byteLength);
        }
        partial = args.userWs.devicePtr;
      } else {
        partial = this.#core.ctx.scope.workspace(bytes, args.stream);
      }
      kernels.biasGrad(args.stream, element, map, { dy: grad, dBias: args.dBias, partial });
    }
  }
}
