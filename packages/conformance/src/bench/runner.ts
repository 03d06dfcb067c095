/**
 * The bench orchestration over a BenchBackend: peaks, host overhead, every row in every mode
 * (with the pinned mode's cap and the run's time budget), and the PyTorch comparison.
 */
import { UnsupportedError } from '@baracuda/types';
import type { BenchOptions } from './args.js';
import { type BenchBackend, PEAK_GEMM_CASE, type PlanSession, peakLayouts } from './backend.js';
import { matchTorch, summarize, withMetrics } from './compare.js';
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
import { OVERHEAD_CALLS, OVERHEAD_PROBLEMS, OVERHEAD_TRIALS, TINY_CASE } from './torch.js';
import { combineTorchRounds, type TorchTurns } from './torch-worker.js';
import type {
  BenchCase,
  BenchGroup,
  BenchMode,
  BenchPass,
  BenchPeaks,
  BenchReport,
  BenchRowResult,
  ModeResult,
  OverheadResult,
  TorchInfo,
  TorchRowResult,
} from './types.js';

/** What the PyTorch side returned, or why it did not. */
export interface TorchOutcome {
  info?: TorchInfo;
  rows?: TorchRowResult[];
  overhead?: OverheadResult[];
  error?: string;
  notes?: string[];
}

/** @internal */
export interface RunnerContext {
  backend: BenchBackend;
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
  /** Runs the PyTorch side over the same groups; only called with `--vs-torch`. */
  runTorch?: (groups: readonly BenchGroup[]) => Promise<TorchOutcome>;
  /** PyTorch taking turns with us group by group; used with `--vs-torch --rounds` above 1. */
  openTorchTurns?: () => TorchTurns;
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
  const base: ModeResult = { mode, status: 'ok', ...(algorithm ? { algorithm } : {}), selectMs };
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
  if (rounds > 1) result.roundsMs = timing.roundsMs;
  return result;
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
  const modes = options.modes.filter((m) => m !== 'pinned');
  const peakModes: BenchMode[] = modes.length > 0 ? modes : ['heuristic'];
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

/** µs per runFw call on the tiny problem, for the heuristic and pinned modes. */
export async function measureOverhead(backend: BenchBackend): Promise<OverheadResult[]> {
  const out: OverheadResult[] = [];
  for (const problem of OVERHEAD_PROBLEMS) {
    for (const mode of ['heuristic', 'pinned'] as const) {
      const entry: OverheadResult = {
        id: TINY_CASE.name,
        side: `ours:${mode}`,
        dtype: problem.dtype,
        layout: problem.layout,
      };
      try {
        const session = await backend.openGroup({
          case: TINY_CASE,
          dtype: problem.dtype,
          layout: problem.layout,
          passes: ['fw'],
          sets: 1,
        });
        try {
          const plan = await session.selectPlan(mode);
          try {
            const trials = await plan.hostOverhead('fw', OVERHEAD_CALLS, OVERHEAD_TRIALS);
            entry.trialsUs = trials;
            entry.usPerCall = median(trials);
          } finally {
            plan.dispose();
          }
        } finally {
          session.dispose();
        }
      } catch (error) {
        entry.note = `${UnsupportedError.isInstance(error) ? 'unsupported' : 'error'}: ${errorText(error)}`;
      }
      out.push(entry);
    }
  }
  return out;
}

/** Run the whole bench over `groups` and return the report (nothing written). */
export async function runBenchReport(
  groups: readonly BenchGroup[],
  cases: readonly BenchCase[],
  options: BenchOptions,
  context: RunnerContext,
  planNotes: readonly string[] = [],
): Promise<BenchReport> {
  const { backend, log } = context;
  const now = context.now ?? (() => performance.now());
  const started = now();
  const startedAt = new Date().toISOString();
  const notes = [...planNotes];

  log(
    `device: ${backend.deviceName}; cuDNN ${backend.cudnn.version ?? '?'} (${backend.cudnn.path ?? '?'})`,
  );
  const { peaks, notes: peakNotes } = await measurePeaks(options, backend, log);
  notes.push(...peakNotes);
  const overhead = await measureOverhead(backend);
  for (const o of overhead) {
    log(
      `host overhead ${o.side} ${o.dtype} ${o.layout}: ${o.usPerCall?.toFixed(1) ?? o.note} µs/call`,
    );
  }

  const caseByName = new Map(cases.map((c) => [c.name, c]));
  const rows: BenchRowResult[] = [];
  let budgetHit = false;
  let turns = options.vsTorch && options.rounds > 1 ? context.openTorchTurns?.() : undefined;
  const torchOutcome: TorchOutcome = {};
  const torchRounds = new Map<string, TorchRowResult[]>();
  if (turns) {
    log('starting PyTorch, to take turns with it group by group...');
    const started = await turns.start();
    torchOutcome.notes = started.notes;
    if (started.info) torchOutcome.info = started.info;
    if (started.error) {
      torchOutcome.error = started.error;
      turns = undefined;
    }
  }
  for (const [index, group] of groups.entries()) {
    const elapsedS = (now() - started) / 1e3;
    let results: Map<BenchPass, ModeResult[]>;
    if (options.timeBudgetS > 0 && elapsedS > options.timeBudgetS) {
      if (!budgetHit) {
        notes.push(
          `Time budget of ${options.timeBudgetS} s reached after ${index} of ${groups.length} groups; the rest are marked skipped.`,
        );
        budgetHit = true;
      }
      const note = `time budget of ${options.timeBudgetS} s reached`;
      results = new Map(
        group.passes.map((p) => [
          p,
          options.modes.map((mode) => ({ mode, status: 'skipped' as const, note })),
        ]),
      );
      if (turns) {
        for (const pass of group.passes) {
          const key = { case: group.case.name, dtype: group.dtype, layout: group.layout, pass };
          torchRounds.set(rowId(key), [{ id: rowId(key), status: 'skipped', note }]);
        }
      }
    } else if (turns) {
      const theirs = turns;
      log(
        `[${index + 1}/${groups.length}] ${group.case.name} ${group.dtype} ${group.layout} (${group.sets} set${group.sets > 1 ? 's' : ''}), ${options.rounds} rounds in turns with PyTorch`,
      );
      results = await benchGroup(group, options.modes, options, backend, {
        rounds: options.rounds,
        afterRound: async (round) => {
          for (const row of await theirs.round(group, round)) {
            torchRounds.set(row.id, [...(torchRounds.get(row.id) ?? []), row]);
          }
        },
      });
      await theirs.release();
    } else {
      log(
        `[${index + 1}/${groups.length}] ${group.case.name} ${group.dtype} ${group.layout} (${group.sets} set${group.sets > 1 ? 's' : ''})`,
      );
      results = await benchGroup(group, options.modes, options, backend, {
        rounds: options.rounds,
      });
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

  const report: BenchReport = {
    label: options.label,
    startedAt,
    device: backend.deviceName,
    ours: { cudnn: backend.cudnn },
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
    },
    peaks,
    overhead,
    rows,
    notes,
  };

  if (turns) {
    const finished = await turns.finish();
    torchOutcome.notes = [...(torchOutcome.notes ?? []), ...finished.notes];
    if (finished.info) torchOutcome.info = finished.info;
    torchOutcome.overhead = finished.overhead;
    torchOutcome.rows = [...torchRounds.values()].map(combineTorchRounds);
    attachTorch(report, torchOutcome);
  } else if (options.vsTorch && torchOutcome.error) {
    attachTorch(report, torchOutcome);
  } else if (options.vsTorch && context.runTorch) {
    log('running PyTorch on the same rows...');
    attachTorch(report, await context.runTorch(groups));
  }
  return report;
}

/** Put what the PyTorch side returned into the report: info, overhead, matched rows, summary. */
function attachTorch(report: BenchReport, torch: TorchOutcome): void {
  if (torch.notes) report.notes.push(...torch.notes);
  if (torch.error) report.torchError = torch.error;
  if (torch.info) report.torch = torch.info;
  if (torch.overhead) report.overhead = [...report.overhead, ...torch.overhead];
  if (torch.rows) {
    report.rows = matchTorch(report.rows, torch.rows);
    report.summary = summarize(report.rows);
  }
}
