/**
 * Row metrics, matching our rows with PyTorch's, ratios and geometric means. Pure.
 */
import { convBytes, convFlops, geomean, median, rooflineFloorMs, tflopsOf } from './math.js';
import {
  type BenchCase,
  type BenchDtype,
  type BenchPeaks,
  type BenchRowResult,
  type ComparisonSummary,
  type GeomeanEntry,
  type ModeResult,
  PEER_MODE,
  type PeerComparison,
  type PeerSummary,
  TORCH_COLUMNS,
  type TorchColumn,
  type TorchRowResult,
  type Verdict,
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

/** (max - min) / median of a side's round medians; 0 for fewer than two rounds. */
export function relativeSpread(rounds: readonly number[] | undefined): number {
  if (!rounds || rounds.length < 2) return 0;
  const m = median([...rounds]);
  return m > 0 ? (Math.max(...rounds) - Math.min(...rounds)) / m : 0;
}

/**
 * The verdict rule: a win when every round's ratio is under 1 and the margin, |1 - ratio|, exceeds
 * the round spread; a loss likewise over 1; anything else (rounds that disagree, a margin inside
 * the noise, a single round) is parity.
 */
export function verdictOf(ratio: number, roundRatios: readonly number[], spread: number): Verdict {
  if (roundRatios.length < 2) return 'parity';
  const margin = Math.abs(1 - ratio);
  if (margin <= spread) return 'parity';
  if (ratio < 1 && roundRatios.every((r) => r < 1)) return 'win';
  if (ratio > 1 && roundRatios.every((r) => r > 1)) return 'loss';
  return 'parity';
}

/** One mode against one PyTorch column on a row, or undefined when either has no time. */
export function comparePeer(
  column: TorchColumn,
  mode: ModeResult | undefined,
  torch: TorchRowResult | undefined,
): PeerComparison | undefined {
  if (!mode || !torch || torch.status !== 'ok') return undefined;
  if (!(typeof torch.medianMs === 'number' && torch.medianMs > 0)) return undefined;
  if (timedModes([mode]).length === 0) return undefined;
  const ratio = mode.medianMs! / torch.medianMs;
  const roundRatios = pairedRatios(mode.roundsMs, torch.roundsMs);
  const spread = Math.max(relativeSpread(mode.roundsMs), relativeSpread(torch.roundsMs));
  return {
    column,
    mode: mode.mode,
    oursMs: mode.medianMs!,
    torchMs: torch.medianMs,
    ratio,
    roundRatios,
    spread,
    verdict: verdictOf(ratio, roundRatios, spread),
  };
}

/**
 * Attach PyTorch's results (per column) to our rows by id and compare each column with its peer
 * mode (PEER_MODE). Rows PyTorch has no time for keep no comparison. Returns new rows.
 */
export function matchTorch(
  rows: readonly BenchRowResult[],
  torchRows: Partial<Record<TorchColumn, readonly TorchRowResult[]>>,
): BenchRowResult[] {
  const byColumn = new Map(
    TORCH_COLUMNS.map((c) => [c, new Map((torchRows[c] ?? []).map((t) => [t.id, t]))]),
  );
  return rows.map((row) => {
    const next: BenchRowResult = { ...row };
    delete next.torch;
    delete next.peers;
    const torch: Partial<Record<TorchColumn, TorchRowResult>> = {};
    const peers: Partial<Record<TorchColumn, PeerComparison>> = {};
    for (const column of TORCH_COLUMNS) {
      const t = byColumn.get(column)!.get(row.id);
      if (!t) continue;
      torch[column] = t;
      const mode = row.modes.find((m) => m.mode === PEER_MODE[column]);
      const peer = comparePeer(column, mode, t);
      if (peer) peers[column] = peer;
    }
    if (Object.keys(torch).length > 0) next.torch = torch;
    if (Object.keys(peers).length > 0) next.peers = peers;
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

/**
 * PyTorch's time (ms) from which a row counts as GPU-bound: below it, per-call host cost (tens of
 * µs per call on either side) can leave the GPU idle between back-to-back calls, so a ratio there
 * measures host overhead as much as kernels.
 */
export const GPU_BOUND_MS = 0.2;

function entry(scope: string, values: number[]): GeomeanEntry | null {
  const g = geomean(values);
  return g === null ? null : { scope, geomean: g, count: values.length };
}

/** A lost row as the summary lists it. */
export function lossText(id: string, p: PeerComparison): string {
  const lo = Math.min(...p.roundRatios);
  const hi = Math.max(...p.roundRatios);
  return `${id} ${p.ratio.toFixed(3)}× (rounds ${lo.toFixed(3)}–${hi.toFixed(3)}×, spread ${(p.spread * 100).toFixed(1)}%)`;
}

/**
 * Per PyTorch column: geometric means of ours / torch over all compared rows, over rows with
 * PyTorch at or above GPU_BOUND_MS, and per pass; wins, losses and parity by the verdict rule; the
 * lost rows, worst first.
 */
export function summarize(rows: readonly BenchRowResult[]): ComparisonSummary {
  const peers: PeerSummary[] = [];
  for (const column of TORCH_COLUMNS) {
    const compared = rows.filter((r) => r.peers?.[column]);
    if (compared.length === 0) continue;
    const of = (subset: BenchRowResult[]) => subset.map((r) => r.peers![column]!.ratio);
    const geomeans: GeomeanEntry[] = [];
    const push = (scope: string, subset: BenchRowResult[]) => {
      const e = entry(scope, of(subset));
      if (e) geomeans.push(e);
    };
    push('all', compared);
    push(
      `torch ≥ ${GPU_BOUND_MS} ms`,
      compared.filter((r) => r.peers![column]!.torchMs >= GPU_BOUND_MS),
    );
    for (const pass of [...new Set(compared.map((r) => r.pass))])
      push(
        `pass=${pass}`,
        compared.filter((r) => r.pass === pass),
      );
    const count = (v: Verdict) => compared.filter((r) => r.peers![column]!.verdict === v).length;
    const lost = compared
      .filter((r) => r.peers![column]!.verdict === 'loss')
      .sort((a, b) => b.peers![column]!.ratio - a.peers![column]!.ratio);
    peers.push({
      column,
      mode: PEER_MODE[column],
      geomeans,
      wins: count('win'),
      losses: count('loss'),
      parity: count('parity'),
      lossRows: lost.map((r) => lossText(r.id, r.peers![column]!)),
    });
  }
  return { peers };
}
