/**
 * The roofline factor of a row: a measured time over the row's floor, the larger of FLOPs / the
 * run's measured compute peak and bytes / its measured copy bandwidth (compare.ts). 1.0 is the
 * floor; the further above, the more there is to win. Pure.
 */
import { type BenchRowResult, TORCH_COLUMNS } from './types.js';

/**
 * The floor of a row, ms. The runner records one pass's floor on every row (the case's FLOPs and
 * x + w + y bytes); bwStep runs two passes (dX and dW), so its floor is twice that.
 */
export function rowFloorMs(row: BenchRowResult): number | undefined {
  const floor = row.floorMs;
  if (typeof floor !== 'number' || !(floor > 0)) return undefined;
  return row.pass === 'bwStep' ? 2 * floor : floor;
}

/** PyTorch's best time of a row: the lower median of its columns that ran. */
export function torchBestMs(row: BenchRowResult): number | undefined {
  const times = TORCH_COLUMNS.map((c) => row.torch?.[c])
    .filter((t) => t?.status === 'ok' && typeof t.medianMs === 'number')
    .map((t) => t!.medianMs!);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** `ms` over the row's floor, or undefined without either. */
export function floorFactor(row: BenchRowResult, ms: number | undefined): number | undefined {
  const floor = rowFloorMs(row);
  return floor !== undefined && typeof ms === 'number' ? ms / floor : undefined;
}

/** Both sides' roofline factors of a row: our best mode's and PyTorch's best column's. */
export function rowFactors(row: BenchRowResult): { ours?: number; torch?: number } {
  const ours = floorFactor(row, row.bestMs);
  const torch = floorFactor(row, torchBestMs(row));
  return { ...(ours === undefined ? {} : { ours }), ...(torch === undefined ? {} : { torch }) };
}

/** A factor as the page prints it: `1.4`, `12`, or `—`. */
export function factorText(factor: number | undefined): string {
  if (factor === undefined) return '—';
  return factor >= 9.95 ? factor.toFixed(0) : factor.toFixed(1);
}

/** `ours/PyTorch` factors of a row, e.g. `1.4/1.5`. */
export function factorsCell(row: BenchRowResult | undefined): string {
  if (!row) return '—';
  const f = rowFactors(row);
  return f.ours === undefined && f.torch === undefined
    ? '—'
    : `${factorText(f.ours)}/${factorText(f.torch)}`;
}

/**
 * The `count` rows with our highest factor, highest first (ties in the report's order); with
 * `keyOf`, only the highest row of each key (e.g. one per case).
 */
export function furthestFromFloor(
  rows: readonly BenchRowResult[],
  count: number,
  keyOf?: (row: BenchRowResult) => string,
): { row: BenchRowResult; ours: number; torch?: number }[] {
  const sorted = rows
    .map((row) => ({ row, ...rowFactors(row) }))
    .filter((e): e is { row: BenchRowResult; ours: number; torch?: number } => e.ours !== undefined)
    .sort((a, b) => b.ours - a.ours);
  const seen = new Set<string>();
  const kept = keyOf
    ? sorted.filter((e) => {
        const key = keyOf(e.row);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
    : sorted;
  return kept.slice(0, count);
}
