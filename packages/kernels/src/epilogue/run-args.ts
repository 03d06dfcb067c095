/**
 * The epilogue's run arguments, checked like the pass operands (run-args.ts): `bias` ([cOut], the
 * element kind), `z` and `preActivation` (y's shape and layout) of `runFw`, and the arguments of
 * `runBwEpilogue`. A tensor the epilogue does not use is refused, so a forgotten option is not
 * silently ignored.
 * @internal
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import type { Conv3dDescriptor } from '../descriptor.js';
import { checkTensorArg, type RunTarget, runStream } from '../run-args.js';
import type { StreamLike } from '../sys.js';

/** The epilogue pointers of a forward run (0n: absent). */
export interface EpiloguePointers {
  readonly bias: bigint;
  readonly z: bigint;
  readonly pre: bigint;
}

function biasShape(d: Conv3dDescriptor): { shape: number[]; strides: number[] } {
  return { shape: [d.cOut], strides: [1] };
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
): EpiloguePointers {
  const d = target.descriptor;
  const e = d.epilogue;
  const what = e.describe();
  const bias = optional('bias', given.bias, e.bias, what, () => {
    const { shape, strides } = biasShape(d);
    return checkTensorArg('bias', given.bias, shape, strides, target);
  });
  const z = optional('z', given.z, e.residual, what, () =>
    checkTensorArg('z', given.z, d.yShape, d.yStrides, target),
  );
  const preArg = given.preActivation;
  const pre =
    preArg === undefined
      ? 0n
      : checkTensorArg('preActivation', preArg, d.yShape, d.yStrides, target);
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
}

/** The arguments of `runBwEpilogue`. */
export function checkBwEpilogue(args: unknown, target: RunTarget): CheckedBwEpilogue {
  if (typeof args !== 'object' || args === null) {
    throw new InvalidArgumentError(
      'runBwEpilogue arguments',
      'an object {dy, y?, preActivation?, dyPre?, dBias?, stream?}',
      args,
    );
  }
  const given = args as Record<string, unknown>;
  const d = target.descriptor;
  const e = d.epilogue;
  if (e.isNone) {
    throw new InvalidProblemError(
      `Expected a descriptor with an epilogue for runBwEpilogue but ${d.describe()} has none`,
      'descriptor',
    );
  }
  const dy = checkTensorArg('dy', given.dy, d.yShape, d.yStrides, target);
  const input = e.backwardInput;
  const act = `activation '${e.activation}'`;
  const { y, preActivation, dyPre: dyPreArg, dBias: dBiasArg } = given;
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
      d.yShape,
      d.yStrides,
      target,
    );
  }
  const dyPre =
    input === 'none' ? 0n : checkTensorArg('dyPre', dyPreArg, d.yShape, d.yStrides, target);
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
      `Expected dBias (the bias gradient, [${d.cOut}]) for epilogue ${e.describe()} but received undefined`,
      'dBias',
    );
  }
  const stream =
    given.stream === undefined ? target.stream : runStream(given.stream, target.device);
  return { dy, saved, dyPre, dBias, stream };
}
