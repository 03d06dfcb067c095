/**
 * What a ConvTranspose3dPlan runs after a pass: the descriptor's epilogue after its forward (the
 * convolution's backward-data, whose output is the convolution's x) and the input activation's
 * backward after its backward-data (the convolution's forward, output y). Each is the convolution
 * plan's tail route (select/epilogue.ts) at another site: a fused cuDNN graph where an engine
 * runs it, else the pass then our kernel. A problem with trailing output planes runs the
 * epilogue unfused, after the trailing-planes run.
 * @internal
 */
import type { Conv3dPass } from '../core/pass.js';
import type { AlgorithmInfo } from '../core/types.js';
import { channelMap } from '../epilogue/kernels.js';
import { checkInputActivation, type EpilogueShape } from '../epilogue/run-args.js';
import type { PassExecutor } from '../exec/executor.js';
import type { TrailingPlanes } from '../exec/trailing-planes.js';
import type { RunTarget } from '../run-args.js';
import type { PlanCore } from '../select/core.js';
import { EpiloguePlan } from '../select/epilogue.js';
import type { ConvTranspose3dDescriptor } from '../transpose-descriptor.js';

/** The plain pass, through the trailing-planes run where the problem has them. */
function plainPass(
  core: PlanCore,
  trailing: TrailingPlanes | null,
  pass: Conv3dPass,
): () => PassExecutor {
  if (trailing === null) return () => core.executor(pass);
  const through: PassExecutor = {
    info: (): AlgorithmInfo => trailing.info(pass),
    workspaceBytes: () => core.executor(pass).workspaceBytes(),
    run: (ops, scalars) => trailing.run(pass, ops, scalars),
    built: () => core.built(pass),
  };
  return () => through;
}

/** @internal The transposed plan's epilogue and input-activation routes, made on first use. */
export class TransposeTails {
  readonly #core: PlanCore;
  readonly #desc: ConvTranspose3dDescriptor;
  readonly #trailing: TrailingPlanes | null;
  readonly #target: RunTarget;
  #epilogue: EpiloguePlan | undefined;
  #inputActivation: EpiloguePlan | undefined;

  /** `target`: the run target whose descriptor is the convolution the runs are checked against. */
  constructor(
    core: PlanCore,
    desc: ConvTranspose3dDescriptor,
    trailing: TrailingPlanes | null,
    target: RunTarget,
  ) {
    this.#core = core;
    this.#desc = desc;
    this.#trailing = trailing;
    this.#target = target;
  }

  get hasEpilogue(): boolean {
    return !this.#desc.epilogue.isNone;
  }
  get hasInputActivation(): boolean {
    return !this.#desc.inputActivation.isNone;
  }

  /** The transposed y (the convolution's x) as the epilogue's arguments are checked. */
  output(): EpilogueShape {
    const conv = this.#target.descriptor;
    return {
      epilogue: this.#desc.epilogue,
      shape: conv.xShape,
      strides: conv.xStrides,
      describe: () => this.#desc.describe(),
    };
  }

  /** The saved tensor of a backward-data run (0n without an input activation). */
  checkSaved(given: Record<string, unknown>): bigint {
    const conv = this.#target.descriptor;
    return checkInputActivation(given, this.#target, {
      epilogue: this.#desc.inputActivation,
      shape: conv.yShape,
      strides: conv.yStrides,
      describe: () => this.#desc.describe(),
    });
  }

  /** The forward route with the epilogue (the convolution's backward-data, then the epilogue). */
  epilogue(): EpiloguePlan {
    const d = this.#desc;
    this.#epilogue ??= new EpiloguePlan(this.#core, {
      kind: 'epilogue',
      pass: 'bwData',
      element: d.element,
      epilogue: d.epilogue,
      map: channelMap(d.yShape, d.layout),
      output: 'x',
      conv: plainPass(this.#core, this.#trailing, 'bwData'),
      mayFuse: this.#trailing === null,
    });
    return this.#epilogue;
  }

  /** The backward-data route with the input activation's backward (the convolution's forward). */
  inputActivation(): EpiloguePlan {
    const d = this.#desc;
    this.#inputActivation ??= new EpiloguePlan(this.#core, {
      kind: 'activationBackward',
      pass: 'fw',
      element: d.element,
      epilogue: d.inputActivation,
      map: channelMap(d.xShape, d.layout),
      output: 'y',
      conv: plainPass(this.#core, this.#trailing, 'fw'),
      mayFuse: this.#trailing === null,
    });
    return this.#inputActivation;
  }

  /** The route of a transposed pass where a tail changes it, else undefined. */
  route(pass: Conv3dPass): EpiloguePlan | undefined {
    if (pass === 'fw' && this.hasEpilogue) return this.epilogue();
    if (pass === 'bwData' && this.hasInputActivation) return this.inputActivation();
    return undefined;
  }

  dispose(): void {
    this.#epilogue?.dispose();
    this.#inputActivation?.dispose();
  }
}
