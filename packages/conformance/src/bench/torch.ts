/**
 * The PyTorch side: the job the python script reads, spawning it without blocking the event loop,
 * and parsing what it writes back.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from '@baracuda/types';
import { type SuiteFileCase, toFileCase } from '../suite/load.js';
import { rowId } from './math.js';
import type {
  BenchCase,
  BenchDtype,
  BenchGroup,
  BenchLayout,
  BenchPass,
  OverheadResult,
  TorchColumn,
  TorchInfo,
  TorchRowResult,
} from './types.js';

/** A case in the shared suite's JSON spelling, which the python script reads. */
/** A case as the PyTorch script reads it: the suite file's spelling. */
export type TorchCase = SuiteFileCase;

export interface TorchJobRow {
  id: string;
  case: TorchCase;
  dtype: BenchDtype;
  layout: BenchLayout;
  pass: BenchPass;
  sets: number;
}

export interface TorchJobOverhead {
  id: string;
  case: TorchCase;
  dtype: BenchDtype;
  layout: BenchLayout;
  pass: BenchPass;
  calls: number;
  trials: number;
}

/** The file the python script reads (format version 1). */
export interface TorchJob {
  version: 1;
  label: string;
  warmup: number;
  reps: number;
  /** Stop starting new rows after this many seconds (0: no limit). */
  timeBudgetS: number;
  /** The PyTorch column the process is (see TorchColumn). */
  column: TorchColumn;
  rows: TorchJobRow[];
  overhead: TorchJobOverhead[];
}

/** The tiny problem whose per-call host cost is measured on both sides. */
export const TINY_CASE: BenchCase = {
  name: 'tiny',
  n: 1,
  cIn: 8,
  cOut: 8,
  in: [8, 8, 8],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 1, 1],
  dil: [1, 1, 1],
  groups: 1,
};

/** Tiny-problem variants measured for host overhead: both layouts, a strict and a half dtype. */
export const OVERHEAD_PROBLEMS: ReadonlyArray<{ dtype: BenchDtype; layout: BenchLayout }> = [
  { dtype: 'f32', layout: 'ncdhw' },
  { dtype: 'f32', layout: 'ndhwc' },
  { dtype: 'f16', layout: 'ncdhw' },
  { dtype: 'f16', layout: 'ndhwc' },
];

export const OVERHEAD_CALLS = 1000;
export const OVERHEAD_TRIALS = 5;

/** A group's rows in the spelling the python script reads (a job's rows, or a worker request's). */
export function torchJobRows(group: BenchGroup): TorchJobRow[] {
  return group.passes.map((pass) => ({
    id: rowId({ case: group.case.name, dtype: group.dtype, layout: group.layout, pass }),
    case: toFileCase(group.case),
    dtype: group.dtype,
    layout: group.layout,
    pass,
    sets: group.sets,
  }));
}

/** The tiny problems × passes whose per-call host cost PyTorch measures. */
export function torchOverheadItems(
  passes: readonly BenchPass[] = ['fw', 'bwData', 'bwFilter', 'bwStep'],
): TorchJobOverhead[] {
  return OVERHEAD_PROBLEMS.flatMap((p) =>
    passes.map((pass) => ({
      id: TINY_CASE.name,
      case: toFileCase(TINY_CASE),
      dtype: p.dtype,
      layout: p.layout,
      pass,
      calls: OVERHEAD_CALLS,
      trials: OVERHEAD_TRIALS,
    })),
  );
}

/**
 * A job for the python script's batch run: the same rows, reps, warm-up and rotation sets as
 * ours, and the host-overhead items (`bench` sends only those, to a fresh process per column).
 */
export function buildTorchJob(
  groups: readonly BenchGroup[],
  settings: {
    label: string;
    warmup: number;
    reps: number;
    timeBudgetS: number;
    column?: TorchColumn;
    overhead?: TorchJobOverhead[];
  },
): TorchJob {
  return {
    version: 1,
    label: settings.label,
    warmup: settings.warmup,
    reps: settings.reps,
    timeBudgetS: settings.timeBudgetS,
    column: settings.column ?? 'tuned',
    rows: groups.flatMap(torchJobRows),
    overhead: settings.overhead ?? torchOverheadItems(),
  };
}

export interface ParsedTorchResults {
  info: TorchInfo;
  rows: TorchRowResult[];
  overhead: OverheadResult[];
  errors: string[];
}

/** A plain object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** The versions, device and cuDNN in a results file or a worker's reply. */
export function parseTorchInfo(raw: Record<string, unknown>): TorchInfo {
  const cudnn = isRecord(raw.cudnn) ? raw.cudnn : {};
  const cudnnVersion = cudnn.version;
  return {
    torchVersion: str(raw.torch),
    cudaVersion: str(raw.cuda),
    cudnn: {
      version:
        typeof cudnnVersion === 'number' ? formatCudnnVersion(cudnnVersion) : str(cudnnVersion),
      path: str(cudnn.path),
    },
    cudnnLibraries: Array.isArray(cudnn.libraries)
      ? cudnn.libraries.filter((p): p is string => typeof p === 'string')
      : [],
    cudnnEnabled: typeof cudnn.enabled === 'boolean' ? cudnn.enabled : null,
    device: str(raw.device),
    ...(raw.column === 'default' || raw.column === 'tuned' ? { column: raw.column } : {}),
    ...(typeof cudnn.benchmark === 'boolean' ? { benchmark: cudnn.benchmark } : {}),
    ...(typeof cudnn.benchmarkLimit === 'number' ? { benchmarkLimit: cudnn.benchmarkLimit } : {}),
  };
}

/** One row entry as the script writes it; malformed rows are dropped with a message in `errors`. */
export function parseTorchRows(raw: unknown[], errors: string[]): TorchRowResult[] {
  const rows: TorchRowResult[] = [];
  raw.forEach((r, i) => {
    if (!isRecord(r) || typeof r.id !== 'string') {
      errors.push(`PyTorch row ${i} has no id; ignored`);
      return;
    }
    const status = r.status === 'ok' || r.status === 'skipped' ? r.status : 'error';
    const row: TorchRowResult = { id: r.id, status };
    const ms = num(r.medianMs);
    if (ms !== undefined) row.medianMs = ms;
    else if (status === 'ok') {
      row.status = 'error';
      row.note = 'no medianMs in the PyTorch results';
    }
    const reps = num(r.reps);
    if (reps !== undefined) row.reps = reps;
    if (typeof r.usedCudnn === 'boolean' || r.usedCudnn === null) row.usedCudnn = r.usedCudnn;
    if (typeof r.backend === 'string') row.backend = r.backend;
    const first = num(r.firstCallMs);
    if (first !== undefined) row.firstCallMs = first;
    if (typeof r.note === 'string' && !row.note) row.note = r.note;
    rows.push(row);
  });
  return rows;
}

/** The host-overhead entries the script writes (malformed ones are skipped). */
export function parseTorchOverhead(raw: unknown): OverheadResult[] {
  const overhead: OverheadResult[] = [];
  if (!Array.isArray(raw)) return overhead;
  for (const o of raw) {
    if (!isRecord(o) || typeof o.id !== 'string') continue;
    const entry: OverheadResult = {
      id: o.id,
      side: `torch:${o.column === 'default' ? 'default' : 'tuned'}`,
      dtype: (o.dtype as BenchDtype) ?? 'f32',
      layout: (o.layout as BenchLayout) ?? 'ncdhw',
      pass: (o.pass as BenchPass) ?? 'fw',
    };
    const us = num(o.usPerCall);
    if (us !== undefined) entry.usPerCall = us;
    if (Array.isArray(o.trialsUs))
      entry.trialsUs = o.trialsUs.filter((v): v is number => typeof v === 'number');
    if (typeof o.note === 'string') entry.note = o.note;
    overhead.push(entry);
  }
  return overhead;
}

/**
 * Validate and convert the python script's JSON. Throws InvalidArgumentError when the top level is
 * not the expected object; individual malformed rows are dropped with a message in `errors`.
 */
export function parseTorchResults(raw: unknown): ParsedTorchResults {
  if (!isRecord(raw) || !Array.isArray(raw.rows)) {
    throw new InvalidArgumentError('PyTorch results', 'an object with a rows array', raw);
  }
  const errors: string[] = [];
  const rows = parseTorchRows(raw.rows, errors);
  const overhead = parseTorchOverhead(raw.overhead);
  if (Array.isArray(raw.errors)) {
    for (const e of raw.errors) if (typeof e === 'string') errors.push(e);
  }
  return { info: parseTorchInfo(raw), rows, overhead, errors };
}

/** cuDNN's integer version (90100 or 91900 style) as `9.1.0` / `9.19.0`. */
export function formatCudnnVersion(raw: number): string {
  const major = Math.floor(raw / 10000);
  const minor = Math.floor((raw % 10000) / 100);
  const patch = raw % 100;
  return `${major}.${minor}.${patch}`;
}

/**
 * Where torch_conv3d_bench.py is: the explicit path, else next to the package (running from the
 * repo root or the package), else next to the bundle. Returns null with the list searched.
 */
export function findTorchScript(
  explicit: string | undefined,
  cwd = process.cwd(),
  here = typeof __dirname === 'string' ? __dirname : cwd,
): { path: string | null; searched: string[] } {
  const name = 'torch_conv3d_bench.py';
  const candidates = explicit
    ? [path.resolve(cwd, explicit)]
    : [
        path.join(cwd, 'packages', 'conformance', 'bench', name),
        path.join(cwd, 'bench', name),
        path.join(here, '..', 'bench', name),
        path.join(here, '..', '..', 'bench', name),
        path.join(here, 'bench', name),
        path.join(here, name),
      ];
  for (const candidate of candidates)
    if (existsSync(candidate)) return { path: candidate, searched: candidates };
  return { path: null, searched: candidates };
}

export interface SpawnOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** A spawn failure (e.g. ENOENT for a missing interpreter). */
  spawnError?: string;
  stderrTail: string;
}

/**
 * Run `python script jobPath --out resultPath` asynchronously. Its stderr is forwarded line by
 * line through `onLine`; the child is killed (by its own pid) after `timeoutMs`.
 */
export function spawnTorchScript(
  python: string,
  script: string,
  jobPath: string,
  resultPath: string,
  timeoutMs: number,
  onLine: (line: string) => void = () => {},
): Promise<SpawnOutcome> {
  return new Promise((resolve) => {
    let tail = '';
    let timedOut = false;
    let settled = false;
    const child = spawn(python, [script, jobPath, '--out', resultPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const lines = lineReader(onLine);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4000);
      lines.push(text);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const finish = (outcome: Omit<SpawnOutcome, 'stderrTail' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      lines.flush();
      resolve({ ...outcome, timedOut, stderrTail: tail });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        exitCode: null,
        signal: null,
        spawnError: spawnErrorText(python, error),
      });
    });
    child.on('close', (exitCode, signal) => finish({ exitCode, signal }));
  });
}

/** Text arriving in chunks, handed on a whole line at a time (without its newline). */
export function lineReader(onLine: (line: string) => void): {
  push(text: string): void;
  /** Hand on what is left after the last newline, if anything. */
  flush(): void;
} {
  let pending = '';
  return {
    push(text) {
      pending += text;
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
    },
    flush() {
      if (pending) onLine(pending);
      pending = '';
    },
  };
}

/** Why the python interpreter could not be started, saying what to do for a missing one. */
export function spawnErrorText(python: string, error: NodeJS.ErrnoException): string {
  return error.code === 'ENOENT'
    ? `${python} was not found; pass --python with the interpreter that has torch`
    : error.message;
}

/** Read and parse the results file the script wrote. */
export function readTorchResults(resultPath: string): ParsedTorchResults {
  return parseTorchResults(JSON.parse(readFileSync(resultPath, 'utf8')));
}
