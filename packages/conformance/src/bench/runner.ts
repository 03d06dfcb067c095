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

async function timeOnePass(
  plan: PlanSession,
  pass: BenchPass,
  mode: BenchMode,
  options: Pick<BenchOptions, 'reps' | 'warmup' | 'pinnedBudgetMs'>,
): Promise<ModeResult> {
  const algorithm = safeAlgorithm(plan, pass);
  const base: ModeResult = { mode, status: 'ok' };
  if (algorithm) base.algorithm = algorithm;
  try {
    let warmup = options.warmup;
    let reps = options.reps;
    let note: string | undefined;
    if (mode === 'pinned') {
      const [probeMs] = await plan.time(pass, 0, 1);
      const decision = decideCap(probeMs ?? 0, options.pinnedBudgetMs, warmup, reps);
      if (decision.action === 'skip') return { ...base, status: 'skipped', note: decision.note };
      if (decision.action === 'capped') {
        warmup = decision.warmup;
        reps = decision.reps;
        note = decision.note;
      }
    }
    const times = await plan.time(pass, warmup, reps);
    const result: ModeResult = { ...base, medianMs: median(times), reps: times.length };
    if (note) {
      result.status = 'capped';
      result.note = note;
    }
    return result;
  } catch (error) {
    return { ...failure(mode, error), ...(algorithm ? { algorithm } : {}) };
  }
}

function safeAlgorithm(plan: PlanSession, pass: BenchPass): string | undefined {
  try {
    return plan.algorithm(pass);
  } catch {
    return undefined;
  }
}

/** Time every pass of a group in every mode. Never throws: failures become row entries. */
export async function benchGroup(
  group: BenchGroup,
  modes: readonly BenchMode[],
  options: Pick<BenchOptions, 'reps' | 'warmup' | 'pinnedBudgetMs'>,
  backend: BenchBackend,
): Promise<Map<BenchPass, ModeResult[]>> {
  const results = new Map<BenchPass, ModeResult[]>(group.passes.map((p) => [p, []]));
  const all = (make: (mode: BenchMode) => ModeResult) => {
    for (const mode of modes) for (const pass of group.passes) results.get(pass)!.push(make(mode));
  };
  let session: Awaited<ReturnType<BenchBackend['openGroup']>>;
  try {
    session = await backend.openGroup(group);
  } catch (error) {
    all((mode) => ({ ...failure(mode, error), note: `allocating inputs: ${errorText(error)}` }));
    return results;
  }
  try {
    for (const mode of modes) {
      let plan: PlanSession;
      const started = performance.now();
      try {
        plan = await session.selectPlan(mode);
      } catch (error) {
        for (const pass of group.passes) results.get(pass)!.push(failure(mode, error));
        continue;
      }
      const selectMs = performance.now() - started;
      try {
        for (const pass of group.passes) {
          results.get(pass)!.push({ ...(await timeOnePass(plan, pass, mode, options)), selectMs });
        }
      } finally {
        plan.dispose();
      }
    }
  } finally {
    session.dispose();
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
  let rows: BenchRowResult[] = [];
  let budgetHit = false;
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
    } else {
      log(
        `[${index + 1}/${groups.length}] ${group.case.name} ${group.dtype} ${group.layout} (${group.sets} set${group.sets > 1 ? 's' : ''})`,
      );
      results = await benchGroup(group, options.modes, options, backend);
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
    },
    peaks,
    overhead,
    rows,
    notes,
  };

  if (options.vsTorch && context.runTorch) {
    log('running PyTorch on the same rows...');
    const torch = await context.runTorch(groups);
    if (torch.notes) notes.push(...torch.notes);
    if (torch.error) report.torchError = torch.error;
    if (torch.info) report.torch = torch.info;
    if (torch.overhead) report.overhead = [...overhead, ...torch.overhead];
    if (torch.rows) {
      rows = matchTorch(rows, torch.rows);
      report.rows = rows;
      report.summary = summarize(rows);
    }
  }
  return report;
}
