/**
 * How one pass of one problem runs: the protocol every route implements (cuDNN's graph API with
 * its legacy fallback, the pinned legacy algorithms, our depthwise kernels, the layout detour,
 * backward-data as a forward pass), and what a detour needs of the plan of its inner problem.
 */
import type { ResolvedPlanPreference } from '../compat.js';
import type { Conv3dPass, Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import type { LegacyApi } from '../cudnn/legacy.js';
import type { CudnnScope } from '../cudnn/scope.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import type { DeviceLike, StreamLike } from '../sys.js';

/** One way to run one pass of one problem. */
export interface PassExecutor {
  /** What `algorithm(pass)` reports, named as it runs (builds the default choice if needed). */
  info(): AlgorithmInfo;
  /** Workspace bytes of the default choice (alpha 1, beta 0, 16-byte aligned pointers). */
  workspaceBytes(): number;
  /** Enqueue the pass; the arguments are checked already. */
  run(ops: Operands, scalars: RunScalars): void;
  /** What it runs as built so far (for sku() and precisionGuarantee()); undefined before. */
  built(): AlgorithmInfo | undefined;
  /** Free what it owns alone (an inner plan); absent where its owner frees it. */
  dispose?(): void;
}

/** What an executor works with: one problem, its preference, its device and native resources. */
export interface ExecContext {
  readonly desc: Conv3dDescriptor;
  /** `desc.describe()`, for messages. */
  readonly problem: string;
  readonly preference: ResolvedPlanPreference;
  readonly cudnnVersion: number;
  /** The stream given to select (runs may name another). */
  readonly stream: StreamLike;
  readonly device: DeviceLike;
  readonly scope: CudnnScope;
  readonly legacy: LegacyApi;
}

/** The plan of a detour's inner problem, as the detour uses it (the same protocol per pass). */
export interface InnerPlan {
  readonly ctx: ExecContext;
  /** The executor that runs `pass` (chosen on first use). */
  executor(pass: Conv3dPass): PassExecutor;
  /** What runs `pass` as built so far, without choosing anything. */
  built(pass: Conv3dPass): AlgorithmInfo | undefined;
  dispose(): void;
}
