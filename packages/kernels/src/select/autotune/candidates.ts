/**
 * The candidates autotune times against cuDNN's engines, beyond the graph search: our depthwise
 * kernels, backward-data as a forward pass and the layout detour. Each is made, timed through
 * its executor's own run on the bench's operand sets, and handed back with its time; what wins
 * is installed by tune.ts.
 */

import { bwDataAsForward } from '../../bwdata-forward.js';
import type { Conv3dPass } from '../../core/pass.js';
import type { ResolvedOptions, RunScalars } from '../../core/types.js';
import { bindStream } from '../../cudnn/handle.js';
import { variantPack } from '../../cudnn/operation-graph.js';
import { BwDataAsForwardExecutor } from '../../exec/bwdata-as-fw.js';
import type { DepthwiseExecutor } from '../../exec/depthwise.js';
import type { LayoutDetour } from '../../exec/layout-detour.js';
import { filterFlip, LayoutKernels } from '../../layout.js';
import { type BackendDescriptor, cudnn, type TimingEvent } from '../../sys.js';
import type { PlanCore } from '../core.js';
import { createCore } from '../create.js';
import type { TuneBench } from './bench.js';
import { TUNE_ROUNDS, timeAsFinalist } from './timing.js';

/** Tunes one pass of a plan (tune.ts's; given here so that the detours' inner plans tune too). */
export type TunePass = (
  core: PlanCore,
  pass: Conv3dPass,
  opts: ResolvedOptions,
) => Generator<TimingEvent, void, void>;

/** Time our depthwise kernel on the tuning operands like any engine (see timing.ts). */
export function* timeDepthwise(
  depthwise: DepthwiseExecutor,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const scalars: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run = (i: number) => {
    depthwise.run(bench.sets[i]!, scalars);
    return true;
  };
  return yield* timeAsFinalist(bench, run, 1);
}

/**
 * Backward-data as a forward pass, made and tuned (its forward problem tunes as its own plan,
 * with its own autotune cache entry); null where it does not apply: a strided layer (see
 * {@link bwDataAsForward}), a layout detour every pass takes on either side, our depthwise kernel
 * for the forward problem, or no layout kernels for the flip.
 */
export function* makeBwDataAsForward(
  core: PlanCore,
  opts: ResolvedOptions,
  tunePass: TunePass,
): Generator<TimingEvent, BwDataAsForwardExecutor<PlanCore> | null, void> {
  const { ctx } = core;
  const forward = bwDataAsForward(ctx.desc);
  if (forward === null || core.everyPassDetour !== undefined) return null;
  const layout = LayoutKernels.forDevice(ctx.device);
  if (layout instanceof Error) return null;
  const inner = createCore(ctx.stream, forward, ctx.preference, opts);
  try {
    if (inner.everyPassDetour !== undefined) {
      inner.dispose();
      return null;
    }
    if (inner.ctx.preference.algorithm === 'autotune') yield* tunePass(inner, 'fw', opts);
    // Timed and run as a cuDNN plan only (our depthwise kernels run backward-data directly).
    if (inner.depthwise('fw') !== null) {
      inner.dispose();
      return null;
    }
  } catch (error) {
    inner.dispose();
    throw error;
  }
  return new BwDataAsForwardExecutor(ctx, inner, layout, filterFlip(ctx.desc));
}

/**
 * Backward-data as a forward pass timed as one call sees it: the set's w flipped, then the
 * forward plan on (the set's y as dy, the flipped filter) into the set's x as dx. Like a
 * finalist, {@link TUNE_ROUNDS} rounds, keeping the best. Infinity when the forward problem fell
 * back to the legacy API.
 */
export function* timeBwDataAsForward(
  asForward: BwDataAsForwardExecutor<PlanCore>,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const inner = asForward.inner;
  const stream = bench.stream;
  const flipped = asForward.flippedScratch(stream);
  if (inner.detourFor('fw') !== undefined) {
    // The forward problem autotuned its layout detour: timed through its run, as a call runs
    // it (the detour's scratch pointers repeat, so its variant packs are cached).
    const args: RunScalars = { alpha: 1, beta: 0, stream, userWs: null };
    const run = (set: number) => {
      asForward.run(bench.sets[set]!, args);
      return true;
    };
    return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
  }
  const exec = inner.cudnn('fw').choice(1, 0, 16);
  if (!('variantPacks' in exec)) return Number.POSITIVE_INFINITY;
  const workspace = bench.workspace(exec.workspaceBytes);
  const scope = inner.ctx.scope;
  const packs: BackendDescriptor[] = [];
  try {
    for (const { x, y } of bench.sets) packs.push(variantPack(scope, y, flipped, x, workspace));
    const shared = scope.handle;
    bindStream(shared, stream.raw, inner.ctx.problem);
    const run = (set: number) => {
      asForward.flippedFilter(bench.sets[set]!.w, stream);
      return cudnn.cudnnBackendExecute(shared.handle, exec.plan, packs[set]!) === 0;
    };
    return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
  } finally {
    for (const vp of packs) scope.destroyBackend(vp);
  }
}

/**
 * The layout detour timed as one call sees it: the set's operands transposed into scratch, the
 * other layout's plan (tuned already) and the result transposed back, like a finalist.
 */
export function* timeLayoutDetour(
  detour: LayoutDetour,
  pass: Conv3dPass,
  bench: TuneBench,
): Generator<TimingEvent, number, void> {
  const args: RunScalars = { alpha: 1, beta: 0, stream: bench.stream, userWs: null };
  const run = (set: number) => {
    detour.run(pass, bench.sets[set]!, args);
    return true;
  };
  return yield* timeAsFinalist(bench, run, TUNE_ROUNDS);
}
