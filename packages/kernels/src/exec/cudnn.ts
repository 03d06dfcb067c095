/**
 * A pass on cuDNN: execution plans of the graph API, one per (alpha, beta, alignment class) as
 * cuDNN bakes them in, each with its cached variant packs, and the legacy API where no graph
 * engine runs the pass (or, pinned, always). Which engine config a new key gets is the selection
 * policy's (`build`); this runs what it gets.
 */
import { WorkspaceTooSmallError } from '@baracuda/types';
import type { Conv3dPass, Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import { bindStream } from '../cudnn/handle.js';
import type { LegacyPass } from '../cudnn/legacy.js';
import { variantPack } from '../cudnn/operation-graph.js';
import { check } from '../cudnn/status.js';
import type { PointerLru } from '../lru.js';
import { alignmentClass } from '../policy.js';
import { type BackendDescriptor, type CudnnHandle, cudnn } from '../sys.js';
import type { ExecContext, PassExecutor } from './executor.js';

/** @internal A finalized execution plan for (pass, alpha, beta, alignment). */
export interface GraphExec {
  readonly alpha: number;
  readonly beta: number;
  readonly align: number;
  readonly plan: BackendDescriptor;
  readonly workspaceBytes: number;
  readonly info: AlgorithmInfo;
  readonly variantPacks: PointerLru<BackendDescriptor>;
}

/** The graph-API plan for a key, or null when no engine config runs it (then the legacy API does). */
export type GraphBuild = (alpha: number, beta: number, align: number) => GraphExec | null;

/** @internal */
export class CudnnExecutor implements PassExecutor {
  readonly #ctx: ExecContext;
  readonly #pass: Conv3dPass;
  /** Null: pinned, the legacy API only. */
  readonly #build: GraphBuild | null;
  readonly #graphs = new Map<string, GraphExec | null>();
  #last: GraphExec | undefined;
  #legacy: LegacyPass | undefined;
  /** The first built choice, reported by algorithm(pass). */
  #reported: AlgorithmInfo | undefined;

  constructor(ctx: ExecContext, pass: Conv3dPass, build: GraphBuild | null) {
    this.#ctx = ctx;
    this.#pass = pass;
    this.#build = build;
  }

  /** The choice for (alpha, beta, alignment class), built on first use. */
  choice(alpha: number, beta: number, align: number): GraphExec | LegacyPass {
    if (this.#build === null) {
      this.#legacy ??= this.#ctx.legacy.pinned(this.#pass);
      this.#reported ??= this.#legacy.info;
      return this.#legacy;
    }
    const key = `${alpha}|${beta}|${align}`;
    let exec = this.#graphs.get(key);
    if (exec === undefined) {
      exec = this.#build(alpha, beta, align);
      this.#graphs.set(key, exec);
    }
    if (exec !== null) {
      this.#reported ??= exec.info;
      return exec;
    }
    return this.legacyFallback();
  }

  /** The legacy API's heuristic choice, made once. */
  legacyFallback(): LegacyPass {
    this.#legacy ??= this.#ctx.legacy.heuristic(this.#pass);
    this.#reported ??= this.#legacy.info;
    return this.#legacy;
  }

  /** Autotune's legacy fallback (no graph engine ran the pass), unless one is there already. */
  installLegacy(lp: LegacyPass): void {
    this.#legacy ??= lp;
    this.#reported ??= lp.info;
  }

  /** The choice for alpha 1, beta 0 and 16-byte aligned pointers (queries, algorithm()). */
  defaultChoice(): GraphExec | LegacyPass {
    return this.choice(1, 0, 16);
  }

  /** Autotune's winner as the default key's plan, reported from now on. */
  install(exec: GraphExec): void {
    this.#graphs.set('1|0|16', exec);
    this.#reported = exec.info;
  }

  info(): AlgorithmInfo {
    const choice = this.defaultChoice();
    return this.#reported ?? choice.info;
  }
  workspaceBytes(): number {
    return this.defaultChoice().workspaceBytes;
  }
  built(): AlgorithmInfo | undefined {
    return this.#reported;
  }

  /**
   * Hot path when the pointers, alpha and beta repeat: one LRU scan, maybe cudnnSetStream, one
   * cudnnBackendExecute.
   */
  run(ops: Operands, { alpha, beta, stream, userWs }: RunScalars): void {
    const { scope, problem, desc } = this.#ctx;
    const shared = scope.handle;
    const { x: px, w: pw, y: py } = ops;
    let wsPtr = userWs !== null ? userWs.devicePtr : scope.workspacePtr;
    const last = this.#last;
    if (last !== undefined && last.alpha === alpha && last.beta === beta) {
      const vp = last.variantPacks.get(px, pw, py, wsPtr);
      if (vp !== undefined) {
        if (userWs !== null && userWs.byteLength < last.workspaceBytes) {
          throw new WorkspaceTooSmallError(last.workspaceBytes, userWs.byteLength);
        }
        bindStream(shared, stream.raw, problem);
        this.#execute(shared.handle, last, vp);
        return;
      }
    }
    // Slow path: choose (or build) the execution plan for this alpha/beta/alignment.
    const align = alignmentClass([px, pw, py, wsPtr], desc.elementBytes);
    const choice = this.choice(alpha, beta, align);
    const needed = choice.workspaceBytes;
    if (userWs !== null) {
      if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
    } else {
      wsPtr = scope.workspace(needed, stream);
    }
    bindStream(shared, stream.raw, problem);
    if ('variantPacks' in choice) {
      let vp = choice.variantPacks.get(px, pw, py, wsPtr);
      if (vp === undefined) {
        vp = variantPack(scope, px, pw, py, wsPtr);
        choice.variantPacks.set(px, pw, py, wsPtr, vp);
      }
      this.#last = choice;
      this.#execute(shared.handle, choice, vp);
    } else {
      this.#ctx.legacy.run(this.#pass, choice, shared.handle, ops, wsPtr, alpha, beta);
    }
  }

  #execute(handle: CudnnHandle, exec: GraphExec, vp: BackendDescriptor): void {
    const status = cudnn.cudnnBackendExecute(handle, exec.plan, vp);
    if (status !== 0) {
      check(status, 'cudnnBackendExecute', `${this.#ctx.problem} ${this.#pass} ${exec.info.name}`);
    }
  }

  /** Destroy the variant packs (the plans go with the scope). */
  dispose(): void {
    for (const exec of this.#graphs.values()) exec?.variantPacks.clear();
    this.#graphs.clear();
    this.#last = undefined;
  }
}
