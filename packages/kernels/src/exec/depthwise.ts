/** A pass on our own depthwise kernels (cuda/depthwise.cu): no workspace, no cuDNN handle. */

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

  constructor(pass: Conv3dPass, call: DepthwiseCall, info: AlgorithmInfo) {
    this.call = call;
    this.#info = info;
    this.#order = PASS_SPEC[pass].depthwise;
  }

  info(): AlgorithmInfo {
    return this.#info;
  }
  workspaceBytes(): number {
    return 0;
  }
  built(): AlgorithmInfo {
    return this.#info;
  }
  run(ops: Operands, { alpha, beta, stream }: RunScalars): void {
    const [input, w, out] = this.#order;
    this.call.run(stream, ops[input], ops[w], ops[out], alpha, beta);
  }
}

/** Our kernels for the pass when they apply and load on the device; null otherwise (with a warning when they do not load). */
export function depthwiseExecutor(ctx: ExecContext, pass: Conv3dPass): DepthwiseExecutor | null {
  const d = ctx.desc;
  if (depthwiseUnsupported(d, pass) !== null) return null;
  const kernels = DepthwiseKernels.forDevice(ctx.device);
  if (kernels instanceof Error) {
    process.emitWarning(
      `baracuda's depthwise kernels did not load on ${ctx.device.name} (${kernels.message}); ${ctx.problem} ${pass} runs on cuDNN, which is slower for it`,
      { type: 'BaracudaWarning', code: 'BARACUDA_DEPTHWISE_KERNELS' },
    );
    return null;
  }
  const launch = depthwiseLaunch(d, pass);
  return new DepthwiseExecutor(
    pass,
    kernels.call(launch, d.element),
    Object.freeze({
      path: 'native' as const,
      name: `baracuda depthwise ${launch.kernel}`,
      numericalNotes: Object.freeze([]),
      workspaceBytes: 0,
      deterministic: true,
      mathPrecision: intendedMathPrecision(d.element, false),
    }),
  );
}
