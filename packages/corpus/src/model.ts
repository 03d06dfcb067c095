/**
 * The corpus's vocabulary: a target is one callable surface of a public export (a function, a
 * static or instance method, a getter, a constructor); a slot is one place an argument goes (an
 * argument, a property of one, or `this`); a case is one target with one slot replaced by one
 * named value. Which values a slot accepts is data (expectations.ts), never inferred.
 */

export type PackageName =
  | 'driver'
  | 'cudnn-sys'
  | 'kernels'
  | 'nccl-sys'
  | 'collectives'
  | 'cublaslt-sys';
export const PACKAGES: readonly PackageName[] = [
  'driver',
  'cudnn-sys',
  'kernels',
  'nccl-sys',
  'collectives',
  'cublaslt-sys',
];

/** Where a swept value goes: `this`, argument `arg`, or a property path inside argument `arg`. */
export type SlotAt = { readonly arg: 'this' } | { readonly arg: number; readonly path?: string[] };

export interface SlotSpec {
  /** Shown in case ids: `this`, `arg0`, `arg0.x.devicePtr`. */
  readonly name: string;
  readonly at: SlotAt;
  /** A key of SLOT_KINDS (expectations.ts). */
  readonly kind: string;
}

/** What a target's prepare() hands the child: a valid call, ready to run, and its cleanup. */
export interface Prepared {
  self: unknown;
  args: unknown[];
  /** Runs the call with (possibly replaced) `self` and `args`; may return a promise. */
  call(self: unknown, args: unknown[]): unknown;
  /** Destroys or disposes the object the call works on (for re-entrant values), if it has one. */
  victim?: () => void;
  /** Frees what prepare() made; errors here are ignored. */
  cleanup?: () => void;
}

/** Fixtures shared by targets of one package inside one child (loaded modules, devices). */
export type Fixtures = Record<string, unknown>;

export interface Target {
  /** `driver/DeviceBuffer#uploadSync`, `cudnn-sys/cudnnCreate`, `kernels/Conv3dPlan.selectSync`. */
  readonly id: string;
  readonly pkg: PackageName;
  /** The public export this target belongs to (coverage is checked on these). */
  readonly exportName: string;
  readonly slots: readonly SlotSpec[];
  /** prepare() returns a victim (re-entrant values are swept where a slot allows them). */
  readonly hasVictim?: boolean;
  /** The unchanged call may be accepted (false for `new` on a factory-only class). Defaults to true. */
  readonly baselineAcceptable?: boolean;
  prepare(fixtures: Fixtures): Prepared;
}

/** The table of one package: its targets and the exports that are plain data (no call to sweep). */
export interface PackageCorpus {
  readonly pkg: PackageName;
  /** Loads the package and makes the fixtures its targets share (once per child). */
  load(): Promise<Fixtures>;
  readonly targets: readonly Target[];
  /** Exports with nothing to call (numbers, frozen tables), by name or by a name pattern. */
  readonly data: readonly (string | RegExp)[];
}

/** One case: a target, a slot (or none: the unchanged valid call) and a value name. */
export interface CaseRef {
  readonly id: string;
  readonly target: Target;
  readonly slot: SlotSpec | null;
  readonly value: string;
  /** Whether the library may accept this input (false: it must reject it). */
  readonly acceptable: boolean;
}

/** What a child saw when it ran a case. */
export type Observation =
  | {
      readonly kind: 'returned';
      /** A number returned, or the `status` field of an object returned (cudnn-sys's results). */
      readonly status?: number;
      /** What was returned, shortened, for the report. */
      readonly preview?: string;
    }
  | {
      readonly kind: 'threw';
      readonly name: string;
      readonly message: string;
      /** A @baracuda/types error (BaracudaError.isInstance). */
      readonly typed: boolean;
      readonly code?: string;
    };

/** The five outcome classes, and `ok` for an acceptable value accepted or refused cleanly. */
export type OutcomeClass = 'signal' | 'hang' | 'silent' | 'untyped' | 'typed' | 'ok';
export const FAILING: readonly OutcomeClass[] = ['signal', 'hang', 'silent', 'untyped'];

export interface CaseResult {
  readonly id: string;
  readonly pkg: PackageName;
  readonly outcome: OutcomeClass;
  /** One line: the error, the signal and its stderr tail, or what was returned. */
  readonly detail: string;
}
