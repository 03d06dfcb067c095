/**
 * `bench`: time conv3d rows in every algorithm mode, against the roofline and (with --vs-torch)
 * against PyTorch on the same GPU. The CLI dispatches here; see BENCH_USAGE for the flags.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BaracudaError } from '@baracuda/types';
import { loadSuite, SHARED_SUITE } from '../suite/index.js';
import { BENCH_USAGE, type BenchOptions, parseBenchArgs } from './args.js';
import type { BenchBackend } from './backend.js';
import { runCosts, runPage, runShards } from './commands.js';
import { MERGE_USAGE, mergeReports, parseMergeArgs, readReport } from './merge.js';
import { autotuneCacheState, driverVersion, resolveCommit } from './provenance.js';
import { renderMarkdown, renderSvg } from './render.js';
import { groupKey, planGroups } from './rows.js';
import { type RunIdentity, type RunnerContext, runBenchReport } from './runner.js';
import { estimateGroupSeconds, planShards } from './shards.js';
import {
  buildTorchJob,
  findTorchScript,
  readTorchResults,
  spawnTorchScript,
  torchOverheadItems,
} from './torch.js';
import { type TorchTurns, TorchWorker, workerTurns } from './torch-worker.js';
import type { BenchCase, BenchOutputs, BenchReport, TorchColumn } from './types.js';

export { BENCH_USAGE, type BenchOptions, parseBenchArgs, QUICK_CASES } from './args.js';
export { matchTorch, summarize, verdictOf, withMetrics } from './compare.js';
export { decideCap } from './group.js';
export {
  convBytes,
  convFlops,
  convMacs,
  geomean,
  median,
  rooflineFloorMs,
  rotationSets,
  rowId,
  tflopsOf,
} from './math.js';
export { MERGE_USAGE, mergeReports, parseMergeArgs } from './merge.js';
export { renderPage } from './page.js';
export { renderMarkdown, renderSvg } from './render.js';
export { planGroups } from './rows.js';
export { splitIntoShards } from './shards.js';
export { buildTorchJob, parseTorchResults, type TorchJob } from './torch.js';
export type * from './types.js';

/** Where the outputs go when `--out` is not given. */
export function defaultOutDir(cwd = process.cwd()): string {
  const pkg = path.join(cwd, 'packages', 'conformance');
  return existsSync(pkg) ? path.join(pkg, 'bench-results') : path.join(cwd, 'bench-results');
}

/** Output file paths for a label: `bench[-label].{md,json,svg}` and the PyTorch job/results. */
export function outputPaths(outDir: string, label: string) {
  const suffix = label ? `-${label}` : '';
  return {
    markdown: path.join(outDir, `bench${suffix}.md`),
    json: path.join(outDir, `bench${suffix}.json`),
    svg: path.join(outDir, `bench${suffix}.svg`),
    torchJob: path.join(outDir, `torch-job${suffix}.json`),
    torchResults: path.join(outDir, `torch-results${suffix}.json`),
  };
}

/** Write the markdown, JSON and SVG of a report; returns the paths written. */
export function writeReport(report: BenchReport, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const paths = outputPaths(outDir, report.label);
  writeFileSync(paths.markdown, renderMarkdown(report));
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(paths.svg, renderSvg(report));
  return [paths.markdown, paths.json, paths.svg];
}

/** @internal PyTorch's host overhead: an overhead-only batch job in a fresh process. */
export function torchOverheadRunner(
  options: BenchOptions,
  outDir: string,
  log: (line: string) => void,
): NonNullable<RunnerContext['runTorchOverhead']> {
  return async (column, passes) => {
    const script = findTorchScript(options.torchScript);
    if (!script.path) return { overhead: [], notes: [scriptMissing(script.searched)] };
    mkdirSync(outDir, { recursive: true });
    const paths = outputPaths(outDir, options.label ? `${options.label}-${column}` : column);
    const job = buildTorchJob([], {
      label: options.label,
      warmup: options.warmup,
      reps: options.reps,
      timeBudgetS: 0,
      column,
      overhead: torchOverheadItems(passes),
    });
    writeFileSync(paths.torchJob, `${JSON.stringify(job, null, 2)}\n`);
    const outcome = await spawnTorchScript(
      options.python,
      script.path,
      paths.torchJob,
      paths.torchResults,
      options.torchTimeoutS * 1000,
      (line) => log(`[torch ${column}] ${line}`),
    );
    const why = `PyTorch's host overhead (${column}) was not measured`;
    if (outcome.spawnError) return { overhead: [], notes: [`${why}: ${outcome.spawnError}`] };
    if (!existsSync(paths.torchResults)) {
      const tail = outcome.stderrTail.trim().split('\n').slice(-3).join(' / ');
      return { overhead: [], notes: [`${why}: the script wrote no results: ${tail}`] };
    }
    try {
      const parsed = readTorchResults(paths.torchResults);
      return { overhead: parsed.overhead, notes: parsed.errors.map((e) => `PyTorch: ${e}`) };
    } catch (error) {
      return { overhead: [], notes: [`${why}: ${(error as Error).message}`] };
    }
  };
}

function scriptMissing(searched: string[]): string {
  return `torch_conv3d_bench.py not found (searched ${searched.join(', ')}); pass --torch-script`;
}

/** @internal One PyTorch worker per column, taking turns with us. */
export function torchTurnsOpener(
  options: BenchOptions,
  log: (line: string) => void,
): (column: TorchColumn) => TorchTurns {
  return (column) => {
    const script = findTorchScript(options.torchScript);
    const settings = {
      warmup: options.warmup,
      reps: options.reps,
      timeoutMs: options.torchTimeoutS * 1000,
    };
    if (!script.path) {
      const error = scriptMissing(script.searched);
      return {
        start: async () => ({ error, notes: [] }),
        round: async () => [],
        release: async () => {},
        finish: async () => ({ notes: [] }),
        close: async () => {},
      };
    }
    const worker = new TorchWorker(
      options.python,
      script.path,
      (line) => log(`[torch ${column}] ${line}`),
      column,
    );
    return workerTurns(worker, settings);
  };
}

/** @internal Dependencies runBench uses, replaceable in tests. */
export interface BenchIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  openBackend: (options: {
    maxWorkspaceBytes?: number | undefined;
    outputs?: BenchOutputs;
  }) => Promise<{ backend?: BenchBackend; unavailable?: string }>;
  cwd: string;
  /** The commit, driver and autotune cache state of this run (provenance.ts). */
  identify?: (
    options: BenchOptions,
  ) => Promise<Pick<RunIdentity, 'commit' | 'driver' | 'autotuneCache'>>;
}

const defaultIo = (): BenchIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  openBackend: async (options) => (await import('./cuda-backend.js')).createCudaBackend(options),
  cwd: process.cwd(),
});

async function defaultIdentity(options: BenchOptions, cwd: string) {
  return {
    commit: await resolveCommit(options.commit, cwd),
    driver: await driverVersion(cwd),
    autotuneCache: autotuneCacheState(),
  };
}

/**
 * Run the `bench` command. Resolves with the process exit code: 0 when the report was written,
 * 1 when no GPU (or, with --vs-torch, no PyTorch result) was available or the run failed,
 * 2 for bad arguments or a bad suite. Never throws and never blocks the event loop while the
 * GPU or PyTorch works.
 */
export async function runBench(argv: string[], io: BenchIo = defaultIo()): Promise<number> {
  if (argv[0] === 'merge') return runMerge(argv.slice(1), io);
  if (argv[0] === 'page') return runPage(argv.slice(1), io);
  if (argv[0] === 'costs') return runCosts(argv.slice(1), io);
  if (argv[0] === 'shards') return runShards(argv.slice(1), io);
  let options: BenchOptions;
  let cases: BenchCase[];
  try {
    options = parseBenchArgs(argv);
    if (options.help) {
      io.stdout(BENCH_USAGE);
      return 0;
    }
    cases = options.suite
      ? loadSuite(path.resolve(io.cwd, options.suite))
      : SHARED_SUITE.map((c) => ({ ...c }));
  } catch (error) {
    io.stderr(`bench: ${(error as Error).message}\nRun bench --help for the options.\n`);
    return 2;
  }
  const planned = planGroups(cases, options);
  const notes = planned.notes;
  if (planned.groups.length === 0) {
    io.stderr(`bench: nothing to run. ${notes.join(' ')}\n`);
    return 2;
  }
  const identity: RunIdentity = {
    ...(await (io.identify ?? ((o) => defaultIdentity(o, io.cwd)))(options)),
    suiteGroups: planned.groups.map(groupKey),
  };
  let groups = planned.groups;
  if (options.shard) {
    const { index, count } = options.shard;
    const shards = planShards(
      planned.groups,
      count,
      options,
      identity.autotuneCache.state === 'carried',
    );
    groups = shards[index - 1]!.groups;
    identity.shard = { index, count, groups: groups.map(groupKey) };
    notes.push(
      `Shard ${index} of ${count}: ${groups.length} of ${planned.groups.length} groups, estimated ${Math.round(shards[index - 1]!.seconds)} s (shards: ${shards.map((s) => `${Math.round(s.seconds)} s`).join(', ')}).`,
    );
    if (groups.length === 0) {
      io.stderr(
        `bench: shard ${index} of ${count} holds no group (${planned.groups.length} groups in all)\n`,
      );
      return 2;
    }
  }

  const opened = await io.openBackend({
    maxWorkspaceBytes: options.maxWorkspaceBytes,
    outputs: options.outputs,
  });
  if (!opened.backend) {
    io.stderr(
      `bench: no GPU to benchmark on, so nothing was measured.\n${opened.unavailable ?? ''}\n`,
    );
    return 1;
  }
  const backend = opened.backend;
  const outDir = options.out ? path.resolve(io.cwd, options.out) : defaultOutDir(io.cwd);
  const log = (line: string) => io.stderr(`${line}\n`);
  try {
    const report = await runBenchReport(
      groups,
      cases,
      options,
      {
        backend,
        log,
        openTorchTurns: torchTurnsOpener(options, log),
        runTorchOverhead: torchOverheadRunner(options, outDir, log),
        estimateS: (group) =>
          estimateGroupSeconds(
            group,
            options,
            undefined,
            identity.autotuneCache.state === 'carried',
          ),
      },
      notes,
      identity,
    );
    const written = writeReport(report, outDir);
    io.stdout(renderMarkdown(report));
    log(`wrote ${written.join(', ')}`);
    if (options.vsTorch && !report.summary) {
      io.stderr(`bench: PyTorch was not compared: ${report.torchError ?? 'no results'}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    const kind = BaracudaError.isInstance(error) ? error.code : 'error';
    io.stderr(`bench failed (${kind}): ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  } finally {
    try {
      backend.dispose();
    } catch {
      // Disposal failures after a report must not change the exit code.
    }
  }
}

/**
 * `bench merge`: 0 when the merged report was written, 2 for bad arguments or for reports that do
 * not join (other commits, overlapping groups, other GPUs or cuDNNs).
 */
export function runMerge(argv: string[], io: Pick<BenchIo, 'stdout' | 'stderr' | 'cwd'>): number {
  try {
    const options = parseMergeArgs(argv);
    if (options.help) {
      io.stdout(MERGE_USAGE);
      return 0;
    }
    const reports = options.files.map((f) => readReport(path.resolve(io.cwd, f)));
    const merged = mergeReports(reports, options.label, options.files);
    const outDir = options.out ? path.resolve(io.cwd, options.out) : defaultOutDir(io.cwd);
    const written = writeReport(merged, outDir);
    io.stdout(renderMarkdown(merged));
    io.stderr(`wrote ${written.join(', ')}\n`);
    return 0;
  } catch (error) {
    io.stderr(`bench merge: ${(error as Error).message}\n\n${MERGE_USAGE}`);
    return 2;
  }
}
