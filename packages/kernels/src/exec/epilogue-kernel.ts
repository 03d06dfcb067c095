/**
 * A pass with its tail unfused: the convolution on whatever executor runs the plain pass (cuDNN's
 * graph or legacy API, our depthwise kernels, a detour, a transposed problem's trailing planes),
 * then our kernel in place on the pass's output, on the same stream: the epilogue (y = act(y +
 * bias[c] + z)) or an activation's backward (dx = dx · act'(saved)). Pinned mode always runs this,
 * and so does any problem cuDNN offers no fused engine for, or a run that asks for the
 * pre-activation.
 */
import type { ElementKind } from '@baracuda/types';
import type { Operands } from '../core/pass.js';
import type { AlgorithmInfo, RunScalars } from '../core/types.js';
import type { Epilogue } from '../epilogue/epilogue.js';
import type { ChannelMap, EpilogueKernels } from '../epilogue/kernels.js';
import type { PassExecutor } from './executor.js';

/** The operands of a run with a tail: 0n for an absent bias, residual, pre-activation or saved tensor. */
export interface EpilogueOperands extends Operands {
  readonly bias: bigint;
  readonly z: bigint;
  /** Where the value before the activation is written too (0n: nowhere). */
  readonly pre: bigint;
  /** An activation backward's saved forward tensor (its output or pre-activation). */
  readonly saved?: bigint;
}

/** What algorithm(pass) says of the unfused epilogue: `<the convolution's> + baracuda epilogue kernel`. */
export const UNFUSED_SUFFIX = '+ baracuda epilogue kernel';
/** What algorithm('bwData') says of an unfused activation backward. */
export const UNFUSED_BWD_SUFFIX = '+ baracuda activation-backward kernel';

/** What finishes a pass: which operand holds its output, what is applied, over which channels. */
export interface TailSite {
  readonly kind: 'epilogue' | 'activationBackward';
  readonly element: ElementKind;
  /** The epilogue, or the activation whose backward is applied. */
  readonly epilogue: Epilogue;
  /** The output's channel map. */
  readonly map: ChannelMap;
  /** The operand the pass writes: 'y' (forward) or 'x' (backward-data). */
  readonly output: 'x' | 'y';
}

/** @internal */
export class EpilogueAfterConv {
  readonly #site: TailSite;
  readonly #conv: () => PassExecutor;
  readonly #kernels: () => EpilogueKernels;

  /**
   * `conv`: the executor of the plain pass (asked on each use: the plan caches it); `kernels`: our
   * kernels on the plan's device (a typed error where they do not load).
   */
  constructor(site: TailSite, conv: () => PassExecutor, kernels: () => EpilogueKernels) {
    this.#site = site;
    this.#conv = conv;
    this.#kernels = kernels;
  }

  info(): AlgorithmInfo {
    this.#kernels();
    const inner = this.#conv().info();
    const suffix = this.#site.kind === 'epilogue' ? UNFUSED_SUFFIX : UNFUSED_BWD_SUFFIX;
    return Object.freeze({ ...inner, name: `${inner.name} ${suffix}` });
  }
  workspaceBytes(): number {
    return this.#conv().workspaceBytes();
  }
  built(): AlgorithmInfo | undefined {
    return this.#conv().built();
  }

  run(ops: EpilogueOperands, scalars: RunScalars): void {
    const kernels = this.#kernels();
    const { element, epilogue, map, output } = this.#site;
    this.#conv().run(ops, scalars);
    const out = ops[output];
    if (this.#site.kind === 'epilogue') {
      kernels.apply(scalars.stream, element, epilogue, map, {
        y: out,
        bias: ops.bias,
        z: ops.z,
        pre: ops.pre,
      });
    } else {
      kernels.actGrad(scalars.stream, element, epilogue, map.total, {
        dy: out,
        saved: ops.saved ?? 0n,
        dyPre: out,
      });
    }
  }
}
