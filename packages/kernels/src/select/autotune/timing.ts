/**
 * The one timing harness of autotune: runs of a candidate timed one by one between their own
 * pairs of events, on the bench's rotated operand sets, with the constants that shape it.
 */
import { driver, type TimingEvent } from '../../sys.js';
import { finalistReps, median, TUNE_MAX_REPS } from '../../tuning.js';
import type { TuneBench } from './bench.js';

/** Finalists are timed in turn this many times over (each keeps its best). */
export const TUNE_ROUNDS = 2;
/** A candidate whose warm-up run took less gets a second, untimed lead run. */
const TUNE_LEAD_RUN_BELOW_MS = 2;
/**
 * The most a first run's one-off costs (loading the engine's kernel modules: 10-15 ms on an H200)
 * can add to it: a warm-up run past the give-up point by more than this is not run again, since
 * a second run could not come under it. VideoMAE's patch backward-data (f16 NDHWC, cuDNN 9.19)
 * met engine 0 at 5.5 s a run: run twice, it cost the quick tune 11 s (run 64).
 */
export const TUNE_KERNEL_LOAD_MS = 40;

/**
 * Milliseconds per run of `run` as one call sees it: the median of `reps` runs (at most
 * {@link TUNE_MAX_REPS}), each on the next of the bench's operand sets (`run` is given the set's
 * index) and each between its own pair of events, as the benchmark times a call. A loop of runs
 * between one pair of events ranked some engines by how their runs overlap the next run of the
 * same engine: 15 µs in a loop, 18 µs a call, against another config's 15 µs either way. A
 * network's next kernel is another layer's. An untimed lead run comes first, so that the GPU is
 * busy while the host enqueues the timed ones (timing one run from an idle GPU adds the host's
 * enqueue latency, 10-20 µs, which ranks 50-100 µs candidates by their host cost). With
 * `giveUpMs`, the lead run is a warm-up timed on its own first (it loads the engine's kernels):
 * past `giveUpMs`, it runs once more (a first run's kernel loading is not held against it) unless
 * it is past by more than {@link TUNE_KERNEL_LOAD_MS}, and its time is returned with nothing more
 * run; under {@link TUNE_LEAD_RUN_BELOW_MS} another lead run follows it. Infinity when the first
 * run fails to launch.
 */
export function* timeRuns(
  bench: TuneBench,
  run: (set: number) => boolean,
  reps: number,
  giveUpMs?: number,
): Generator<TimingEvent, number, void> {
  const events = bench.events;
  const start = events[0]!;
  const end = events[1]!;
  const runNext = () => run(bench.nextSet());
  const done = () => {
    bench.fence.record(bench.stream);
    return bench.fence;
  };
  if (giveUpMs !== undefined) {
    start.record(bench.stream);
    if (!runNext()) return Number.POSITIVE_INFINITY;
    end.record(bench.stream);
    yield done();
    let warm = driver.Event.elapsedMs(start, end);
    if (warm > giveUpMs + TUNE_KERNEL_LOAD_MS) return warm;
    if (warm > giveUpMs) {
      // An engine's first run also loads its kernels (CUDA loads modules lazily): 10-15 ms on
      // an H200, which once gave up on the fastest config of a 0.94 ms layer. A second run says.
      start.record(bench.stream);
      runNext();
      end.record(bench.stream);
      yield done();
      warm = driver.Event.elapsedMs(start, end);
      if (warm > giveUpMs) return warm;
    }
    if (warm < TUNE_LEAD_RUN_BELOW_MS) runNext();
  } else if (!runNext()) {
    return Number.POSITIVE_INFINITY;
  }
  const timed = Math.max(1, Math.min(reps, TUNE_MAX_REPS));
  for (let r = 0; r < timed; r++) {
    events[2 * r]!.record(bench.stream);
    runNext();
    events[2 * r + 1]!.record(bench.stream);
  }
  yield done();
  const times: number[] = [];
  for (let r = 0; r < timed; r++) {
    times.push(driver.Event.elapsedMs(events[2 * r]!, events[2 * r + 1]!));
  }
  return median(times);
}

/**
 * `run` timed after one estimate, over `rounds` rounds of {@link finalistReps} runs, keeping the
 * best round (see {@link timeRuns}).
 */
export function* timeAsFinalist(
  bench: TuneBench,
  run: (set: number) => boolean,
  rounds: number,
): Generator<TimingEvent, number, void> {
  const estimate = yield* timeRuns(bench, run, 1);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    best = Math.min(best, yield* timeRuns(bench, run, finalistReps(estimate)));
  }
  return best;
}
