/**
 * One group's timing: each mode's plans made and timed round by round (in turns with PyTorch when
 * asked), the pinned mode's cap decided from one probe call, failures kept as rows.
 */
import { UnsupportedError } from '@baracuda/types';
import type { BenchOptions } from './args.js';
import type { BenchBackend, PlanSession } from './backend.js';
import { relativeSpread } from './compare.js';
import { median } from './math.js';
import { formatMs } from './render.js';
import type { BenchGroup, BenchMode, BenchPass, ModeResult, PassSelectionInfo } from './types.js';

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

/** @internal An error's message, or the thrown value as text. */
export function errorText(error: unknown): string {
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
