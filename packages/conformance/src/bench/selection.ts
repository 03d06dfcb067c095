/**
 * A row's share of a plan's select report (`Conv3dPlan.selectReport()`): the row's pass, or for
 * bwStep its two passes summed (timed configs, wall time) and joined (how; cut if either was).
 */
import type { Conv3dSelectReport } from '@baracuda/kernels';
import type { PassSelectionInfo } from './types.js';

/** The selection of `passes` in `report`; undefined when none of them has an entry. */
export function passSelection(
  report: Pick<Conv3dSelectReport, 'passes'>,
  passes: readonly ('fw' | 'bwData' | 'bwFilter')[],
): PassSelectionInfo | undefined {
  const entries = report.passes.filter((p) => passes.includes(p.pass));
  if (entries.length === 0) return undefined;
  const budgets = entries.map((e) => e.budgetMs);
  const budget = Math.max(...budgets);
  return {
    how: [...new Set(entries.map((e) => e.how))].join('+'),
    timed: entries.reduce((n, e) => n + e.timed, 0),
    budgetMs: Number.isFinite(budget) ? budget : null,
    budgetCut: entries.some((e) => e.budgetCut),
    wallMs: entries.reduce((n, e) => n + e.wallMs, 0),
  };
}
