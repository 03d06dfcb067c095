#!/usr/bin/env bash
# Benchmarks at once on a machine of several GPUs, one per GPU (ours and PyTorch share that GPU,
# taking turns, as in a single run).
#
# BENCH_MODE=shards (session.sh suite-shards): the shards of the whole-suite run named in SHARDS
# (e.g. "1/4 2/4" on two GPUs), shard i on GPU i, each as suite-shard.sh runs it (PRESET, CACHE,
# CUDNN, TIME_BUDGET_S apply to all); the raw JSONs land in $OUT for `bench merge`. Host overhead is
# measured in shard 1 only, so run shard 1 alone or beside shards that do not measure it.
#
# Otherwise (session.sh bench-pair): two comparisons of device-bench.sh, one per GPU. Each side's
# knobs come from BENCH_GPU0 / BENCH_GPU1 (environment assignments for device-bench.sh, e.g.
# "CASES=a,b DTYPES=f32,tf32"); BENCH_ARGS is passed to both (default: torch). Outputs go to
# $OUT/gpu0 and $OUT/gpu1.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
status=0
pids=()
if [ "${BENCH_MODE:-pair}" = shards ]; then
  read -r -a shards <<< "${SHARDS:?set SHARDS, e.g. \"1/4 2/4\"}"
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  if [ "${#shards[@]}" -gt "${gpus:-0}" ]; then
    echo "bench-pair.sh: ${#shards[@]} shards but ${gpus:-0} GPUs" >&2
    exit 2
  fi
  for i in "${!shards[@]}"; do
    (
      export CUDA_VISIBLE_DEVICES=$i SHARD="${shards[$i]}"
      bash packages/conformance/scripts/suite-shard.sh
    ) >"$OUT/shard-gpu$i.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=$?; done
  for i in "${!shards[@]}"; do echo "--- GPU $i: shard ${shards[$i]}"; tail -n 8 "$OUT/shard-gpu$i.out"; rm -f "$OUT/shard-gpu$i.out"; done
  exit "$status"
fi
for g in 0 1; do
  spec="BENCH_GPU$g"
  (
    export CUDA_VISIBLE_DEVICES=$g OUT="$OUT/gpu$g"
    # shellcheck disable=SC2086,SC2046
    env ${!spec:-} bash packages/conformance/scripts/device-bench.sh ${BENCH_ARGS:-torch}
  ) >"$OUT/bench-gpu$g.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || status=$?; done
for g in 0 1; do echo "--- GPU $g"; tail -n 30 "$OUT/bench-gpu$g.log"; done
exit "$status"
