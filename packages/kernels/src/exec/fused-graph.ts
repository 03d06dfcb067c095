/**
 * A pass with its tail (an epilogue, an activation's backward) in one cuDNN graph
 * (cudnn/fused-graph.ts), one execution plan per (alpha, alignment class) as the selection builds
 * it (select/epilogue.ts). Where none runs, or a run has beta ≠ 0 or asks for the pre-activation,
 * the run goes to the unfused route (the convolution, then our kernel): it never fails for want of
 * a fused engine.
 */
import { WorkspaceTooSmallError } from '@baracuda/types';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import { fusedVariantPack } from '../cudnn/fused-graph.js';
import { bindStream } from '../cudnn/handle.js';
import { check } from '../cudnn/status.js';
import { alignmentClass } from '../policy.js';
import { type BackendDescriptor, cudnn } from '../sys.js';
import type { EpilogueAfterConv, EpilogueOperands } from './epilogue-kernel.js';
import type { ExecContext } from './executor.js';

/** What algorithm('fw') appends to a fused engine's name. */
export const FUSED_SUFFIX = 'fused';
/** Variant packs kept (one per operand-pointer set). */
const VARIANT_PACKS = 8;

/** @internal A finalized fused execution plan and the uids its variant packs bind. */
export interface FusedExec {
  readonly plan: BackendDescriptor;
  readonly workspaceBytes: number;
  readonly info: AlgorithmInfo;
  readonly uids: readonly bigint[];
}

/** The fused plan for (alpha, alignment class), or null when no engine config runs it. */
export type FusedBuild = (alpha: number, align: number) => FusedExec | null;

/** @internal */
export class FusedForward {
  readonly #ctx: ExecContext;
  readonly #unfused: EpilogueAfterConv;
  readonly #build: FusedBuild;
  readonly #graphs = new Map<string, FusedExec | null>();
  readonly #packs = new Map<string, BackendDescriptor>();
  /** What the first run (or query) took, reported by algorithm('fw'). */
  #reported: AlgorithmInfo | undefined;

  /** `build`: the selection's fused plan for (alpha, alignment class), or null where none runs. */
  constructor(ctx: ExecContext, unfused: EpilogueAfterConv, build: FusedBuild) {
    this.#ctx = ctx;
    this.#unfused = unfused;
    this.#build = build;
  }

  /** The fused plan of (alpha, alignment class), built on first use; null where no engine runs it. */
  choice(alpha: number, align: number): FusedExec | null {
    const key = `${alpha}|${align}`;
    let exec = this.#graphs.get(key);
    if (exec === undefined) {
      exec = this.#build(alpha, align);
      this.#graphs.set(key, exec);
    }
    return exec;
  }

  #default(): FusedExec | null {
    return this.choice(1, 16);
  }

  info(): AlgorithmInfo {
    if (this.#reported !== undefined) return this.#reported;
    const fused = this.#default();
    this.#reported = fused !== null ? fused.info : this.#unfused.info();
    return this.#reported;
  }
  workspaceBytes(): number {
    const fused = this.#default();
    return fused !== null ? fused.workspaceBytes : this.#unfused.workspaceBytes();
  }

  run(ops: EpilogueOperands, scalars: RunScalars): void {
    const { alpha, beta, stream, userWs } = scalars;
    const { scope, problem, desc } = this.#ctx;
    if (beta !== 0 || ops.pre !== 0n) {
      this.#unfused.run(ops, scalars);
      return;
    }
    let ws = userWs !== null ? userWs.devicePtr : scope.workspacePtr;
    const pointers = [ops.x, ops.w, ops.y, ops.bias, ops.z, ops.saved ?? 0n];
    const exec = this.choice(alpha, alignmentClass([...pointers, ws], desc.elementBytes));
    if (exec === null) {
      this.#unfused.run(ops, scalars);
      return;
    }
    if (userWs !== null) {
      if (userWs.byteLength < exec.workspaceBytes) {
        throw new WorkspaceTooSmallError(exec.workspaceBytes, userWs.byteLength);
      }
    } else {
      ws = scope.workspace(exec.workspaceBytes, stream);
    }
    const bound = exec.uids.map((uid) => pointers[Number(uid) - 1]!);
    const key = `${exec.info.name}|${exec.workspaceBytes}|${bound.join(',')}|${ws}`;
    let vp = this.#packs.get(key);
    if (vp === undefined) {
      vp = fusedVariantPack(scope, exec.uids, bound, ws);
      if (this.#packs.size >= VARIANT_PACKS) {
        const [oldest, pack] = this.#packs.entries().next().value as [string, BackendDescriptor];
        this.#packs.delete(oldest);
        scope.destroyBackend(pack);
      }
      this.#packs.set(key, vp);
    }
    bindStream(scope.handle, stream.raw, problem);
    const status = cudnn.cudnnBackendExecute(scope.handle.handle, exec.plan, vp);
    if (status !== 0) check(status, 'cudnnBackendExecute', `${problem} ${exec.info.name}`);
  }

  /** Destroy the variant packs (the plans go with the scope). */
  dispose(): void {
    for (const vp of this.#packs.values()) this.#ctx.scope.destroyBackend(vp);
    this.#packs.clear();
    this.#graphs.clear();
  }
}
