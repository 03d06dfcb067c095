/**
 * The bench's file commands that need no GPU: `bench page` (the results page from a merged
 * report), `bench costs` (the shard split's cost table from raw reports) and `bench shards` (which
 * groups each shard measures, with the estimate). Each resolves with an exit code and never throws.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from '@baracuda/types';
import { parseFlags } from '../cli/args.js';
import { loadSuite, SHARED_SUITE } from '../suite/index.js';
import { parseBenchArgs } from './args.js';
import { groupCostsFromReports, groupCostsModule } from './costs.js';
import { readReport } from './merge.js';
import { readmeLine, renderPage, splitPage } from './page.js';
import { groupKey, planGroups } from './rows.js';
import { fitsBudget, PLAN_MARGIN, planShards, shardCountFor } from './shards.js';
import type { BenchReport } from './types.js';

/** The streams and folder a command uses; tests pass their own. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

export const PAGE_USAGE = `Usage: baracuda-conformance bench page <merged.json> [--out <RESULTS.md>] [--raw <link>] [--suite <file>]
       baracuda-conformance bench page --pending [--commit <sha>] [--out <RESULTS.md>]

Renders the results page from the merged report of one run (bench merge): verdicts, geometric
means, issue 24's goals row by row, every row against both PyTorch columns with its roofline
factor, time to a plan, host overhead, and the commands that reproduce it; prints the README's
benchmark line to stderr. --raw is the link to the JSON written on the page (default: its path
relative to the page). --suite names the suite file the run measured, whose case geometry the
goals' shape rules read (default: the shared suite). --pending renders the frame that says no
run exists on this commit yet.
`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Write a rendered page, keeping the hand-written checks part of the file it replaces. */
function writePage(file: string, page: string): void {
  const kept = existsSync(file) ? splitPage(readFileSync(file, 'utf8')).checks : '';
  write(file, kept ? `${page}\n${kept}` : page);
}

function fail(io: CommandIo, command: string, error: unknown, usage: string): number {
  io.stderr(`bench ${command}: ${(error as Error).message}\n\n${usage}`);
  return 2;
}

/** `bench page`. */
export function runPage(argv: string[], io: CommandIo): number {
  try {
    const { values, positionals } = parseFlags(
      argv,
      {
        out: { type: 'string' },
        raw: { type: 'string' },
        suite: { type: 'string' },
        pending: { type: 'boolean' },
        commit: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      io.stdout(PAGE_USAGE);
      return 0;
    }
    const out = values.out ? path.resolve(io.cwd, values.out) : undefined;
    if (values.pending) {
      if (positionals.length > 0)
        throw new InvalidArgumentError('--pending', 'no report file', positionals.join(' '));
      const page = renderPage({ ...(values.commit ? { commit: values.commit } : {}) });
      if (out) writePage(out, page);
      else io.stdout(page);
      return 0;
    }
    if (positionals.length !== 1)
      throw new InvalidArgumentError('files', 'one merged bench JSON report', positionals.length);
    const file = path.resolve(io.cwd, positionals[0]!);
    const report = readReport(file);
    if (report.shard) {
      throw new InvalidArgumentError(
        positionals[0]!,
        'a merged report of every shard (bench merge)',
        `shard ${report.shard.index} of ${report.shard.count}`,
      );
    }
    const rawPath = values.raw ?? path.relative(path.dirname(out ?? file), file);
    const cases = values.suite
      ? loadSuite(path.resolve(io.cwd, values.suite))
      : SHARED_SUITE.map((c) => ({ ...c }));
    const page = renderPage({ report, rawPath, cases });
    if (out) writePage(out, page);
    else io.stdout(page);
    io.stderr(`README line: ${readmeLine(report)}\n`);
    return 0;
  } catch (error) {
    return fail(io, 'page', error, PAGE_USAGE);
  }
}

export const COSTS_USAGE = `Usage: baracuda-conformance bench costs [--out <group-costs.ts>] <report.json>...

Writes the cost table the shard split reads (src/bench/group-costs.ts): per group, the cold
autotune select, PyTorch's search and ms per call, each from the latest report that measured it.
Run biome format on the written file.
`;

/** `bench costs`. */
export function runCosts(argv: string[], io: CommandIo): number {
  try {
    const { values, positionals } = parseFlags(
      argv,
      { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (values.help) {
      io.stdout(COSTS_USAGE);
      return 0;
    }
    if (positionals.length === 0)
      throw new InvalidArgumentError('files', 'one or more bench JSON reports', 'none');
    const reports: BenchReport[] = positionals.map((f) => readReport(path.resolve(io.cwd, f)));
    const text = groupCostsModule(groupCostsFromReports(reports), positionals);
    if (values.out) write(path.resolve(io.cwd, values.out), text);
    else io.stdout(text);
    return 0;
  } catch (error) {
    return fail(io, 'costs', error, COSTS_USAGE);
  }
}

export const SHARDS_USAGE = `Usage: baracuda-conformance bench shards <M|auto> [--carried] [--time-budget-s <s>] [bench options]

Prints which groups each of M shards measures (bench --shard k/M with the same options) and
each shard's estimated seconds, from the cost table. --carried: estimate with a carried
autotune cache (no cold autotune). With --time-budget-s, says whether each shard fits the
budget with the planning margin (the estimate × ${PLAN_MARGIN}); auto: the fewest shards that all fit.
`;

/** `bench shards`. */
export function runShards(argv: string[], io: CommandIo): number {
  try {
    if (argv[0] === '--help' || argv[0] === '-h') {
      io.stdout(SHARDS_USAGE);
      return 0;
    }
    const auto = argv[0] === 'auto';
    const asked = Number(argv[0]);
    if (!auto && !(Number.isSafeInteger(asked) && asked >= 1 && asked <= 64))
      throw new InvalidArgumentError('<M>', "a shard count from 1 to 64 or 'auto'", argv[0]);
    const rest = argv.slice(1);
    const carried = rest.includes('--carried');
    const options = parseBenchArgs(rest.filter((a) => a !== '--carried'));
    const budget = options.timeBudgetS;
    if (auto && !(budget > 0))
      throw new InvalidArgumentError('--time-budget-s', "a budget in seconds with 'auto'", budget);
    const cases = options.suite
      ? loadSuite(path.resolve(io.cwd, options.suite))
      : SHARED_SUITE.map((c) => ({ ...c }));
    const { groups } = planGroups(cases, options);
    const count = auto ? shardCountFor(groups, budget, options, carried) : asked;
    if (count === undefined)
      throw new InvalidArgumentError(
        '--time-budget-s',
        'a budget that the longest group fits with the margin',
        budget,
      );
    const shards = planShards(groups, count, options, carried);
    const fit = (seconds: number) =>
      budget > 0
        ? ` (× ${PLAN_MARGIN} = ${Math.round(seconds * PLAN_MARGIN)} s: ${fitsBudget(seconds, budget) ? 'fits' : 'does NOT fit'} ${budget} s)`
        : '';
    const lines = shards.map(
      (s, i) =>
        `shard ${i + 1}/${count}: ${Math.round(s.seconds)} s${fit(s.seconds)}, ${s.groups.length} groups: ${s.groups.map(groupKey).join(', ')}`,
    );
    const total = shards.reduce((sum, s) => sum + s.seconds, 0);
    io.stdout(`${lines.join('\n')}\ntotal: ${Math.round(total)} s over ${groups.length} groups\n`);
    return 0;
  } catch (error) {
    return fail(io, 'shards', error, SHARDS_USAGE);
  }
}
