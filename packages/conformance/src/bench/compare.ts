/**
 * Row metrics, matching our rows with PyTorch's, ratios and geometric means. Pure.
 */
import { convBytes, convFlops, geomean, rooflineFloorMs, tflopsOf } from './math.js';
import type {
  BenchCase,
  BenchDtype,
  BenchMode,
  BenchPeaks,
  BenchRowResult,
  ComparisonSummary,
  GeomeanEntry,
  ModeResult,
  TorchRowResult,
} from './types.js';

/** Modes that produced a usable time (ok, or capped with fewer reps). */
export function timedModes(modes: readonly ModeResult[]): ModeResult[] {
  return modes.filter(
    (m) =>
      (m.status === 'ok' || m.status === 'capped') &&
      typeof m.medianMs === 'number' &&
      m.medianMs > 0,
  );
}

/**
 * Fill best time, TFLOP/s, the roofline floor and the fraction of the floor reached, from the
 * row's mode results and the run's measured peaks. Returns a new row.
 */
export function withMetrics(row: BenchRowResult, c: BenchCase, peaks: BenchPeaks): BenchRowResult {
  const next: BenchRowResult = { ...row };
  delete next.bestMs;
  delete next.bestMode;
  delete next.tflops;
  delete next.floorMs;
  delete next.floorFraction;
  const flops = convFlops(c);
  const floor = rooflineFloorMs(
    flops,
    convBytes(c, row.dtype),
    peaks.gemmFlopsPerS[row.dtype as BenchDtype],
    peaks.copyBytesPerS,
  );
  if (floor !== null) next.floorMs = floor;
  const timed = timedModes(row.modes);
  if (timed.length === 0) return next;
  const best = timed.reduce((a, b) => (b.medianMs! < a.medianMs! ? b : a));
  next.bestMs = best.medianMs!;
  next.bestMode = best.mode;
  next.tflops = tflopsOf(flops, best.medianMs!);
  if (floor !== null) next.floorFraction = floor / best.medianMs!;
  return next;
}

/**
 * Attach PyTorch's results to our rows by id and compute ours/torch for the best mode and for
 * each mode. Rows PyTorch has no time for keep no ratio. Returns new rows.
 */
export function matchTorch(
  rows: readonly BenchRowResult[],
  torchRows: readonly TorchRowResult[],
): BenchRowResult[] {
  const byId = new Map(torchRows.map((t) => [t.id, t]));
  return rows.map((row) => {
    const next: BenchRowResult = { ...row };
    delete next.ratioBest;
    delete next.ratioByMode;
    delete next.roundRatios;
    const torch = byId.get(row.id);
    if (!torch) return next;
    next.torch = torch;
    if (torch.status !== 'ok' || !(typeof torch.medianMs === 'number' && torch.medianMs > 0)) {
      return next;
    }
    if (typeof row.bestMs === 'number') next.ratioBest = row.bestMs / torch.medianMs;
    const byMode: Partial<Record<BenchMode, number>> = {};
    for (const m of timedModes(row.modes)) byMode[m.mode] = m.medianMs! / torch.medianMs;
    if (Object.keys(byMode).length > 0) next.ratioByMode = byMode;
    const bestRounds = row.modes.find((m) => m.mode === row.bestMode)?.roundsMs;
    const ratios = pairedRatios(bestRounds, torch.roundsMs);
    if (ratios.length > 1) {
      next.roundRatios = {
        min: Math.min(...ratios),
        max: Math.max(...ratios),
        rounds: ratios.length,
      };
    }
    return next;
  });
}

/** ours / torch round by round, over the rounds both sides have (rounds are taken in turns). */
export function pairedRatios(
  ours: readonly number[] | undefined,
  torch: readonly number[] | undefined,
): number[] {
  if (!ours || !torch) return [];
  const out: number[] = [];
  for (let i = 0; i < Math.min(ours.length, torch.length); i++) {
    if (ours[i]! > 0 && torch[i]! > 0) out.push(ours[i]! / torch[i]!);
  }
  return out;
}

/** PyTorch's time (ms) from which a row counts as GPU-bound in the summary. */
export const GPU_BOUND_MS = 0.2;

function entry(scope: string, values: number[]): GeomeanEntry | null {
  const g = geomean(values);
  return g === null ? null : { scope, geomean: g, count: values.length };
}

/**
 * Geometric means of best/torch overall, per dtype, per pass, per layout, and over the rows
 * where PyTorch ran cuDNN; geometric means per mode; the rows that lose; and the goals
 * (best ≤ 1.00× on every row where PyTorch used cuDNN, geomean ≤ 0.90×).
 */
export function summarize(rows: readonly BenchRowResult[]): ComparisonSummary {
  const compared = rows.filter((r) => typeof r.ratioBest === 'number');
  const best: GeomeanEntry[] = [];
  const push = (scope: string, subset: BenchRowResult[]) => {
    const e = entry(
      scope,
      subset.map((r) => r.ratioBest!),
    );
    if (e) best.push(e);
  };
  push('all', compared);
  push(
    'torch-used-cudnn',
    compared.filter((r) => r.torch?.usedCudnn !== false),
  );
  // Below this, PyTorch's per-call host cost (~26 µs per F.conv3d on an H200 host) can leave the
  // GPU idle between back-to-back calls, so a ratio there measures host overhead as much as kernels.
  push(
    `torch-used-cudnn, torch ≥ ${GPU_BOUND_MS} ms`,
    compared.filter(
      (r) => r.torch?.usedCudnn !== false && (r.torch?.medianMs ?? 0) >= GPU_BOUND_MS,
    ),
  );
  const distinct = <K extends keyof BenchRowResult>(key: K) => [
    ...new Set(compared.map((r) => r[key])),
  ];
  for (const dtype of distinct('dtype'))
    push(
      `dtype=${dtype}`,
      compared.filter((r) => r.dtype === dtype),
    );
  for (const pass of distinct('pass'))
    push(
      `pass=${pass}`,
      compared.filter((r) => r.pass === pass),
    );
  for (const layout of distinct('layout'))
    push(
      `layout=${layout}`,
      compared.filter((r) => r.layout === layout),
    );

  const byMode: GeomeanEntry[] = [];
  for (const mode of ['pinned', 'heuristic', 'autotune'] as const) {
    const values = compared
      .map((r) => r.ratioByMode?.[mode])
      .filter((v): v is number => typeof v === 'number');
    const e = entry(`mode=${mode}`, values);
    if (e) byMode.push(e);
  }

  const cudnnRows = compared.filter((r) => r.torch?.usedCudnn !== false);
  const losses = cudnnRows
    .filter((r) => r.ratioBest! > 1.0)
    .sort((a, b) => b.ratioBest! - a.ratioBest!)
    .map((r) => `${r.id} ${r.ratioBest!.toFixed(3)}×`);
  const overall = best.find((e) => e.scope === 'all');
  const inTurns = cudnnRows.filter((r) => r.roundRatios);
  return {
    best,
    byMode,
    losses,
    ...(inTurns.length > 0
      ? {
          lossesEveryRound: inTurns
            .filter((r) => r.ratioBest! > 1.0 && r.roundRatios!.min > 1.0)
            .sort((a, b) => b.roundRatios!.min - a.roundRatios!.min)
            .map(
              (r) =>
                `${r.id} ${r.ratioBest!.toFixed(3)}× (rounds ${r.roundRatios!.min.toFixed(3)}–${r.roundRatios!.max.toFixed(3)}×)`,
            ),
        }
      : {}),
    goalEveryRow: cudnnRows.length > 0 && losses.length === 0,
    goalGeomean: overall !== undefined && overall.geomean <= 0.9,
  };
}
