/**
 * The run's measurements besides its rows: the compute and copy peaks behind every row's roofline
 * floor, and our host overhead per call on a tiny problem (PyTorch's comes from its own process).
 */
import { UnsupportedError } from '@baracuda/types';
import type { BenchOptions } from './args.js';
import { type BenchBackend, PEAK_GEMM_CASE, peakLayouts } from './backend.js';
import { benchGroup, errorText } from './group.js';
import { convBytes, convFlops, median, rotationSets } from './math.js';
import { formatMs } from './render.js';
import { OVERHEAD_CALLS, OVERHEAD_PROBLEMS, OVERHEAD_TRIALS, TINY_CASE } from './torch.js';
import type { BenchGroup, BenchMode, BenchPass, BenchPeaks, OverheadResult } from './types.js';

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
