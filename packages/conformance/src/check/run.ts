/** `runCheck`: every case × dtype × layout × pass × mode, then the extra checks. */
import type { Layout } from '../reference/index.js';
import {
  ASYM_PAD_SUITE,
  DEFAULT_SUITES,
  type DefaultSuiteName,
  LARGE_DTYPES,
  loadSuite,
  reduceCase,
  SHARED_SCALED_BUDGET_MACS,
  type SuiteCase,
  TRANSPOSE_SUITE,
  type TransposeCase,
} from '../suite/index.js';
import { checkConv, InputSet, toProblem } from './conv.js';
import { runExtras } from './extras.js';
import {
  ALGO_MODES,
  type AlgoMode,
  type GpuApi,
  type GpuInfo,
  PASSES,
  type Pass,
} from './gpu-api.js';
import { freshSeed, type Seed } from './host.js';
import { type CheckCounts, type CheckRow, countRows } from './rows.js';
import {
  algorithmAllowed,
  type CheckDtype,
  DEFAULT_CHECK_DTYPES,
  dtypeAllowed,
} from './tolerances.js';
import { checkTranspose, TransposeInputs, toTransposeProblem } from './transpose.js';

/** The built-in suites, by their CLI names. */
export type SuiteName = DefaultSuiteName | 'asym-pad' | 'transpose';
/** Every SuiteName, in the order `check` runs them. */
export const SUITE_NAMES: readonly SuiteName[] = [
  'tiny',
  'odd',
  'grouped',
  'shared-scaled',
  'large',
  'asym-pad',
  'transpose',
];

/**
 * What `check` runs when no suite is named: the convolution suites but `large`. The large suite's
 * PyTorch-163539 reproducer holds 1.8·10^9-element tensors (about 30 GB of host memory for inputs
 * and the sampled reference, minutes of input generation); run it with `--suites large`. The
 * conv-family suites (`asym-pad`, `transpose`) run with `--suites asym-pad,transpose`.
 */
export const DEFAULT_CHECK_SUITES: readonly SuiteName[] = [
  'tiny',
  'odd',
  'grouped',
  'shared-scaled',
];

/** The cases of a built-in convolution suite. */
function convSuite(suite: Exclude<SuiteName, 'transpose'>): readonly SuiteCase[] {
  return suite === 'asym-pad' ? ASYM_PAD_SUITE : DEFAULT_SUITES[suite];
}
/** Every layout. */
export const LAYOUTS: readonly Layout[] = ['ncdhw', 'ndhwc'];

/**
 * The large suite exists to exercise cuDNN's 9.8–9.15 defect on large f16/bf16 3-D
 * convolutions; f32/f64 copies of 2^28-element tensors would cost minutes and prove nothing new.
 */
export const LARGE_SUITE_DTYPES: readonly CheckDtype[] = LARGE_DTYPES;

/** One case as the runner sees it. */
export interface CheckCase {
  /** The name printed in the table, with "(reduced: …)" when reduceCase changed it. */
  readonly name: string;
  readonly suite: SuiteName | 'file';
  readonly case: SuiteCase;
  /** Restrict this case to these dtypes. Defaults to every requested dtype. */
  readonly dtypes?: readonly CheckDtype[];
  /** A transposed convolution (the `transpose` suite): checked on a ConvTranspose3dPlan. */
  readonly transpose?: TransposeCase;
}

/** Options of {@link buildCases}. */
export interface BuildCasesOptions {
  /** Built-in suites. Defaults to DEFAULT_CHECK_SUITES (all but `large`), or none when `suiteFile` is given. */
  suites?: readonly SuiteName[];
  /** A suite file in the shared format (name, n, c_in, c_out, in, k, pad, stride, dil, groups). Defaults to none. */
  suiteFile?: string | object;
  /** MAC budget of the reference: file cases past it are reduced with reduceCase. Defaults to `SHARED_SCALED_BUDGET_MACS`. */
  maxMacs?: number;
}

/** Resolve suites and an optional suite file into the cases to check. */
export function buildCases(options: BuildCasesOptions = {}): CheckCase[] {
  const cases: CheckCase[] = [];
  const suites = options.suites ?? (options.suiteFile === undefined ? DEFAULT_CHECK_SUITES : []);
  for (const suite of suites) {
    if (suite === 'transpose') {
      for (const c of TRANSPOSE_SUITE) cases.push({ name: c.name, suite, case: c, transpose: c });
      continue;
    }
    for (const c of convSuite(suite)) {
      cases.push({
        name: c.name,
        suite,
        case: c,
        ...(suite === 'large' ? { dtypes: LARGE_SUITE_DTYPES } : {}),
      });
    }
  }
  if (options.suiteFile !== undefined) {
    const maxMacs = options.maxMacs ?? SHARED_SCALED_BUDGET_MACS;
    for (const c of loadSuite(options.suiteFile)) {
      const reduced = reduceCase(c, maxMacs);
      cases.push({
        name: reduced.reduced ? `${c.name} (reduced: ${reduced.how})` : c.name,
        suite: 'file',
        case: reduced.case,
      });
    }
  }
  return cases;
}

/** Options of {@link runCheck}. */
export interface CheckOptions {
  /** The cases; see buildCases. */
  readonly cases: readonly CheckCase[];
  /** Defaults to DEFAULT_CHECK_DTYPES (all but the opt-in 3xtf32). */
  readonly dtypes?: readonly CheckDtype[];
  /** Defaults to `['ncdhw', 'ndhwc']`. */
  readonly layouts?: readonly Layout[];
  /** Defaults to `['fw', 'bwData', 'bwFilter']`. */
  readonly passes?: readonly Pass[];
  /** Defaults to `['pinned', 'heuristic', 'autotune']`. */
  readonly algos?: readonly AlgoMode[];
  /** MAC budget of the full reference; larger cases are checked on sampled points. Defaults to `SHARED_SCALED_BUDGET_MACS`. */
  readonly maxMacs?: number;
  /** Seed of every random input (16 hex digits). Defaults to a fresh crypto-random seed. */
  readonly seed?: Seed;
  /** Run the extra checks (adjoint, bit-identical, beta, errors, two streams, leaks). Defaults to `true`. */
  readonly extras?: boolean;
  /** Plan create/dispose cycles of the leak check. Defaults to `10000`. */
  readonly leakCycles?: number;
  /** Points compared on sampled cases. Defaults to `LARGE_SAMPLE_POINTS`. */
  readonly samplePoints?: number;
  /** Called with each row as soon as it is known (the CLI prints it). Defaults to none. */
  readonly onRow?: (row: CheckRow) => void;
}

/** Everything a check produced. */
export interface CheckReport extends CheckCounts {
  readonly seed: Seed;
  readonly gpu: GpuInfo;
  readonly startedAt: string;
  readonly seconds: number;
  readonly rows: readonly CheckRow[];
}

/** Run every requested row on an open GPU. Never throws for a failing row: it becomes a `fail`. */
export async function runCheck(api: GpuApi, options: CheckOptions): Promise<CheckReport> {
  const seed = options.seed ?? freshSeed();
  const dtypes = options.dtypes ?? DEFAULT_CHECK_DTYPES;
  const layouts = options.layouts ?? LAYOUTS;
  const passes = options.passes ?? PASSES;
  const algos = options.algos ?? ALGO_MODES;
  const maxMacs = options.maxMacs ?? SHARED_SCALED_BUDGET_MACS;
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const rows: CheckRow[] = [];
  const emit = (row: CheckRow) => {
    rows.push(row);
    options.onRow?.(row);
  };
  const stream = api.createStream();
  try {
    for (const c of options.cases) {
      for (const dtype of dtypes) {
        if (!dtypeAllowed(c.dtypes, dtype)) continue;
        for (const layout of layouts) {
          const label = `${c.name}|${dtype}|${layout}`;
          if (c.transpose !== undefined) {
            const shared = new TransposeInputs(
              toTransposeProblem(c.transpose, layout),
              dtype,
              seed,
              label,
            );
            for (const algorithm of algos) {
              const rows = await checkTranspose(api, stream, {
                caseName: c.name,
                dtype,
                layout,
                algorithm,
                passes,
                inputs: shared,
              });
              for (const row of rows) emit(row);
            }
            continue;
          }
          const inputs = new InputSet(toProblem(c.case, layout), dtype, seed, label);
          for (const algorithm of algos) {
            if (!algorithmAllowed(dtype, algorithm)) continue;
            const caseRows = await checkConv(api, stream, {
              caseName: c.name,
              suiteCase: c.case,
              dtype,
              layout,
              algorithm,
              passes,
              maxMacs,
              seed,
              inputs,
              ...(options.samplePoints === undefined ? {} : { samplePoints: options.samplePoints }),
            });
            for (const row of caseRows) emit(row);
          }
        }
      }
    }
    if (options.extras ?? true) {
      await runExtras(api, stream, {
        seed,
        ...(options.leakCycles === undefined ? {} : { leakCycles: options.leakCycles }),
        onRow: emit,
      });
    }
  } finally {
    stream.dispose();
  }
  return {
    seed,
    gpu: api.info,
    startedAt,
    seconds: (performance.now() - started) / 1000,
    rows,
    ...countRows(rows),
  };
}
