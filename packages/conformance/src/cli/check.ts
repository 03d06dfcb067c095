/** `check`: the conformance table. */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError } from '@baracuda/types';
import { formatGpuInfo, formatHeader, formatRow } from '../check/format.js';
import { ALGO_MODES, type GpuOpenResult, PASSES } from '../check/gpu-api.js';
import { freshSeed, isSeed } from '../check/host.js';
import { summaryLine } from '../check/rows.js';
import { buildCases, LAYOUTS, runCheck, SUITE_NAMES } from '../check/run.js';
import type { CheckDtype } from '../check/tolerances.js';
import {
  algorithmAllowed,
  CHECK_DTYPES,
  DEFAULT_CHECK_DTYPES,
  dtypeAllowed,
} from '../check/tolerances.js';
import { parseFlags, parseList, parseNonNegativeInteger, parsePositiveInteger } from './args.js';
import { autotuneProgress, type CliIo } from './io.js';

export const CHECK_HELP = `Usage: baracuda check [options]

Checks every plan against the f64 CPU reference on the first GPU: each case x dtype x layout x
pass x algorithm mode, on fresh random inputs (seeded, printed), with outputs poisoned first.
Then the extra checks: adjoint identity, bit-identical reruns, beta=1, typed errors that write
nothing, two streams, and 10,000 plan create/dispose cycles without leaks.

Options:
  --suite <file.json>   check the cases of a suite file (shared format: name, n, c_in, c_out, in,
                        k, pad, stride, dil, groups); cases past --max-macs are reduced
  --suites <list>       built-in suites: ${SUITE_NAMES.join(',')}
                        (default: all but large, or none when --suite is given;
                        large needs tens of GB of host memory and minutes)
  --dtypes <list>       ${CHECK_DTYPES.join(',')} (default: all but 3xtf32;
                        3xtf32: f32 as three TF32 products, strict-f32 tolerance, not pinned)
  --layouts <list>      ${LAYOUTS.join(',')} (default: both)
  --passes <list>       ${PASSES.join(',')} (default: all)
  --algos <list>        ${ALGO_MODES.join(',')} (default: all)
  --max-macs <n>        MAC budget of the full reference; larger cases are checked on sampled
                        points, and --suite cases are reduced to fit
  --json <out.json>     also write every row as JSON
  --seed <hex>          reproduce a run (default: fresh from the OS's CSPRNG)
  --extras              run the extra checks (the default)
  --no-extras           skip them
  --leak-cycles <n>     plan create/dispose cycles of the leak check (default: 10000)
  --device <n>          CUDA device ordinal (default: 0)
  -h, --help            this text

Exit status: 0 when every row passed (unsupported rows are listed, never counted as passes),
1 when any row failed or nothing could be checked (no GPU), 2 for bad options.`;

/** @internal Parsed `check` options. */
export function parseCheckArgs(argv: string[]) {
  const { values } = parseFlags(argv, {
    suite: { type: 'string' },
    suites: { type: 'string' },
    dtypes: { type: 'string' },
    layouts: { type: 'string' },
    passes: { type: 'string' },
    algos: { type: 'string' },
    'max-macs': { type: 'string' },
    json: { type: 'string' },
    seed: { type: 'string' },
    extras: { type: 'boolean' },
    'no-extras': { type: 'boolean' },
    'leak-cycles': { type: 'string' },
    device: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.seed !== undefined && !isSeed(values.seed)) {
    throw new InvalidArgumentError('--seed', 'up to 16 hex digits', values.seed);
  }
  if (values.extras && values['no-extras']) {
    throw new InvalidArgumentError(
      '--extras',
      'either --extras or --no-extras, not both',
      '--extras --no-extras',
    );
  }
  return {
    help: values.help ?? false,
    suiteFile: values.suite,
    suites: parseList('--suites', values.suites, SUITE_NAMES),
    dtypes: parseList('--dtypes', values.dtypes, CHECK_DTYPES),
    layouts: parseList('--layouts', values.layouts, LAYOUTS),
    passes: parseList('--passes', values.passes, PASSES),
    algos: parseList('--algos', values.algos, ALGO_MODES),
    maxMacs: parsePositiveInteger('--max-macs', values['max-macs']),
    json: values.json,
    seed: values.seed?.toLowerCase().padStart(16, '0'),
    extras: !values['no-extras'],
    leakCycles: parsePositiveInteger('--leak-cycles', values['leak-cycles']),
    device: parseNonNegativeInteger('--device', values.device) ?? 0,
  };
}

/** The lines printed when no GPU could be opened. */
export function noGpuLines(gpu: Extract<GpuOpenResult, { available: false }>): string[] {
  const solutions = gpu.solutions ?? [];
  return [
    `No GPU: ${gpu.reason}.`,
    ...gpu.details.map((line) => `  ${line}`),
    ...(solutions.length > 0 ? ['What to do:', ...solutions.map((line) => `  - ${line}`)] : []),
  ];
}

/** @internal How many conv rows runCheck will emit (one per pass of each case × dtype × layout × algo). */
export function countConvRows(
  cases: ReadonlyArray<{ readonly dtypes?: readonly CheckDtype[] | undefined }>,
  args: Pick<ReturnType<typeof parseCheckArgs>, 'dtypes' | 'layouts' | 'passes' | 'algos'>,
): number {
  const dtypes = args.dtypes ?? DEFAULT_CHECK_DTYPES;
  const algos = args.algos ?? ALGO_MODES;
  const perAlgo = (args.layouts ?? LAYOUTS).length * (args.passes ?? PASSES).length;
  const perDtype = (d: CheckDtype) => algos.filter((a) => algorithmAllowed(d, a)).length * perAlgo;
  return cases.reduce(
    (sum, c) =>
      sum + dtypes.filter((d) => dtypeAllowed(c.dtypes, d)).reduce((n, d) => n + perDtype(d), 0),
    0,
  );
}

/** Run `check`. Returns the exit status. */
export async function checkCommand(
  argv: string[],
  io: CliIo,
  open: (
    ordinal: number,
    options?: { onProgress?: (message: string) => void },
  ) => Promise<GpuOpenResult>,
): Promise<number> {
  const args = parseCheckArgs(argv);
  if (args.help) {
    io.out(CHECK_HELP);
    return 0;
  }
  // Resolve the cases first: a bad suite file is reported even on a machine without a GPU.
  const cases = buildCases({
    ...(args.suites ? { suites: args.suites } : {}),
    ...(args.suiteFile ? { suiteFile: args.suiteFile } : {}),
    ...(args.maxMacs ? { maxMacs: args.maxMacs } : {}),
  });
  io.out('baracuda conformance check');
  const gpu = await open(args.device, { onProgress: autotuneProgress(io) });
  if (!gpu.available) {
    for (const line of noGpuLines(gpu)) io.err(line);
    io.err('Nothing was checked: check needs an NVIDIA GPU with its driver and cuDNN 9.');
    return 1;
  }
  for (const line of formatGpuInfo(gpu.api.info)) io.out(line);
  const reproduce = args.seed ? '' : ' (reproduce with --seed)';
  const seed = args.seed ?? freshSeed();
  io.out(`seed:    ${seed}${reproduce}`);
  io.out(
    `cases:   ${cases.length}${cases.length ? ` (${[...new Set(cases.map((c) => c.suite))].join(', ')})` : ''}`,
  );
  io.out('');
  io.out(formatHeader());
  const total = countConvRows(cases, args);
  let done = 0;
  const report = await runCheck(gpu.api, {
    cases,
    seed,
    extras: args.extras,
    ...(args.dtypes ? { dtypes: args.dtypes } : {}),
    ...(args.layouts ? { layouts: args.layouts } : {}),
    ...(args.passes ? { passes: args.passes } : {}),
    ...(args.algos ? { algos: args.algos } : {}),
    ...(args.maxMacs ? { maxMacs: args.maxMacs } : {}),
    ...(args.leakCycles ? { leakCycles: args.leakCycles } : {}),
    onRow: (row) => {
      io.out(formatRow(row));
      done += 1;
      io.status?.(
        done <= total ? `check ${done}/${total} rows` : `check: extra checks, ${done - total} rows`,
      );
    },
  });
  io.status?.('');
  io.out('');
  const unsupported = report.rows.filter((row) => row.status === 'unsupported');
  if (unsupported.length > 0) {
    io.out(`Unsupported (neither passed nor failed): ${unsupported.length}`);
  }
  const failed = report.rows.filter((row) => row.status === 'fail');
  if (failed.length > 0) {
    io.out('Failures:');
    for (const row of failed) io.out(`  ${formatRow(row).replace(/\n/g, '\n  ')}`);
  }
  io.out(`took ${report.seconds.toFixed(1)} s`);
  io.out(summaryLine(report));
  if (args.json) {
    writeFileSync(
      args.json,
      `${JSON.stringify({ ...report, options: { ...args, json: undefined } }, null, 2)}\n`,
    );
    io.out(`wrote ${args.json}`);
  }
  if (report.failed > 0) return 1;
  if (report.passed === 0) {
    io.err('No row passed: nothing was verified.');
    return 1;
  }
  return 0;
}
