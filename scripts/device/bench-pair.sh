#!/usr/bin/env bash
# Two benchmark comparisons at once on a two-GPU machine, one per GPU (ours and PyTorch share
# that GPU, one after the other, as in a single run). Each side's knobs come from BENCH_GPU0 /
# BENCH_GPU1 (environment assignments for device-bench.sh, e.g. "CASES=a,b DTYPES=f32,tf32");
# BENCH_ARGS is passed to both (default: torch). Outputs go to $OUT/gpu0 and $OUT/gpu1.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
status=0
pids=()
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
