/**
 * `bench costs`: the table of what each group cost in earlier runs (plan selection in each mode,
 * PyTorch's first calls, ms per call, and where a report recorded it the group's host time
 * beyond those), from raw JSON reports, written as the generated module group-costs.ts that the
 * shard split reads. Pure apart from the command's file I/O.
 */
import type { BenchReport, BenchRowResult, TorchRowResult } from './types.js';

/** A pass's ms per call on each side: [our heuristic, our autotune, PyTorch]. */
export type PassMs = [number, number, number];

/** What one group cost: the estimate's inputs, each a wall time a report measured. */
export interface GroupCost {
  /** Wall seconds of a cold autotune select of the group's passes. */
  autotuneS: number;
  /** Wall seconds of our default mode's select of the group's passes (its quick tune, cold). */
  heuristicSelectS?: number;
  /** Wall seconds of PyTorch tuned's first calls (benchmark = True, limit 0), every pass. */
  torchSearchS?: number;
  /** Wall seconds of PyTorch default's first calls, every pass. */
  torchFirstS?: number;
  /**
   * Host seconds of the group beyond selection, first calls and timed calls (filling inputs,
   * the workers' requests), where a report recorded the group's wall time (`groupWallMs`).
   */
  hostS?: number;
  /** Per pass: ms per call of [heuristic, autotune, PyTorch]; bwStep absent: bwData + bwFilter. */
  ms: Record<'fw' | 'bwData' | 'bwFilter', PassMs> & { bwStep?: PassMs };
}

/** PyTorch's result of a row in either report format (one column before issue 22, two after). */
function torchOf(row: BenchRowResult): TorchRowResult | undefined {
  const t = row.torch as unknown as Record<string, unknown> | undefined;
  if (!t) return undefined;
  if (typeof t.medianMs === 'number') return t as unknown as TorchRowResult;
  return (row.torch?.default ?? row.torch?.tuned) as TorchRowResult | undefined;
}

const PASSES = ['fw', 'bwData', 'bwFilter', 'bwStep'] as const;
type CostPass = (typeof PASSES)[number];

/** Calls of each pass on each side per group in a report: rounds × (warm-up + reps). */
function callsOf(report: BenchReport): number {
  const rounds = typeof report.settings.rounds === 'number' ? report.settings.rounds : 1;
  return rounds * (report.settings.warmup + report.settings.reps);
}

/** What a group's rows account for of its wall time, seconds: selects, first calls, timed calls. */
export function accountedSeconds(rows: readonly BenchRowResult[], calls: number): number {
  let ms = 0;
  for (const m of rows[0]?.modes ?? []) ms += m.selectMs ?? 0;
  for (const row of rows) {
    for (const m of row.modes) ms += calls * (m.medianMs ?? 0);
    for (const t of Object.values(row.torch ?? {})) {
      if (!t) continue;
      ms += (t.firstCallMs ?? 0) + calls * (t.medianMs ?? 0);
    }
  }
  return ms / 1e3;
}

const emptyCost = (): GroupCost => ({
  autotuneS: 0,
  ms: { fw: [0, 0, 0], bwData: [0, 0, 0], bwFilter: [0, 0, 0] },
});

/**
 * One cost per group over the reports: each figure from the latest report (by start time) that
 * measured it; the autotune figure only from selects over half a second (a cold cache).
 */
export function groupCostsFromReports(reports: readonly BenchReport[]): Record<string, GroupCost> {
  const ordered = [...reports].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const out: Record<string, GroupCost> = {};
  for (const report of ordered) {
    const groups = new Map<string, BenchRowResult[]>();
    for (const row of report.rows) {
      if (!row.modes.some((m) => m.status !== 'skipped')) continue;
      const key = `${row.case}:${row.dtype}:${row.layout}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    for (const [key, rows] of groups) {
      out[key] ??= emptyCost();
      const cost = out[key];
      const select = (mode: string) => rows[0]!.modes.find((m) => m.mode === mode)?.selectMs;
      const tuneMs = select('autotune');
      if (typeof tuneMs === 'number' && tuneMs > 500) cost.autotuneS = tuneMs / 1e3;
      const heuristicMs = select('heuristic');
      if (typeof heuristicMs === 'number') cost.heuristicSelectS = heuristicMs / 1e3;
      const firstCalls = (column: 'default' | 'tuned') => {
        const v = rows
          .map((r) => r.torch?.[column]?.firstCallMs)
          .filter((x): x is number => typeof x === 'number');
        return v.length > 0 ? v.reduce((a, b) => a + b, 0) / 1e3 : undefined;
      };
      const search = firstCalls('tuned');
      if (search !== undefined) cost.torchSearchS = search;
      const first = firstCalls('default');
      if (first !== undefined) cost.torchFirstS = first;
      const wallMs = rows[0]!.groupWallMs;
      if (typeof wallMs === 'number')
        cost.hostS = Math.max(0, wallMs / 1e3 - accountedSeconds(rows, callsOf(report)));
      for (const row of rows) {
        const pass = row.pass as CostPass;
        if (pass === 'bwStep') cost.ms.bwStep ??= [0, 0, 0];
        const cell: PassMs = pass === 'bwStep' ? cost.ms.bwStep! : cost.ms[pass];
        for (const m of row.modes) {
          if (typeof m.medianMs !== 'number') continue;
          if (m.mode === 'heuristic') cell[0] = m.medianMs;
          if (m.mode === 'autotune') cell[1] = m.medianMs;
        }
        const torch = torchOf(row);
        if (typeof torch?.medianMs === 'number') cell[2] = torch.medianMs;
      }
    }
  }
  for (const cost of Object.values(out)) {
    for (const pass of PASSES) {
      const cell = cost.ms[pass];
      if (!cell) continue;
      const known = cell.filter((v) => v > 0);
      const fill = known.length > 0 ? Math.max(...known) : 0.1;
      for (let i = 0; i < 3; i++) if (!(cell[i]! > 0)) cell[i] = fill;
    }
  }
  return out;
}

const round = (v: number, digits: number) => Number(v.toFixed(digits));
const roundMs = (cell: PassMs) => cell.map((v) => round(v, 4)) as PassMs;

/** The generated module's text. */
export function groupCostsModule(costs: Record<string, GroupCost>, sources: string[]): string {
  const seconds = (v: number | undefined) => (v === undefined ? undefined : round(v, 2));
  const lines = Object.keys(costs)
    .sort()
    .map((key) => {
      const c = costs[key]!;
      const compact: GroupCost = {
        autotuneS: round(c.autotuneS, 1),
        ...(c.heuristicSelectS === undefined
          ? {}
          : { heuristicSelectS: seconds(c.heuristicSelectS)! }),
        ...(c.torchSearchS === undefined ? {} : { torchSearchS: round(c.torchSearchS, 1) }),
        ...(c.torchFirstS === undefined ? {} : { torchFirstS: seconds(c.torchFirstS)! }),
        ...(c.hostS === undefined ? {} : { hostS: seconds(c.hostS)! }),
        ms: {
          fw: roundMs(c.ms.fw),
          bwData: roundMs(c.ms.bwData),
          bwFilter: roundMs(c.ms.bwFilter),
          ...(c.ms.bwStep ? { bwStep: roundMs(c.ms.bwStep) } : {}),
        },
      };
      return `  ${JSON.stringify(key)}: ${JSON.stringify(compact)},`;
    });
  return [
    '// Generated by `baracuda-conformance bench costs` from these reports; do not edit by hand:',
    ...sources.map((s) => `//   ${s}`),
    "import type { GroupCost } from './costs.js';",
    '',
    '/** What each group cost in the runs above (see costs.ts); the shard split reads it. */',
    'export const GROUP_COSTS: Readonly<Record<string, GroupCost>> = {',
    ...lines,
    '};',
    '',
  ].join('\n');
}
