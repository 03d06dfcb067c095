/**
 * The bench orchestration over a BenchBackend: peaks, host overhead, every row in every mode
 * (with the pinned mode's cap and the run's time budget), and the PyTorch comparison.
 */
import { UnsupportedError } from '@baracuda/types';
import type { BenchOptions } from './args.js';
import { type BenchBackend, PEAK_GEMM_CASE, type PlanSession, peakLayouts } from './backend.js';
import { matchTorch, relativeSpread, summarize, withMetrics } from './compare.js';
import {
  convBytes,
  convFlops,
  convMacs,
  median,
  ROTATE_BELOW_BYTES,
  rotationSets,
  rowId,
} from './math.js';
import { formatMs } from './render.js';
import { groupKey, isTunedGroup, modesFor } from './rows.js';
import {
  OVERHEAD_CALLS,
  OVERHEAD_PROBLEMS,
  OVERHEAD_TRIALS,
  TINY_CASE,
  torchJobRows,
} from './torch.js';
import { combineTorchRounds, type TorchTurns } from './torch-worker.js';
import {
  type AutotuneCacheState,
  type BenchCase,
  type BenchGroup,
  type BenchMode,
  type BenchPass,
  type BenchPeaks,
  type BenchReport,
  type BenchRowResult,
  type ModeResult,
  type OverheadResult,
  type PassSelectionInfo,
  type Provenance,
  type ShardInfo,
  TORCH_COLUMNS,
  type TorchColumn,
  type TorchInfo,
  type TorchRowResult,
} from './types.js';

/** PyTorch's host overhead, measured in a fresh process of one column. */
export interface TorchOverheadOutcome {
  overhead: OverheadResult[];
  notes: string[];
}

/** @internal */
export interface RunnerContext {
  backend: BenchBackend;
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
  /**
   * Estimated seconds of a group (shards.ts): with a time budget, a group is not started when it
   * would end past the budget. Absent: only the time already spent counts.
   */
  estimateS?: (group: BenchGroup) => number;
  /** PyTorch (one worker per column) taking turns with us group by group; with `--vs-torch`. */
  openTorchTurns?: (column: TorchColumn) => TorchTurns;
  /** PyTorch's per-call host cost of the passes, in a fresh process of the column. */
  runTorchOverhead?: (
    column: TorchColumn,
    passes: readonly BenchPass[],
  ) => Promise<TorchOverheadOutcome>;
}

/** What the pinned mode does on a row, decided from one probe call. */
export type CapDecision =
  | { action: 'full' }
  | { action: 'capped'; warmup: number; reps: number; note: string }
  | { action: 'skip'; note: string };

/**
 * Decide how to time a mode whose single probe call took `probeMs`, within `budgetMs` per row:
 * the full warm-up + reps if they fit; otherwise a warm-up of 1 and as many reps as fit (at least
 * 3); otherwise skip, saying how long one call took.
 */
export function decideCap(
  probeMs: number,
  budgetMs: number,
  warmup: number,
  reps: number,
): CapDecision {
  if (probeMs * (warmup + reps) <= budgetMs) return { action: 'full' };
  const affordable = Math.floor(budgetMs / probeMs);
  if (affordable >= 4) {
    const capped = Math.min(reps, affordable - 1);
    return {
      action: 'capped',
      warmup: 1,
      reps: capped,
      note: `one call took ${formatMs(probeMs)} ms; ${capped} reps fit the ${budgetMs} ms budget per row`,
    };
  }
  return {
    action: 'skip',
    note: `one call took ${formatMs(probeMs)} ms, over a quarter of the ${budgetMs} ms budget per row`,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failure(mode: BenchMode, error: unknown): ModeResult {
  return UnsupportedError.isInstance(error)
    ? { mode, status: 'unsupported', note: errorText(error) }
    : { mode, status: 'error', note: errorText(error) };
}

/** One mode × pass being timed over the rounds: its settings, and the rounds' medians so far. */
interface Timing {
  plan: PlanSession;
  pass: BenchPass;
  mode: BenchMode;
  warmup: number;
  reps: number;
  base: ModeResult;
  roundsMs: number[];
  /** Set once the timing is over: a skip, a failure, or (after the last round) the result. */
  result?: ModeResult;
}

/**
 * How a mode × pass will be timed: the full warm-up and reps, or (pinned mode) what fits the
 * budget per row after one probe call. A skip or failure comes back as the result.
 */
async function prepareTiming(
  plan: PlanSession,
  pass: BenchPass,
  mode: BenchMode,
  options: Pick<BenchOptions, 'reps' | 'warmup' | 'pinnedBudgetMs'>,
  selectMs: number,
): Promise<Timing> {
  const algorithm = safeAlgorithm(plan, pass);
  const selection = safeSelection(plan, pass);
  const base: ModeResult = {
    mode,
    status: 'ok',
    ...(algorithm ? { algorithm } : {}),
    selectMs,
    ...(selection ? { selection } : {}),
  };
  const timing: Timing = {
    plan,
    pass,
    mode,
    warmup: options.warmup,
    reps: options.reps,
    base,
    roundsMs: [],
  };
  if (mode !== 'pinned') return timing;
  try {
    const [probeMs] = await plan.time(pass, 0, 1);
    const decision = decideCap(probeMs ?? 0, options.pinnedBudgetMs, timing.warmup, timing.reps);
    if (decision.action === 'skip')
      timing.result = { ...base, status: 'skipped', note: decision.note };
    if (decision.action === 'capped') {
      timing.warmup = decision.warmup;
      timing.reps = decision.reps;
      timing.base = { ...base, status: 'capped', note: decision.note };
    }
  } catch (error) {
    timing.result = { ...failure(mode, error), ...(algorithm ? { algorithm } : {}), selectMs };
  }
  return timing;
}

/** One round of a timing: its median joins the others; a failure ends the timing. */
async function timeRound(timing: Timing, round: number, rounds: number): Promise<void> {
  if (timing.result) return;
  try {
    timing.roundsMs.push(median(await timing.plan.time(timing.pass, timing.warmup, timing.reps)));
  } catch (error) {
    const failed = failure(timing.mode, error);
    if (rounds > 1) failed.note = `round ${round + 1} of ${rounds}: ${failed.note}`;
    timing.result = { ...timing.base, ...failed };
  }
}

/** The timing's result: the median of its rounds' medians (each kept when there are several). */
function timingResult(timing: Timing, rounds: number): ModeResult {
  if (timing.result) return timing.result;
  const result: ModeResult = {
    ...timing.base,
    medianMs: median(timing.roundsMs),
    reps: timing.reps * timing.roundsMs.length,
  };
  if (rounds > 1) {
    result.roundsMs = timing.roundsMs;
    result.spread = relativeSpread(timing.roundsMs);
  }
  return result;
}

function safeSelection(plan: PlanSession, pass: BenchPass): PassSelectionInfo | undefined {
  try {
    return plan.selection?.(pass);
  } catch {
    return undefined;
  }
}

function safeAlgorithm(plan: PlanSession, pass: BenchPass): string | undefined {
  try {
    return plan.algorithm(pass);
  } catch {
    return undefined;
  }
}

/** How a group is timed in turns: `rounds` rounds, each followed by `afterRound` (PyTorch's turn). */
export interface GroupTurns {
  rounds: number;
  afterRound?: (round: number) => Promise<void>;
}

/**
 * Time every pass of a group in every mode. Never throws: failures become row entries. In one
 * round, each mode's plan is selected, timed and disposed before the next mode's is selected (so
 * autotune never tunes beside another plan's workspace). In several, every mode's plan is selected
 * first; then each round times every mode × pass once (a median of `reps`) and hands over to
 * `turns.afterRound`. A row's time is the median of its rounds.
 */
export async function benchGroup(
  group: BenchGroup,
  modes: readonly BenchMode[],
  options: Pick<BenchOptions, 'reps' | 'warmup' | 'pinnedBudgetMs'>,
  backend: BenchBackend,
  turns: GroupTurns = { rounds: 1 },
): Promise<Map<BenchPass, ModeResult[]>> {
  const rounds = Math.max(1, turns.rounds);
  const results = new Map<BenchPass, ModeResult[]>(group.passes.map((p) => [p, []]));
  const theirTurns = async () => {
    for (let round = 0; round < rounds; round++) await turns.afterRound?.(round);
  };
  let session: Awaited<ReturnType<BenchBackend['openGroup']>>;
  try {
    session = await backend.openGroup(group);
  } catch (error) {
    for (const mode of modes)
      for (const pass of group.passes)
        results
          .get(pass)!
          .push({ ...failure(mode, error), note: `allocating inputs: ${errorText(error)}` });
    await theirTurns();
    return results;
  }
  const plans: PlanSession[] = [];
  const byMode = new Map<BenchMode, Timing[] | ModeResult>();
  try {
    for (const mode of modes) {
      const started = performance.now();
      try {
        const plan = await session.selectPlan(mode);
        plans.push(plan);
        const selectMs = performance.now() - started;
        const timings: Timing[] = [];
        for (const pass of group.passes)
          timings.push(await prepareTiming(plan, pass, mode, options, selectMs));
        byMode.set(mode, timings);
        if (rounds === 1) {
          for (const timing of timings) await timeRound(timing, 0, 1);
          plans.pop()!.dispose();
        }
      } catch (error) {
        byMode.set(mode, failure(mode, error));
      }
    }
    const all = [...byMode.values()].flatMap((v) => (Array.isArray(v) ? v : []));
    for (let round = 0; round < rounds; round++) {
      if (rounds > 1) for (const timing of all) await timeRound(timing, round, rounds);
      await turns.afterRound?.(round);
    }
  } finally {
    for (const plan of plans) plan.dispose();
    session.dispose();
  }
  for (const mode of modes) {
    const entry = byMode.get(mode)!;
    for (const [i, pass] of group.passes.entries())
      results.get(pass)!.push(Array.isArray(entry) ? timingResult(entry[i]!, rounds) : entry);
  }
  return results;
}

/**
 * The compute peaks: for each dtype, the best FLOP/s of the GEMM-shaped conv over the non-pinned
 * modes and the layouts of `peakLayouts`; and the copy bandwidth.
 */
export async function measurePeaks(
  options: Pick<BenchOptions, 'dtypes' | 'modes' | 'reps' | 'warmup' | 'pinnedBudgetMs'>,
  backend: BenchBackend,
  log: (line: string) => void,
): Promise<{ peaks: BenchPeaks; notes: string[] }> {
  const notes: string[] = [];
  const peaks: BenchPeaks = { copyBytesPerS: null, gemmFlopsPerS: {}, gemmNotes: {} };
  try {
    peaks.copyBytesPerS = await backend.measureCopyBandwidth();
    log(`copy bandwidth: ${(peaks.copyBytesPerS / 1e12).toFixed(2)} TB/s`);
  } catch (error) {
    notes.push(`Copy bandwidth not measured: ${errorText(error)}`);
  }
  // The library's default plan: a cold autotune of the GEMM shape per dtype would cost each shard
  // of a sharded run a minute, for a reference that only scales the "% floor" column.
  const peakModes: BenchMode[] = ['heuristic'];
  const flops = convFlops(PEAK_GEMM_CASE);
  for (const dtype of options.dtypes) {
    let best: { flops: number; note: string } | null = null;
    const failures: string[] = [];
    for (const layout of peakLayouts(dtype)) {
      const group: BenchGroup = {
        case: PEAK_GEMM_CASE,
        dtype,
        layout,
        passes: ['fw'],
        sets: rotationSets(convBytes(PEAK_GEMM_CASE, dtype)),
      };
      const results = await benchGroup(group, peakModes, options, backend);
      for (const r of results.get('fw') ?? []) {
        if (typeof r.medianMs === 'number' && r.medianMs > 0) {
          const achieved = flops / (r.medianMs * 1e-3);
          if (!best || achieved > best.flops) {
            best = { flops: achieved, note: `${r.mode} ${layout}, ${formatMs(r.medianMs)} ms` };
          }
        } else {
          failures.push(`${r.mode} ${layout}: ${r.status}${r.note ? ` (${r.note})` : ''}`);
        }
      }
    }
    if (best) {
      peaks.gemmFlopsPerS[dtype] = best.flops;
      peaks.gemmNotes[dtype] = best.note;
      log(`GEMM-shaped peak ${dtype}: ${(best.flops / 1e12).toFixed(1)} TFLOP/s (${best.note})`);
    } else {
      notes.push(`No GEMM-shaped peak for ${dtype}: ${failures.join('; ')}`);
    }
  }
  return { peaks, notes };
}

/**
 * Host µs per call on the tiny problem in the heuristic mode, for every pass asked for and every
 * problem of OVERHEAD_PROBLEMS (both layouts).
 */
export async function measureOverhead(
  backend: BenchBackend,
  passes: readonly BenchPass[],
): Promise<OverheadResult[]> {
  const out: OverheadResult[] = [];
  for (const problem of OVERHEAD_PROBLEMS) {
    const entries = passes.map(
      (pass): OverheadResult => ({
        id: TINY_CASE.name,
        side: 'ours:heuristic',
        dtype: problem.dtype,
        layout: problem.layout,
        pass,
      }),
    );
    try {
      const session = await backend.openGroup({
        case: TINY_CASE,
        dtype: problem.dtype,
        layout: problem.layout,
        passes: [...passes],
        sets: 1,
      });
      try {
        const plan = await session.selectPlan('heuristic');
        try {
          for (const entry of entries) {
            try {
              const trials = await plan.hostOverhead(entry.pass!, OVERHEAD_CALLS, OVERHEAD_TRIALS);
              entry.trialsUs = trials;
              entry.usPerCall = median(trials);
            } catch (error) {
              entry.note = noteOf(error);
            }
          }
        } finally {
          plan.dispose();
        }
      } finally {
        session.dispose();
      }
    } catch (error) {
      for (const entry of entries) entry.note ??= noteOf(error);
    }
    out.push(...entries);
  }
  return out;
}

function noteOf(error: unknown): string {
  return `${UnsupportedError.isInstance(error) ? 'unsupported' : 'error'}: ${errorText(error)}`;
}

/** What runBenchReport records about the run beyond the options: where, on what, which shard. */
export interface RunIdentity {
  commit: string;
  driver: string | null;
  autotuneCache: AutotuneCacheState;
  /** Every group of the unsharded run, `case:dtype:layout`. */
  suiteGroups: string[];
  shard?: ShardInfo;
}

/** Rows of one group marked skipped for `note`, on our side and every PyTorch column. */
function skippedRows(group: BenchGroup, modes: readonly BenchMode[], note: string) {
  return new Map(
    group.passes.map((p) => [p, modes.map((mode) => ({ mode, status: 'skipped' as const, note }))]),
  );
}

/** Run the whole bench over `groups` and return the report (nothing written). */
export async function runBenchReport(
  groups: readonly BenchGroup[],
  cases: readonly BenchCase[],
  options: BenchOptions,
  context: RunnerContext,
  planNotes: readonly string[] = [],
  identity: RunIdentity = {
    commit: 'unknown',
    driver: null,
    autotuneCache: { state: 'cold', path: null, entriesAtStart: 0 },
    suiteGroups: groups.map(groupKey),
  },
): Promise<BenchReport> {
  const { backend, log } = context;
  const now = context.now ?? (() => performance.now());
  const started = now();
  const startedAt = new Date().toISOString();
  const notes = [...planNotes];
  const withOverhead = !identity.shard || identity.shard.index === 1;

  log(
    `device: ${backend.deviceName}; cuDNN ${backend.cudnn.version ?? '?'} (${backend.cudnn.path ?? '?'}); commit ${identity.commit}; autotune cache ${identity.autotuneCache.state}`,
  );
  const { peaks, notes: peakNotes } = await measurePeaks(options, backend, log);
  notes.push(...peakNotes);

  const caseByName = new Map(cases.map((c) => [c.name, c]));
  const rows: BenchRowResult[] = [];
  let budgetHit = false;
  const torchInfo: Partial<Record<TorchColumn, TorchInfo>> = {};
  const torchRounds = new Map<TorchColumn, Map<string, TorchRowResult[]>>();
  const turns = new Map<TorchColumn, TorchTurns>();
  const torchErrors: string[] = [];
  if (options.vsTorch && context.openTorchTurns) {
    for (const column of TORCH_COLUMNS) {
      log(`starting PyTorch (${column} column), to take turns with it group by group...`);
      const opened = context.openTorchTurns(column);
      const hello = await opened.start();
      notes.push(...hello.notes);
      if (hello.info) torchInfo[column] = hello.info;
      if (hello.error) {
        torchErrors.push(`${column} column: ${hello.error}`);
        await opened.close();
        continue;
      }
      turns.set(column, opened);
      torchRounds.set(column, new Map());
    }
  }
  /** The PyTorch columns a group is timed with: tuned only where our autotune runs. */
  const columnsFor = (group: BenchGroup) =>
    [...turns.keys()].filter((c) => c === 'default' || isTunedGroup(group, options));
  const record = (column: TorchColumn, row: TorchRowResult) => {
    const byId = torchRounds.get(column)!;
    byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
  };

  for (const [index, group] of groups.entries()) {
    const elapsedS = (now() - started) / 1e3;
    const endS = elapsedS + (context.estimateS?.(group) ?? 0);
    let results: Map<BenchPass, ModeResult[]>;
    if (options.timeBudgetS > 0 && (elapsedS > options.timeBudgetS || endS > options.timeBudgetS)) {
      if (!budgetHit) {
        notes.push(
          `Time budget of ${options.timeBudgetS} s reached after ${index} of ${groups.length} groups; the rest are marked skipped.`,
        );
        budgetHit = true;
      }
      const note = `time budget of ${options.timeBudgetS} s reached`;
      results = skippedRows(group, modesFor(group, options), note);
      for (const column of columnsFor(group))
        for (const row of torchJobRows(group))
          record(column, { id: row.id, status: 'skipped', note });
    } else {
      const columns = columnsFor(group);
      log(
        `[${index + 1}/${groups.length}] ${groupKey(group)} (${group.sets} set${group.sets > 1 ? 's' : ''}), ${options.rounds} round${options.rounds > 1 ? 's' : ''}${columns.length > 0 ? ` in turns with PyTorch (${columns.join(', ')})` : ''}`,
      );
      results = await benchGroup(group, modesFor(group, options), options, backend, {
        rounds: options.rounds,
        afterRound: async (round) => {
          for (const column of columns)
            for (const row of await turns.get(column)!.round(group, round)) record(column, row);
        },
      });
      for (const column of columns) await turns.get(column)!.release();
    }
    for (const pass of group.passes) {
      const key = { case: group.case.name, dtype: group.dtype, layout: group.layout, pass };
      const row: BenchRowResult = {
        ...key,
        id: rowId(key),
        macs: convMacs(group.case),
        bytes: convBytes(group.case, group.dtype),
        sets: group.sets,
        modes: results.get(pass) ?? [],
      };
      const withRow = withMetrics(row, caseByName.get(group.case.name) ?? group.case, peaks);
      rows.push(withRow);
      const cells = withRow.modes
        .map((m) => `${m.mode}=${typeof m.medianMs === 'number' ? formatMs(m.medianMs) : m.status}`)
        .join(' ');
      log(`  ${pass}: ${cells}`);
    }
  }
  for (const [column, theirs] of turns) {
    const finished = await theirs.finish();
    notes.push(...finished.notes);
    if (finished.info) torchInfo[column] = finished.info;
  }

  const overhead = withOverhead ? await measureOverhead(backend, options.passes) : [];
  if (withOverhead && options.vsTorch && context.runTorchOverhead) {
    for (const column of TORCH_COLUMNS) {
      const measured = await context.runTorchOverhead(column, options.passes);
      overhead.push(...measured.overhead);
      notes.push(...measured.notes);
    }
  }
  for (const o of overhead) {
    log(
      `host overhead ${o.side} ${o.dtype} ${o.layout} ${o.pass}: ${o.usPerCall?.toFixed(1) ?? o.note} µs/call`,
    );
  }
  if (!withOverhead) notes.push('Host overhead is measured in shard 1 of a sharded run.');

  const cudnnTorch = torchInfo.default?.cudnn.version ?? torchInfo.tuned?.cudnn.version ?? null;
  const provenance: Provenance = {
    commit: identity.commit,
    date: startedAt,
    gpu: backend.deviceName,
    driver: identity.driver,
    cudnnOurs: backend.cudnn.version,
    cudnnTorch,
  };
  const report: BenchReport = {
    label: options.label,
    startedAt,
    device: backend.deviceName,
    ours: { cudnn: backend.cudnn },
    provenance,
    autotuneCache: identity.autotuneCache,
    suiteGroups: identity.suiteGroups,
    ...(identity.shard ? { shard: identity.shard } : {}),
    settings: {
      reps: options.reps,
      warmup: options.warmup,
      dtypes: options.dtypes,
      layouts: options.layouts,
      passes: options.passes,
      modes: options.modes,
      f64MaxMacs: options.f64MaxMacs,
      pinnedBudgetMs: options.pinnedBudgetMs,
      ...(options.maxWorkspaceBytes === undefined
        ? {}
        : { maxWorkspaceBytes: options.maxWorkspaceBytes }),
      rotateBelowBytes: ROTATE_BELOW_BYTES,
      outputs: options.outputs,
      ...(options.rounds > 1 ? { rounds: options.rounds } : {}),
      ...(options.tunedOn ? { tunedOn: options.tunedOn } : {}),
    },
    peaks,
    overhead,
    rows: rows.map((r) => ({ ...r, provenance })),
    notes,
  };
  if (Object.keys(torchInfo).length > 0) report.torch = torchInfo;
  if (torchErrors.length > 0) report.torchError = torchErrors.join('; ');
  if (turns.size > 0) {
    const torchRows: Partial<Record<TorchColumn, TorchRowResult[]>> = {};
    for (const [column, byId] of torchRounds)
      torchRows[column] = [...byId.values()].map(combineTorchRounds);
    report.rows = matchTorch(report.rows, torchRows);
    report.summary = summarize(report.rows);
  }
  return report;
}
