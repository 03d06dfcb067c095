/**
 * What autotune times on: random operand sets (filled on the device, see random-fill.ts) rotated
 * past L2, timing events, a workspace.
 */

import { ElementKind } from '@baracuda/types';
import { freeDeviceBytes } from '../../device-memory.js';
import type { ExecContext } from '../../exec/executor.js';
import { driver, type OwnedBuffer, type StreamLike, type TimingEvent } from '../../sys.js';
import { TUNE_MAX_REPS, tuneRotationSets } from '../../tuning.js';
import { fillRandomTiled } from './random-fill.js';

/** One set of autotune's operands. */
export interface TuneOperands {
  readonly x: bigint;
  readonly w: bigint;
  readonly y: bigint;
}

/** What autotune times on: random operands, timing events and a growable workspace. */
export interface TuneBench {
  /** The stream the runs are timed on (the one given to select). */
  readonly stream: StreamLike;
  /**
   * Operand sets with the same values, taken in turn run after run (see {@link tuneRotationSets}),
   * so that timed runs read their operands from memory, as in a network, not from L2.
   */
  readonly sets: readonly TuneOperands[];
  /** The set the next run takes; advances it. */
  nextSet(): number;
  /**
   * 2 × {@link TUNE_MAX_REPS} timing events, a start and an end for each timed run, made as the
   * bench and torch.cuda.Event make them (without CU_EVENT_BLOCKING_SYNC, which adds 0.6-0.9 µs
   * to each run they bracket).
   */
  readonly events: readonly TimingEvent[];
  /** Recorded after the runs and waited on: a blocking-sync event, so the wait sleeps. */
  readonly fence: TimingEvent;
  /** Bytes of one set (x + w + y). */
  readonly setBytes: number;
  workspace(bytes: number): bigint;
  dispose(): void;
}

/**
 * The quick tune's operand values: 1.0 in every element (f16 0x3C00, bf16 0x3F80, f32
 * 0x3F800000; f64 0x3FF00000 in both halves, 1.0000009537). Filled on the device: the quick tune
 * skips the host's random values and their upload.
 */
function fillOne(b: OwnedBuffer, element: ElementKind): void {
  if (element === ElementKind.F16) b.fillSync16(0x3c00);
  else if (element === ElementKind.Bf16) b.fillSync16(0x3f80);
  else if (element === ElementKind.F32) b.fillSync32(0x3f800000);
  else b.fillSync32(0x3ff00000);
}

/** Timing events the quick tune's bench makes (pairs: its timings take at most half as many runs). */
export const QUICK_BENCH_EVENTS = 8;

/**
 * Scratch operands (random data), timing events and the largest workspace, for tuning. `quick`
 * (the default mode's quick tune): one operand set of ones filled on the device (no rotation past
 * L2: it looks for cliffs, not for the last few per cent) and {@link QUICK_BENCH_EVENTS} events.
 */
export function tuneBench(ctx: ExecContext, quick = false): TuneBench {
  const { desc: d, stream, device } = ctx;
  const elementBytes = d.elementBytes;
  const owned: { dispose(): void }[] = [];
  const dispose = () => {
    for (const o of owned.splice(0)) {
      try {
        o.dispose();
      } catch {
        // never throw from cleanup
      }
    }
  };
  try {
    const alloc = (elements: number) => {
      const b = driver.DeviceBuffer.alloc(elements * elementBytes, {
        device,
        stream,
      });
      owned.push(b);
      return b;
    };
    const first = [d.xElements, d.wElements, d.yElements].map((elements) => {
      const b = alloc(elements);
      if (quick) fillOne(b, d.element);
      else fillRandomTiled(b, d.element, elementBytes, stream);
      return b;
    });
    const operands = ([x, w, y]: readonly OwnedBuffer[]): TuneOperands => ({
      x: x!.devicePtr,
      w: w!.devicePtr,
      y: y!.devicePtr,
    });
    const sets = [operands(first)];
    const setBytes = (d.xElements + d.wElements + d.yElements) * elementBytes;
    const wanted = quick ? 1 : tuneRotationSets(setBytes, freeDeviceBytes(device));
    try {
      while (sets.length < wanted) {
        const copies = first.map((src) => {
          const b = alloc(src.byteLength / elementBytes);
          b.copyFrom(src, stream);
          return b;
        });
        sets.push(operands(copies));
      }
    } catch {
      // Out of memory for another set: tune on the sets there are (the last one's buffers, if
      // any were made, are freed with the rest).
    }
    let next = 0;
    const events: TimingEvent[] = [];
    for (let i = 0; i < (quick ? QUICK_BENCH_EVENTS : 2 * TUNE_MAX_REPS); i++) {
      const event = driver.Event.create(device, { timing: true, blockingSync: false });
      owned.push(event);
      events.push(event);
    }
    const fence = driver.Event.create(device, { timing: false, blockingSync: true });
    owned.push(fence);
    let ws: OwnedBuffer | null = null;
    return {
      stream,
      sets,
      nextSet: () => next++ % sets.length,
      events,
      fence,
      setBytes,
      workspace: (bytes: number) => {
        if (bytes === 0) return 0n;
        if (ws !== null && ws.byteLength >= bytes) return ws.devicePtr;
        const next = driver.DeviceBuffer.alloc(bytes, { device, stream });
        if (ws !== null) {
          owned.splice(owned.indexOf(ws), 1);
          ws.dispose(); // freed in stream order, after the runs that used it
        }
        owned.push(next);
        ws = next;
        return next.devicePtr;
      },
      dispose,
    };
  } catch (error) {
    dispose();
    throw error;
  }
}
