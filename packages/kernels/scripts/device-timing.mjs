// What the device scripts share to time GPU work: bundled into each by scripts/device/pack.sh.
import { Event } from '../../driver/dist/index.js';

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
