// The host side of scripts/nccl-device-check.mjs: what every collective should produce, in f64,
// and the bandwidth arithmetic. Pure functions, tested on CPU (src/device-check-host.test.ts).

/** op over the ranks' values at one index. */
const REDUCE = {
  sum: (xs) => xs.reduce((a, b) => a + b, 0),
  avg: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
  max: (xs) => Math.max(...xs),
  min: (xs) => Math.min(...xs),
  prod: (xs) => xs.reduce((a, b) => a * b, 1),
};

/** allReduce: every rank gets op over all ranks, element-wise. `inputs[r]` is rank r's array. */
export function allReduceHost(op, inputs) {
  const n = inputs[0].length;
  return Array.from({ length: n }, (_, i) => REDUCE[op](inputs.map((x) => x[i])));
}

/** reduceScatter: rank r gets block r (`count` elements) of allReduce. */
export function reduceScatterHost(op, inputs, rank, count) {
  return allReduceHost(op, inputs).slice(rank * count, (rank + 1) * count);
}

/** allGather: every rank gets the ranks' inputs concatenated in rank order. */
export function allGatherHost(inputs) {
  return inputs.flatMap((x) => [...x]);
}

/**
 * All-reduce bandwidths as NCCL's tests report them: algBw = bytes / time, and busBw = algBw ·
 * 2(n−1)/n (the bytes each link carries in a ring all-reduce), in GB/s (1e9 bytes per second).
 */
export function allReduceBandwidth(bytes, seconds, ranks) {
  const algBw = bytes / seconds / 1e9;
  return { algBw, busBw: (algBw * 2 * (ranks - 1)) / ranks };
}

/** The median of `values` (the upper one of an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/**
 * The NVLink bandwidth of one GPU, per direction, from `nvidia-smi nvlink -s` text ("Link 0:
 * 26.562 GB/s" lines, one per active link): the sum over its links, or null when none is listed.
 */
export function nvlinkPerDirectionGBs(text) {
  const speeds = [...String(text).matchAll(/Link \d+:\s*([\d.]+)\s*GB\/s/g)].map((m) =>
    Number(m[1]),
  );
  return speeds.length === 0 ? null : speeds.reduce((a, b) => a + b, 0);
}

/** Random values in [-1, 1) from a seeded generator (fresh per case, reproducible per seed). */
export function randomValues(count, seed) {
  let state = (seed * 2654435761) >>> 0 || 1;
  return Array.from({ length: count }, () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 2 ** 32) * 2 - 1;
  });
}
