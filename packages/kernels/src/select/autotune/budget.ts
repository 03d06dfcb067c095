/**
 * The time budget of one pass's tuning (autotune's `autotuneBudgetMs`, or the quick tune of the
 * default mode): wall-clock milliseconds, read only between candidates (never inside a
 * measurement: each timing waits for the GPU through its events first). Once spent, no further
 * candidate is timed, and the best so far wins. The clock is {@link budgetClock}, which tests
 * replace (no test asserts a wall-clock time).
 */
import type { PassSelection } from '../../core/types.js';

/** The wall clock budgets read (`performance.now()`); tests replace `now`. */
export const budgetClock = { now: (): number => performance.now() };

export type { PassSelection };

/** One pass's budget: started when made; `allows()` between candidates. */
export class TuneBudget {
  readonly limitMs: number;
  readonly #started: number;
  #cut = false;
  /** Candidates timed under this budget (configs, searched configs, our routes). */
  timed = 0;

  /** `limitMs`: Infinity (or 0, as the option says) for no budget. */
  constructor(limitMs: number) {
    this.limitMs = limitMs > 0 ? limitMs : Number.POSITIVE_INFINITY;
    this.#started = budgetClock.now();
  }

  /** Whether the budget is finite. */
  get bounded(): boolean {
    return Number.isFinite(this.limitMs);
  }

  /** Whether the budget ran out with candidates left untimed. */
  get cut(): boolean {
    return this.#cut;
  }

  /** Wall milliseconds since the budget started. */
  elapsedMs(): number {
    return budgetClock.now() - this.#started;
  }

  /**
   * Whether one more candidate may be timed: true while the budget lasts. Asked only when a
   * candidate is waiting, so that a false answer means the search was cut (and stays false).
   */
  allows(): boolean {
    if (this.#cut) return false;
    if (!this.bounded) return true;
    if (this.elapsedMs() < this.limitMs) return true;
    this.#cut = true;
    return false;
  }
}

/** What a pass's selection did, for the plan's select report. */
export function selectionOf(
  pass: PassSelection['pass'],
  how: 'autotune' | 'quick-tune' | 'cache',
  budget: TuneBudget,
  startedAt: number,
  chosenMs?: number,
): PassSelection {
  return Object.freeze({
    pass,
    how,
    timed: how === 'cache' ? 0 : budget.timed,
    budgetMs: budget.limitMs,
    budgetCut: budget.cut,
    wallMs: budgetClock.now() - startedAt,
    ...(chosenMs === undefined || !Number.isFinite(chosenMs) ? {} : { chosenMs }),
  });
}
