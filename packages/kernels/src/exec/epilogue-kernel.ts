/**
 * The forward pass of a descriptor with an epilogue, unfused: the convolution on whatever executor
 * runs the plain pass (cuDNN's graph or legacy API, our depthwise kernels, a detour), then our
 * epilogue kernel in place on y, on the same stream. Pinned mode always runs this, and so does any
 * problem cuDNN offers no fused engine for, or a run that asks for the pre-activation.
 */
import type { Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { type ChannelMap, channelMap, type EpilogueKernels } from '../epilogue/kernels.js';
import type { PassExecutor } from './executor.js';

/** The forward operands of an epilogue run: 0n for an absent bias, residual or pre-activation. */
export interface EpilogueOperands extends Operands {
  readonly bias: bigint;
  readonly z: bigint;
  /** Where the value before the activation is written too (0n: nowhere). */
  readonly pre: bigint;
}

/** What algorithm('fw') says of the unfused route: `<the convolution's> + baracuda epilogue kernel`. */
export const UNFUSED_SUFFIX = '+ baracuda epilogue kernel';

/** @internal */
export class EpilogueAfterConv {
  readonly #desc: Conv3dDescriptor;
  readonly #conv: () => PassExecutor;
  readonly #kernels: () => EpilogueKernels;
  readonly #map: ChannelMap;

  /**
   * `conv`: the executor of the plain forward pass (asked on each use: the plan caches it);
   * `kernels`: our kernels on the plan's device (a typed error where they do not load).
   */
  constructor(desc: Conv3dDescriptor, conv: () => PassExecutor, kernels: () => EpilogueKernels) {
    this.#desc = desc;
    this.#conv = conv;
    this.#kernels = kernels;
    this.#map = channelMap(desc.yShape, desc.layout);
  }

  info(): AlgorithmInfo {
    this.#kernels();
    const inner = this.#conv().info();
    return Object.freeze({ ...inner, name: `${inner.name} ${UNFUSED_SUFFIX}` });
  }
  workspaceBytes(): number {
    return this.#conv().workspaceBytes();
  }
  built(): AlgorithmInfo | undefined {
    return this.#conv().built();
  }

  run(ops: EpilogueOperands, scalars: RunScalars): void {
    const kernels = this.#kernels();
    this.#conv().run(ops, scalars);
    kernels.apply(scalars.stream, this.#desc.element, this.#desc.epilogue, this.#map, {
      y: ops.y,
      bias: ops.bias,
      z: ops.z,
      pre: ops.pre,
    });
  }
}
