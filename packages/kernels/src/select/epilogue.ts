/**
 * The forward route of a descriptor with an epilogue, and its backward pieces. The route is chosen
 * once, on first use: the convolution on the executor the plain pass gets (select/core.ts) followed
 * by our epilogue kernel (exec/epilogue-kernel.ts); pinned mode, beta ≠ 0 and runs that ask for the
 * pre-activation always take it. The backward pieces (activation gradient, bias gradient) are our
 * kernels.
 */
import { UnsupportedError } from '@baracuda/types';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import { channelMap, EpilogueKernels } from '../epilogue/kernels.js';
import type { CheckedBwEpilogue } from '../epilogue/run-args.js';
import { EpilogueAfterConv, type EpilogueOperands } from '../exec/epilogue-kernel.js';
import type { PlanCore } from './core.js';

/** @internal A plan's epilogue: its forward route and backward pieces. */
export class EpiloguePlan {
  readonly #core: PlanCore;
  readonly #kernels: EpilogueKernels;
  readonly #unfused: EpilogueAfterConv;

  constructor(core: PlanCore) {
    this.#core = core;
    const { device, problem } = core.ctx;
    const kernels = EpilogueKernels.forDevice(device);
    if (kernels instanceof Error) {
      throw new UnsupportedError(
        `baracuda's epilogue kernels did not load on ${device.name} (${kernels.message}); ${problem} cannot run its epilogue`,
        { cause: kernels },
      );
    }
    this.#kernels = kernels;
    this.#unfused = new EpilogueAfterConv(core.ctx.desc, () => core.executor('fw'), kernels);
  }

  /** What the forward pass runs as (algorithm('fw')). */
  info(): AlgorithmInfo {
    return this.#unfused.info();
  }
  workspaceBytes(): number {
    return this.#unfused.workspaceBytes();
  }

  /** Enqueue the forward pass with its epilogue. */
  runFw(ops: EpilogueOperands, scalars: RunScalars): void {
    this.#unfused.run(ops, scalars);
  }

  /** Enqueue dyPre = dy · act'(saved), then dBias = Σ dyPre (dy for identity) per channel. */
  runBackward(args: CheckedBwEpilogue): void {
    const d = this.#core.ctx.desc;
    const e = d.epilogue;
    const map = channelMap(d.yShape, d.layout);
    let grad = args.dy;
    if (args.dyPre !== 0n) {
      this.#kernels.actGrad(args.stream, d.element, e, map.total, {
        dy: args.dy,
        saved: args.saved,
        dyPre: args.dyPre,
      });
      grad = args.dyPre;
    }
    if (args.dBias !== 0n) {
      this.#kernels.biasGrad(args.stream, d.element, map, { dy: grad, dBias: args.dBias });
    }
  }
}
