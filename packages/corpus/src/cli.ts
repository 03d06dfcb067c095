/**
 * The corpus runner. Checks that every public export has a corpus entry, builds the C fakes,
 * runs every case in child processes and prints the counts per class and package and each
 * failing case with its reproducer. Exits 1 on any signal, hang, silent acceptance or untyped
 * error (or a missing entry), 0 otherwise. See README.md for the flags.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { casesOf } from './cases.js';
import { uncovered } from './coverage.js';
import { buildFakes } from './fakes.js';
import type { CaseRef } from './model.js';
import { runPool } from './pool.js';
import { formatReport, summarize } from './report.js';
import { CORPORA } from './targets/index.js';

interface Flags {
  cases: string[];
  filter: string | null;
  jobs: number;
  batchSize: number;
  timeoutMs: number;
  report: string | null;
  list: boolean;
}

function parse(argv: readonly string[]): Flags {
  const flags: Flags = {
    cases: [],
    filter: null,
    jobs: 2,
    batchSize: 200,
    timeoutMs: 5_000,
    report: null,
    list: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const count = () => {
      const n = Number(value());
      if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
      return n;
    };
    if (flag === '--case') flags.cases.push(value());
    else if (flag === '--filter') flags.filter = value();
    else if (flag === '--jobs') flags.jobs = count();
    else if (flag === '--batch') flags.batchSize = count();
    else if (flag === '--timeout-ms') flags.timeoutMs = count();
    else if (flag === '--report') flags.report = value();
    else if (flag === '--list') flags.list = true;
    else throw new Error(`unknown flag ${flag} (see packages/corpus/README.md)`);
  }
  return flags;
}

function pick(all: readonly CaseRef[], flags: Flags): CaseRef[] {
  if (flags.cases.length > 0) {
    const byId = new Map(all.map((c) => [c.id, c]));
    return flags.cases.map((id) => {
      const c = byId.get(id);
      if (c === undefined) throw new Error(`no case ${id} (--list shows them)`);
      return c;
    });
  }
  const filter = flags.filter;
  return filter === null ? [...all] : all.filter((c) => c.id.includes(filter));
}

/** The child command: $BARACUDA_CORPUS_NODE (split on spaces), else this node. */
function childCommand(): string[] {
  const custom = process.env.BARACUDA_CORPUS_NODE?.trim();
  return custom ? custom.split(/\s+/) : [process.execPath, '--expose-gc'];
}

async function main(): Promise<number> {
  const flags = parse(process.argv.slice(2));
  const missing = await uncovered(CORPORA);
  const all = casesOf(CORPORA);
  if (flags.list) {
    for (const c of all) console.log(`${c.id}\t${c.acceptable ? 'may accept' : 'must refuse'}`);
    return 0;
  }
  const chosen = pick(all, flags);
  const fakes = await buildFakes();
  const work = mkdtempSync(join(tmpdir(), 'baracuda-corpus-'));
  mkdirSync(join(work, 'cache'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BARACUDA_CUDA_DRIVER_LIBRARY: fakes.cuda,
    BARACUDA_CUDNN_LIBRARY: fakes.cudnn,
    BARACUDA_NCCL_LIBRARY: fakes.nccl,
    BARACUDA_CUBLASLT_LIBRARY: fakes.cublaslt,
    FAKE_CUDA_DEVICE_COUNT: '2',
    FAKE_CUDNN_ENGINES: '0',
    BARACUDA_AUTOTUNE_CACHE: join(work, 'cache', 'autotune.json'),
    XDG_CACHE_HOME: join(work, 'cache'),
    BARACUDA_CORPUS_WORK: work,
  };
  const preload = process.env.BARACUDA_CORPUS_PRELOAD;
  if (preload) env.LD_PRELOAD = preload;
  delete env.BARACUDA_CORPUS_PRELOAD;
  const started = Date.now();
  const results = await runPool(chosen, {
    jobs: flags.jobs,
    batchSize: flags.cases.length > 0 ? Math.max(1, chosen.length) : flags.batchSize,
    timeoutMs: flags.timeoutMs,
    command: childCommand(),
    childScript: join(dirname(fileURLToPath(import.meta.url)), 'child.js'),
    env,
    cwd: work,
  });
  const seconds = (Date.now() - started) / 1000;
  rmSync(work, { recursive: true, force: true });
  const summary = summarize(results, missing);
  const text = formatReport(summary, { seconds, command: childCommand().join(' ') });
  console.log(text.short);
  if (flags.report !== null) {
    writeFileSync(resolve(flags.report), text.full);
    console.log(`full report: ${resolve(flags.report)}`);
  }
  return summary.failing.length > 0 || missing.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 2;
  },
);
