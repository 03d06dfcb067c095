/**
 * The epilogue's run arguments, checked like the pass operands (run-args.ts): `bias` ([cOut], the
 * element kind), `z` and `preActivation` (y's shape and layout) of `runFw`, and the arguments of
 * `runBwEpilogue`. A tensor the epilogue does not use is refused, so a forgotten option is not
 * silently ignored.
 * @internal
 */
import { type DeviceSlice, InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import type { Conv3dDescriptor } from '../descriptor.js';
import { checkTensorArg, type RunTarget, runStream, workspaceSlice } from '../run-args.js';
import type { StreamLike } from '../sys.js';
import type { Epilogue } from './epilogue.js';

/**
 * The tensor an epilogue finishes, as its arguments are checked against it: a convolution's y, a
 * transposed convolution's y (its convolution's x), or a backward-data's dx.
 */
export interface EpilogueShape {
  readonly epilogue: Epilogue;
  /** [N, C, D, H, W] and its strides in the layout. */
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  /** The descriptor, for messages. */
  describe(): string;
}

/** The forward epilogue's shape of a convolution: its y. */
export function convOutput(d: Conv3dDescriptor): EpilogueShape {
  return {
    epilogue: d.epilogue,
    shape: d.yShape,
    strides: d.yStrides,
    describe: () => d.describe(),
  };
}

/** The epilogue pointers of a forward run (0n: absent). */
export interface EpiloguePointers {
  readonly bias: bigint;
  readonly z: bigint;
  readonly pre: bigint;
}

function biasShape(d: EpilogueShape): { shape: number[]; strides: number[] } {
  return { shape: [d.shape[1]!], strides: [1] };
}

function optional(
  name: string,
  value: unknown,
  wanted: boolean,
  epilogue: string,
  check: () => bigint,
): bigint {
  if (wanted) {
    if (value === undefined) {
      throw new InvalidProblemError(
        `Expected ${name} for epilogue ${epilogue} but received undefined`,
        name,
      );
    }
    return check();
  }
  if (value !== undefined) {
    throw new InvalidProblemError(
      `Expected no ${name}: the descriptor's epilogue (${epilogue}) has none`,
      name,
    );
  }
  return 0n;
}

/** `bias`, `z` and `preActivation` of a `runFw` call (read once each). */
export function checkEpilogueFw(
  given: Record<string, unknown>,
  target: RunTarget,
  d: EpilogueShape = convOutput(target.descriptor),
): EpiloguePointers {
  const e = d.epilogue;
  const what = e.describe();
  const bias = optional('bias', given.bias, e.bias, what, () => {
    const { shape, strides } = biasShape(d);
    return checkTensorArg('bias', given.bias, shape, strides, target);
  });
  const z = optional('z', given.z, e.residual, what, () =>
    checkTensorArg('z', given.z, d.shape, d.strides, target),
  );
  const preArg = given.preActivation;
  const pre =
    preArg === undefined ? 0n : checkTensorArg('preActivation', preArg, d.shape, d.strides, target);
  return { bias, z, pre };
}

/** What `runBwEpilogue` enqueues, checked. */
export interface CheckedBwEpilogue {
  readonly dy: bigint;
  /** The output or the pre-activation, as the activation's backward needs (0n: identity). */
  readonly saved: bigint;
  /** 0n: no activation gradient asked. */
  readonly dyPre: bigint;
  /** 0n: no bias gradient asked. */
  readonly dBias: bigint;
  readonly stream: StreamLike;
  /** The caller's workspace for dBias's partial sums (null: the plan's own). */
  readonly userWs: DeviceSlice | null;
}

/** The arguments of `runBwEpilogue`. */
export function checkBwEpilogue(
  args: unknown,
  target: RunTarget,
  d: EpilogueShape = convOutput(target.descriptor),
): CheckedBwEpilogue {
  if (typeof args !== 'object' || args === null) {
    throw new InvalidArgumentError(
      'runBwEpilogue arguments',
      'an object {dy, y?, preActivation?, dyPre?, dBias?, stream?, workspace?}',
      args,
    );
  }
  const given = args as Record<string, unknown>;
  const e = d.epilogue;
  if (e.isNone) {
    throw new InvalidProblemError(
      `Expected a descriptor with an epilogue for runBwEpilogue but ${d.describe()} has none`,
      'descriptor',
    );
  }
  const { dy: dyArg, y, preActivation, dyPre: dyPreArg, dBias: dBiasArg } = given;
  const stream =
    given.stream === undefined ? target.stream : runStream(given.stream, target.device);
  const userWs = workspaceSlice(given.workspace, target.device);
  if (dyArg === undefined && dyPreArg !== undefined) {
    const only = biasOnly(d, target, { y, preActivation, dyPre: dyPreArg, dBias: dBiasArg });
    return { ...only, stream, userWs };
  }
  const dy = checkTensorArg('dy', dyArg, d.shape, d.strides, target);
  const input = e.backwardInput;
  const act = `activation '${e.activation}'`;
  let saved = 0n;
  if (input === 'none') {
    if (y !== undefined || preActivation !== undefined || dyPreArg !== undefined) {
      throw new InvalidProblemError(
        `Expected no y, preActivation or dyPre for ${act} (its gradient is dy itself)`,
        'dyPre',
      );
    }
  } else {
    const name = input === 'output' ? 'y' : 'preActivation';
    const other = input === 'output' ? 'preActivation' : 'y';
    if ((input === 'output' ? preActivation : y) !== undefined) {
      throw new InvalidProblemError(
        `Expected ${name}, not ${other}, for ${act}: its backward reads ${input === 'output' ? 'the output' : 'the pre-activation'}`,
        other,
      );
    }
    if (dyPreArg === undefined) {
      throw new InvalidProblemError(
        `Expected dyPre (dy · act'(·) is written there) for ${act} but received undefined`,
        'dyPre',
      );
    }
    saved = checkTensorArg(
      name,
      input === 'output' ? y : preActivation,
      d.shape,
      d.strides,
      target,
    );
  }
  const dyPre =
    input === 'none' ? 0n : checkTensorArg('dyPre', dyPreArg, d.shape, d.strides, target);
  let dBias = 0n;
  if (dBiasArg !== undefined) {
    if (!e.bias) {
      throw new InvalidProblemError(
        `Expected no dBias: the descriptor's epilogue (${e.describe()}) has no bias`,
        'dBias',
      );
    }
    const { shape, strides } = biasShape(d);
    dBias = checkTensorArg('dBias', dBiasArg, shape, strides, target);
  } else if (e.bias) {
    throw new InvalidProblemError(
      `Expected dBias (the bias gradient, [${d.shape[1]}]) for epilogue ${e.describe()} but received undefined`,
      'dBias',
    );
  }
  return { dy, saved, dyPre, dBias, stream, userWs };
}

/**
 * `dyPre` alone (no dy): the gradient is through the activation already (the next layer's
 * runBwData with `withInputActivation` wrote it), so only dBias = Σ dyPre is reduced from it.
 */
function biasOnly(
  d: EpilogueShape,
  target: RunTarget,
  given: { y: unknown; preActivation: unknown; dyPre: unknown; dBias: unknown },
): Pick<CheckedBwEpilogue, 'dy' | 'saved' | 'dyPre' | 'dBias'> {
  const e = d.epilogue;
  if (given.y !== undefined || given.preActivation !== undefined) {
    throw new InvalidProblemError(
      "Expected neither y nor preActivation with dyPre alone (no dy): the activation's backward is done, only dBias is reduced from dyPre",
      given.y !== undefined ? 'y' : 'preActivation',
    );
  }
  if (!e.bias) {
    throw new InvalidProblemError(
      `Expected dy: dyPre alone asks for the bias gradient only, and epilogue ${e.describe()} has no bias`,
      'dy',
    );
  }
  if (given.dBias === undefined) {
    throw new InvalidProblemError(
      `Expected dBias (the bias gradient, [${d.shape[1]}]) with dyPre alone but received undefined`,
      'dBias',
    );
  }
  const dyPre = checkTensorArg('dyPre', given.dyPre, d.shape, d.strides, target);
  const { shape, strides } = biasShape(d);
  const dBias = checkTensorArg('dBias', given.dBias, shape, strides, target);
  // dy is dyPre itself and no activation gradient is written.
  return { dy: dyPre, saved: 0n, dyPre: 0n, dBias };
}

/**
 * The saved tensor of a backward-data run with an input activation (`x`: the activation's output,
 * or `preActivation`), dx's shape; 0n where the descriptor has none (then neither is read). The
 * one the activation does not read is refused.
 */
export function checkInputActivation(
  given: Record<string, unknown>,
  target: RunTarget,
  dx: EpilogueShape,
): bigint {
  const a = dx.epilogue;
  if (a.isNone) return 0n;
  const { x, preActivation } = given;
  const fromOutput = a.backwardInput === 'output';
  const name = fromOutput ? 'x' : 'preActivation';
  const other = fromOutput ? 'preActivation' : 'x';
  const act = `input activation '${a.activation}'`;
  if ((fromOutput ? preActivation : x) !== undefined) {
    throw new InvalidProblemError(
      `Expected ${name}, not ${other}, for ${act}: its backward reads ${fromOutput ? "the activation's output (this layer's input x)" : 'the pre-activation'}`,
      other,
    );
  }
  const value = fromOutput ? x : preActivation;
  if (value === undefined) {
    throw new InvalidProblemError(
      `Expected ${name} (dx's shape) for ${act} of ${dx.describe()} but received undefined`,
      name,
    );
  }
  return checkTensorArg(name, value, dx.shape, dx.strides, target);
}
