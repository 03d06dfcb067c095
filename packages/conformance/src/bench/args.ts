/**
 * Command-line parsing for `bench`. Pure: no I/O, typed errors for bad input.
 */
import { InvalidArgumentError } from '@baracuda/types';
import {
  ALL_DTYPES,
  ALL_LAYOUTS,
  ALL_MODES,
  ALL_PASSES,
  type BenchDtype,
  type BenchLayout,
  type BenchMode,
  type BenchOutputs,
  type BenchPass,
  DEFAULT_DTYPES,
} from './types.js';

/** Options of the `bench` command, after parsing. */
export interface BenchOptions {
  /** A suite file in the shared suite's format. Defaults to `the shared conv3d suite`. */
  suite: string | undefined;
  /** Defaults to `f32,tf32,f16,bf16,f64` (`3xtf32` only when named). */
  dtypes: BenchDtype[];
  /** ndhwc applies to f16 and bf16 only. Defaults to `ncdhw,ndhwc`. */
  layouts: BenchLayout[];
  /** Defaults to `fw,bwData,bwFilter,bwStep`. */
  passes: BenchPass[];
  /** Defaults to `pinned,heuristic,autotune`. */
  modes: BenchMode[];
  /** Timed repetitions per mode (the median is reported). Defaults to `30`. */
  reps: number;
  /** Untimed calls before timing. Defaults to `5` (`3` with `--quick`). */
  warmup: number;
  /** Also time the same rows with PyTorch. Defaults to `false`. */
  vsTorch: boolean;
  /** Python interpreter with torch. Defaults to `python3`. */
  python: string;
  /** Path of torch_conv3d_bench.py. Defaults to `found next to the package or the bundle`. */
  torchScript: string | undefined;
  /** Output folder. Defaults to `packages/conformance/bench-results`. */
  out: string | undefined;
  /** A label written into every output and the file names, e.g. `system` or `torch-cudnn`. Defaults to `""`. */
  label: string;
  /** Only these case names. Defaults to `every case` (`--quick`: a representative subset). */
  cases: string[] | undefined;
  /**
   * Only these groups, each `case:dtype:layout` (`--groups`), within the other filters. Defaults to
   * `every group`.
   */
  groups: string[] | undefined;
  /** f64 runs only on cases with at most this many MACs. Defaults to `4e9`. */
  f64MaxMacs: number;
  /** Total time the pinned mode may spend per row before it is capped or skipped. Defaults to `1500` (`500` with `--quick`). */
  pinnedBudgetMs: number;
  /** Stop starting new rows after this many seconds (0: no limit). Defaults to `0` (`150` with `--quick`). */
  timeBudgetS: number;
  /**
   * Kill the PyTorch script after this many seconds (with `--rounds` above 1: a worker request that
   * takes longer). Defaults to `420`.
   */
  torchTimeoutS: number;
  /**
   * Rounds per group. Above 1, each mode × pass is timed `reps` times per round and its time is the
   * median of the rounds; with `--vs-torch` PyTorch runs as a worker and the two sides take turns,
   * round by round, so drift of the GPU's state between them cancels. Defaults to `1` (ours for every
   * group, then PyTorch's whole run).
   */
  rounds: number;
  /**
   * Workspace limit of our plans, in bytes (`--max-workspace-mib`); PyTorch takes what is free.
   * Defaults to `undefined` (the library's default, `'auto'`).
   */
  maxWorkspaceBytes: number | undefined;
  /**
   * Where our calls write (`--outputs`): `shared`, one output buffer per group that every call
   * overwrites, as PyTorch's caching allocator hands each call the block the previous call freed;
   * `rotated`, an output per input set. Defaults to `shared`.
   */
  outputs: BenchOutputs;
  /**
   * Measure only shard `index` of `count` (`--shard k/M`): the groups are split into `count`
   * disjoint shards of about equal estimated time (see shards.ts); `bench merge` joins them.
   * Defaults to `undefined` (every group).
   */
  shard: { index: number; count: number } | undefined;
  /**
   * Run the tuned pair (our autotune mode and PyTorch's tuned column) only on groups of these
   * `dtype:layout` (`--tuned-on`), so a run fits a time budget that a cold autotune of every group
   * does not; the other groups run the default pair alone. Defaults to `undefined` (every group).
   */
  tunedOn: string[] | undefined;
  /**
   * The commit the measured code was built from, recorded on every row (`--commit`). Defaults to
   * `$BARACUDA_BENCH_COMMIT`, else `git rev-parse HEAD` in the working directory, else `unknown`.
   */
  commit: string | undefined;
  /** Fewer cases, shorter warm-up, tighter budgets: fits one comparison in ~3-4 minutes. Defaults to `false`. */
  quick: boolean;
  /** Print the usage and exit. Defaults to `false`. */
  help: boolean;
}

/** Cases `--quick` keeps (when `--cases` is not given): one of each kind of shape. */
export const QUICK_CASES: readonly string[] = [
  'c3d-conv2',
  'unet3d-bottleneck',
  'videomae-patch',
  'x3d-depthwise',
  'pointwise',
  'resnext3d-grouped',
];

export const BENCH_USAGE = `Usage: bench [options]
       bench merge --label <label> [--out <dir>] <shard.json>...   (bench merge --help)
       bench page <merged.json> [--out <RESULTS.md>]                (bench page --help)
       bench shards <M> [options]                                   (bench shards --help)
       bench costs [--out <file>] <report.json>...                  (bench costs --help)

Times conv3d rows (case × dtype × layout × pass) for each algorithm mode with CUDA events,
reports TFLOP/s and the fraction of the roofline floor, and with --vs-torch compares with
PyTorch default (cudnn.benchmark off; the peer of our heuristic mode) and PyTorch tuned
(benchmark on, benchmark_limit 0; the peer of autotune), taking turns with each round by round.

Options:
  --suite <file.json>       suite in the shared format (default: the shared conv3d suite)
  --cases <a,b,...>         only these case names
  --groups <a:b:c,...>      only these groups, each case:dtype:layout (e.g. c3d-conv2:tf32:ncdhw)
  --dtypes <list>           f32,tf32,3xtf32,f16,bf16,f64 (default: all but 3xtf32; f64 only on
                            small cases; 3xtf32: math '3xtf32' against PyTorch in strict f32)
  --layouts <list>          ncdhw,ndhwc (ndhwc applies to f16/bf16; default: both)
  --passes <list>           fw,bwData,bwFilter,bwStep (default: all; bwStep = dX and dW of a
                            training step: our runBwData + runDw, PyTorch's one autograd backward)
  --algos <list>            pinned,heuristic,autotune (default: all)
  --reps <n>                timed repetitions per mode, median reported (default: 30)
  --warmup <n>              untimed calls first (default: 5)
  --f64-max-macs <n>        f64 only on cases with at most n MACs (default: 4e9)
  --pinned-budget-ms <n>    cap pinned mode's time per row (default: 1500)
  --time-budget-s <n>       start no new rows after n seconds, 0 = no limit (default: 0)
  --vs-torch                also time PyTorch (python3 + torch) on the same rows
  --python <exe>            python with torch (default: python3)
  --torch-script <file>     path of torch_conv3d_bench.py (default: found automatically)
  --torch-timeout-s <n>     kill the PyTorch script after n seconds (default: 420); with
                            --rounds, a worker request that takes longer
  --rounds <n>              time each row in n rounds, the median of their medians reported
                            (default: 1); with --vs-torch above 1, PyTorch runs as a worker
                            and the two sides take turns round by round, group by group
  --max-workspace-mib <n>   workspace limit of our plans in MiB (default: the library's 'auto')
  --outputs <shared|rotated>  one output per group, overwritten by every call as PyTorch's
                            allocator does (default), or one per input set
  --shard <k/M>             only shard k of M: the groups split into M disjoint shards of about
                            equal estimated time; bench merge joins them (default: every group)
  --tuned-on <dtype:layout,...>  autotune and PyTorch tuned only on groups of these dtype:layout
                            (e.g. f16:ndhwc,f32:ncdhw); the rest get the default pair only
                            (default: every group)
  --commit <sha>            the commit measured, recorded on every row (default:
                            $BARACUDA_BENCH_COMMIT, else git rev-parse HEAD, else unknown)
  --out <dir>               output folder (default: packages/conformance/bench-results)
  --label <text>            label for this run, in the outputs and file names
  --quick                   representative cases, warm-up 3, pinned budget 500 ms, time budget 150 s
  --help                    this text
`;

const FLAGS_WITH_VALUE = new Set([
  'suite',
  'cases',
  'groups',
  'dtypes',
  'layouts',
  'passes',
  'algos',
  'reps',
  'warmup',
  'f64-max-macs',
  'pinned-budget-ms',
  'time-budget-s',
  'python',
  'torch-script',
  'torch-timeout-s',
  'rounds',
  'max-workspace-mib',
  'outputs',
  'out',
  'label',
  'shard',
  'commit',
  'tuned-on',
]);
const BOOLEAN_FLAGS = new Set(['vs-torch', 'quick', 'help']);

/** At most this many rounds: each costs a full warm-up and reps per mode × pass on both sides. */
export const MAX_ROUNDS = 50;

function parseRounds(rounds: number): number {
  if (rounds > MAX_ROUNDS) {
    throw new InvalidArgumentError('--rounds', `a positive integer up to ${MAX_ROUNDS}`, rounds);
  }
  return rounds;
}

/** A comma-separated list of names, or undefined when the flag was not given; empty is an error. */
function nameList(flag: string, raw: string | undefined, what: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) throw new InvalidArgumentError(flag, what, raw);
  return names;
}

/** `k/M` with 1 ≤ k ≤ M ≤ 64. */
export function parseShard(raw: string | undefined): { index: number; count: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!(index >= 1 && count >= index && count <= 64)) {
    throw new InvalidArgumentError('--shard', 'k/M with 1 ≤ k ≤ M ≤ 64 (e.g. 2/3)', raw);
  }
  return { index, count };
}

function parseTunedOn(raw: string | undefined): string[] | undefined {
  const items = nameList('--tuned-on', raw, 'a comma-separated list of dtype:layout');
  if (!items) return undefined;
  for (const item of items) {
    const [dtype, layout, extra] = item.split(':');
    if (
      extra !== undefined ||
      !(ALL_DTYPES as readonly string[]).includes(dtype ?? '') ||
      !(ALL_LAYOUTS as readonly string[]).includes(layout ?? '')
    ) {
      throw new InvalidArgumentError(
        '--tuned-on',
        `dtype:layout with a dtype of ${ALL_DTYPES.join(', ')} and a layout of ${ALL_LAYOUTS.join(', ')}`,
        item,
      );
    }
  }
  return items;
}

function parseCommit(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9a-f]{7,40}(-dirty)?$/.test(raw)) {
    throw new InvalidArgumentError(
      '--commit',
      'a hex commit id of 7 to 40 digits, optionally -dirty',
      raw,
    );
  }
  return raw;
}

function parseOutputs(raw: string | undefined): BenchOutputs {
  if (raw === undefined) return 'shared';
  if (raw === 'shared' || raw === 'rotated') return raw;
  throw new InvalidArgumentError('--outputs', "'shared' or 'rotated'", raw);
}

function parseList<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const items = nameList(`--${flag}`, raw, `a comma-separated list of ${allowed.join(', ')}`)!;
  const out: T[] = [];
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new InvalidArgumentError(`--${flag}`, `one of ${allowed.join(', ')}`, item);
    }
    if (!out.includes(item as T)) out.push(item as T);
  }
  return out;
}

type NumberKind =
  | 'positive integer'
  | 'non-negative integer'
  | 'non-negative number'
  | 'positive number';

function parseNumber(flag: string, raw: string, kind: NumberKind): number {
  const trimmed = raw.trim();
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  const ok =
    kind === 'positive integer'
      ? Number.isSafeInteger(value) && value > 0
      : kind === 'non-negative integer'
        ? Number.isSafeInteger(value) && value >= 0
        : kind === 'positive number'
          ? Number.isFinite(value) && value > 0
          : Number.isFinite(value) && value >= 0;
  if (!ok) throw new InvalidArgumentError(`--${flag}`, `a ${kind}`, raw);
  return value;
}

/**
 * Parse `bench` arguments (argv after the command name).
 * Throws InvalidArgumentError naming the flag, what was expected and what was received.
 */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const values = new Map<string, string>();
  const booleans = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      throw new InvalidArgumentError(
        `argument ${i + 1}`,
        'a flag starting with -- (see --help)',
        arg,
      );
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    if (BOOLEAN_FLAGS.has(name)) {
      if (eq >= 0) throw new InvalidArgumentError(`--${name}`, 'no value', arg.slice(eq + 1));
      booleans.add(name);
      continue;
    }
    if (!FLAGS_WITH_VALUE.has(name)) {
      throw new InvalidArgumentError(`argument ${i + 1}`, 'a known bench flag (see --help)', arg);
    }
    let value: string | undefined;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) {
        throw new InvalidArgumentError(`--${name}`, 'a value', value);
      }
      i++;
    }
    values.set(name, value);
  }

  const quick = booleans.has('quick');
  const get = (name: string): string | undefined => values.get(name);
  const number = (name: string, kind: NumberKind, fallback: number): number => {
    const raw = get(name);
    return raw === undefined ? fallback : parseNumber(name, raw, kind);
  };
  const list = <T extends string>(
    name: string,
    allowed: readonly T[],
    defaults: readonly T[] = allowed,
  ): T[] => {
    const raw = get(name);
    return raw === undefined ? [...defaults] : parseList(name, raw, allowed);
  };

  const cases = nameList('--cases', get('cases'), 'a comma-separated list of case names');
  const groups = nameList('--groups', get('groups'), 'a comma-separated list of case:dtype:layout');
  if (groups?.some((g) => !/^[^:]+:[^:]+:[^:]+$/.test(g))) {
    throw new InvalidArgumentError(
      '--groups',
      'a comma-separated list of case:dtype:layout',
      get('groups'),
    );
  }

  const warmupRaw = get('warmup');
  const label = get('label') ?? '';
  if (label !== '' && !/^[A-Za-z0-9._-]+$/.test(label)) {
    throw new InvalidArgumentError('--label', 'letters, digits, dot, dash or underscore', label);
  }

  return {
    suite: get('suite'),
    dtypes: list('dtypes', ALL_DTYPES, DEFAULT_DTYPES),
    layouts: list('layouts', ALL_LAYOUTS),
    passes: list('passes', ALL_PASSES),
    modes: list('algos', ALL_MODES),
    reps: number('reps', 'positive integer', 30),
    warmup:
      warmupRaw === undefined
        ? quick
          ? 3
          : 5
        : parseNumber('warmup', warmupRaw, 'non-negative integer'),
    vsTorch: booleans.has('vs-torch'),
    python: get('python') ?? 'python3',
    torchScript: get('torch-script'),
    out: get('out'),
    label,
    cases: cases ?? (quick && groups === undefined ? [...QUICK_CASES] : undefined),
    groups,
    f64MaxMacs: number('f64-max-macs', 'non-negative number', 4e9),
    pinnedBudgetMs: number('pinned-budget-ms', 'positive number', quick ? 500 : 1500),
    timeBudgetS: number('time-budget-s', 'non-negative number', quick ? 150 : 0),
    torchTimeoutS: number('torch-timeout-s', 'positive number', 420),
    rounds: parseRounds(number('rounds', 'positive integer', 1)),
    maxWorkspaceBytes:
      get('max-workspace-mib') === undefined
        ? undefined
        : number('max-workspace-mib', 'positive integer', 1024) * 2 ** 20,
    outputs: parseOutputs(get('outputs')),
    shard: parseShard(get('shard')),
    tunedOn: parseTunedOn(get('tuned-on')),
    commit: parseCommit(get('commit')),
    quick,
    help: booleans.has('help'),
  };
}
