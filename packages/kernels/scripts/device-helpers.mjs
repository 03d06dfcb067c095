// What the device scripts share: bundled into each by scripts/device/pack.sh.
import { Event } from '../../driver/dist/index.js';
import {
  bf16BitsToF32,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
} from '../../types/dist/index.js';

/**
 * A timer of work enqueued on `stream`: time(run) calls run() `warmup` times, then `reps` times,
 * each between two timing events made as torch.cuda.Event makes them (no blocking sync), and
 * returns the median in ms.
 */
export function eventTimer(stream, { warmup = 5, reps = 30 } = {}) {
  const start = Event.create(stream.device, { timing: true, blockingSync: false });
  const end = Event.create(stream.device, { timing: true, blockingSync: false });
  return (run) => {
    for (let i = 0; i < warmup; i++) run();
    const times = [];
    for (let i = 0; i < reps; i++) {
      start.record(stream);
      run();
      end.record(stream);
      end.synchronizeSync();
      times.push(Event.elapsedMs(start, end));
    }
    times.sort((x, y) => x - y);
    return times[times.length >> 1];
  };
}

/** A host array of `n` elements of `element` ('f64', 'f32', 'f16', 'bf16') as the GPU holds them. */
export function elementArray(element, n) {
  if (element === 'f64') return new Float64Array(n);
  if (element === 'f32') return new Float32Array(n);
  return new Uint16Array(n);
}

/** Store `v` at host[i] as `element` and return the value stored (rounded to the element). */
export function storeElement(element, host, i, v) {
  if (element === 'f16') host[i] = f32ToF16Bits(v);
  else if (element === 'bf16') host[i] = f32ToBf16Bits(v);
  else host[i] = v;
  return loadElement(element, host, i);
}

/** The value of host[i] as `element`, in f64. */
export function loadElement(element, host, i) {
  const v = host[i];
  if (element === 'f16') return f16BitsToF32(v);
  if (element === 'bf16') return bf16BitsToF32(v);
  return v;
}

/**
 * ‖got − want‖ / ‖want‖. An all-zero reference gives Infinity: a check on zeros cannot pass.
 */
export function relL2(got, want) {
  let num = 0;
  let den = 0;
  for (let i = 0; i < want.length; i++) {
    const e = got[i] - want[i];
    num += e * e;
    den += want[i] * want[i];
  }
  return den === 0 ? Number.POSITIVE_INFINITY : Math.sqrt(num / den);
}
