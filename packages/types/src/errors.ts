/**
 * Error classes shared by every baracuda package.
 *
 * Each class carries a `Symbol.for` marker so `isInstance` works across
 * duplicated installs (two copies of `@baracuda/types` in one process), a
 * stable `code` for programmatic handling, and structured fields.
 */

const MARKER = Symbol.for('baracuda.error');

/** Stable codes, one per error class. */
export type BaracudaErrorCode =
  | 'BARACUDA_UNSUPPORTED'
  | 'BARACUDA_INVALID_PROBLEM'
  | 'BARACUDA_INVALID_ARGUMENT'
  | 'BARACUDA_WORKSPACE_TOO_SMALL'
  | 'BARACUDA_BUFFER_TOO_SMALL'
  | 'BARACUDA_DISPOSED'
  | 'BARACUDA_LIBRARY_NOT_FOUND'
  | 'BARACUDA_CUDA_ERROR'
  | 'BARACUDA_CUDNN_ERROR'
  | 'BARACUDA_NCCL_ERROR'
  | 'BARACUDA_REPORT_MISMATCH';

export interface BaracudaErrorOptions {
  cause?: unknown;
}

/** Base class of every error baracuda throws on purpose. */
export class BaracudaError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by isInstance through Symbol.for, also from other copies of this package
  private readonly [MARKER] = true;
  readonly code: BaracudaErrorCode;

  constructor(code: BaracudaErrorCode, message: string, options?: BaracudaErrorOptions) {
    super(
      text(message),
      typeof options === 'object' && options !== null && options.cause !== undefined
        ? { cause: options.cause }
        : undefined,
    );
    this.code = code;
    this.name = new.target.name;
  }

  /** True for a BaracudaError from any copy of this package. */
  static isInstance(error: unknown): error is BaracudaError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[MARKER] === true
    );
  }
}

function hasCode(error: unknown, code: BaracudaErrorCode): boolean {
  return BaracudaError.isInstance(error) && error.code === code;
}

/** The problem is valid but this backend, dtype, layout or algorithm cannot run it. */
export class UnsupportedError extends BaracudaError {
  constructor(message: string, options?: BaracudaErrorOptions) {
    super('BARACUDA_UNSUPPORTED', message, options);
  }
  static override isInstance(error: unknown): error is UnsupportedError {
    return hasCode(error, 'BARACUDA_UNSUPPORTED');
  }
}

/** The problem itself is malformed: a bad extent, a group count that does not divide, an int32 overflow. */
export class InvalidProblemError extends BaracudaError {
  /** The field or tensor at fault, e.g. `padD` or `x`. */
  readonly field: string | undefined;
  constructor(message: string, field?: string, options?: BaracudaErrorOptions) {
    super('BARACUDA_INVALID_PROBLEM', message, options);
    this.field = field;
  }
  static override isInstance(error: unknown): error is InvalidProblemError {
    return hasCode(error, 'BARACUDA_INVALID_PROBLEM');
  }
}

/**
 * An argument of the wrong type or value at an API boundary.
 * Message form: "Expected <expected> for <name> but received <got>".
 */
export class InvalidArgumentError extends BaracudaError {
  readonly argument: string;
  readonly expected: string;
  readonly received: string;
  constructor(argument: string, expected: string, value: unknown, options?: BaracudaErrorOptions) {
    const received = describeValue(value);
    super(
      'BARACUDA_INVALID_ARGUMENT',
      `Expected ${text(expected)} for ${text(argument)} but received ${received}`,
      options,
    );
    this.argument = text(argument);
    this.expected = text(expected);
    this.received = received;
  }
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasCode(error, 'BARACUDA_INVALID_ARGUMENT');
  }
}

/** The workspace passed to a run call holds fewer bytes than the plan needs. */
export class WorkspaceTooSmallError extends BaracudaError {
  readonly needed: number;
  readonly got: number;
  constructor(needed: number, got: number, context = 'workspace', options?: BaracudaErrorOptions) {
    super(
      'BARACUDA_WORKSPACE_TOO_SMALL',
      `${text(context)} too small: needed ${text(needed)} bytes but received ${text(got)} bytes`,
      options,
    );
    this.needed = needed;
    this.got = got;
  }
  static override isInstance(error: unknown): error is WorkspaceTooSmallError {
    return hasCode(error, 'BARACUDA_WORKSPACE_TOO_SMALL');
  }
}

/** A tensor or host array holds fewer bytes than its shape needs. */
export class BufferTooSmallError extends BaracudaError {
  readonly needed: number;
  readonly got: number;
  readonly buffer: string;
  constructor(buffer: string, needed: number, got: number, options?: BaracudaErrorOptions) {
    super(
      'BARACUDA_BUFFER_TOO_SMALL',
      `${text(buffer)} too small: needed ${text(needed)} bytes but received ${text(got)} bytes`,
      options,
    );
    this.buffer = buffer;
    this.needed = needed;
    this.got = got;
  }
  static override isInstance(error: unknown): error is BufferTooSmallError {
    return hasCode(error, 'BARACUDA_BUFFER_TOO_SMALL');
  }
}

/** A method was called on an object after `dispose()`. */
export class DisposedError extends BaracudaError {
  readonly object: string;
  constructor(object: string, options?: BaracudaErrorOptions) {
    super('BARACUDA_DISPOSED', `${text(object)} has been disposed and cannot be used`, options);
    this.object = object;
  }
  static override isInstance(error: unknown): error is DisposedError {
    return hasCode(error, 'BARACUDA_DISPOSED');
  }
}

/** One place a library loader looked, and why it failed there. */
export interface LibrarySearchAttempt {
  path: string;
  error: string;
}

/** A shared library (libcuda, libcudnn) could not be loaded. */
export class LibraryNotFoundError extends BaracudaError {
  readonly library: string;
  readonly searched: readonly LibrarySearchAttempt[];
  constructor(
    library: string,
    searched: readonly LibrarySearchAttempt[],
    solutions: readonly string[],
    options?: BaracudaErrorOptions,
  ) {
    const tried = listOf(searched)
      .map(
        (s) =>
          `  - ${text((s as LibrarySearchAttempt)?.path)}: ${text((s as LibrarySearchAttempt)?.error)}`,
      )
      .join('\n');
    const fixes = listOf(solutions)
      .map((s) => `  - ${text(s)}`)
      .join('\n');
    super(
      'BARACUDA_LIBRARY_NOT_FOUND',
      `Could not load ${text(library)}.\nSearched:\n${tried || '  (nothing)'}\nPossible solutions:\n${fixes}`,
      options,
    );
    this.library = library;
    this.searched = searched;
  }
  static override isInstance(error: unknown): error is LibraryNotFoundError {
    return hasCode(error, 'BARACUDA_LIBRARY_NOT_FOUND');
  }
}

/** A CUDA driver call returned something other than CUDA_SUCCESS. */
export class CudaError extends BaracudaError {
  /** The driver function, e.g. `cuMemAlloc_v2`. */
  readonly call: string;
  /** The CUresult value. */
  readonly result: number;
  /** The CUresult name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`. */
  readonly resultName: string;
  constructor(
    call: string,
    result: number,
    resultName: string,
    detail?: string,
    options?: BaracudaErrorOptions,
  ) {
    super(
      'BARACUDA_CUDA_ERROR',
      `\`${text(call)}\` failed: ${text(resultName)} (${text(result)})${detail ? `: ${text(detail)}` : ''}`,
      options,
    );
    this.call = call;
    this.result = result;
    this.resultName = resultName;
  }
  static override isInstance(error: unknown): error is CudaError {
    return hasCode(error, 'BARACUDA_CUDA_ERROR');
  }
}

/** A cuDNN call returned something other than CUDNN_STATUS_SUCCESS. */
export class CudnnError extends BaracudaError {
  /** The cuDNN function, e.g. `cudnnBackendFinalize`. */
  readonly call: string;
  /** The cudnnStatus_t value. */
  readonly status: number;
  /** The status name, e.g. `CUDNN_STATUS_NOT_SUPPORTED`. */
  readonly statusName: string;
  /** cuDNN's last error string, when it had one. */
  readonly lastError: string;
  /** One line describing the problem: shapes, dtype, layout and algorithm. */
  readonly problem: string;
  constructor(
    call: string,
    status: number,
    statusName: string,
    lastError: string,
    problem: string,
    options?: BaracudaErrorOptions,
  ) {
    const detail = lastError ? ` (${text(lastError)})` : '';
    const where = problem ? ` for ${text(problem)}` : '';
    super(
      'BARACUDA_CUDNN_ERROR',
      `\`${text(call)}\` failed: ${text(statusName)}${detail}${where}`,
      options,
    );
    this.call = call;
    this.status = status;
    this.statusName = statusName;
    this.lastError = lastError;
    this.problem = problem;
  }
  static override isInstance(error: unknown): error is CudnnError {
    return hasCode(error, 'BARACUDA_CUDNN_ERROR');
  }
}

/**
 * An NCCL call returned something other than ncclSuccess, a communicator reported an asynchronous
 * error (a failed or vanished peer), or a wait for a collective timed out and the communicator was
 * aborted. The message carries NCCL's own error string.
 */
export class NcclError extends BaracudaError {
  /** The NCCL function, e.g. `ncclAllReduce`, or `ncclCommGetAsyncError` for an async error. */
  readonly call: string;
  /** The ncclResult_t value. */
  readonly result: number;
  /** The result's name, e.g. `ncclSystemError`. */
  readonly resultName: string;
  /** NCCL's text for the result (`ncclGetErrorString`) and its last error (`ncclGetLastError`). */
  readonly ncclMessage: string;
  /** Which communicator: e.g. `rank 1 of 2 on device 1`. */
  readonly where: string;
  constructor(
    call: string,
    result: number,
    resultName: string,
    ncclMessage: string,
    where: string,
    options?: BaracudaErrorOptions,
  ) {
    const detail = ncclMessage ? ` (${text(ncclMessage)})` : '';
    const on = where ? ` on ${text(where)}` : '';
    super(
      'BARACUDA_NCCL_ERROR',
      `\`${text(call)}\` failed: ${text(resultName)}${detail}${on}`,
      options,
    );
    this.call = call;
    this.result = result;
    this.resultName = resultName;
    this.ncclMessage = ncclMessage;
    this.where = where;
  }
  static override isInstance(error: unknown): error is NcclError {
    return hasCode(error, 'BARACUDA_NCCL_ERROR');
  }
}

/**
 * Describe a value for an error message: `-1 of type number`, `"abc" of type string`,
 * `3n of type bigint`, `an instance of Foo`, `null`, `undefined`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'string':
      return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} of type string`;
    case 'bigint':
      return `${value}n of type bigint`;
    case 'number':
    case 'boolean':
      return `${String(value)} of type ${typeof value}`;
    case 'function':
      return 'a function';
    case 'symbol':
      return `${String(value)} of type symbol`;
    default:
      return describeObject(value as object);
  }
}

/** An object's words; never throws (a revoked Proxy, a getter that throws, an odd constructor). */
function describeObject(value: object): string {
  try {
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    const ctor = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof ctor === 'string' && ctor !== '' && ctor !== 'Object'
      ? `an instance of ${ctor}`
      : 'an object';
  } catch {
    return 'an object';
  }
}

/** A message part given as a string (numbers too), else described: a message never fails to build. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return describeValue(value);
}

function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** One side of a {@link ReportMismatchError}: where a value came from, and the value. */
export interface ReportSide {
  source: string;
  value: string;
}

/**
 * Two measurement reports that must not be combined (different commits, overlapping rows, other
 * hardware), naming both: "Cannot merge bench reports of different commits: abc123 in a.json,
 * def456 in b.json".
 */
export class ReportMismatchError extends BaracudaError {
  readonly what: string;
  readonly first: ReportSide;
  readonly second: ReportSide;
  constructor(what: string, first: ReportSide, second: ReportSide, options?: BaracudaErrorOptions) {
    super(
      'BARACUDA_REPORT_MISMATCH',
      `Cannot merge bench reports of ${text(what)}: ${text(first?.value)} in ${text(first?.source)}, ${text(second?.value)} in ${text(second?.source)}`,
      options,
    );
    this.what = what;
    this.first = first;
    this.second = second;
  }
  static override isInstance(error: unknown): error is ReportMismatchError {
    return hasCode(error, 'BARACUDA_REPORT_MISMATCH');
  }
}
