/**
 * A pass on our own depthwise kernels (cuda/depthwise.cu): no cuDNN handle; backward-filter's
 * partial sums in the workspace (the caller's, else the plan's own, grown as cuDNN's engines grow it).
 */
import { WorkspaceTooSmallError } from '@baracuda/types';

import { type Conv3dPass, type Operands, PASS_SPEC } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import {
  type DepthwiseCall,
  DepthwiseKernels,
  depthwiseLaunch,
  depthwiseUnsupported,
} from '../depthwise.js';
import { intendedMathPrecision } from '../policy.js';
import type { ExecContext, PassExecutor } from './executor.js';

/** @internal */
export class DepthwiseExecutor implements PassExecutor {
  readonly call: DepthwiseCall;
  readonly #info: AlgorithmInfo;
  readonly #order: readonly ['x' | 'w' | 'y', 'x' | 'w' | 'y', 'x' | 'w' | 'y'];
  readonly #ctx: ExecContext;

  constructor(ctx: ExecContext, pass: Conv3dPass, call: DepthwiseCall, info: AlgorithmInfo) {
    this.call = call;
    this.#info = info;
    this.#order = PASS_SPEC[pass].depthwise;
    this.#ctx = ctx;
  }

  info(): AlgorithmInfo {
    return this.#info;
  }
  workspaceBytes(): number {
    return this.call.launch.workspaceBytes;
  }
  built(): AlgorithmInfo {
    return this.#info;
  }
  run(ops: Operands, { alpha, beta, stream, userWs }: RunScalars): void {
    const [input, w, out] = this.#order;
    const needed = this.call.launch.workspaceBytes;
    let ws = 0n;
    if (needed > 0) {
      if (userWs !== null) {
        if (userWs.byteLength < needed) throw new WorkspaceTooSmallError(needed, userWs.byteLength);
        ws = userWs.devicePtr;
      } else {
        ws = this.#ctx.scope.workspace(needed, stream);
      }
    }
    this.call.run(stream, ops[input], ops[w], ops[out], alpha, beta, ws);
  }
}

/** Our kernels for the pass when they apply and load on the device; null otherwise (with a warning when they do not load). */
export function depthwiseExecutor(ctx: ExecContext, pass: Conv3dPass): DepthwiseExecutor | null {
  const d = ctx.desc;
  const cap = ctx.preference.maxWorkspaceBytes;
  if (depthwiseUnsupported(d, pass, cap) !== null) return null;
  const kernels = DepthwiseKernels.forDevice(ctx.device);
  if (kernels instanceof Error) {
    process.emitWarning(
      `baracuda's depthwise kernels did not load on ${ctx.device.name} (${kernels.message}); ${ctx.problem} ${pass} runs on cuDNN, which is slower for it`,
      { type: 'BaracudaWarning', code: 'BARACUDA_DEPTHWISE_KERNELS' },
    );
    return null;
  }
  const launch = depthwiseLaunch(d, pass, {}, cap);
  return new DepthwiseExecutor(
    ctx,
    pass,
    kernels.call(launch, d.element),
    Object.freeze({
      path: 'native' as const,
      name: `baracuda depthwise ${launch.kernel}`,
      numericalNotes: Object.freeze([]),
      workspaceBytes: launch.workspaceBytes,
      deterministic: true,
      mathPrecision: intendedMathPrecision(d.element, false),
    }),
  );
}
