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
import { MERGE_USAGE, mergeReports, parseMergeArgs, readReport } from './merge.js';
import { renderMarkdown, renderSvg } from './render.js';
import { planGroups } from './rows.js';
import { runBenchReport, type TorchOutcome } from './runner.js';
import { buildTorchJob, findTorchScript, readTorchResults, spawnTorchScript } from './torch.js';
import { type TorchTurns, TorchWorker, workerTurns } from './torch-worker.js';
import type { BenchCase, BenchGroup, BenchOutputs, BenchReport } from './types.js';

export { BENCH_USAGE, type BenchOptions, parseBenchArgs, QUICK_CASES } from './args.js';
export { matchTorch, summarize, withMetrics } from './compare.js';
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
export { renderMarkdown, renderSvg } from './render.js';
export { planGroups } from './rows.js';
export { decideCap } from './runner.js';
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

/**
 * The PyTorch script's own budget: it stops starting rows before it would be killed, so the rows
 * it did finish, its host overhead and its cuDNN path still come back.
 */
export function torchTimeBudgetS(
  options: Pick<BenchOptions, 'timeBudgetS' | 'torchTimeoutS'>,
): number {
  const beforeKill = Math.floor(options.torchTimeoutS * 0.8);
  return options.timeBudgetS > 0 ? Math.min(options.timeBudgetS, beforeKill) : beforeKill;
}

/** @internal The PyTorch side: write the job, spawn the script, read its results. */
export function torchRunner(
  options: BenchOptions,
  outDir: string,
  log: (line: string) => void,
): (groups: readonly BenchGroup[]) => Promise<TorchOutcome> {
  return async (groups) => {
    const script = findTorchScript(options.torchScript);
    if (!script.path) {
      return {
        error: `torch_conv3d_bench.py not found (searched ${script.searched.join(', ')}); pass --torch-script`,
      };
    }
    mkdirSync(outDir, { recursive: true });
    const paths = outputPaths(outDir, options.label);
    const job = buildTorchJob(groups, {
      label: options.label,
      warmup: options.warmup,
      reps: options.reps,
      timeBudgetS: torchTimeBudgetS(options),
    });
    writeFileSync(paths.torchJob, `${JSON.stringify(job, null, 2)}\n`);
    const outcome = await spawnTorchScript(
      options.python,
      script.path,
      paths.torchJob,
      paths.torchResults,
      options.torchTimeoutS * 1000,
      (line) => log(`[torch] ${line}`),
    );
    if (outcome.spawnError) return { error: outcome.spawnError };
    const how = outcome.timedOut
      ? `was killed after ${options.torchTimeoutS} s`
      : outcome.exitCode !== 0
        ? `exited with ${outcome.exitCode ?? outcome.signal}`
        : '';
    if (!existsSync(paths.torchResults)) {
      const tail = outcome.stderrTail.trim().split('\n').slice(-5).join(' / ');
      return { error: `the PyTorch script ${how || 'wrote no results'}: ${tail}` };
    }
    try {
      const parsed = readTorchResults(paths.torchResults);
      const notes = parsed.errors.map((e) => `PyTorch: ${e}`);
      if (how) notes.push(`The PyTorch script ${how}; its results may be partial.`);
      return { info: parsed.info, rows: parsed.rows, overhead: parsed.overhead, notes };
    } catch (error) {
      return { error: `could not read ${paths.torchResults}: ${(error as Error).message}` };
    }
  };
}

/** @internal PyTorch as a worker taking turns with us (`--rounds` above 1 with `--vs-torch`). */
export function torchTurnsOpener(
  options: BenchOptions,
  log: (line: string) => void,
): () => TorchTurns {
  return () => {
    const script = findTorchScript(options.torchScript);
    const settings = {
      warmup: options.warmup,
      reps: options.reps,
      timeoutMs: options.torchTimeoutS * 1000,
    };
    if (!script.path) {
      const error = `torch_conv3d_bench.py not found (searched ${script.searched.join(', ')}); pass --torch-script`;
      return {
        start: async () => ({ error, notes: [] }),
        round: async () => [],
        release: async () => {},
        finish: async () => ({ overhead: [], notes: [] }),
      };
    }
    const worker = new TorchWorker(options.python, script.path, (line) => log(`[torch] ${line}`));
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
}

const defaultIo = (): BenchIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  openBackend: async (options) => (await import('./cuda-backend.js')).createCudaBackend(options),
  cwd: process.cwd(),
});

/**
 * Run the `bench` command. Resolves with the process exit code: 0 when the report was written,
 * 1 when no GPU (or, with --vs-torch, no PyTorch result) was available or the run failed,
 * 2 for bad arguments or a bad suite. Never throws and never blocks the event loop while the
 * GPU or PyTorch works.
 */
export async function runBench(argv: string[], io: BenchIo = defaultIo()): Promise<number> {
  if (argv[0] === 'merge') return runMerge(argv.slice(1), io);
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
  const { groups, notes } = planGroups(cases, options);
  if (groups.length === 0) {
    io.stderr(`bench: nothing to run. ${notes.join(' ')}\n`);
    return 2;
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
        runTorch: torchRunner(options, outDir, log),
        openTorchTurns: torchTurnsOpener(options, log),
      },
      notes,
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

/** `bench merge`: 0 when the merged report was written, 2 for bad arguments or reports. */
export function runMerge(argv: string[], io: Pick<BenchIo, 'stdout' | 'stderr' | 'cwd'>): number {
  try {
    const options = parseMergeArgs(argv);
    if (options.help) {
      io.stdout(MERGE_USAGE);
      return 0;
    }
    const reports = options.files.map((f) => readReport(path.resolve(io.cwd, f)));
    const merged = mergeReports(reports, options.label);
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
