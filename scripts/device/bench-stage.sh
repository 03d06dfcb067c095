#!/usr/bin/env bash
# The U-Net stage benchmark (issue 23 (b)): one training step (two conv + bias + ReLU, a stride-2
# down convolution + bias + ReLU, a stride-2 transposed convolution; forward and backward), ours
# (packages/kernels/scripts/stage-bench.mjs) against PyTorch eager, CUDA graphs and torch.compile
# (packages/conformance/bench/torch_stage_bench.py), both sides in turns, ROUNDS rounds, each
# side a fresh process per round; round 1 checks ours against the f64 reference and against
# PyTorch on the same inputs. Then the merge (median over rounds of each round's median of 20
# steps between CUDA events). A round is started only while the one before it would still end
# inside STAGE_BUDGET_S (default 200) seconds, so that the merge always runs inside the session
# phase's limit. Usage: NODE=... bash scripts/device/bench-stage.sh LOGDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
LOGDIR="${1:-out}"
NODE="${NODE:-node}"
STAGES=packages/conformance/bench/stage-shapes.json
ROWS="${STAGE_ROWS:-unet-s64:f16:ndhwc unet-s64:bf16:ndhwc unet-s64:tf32:ncdhw unet-s32:f16:ndhwc unet-s32:bf16:ndhwc unet-s32:tf32:ncdhw}"
OUTFILE="$LOGDIR/bench-stage.jsonl"
: > "$OUTFILE"
BUDGET="${STAGE_BUDGET_S:-200}"
START=$(date +%s)
LAST=0
for round in $(seq 1 "${ROUNDS:-3}"); do
  elapsed=$(( $(date +%s) - START ))
  if [ "$round" -gt 1 ] && [ $(( elapsed + LAST )) -gt "$BUDGET" ]; then
    echo "bench-stage: round $round not started: ${elapsed}s gone, the last round took ${LAST}s, budget ${BUDGET}s"
    break
  fi
  t0=$(date +%s)
  $NODE --max-old-space-size=16384 .carry/kernels-stage-bench.mjs "$STAGES" "$round" $ROWS >> "$OUTFILE" || echo "ours round $round failed rc=$?"
  python3 packages/conformance/bench/torch_stage_bench.py "$STAGES" "$round" $ROWS >> "$OUTFILE" || echo "torch round $round failed rc=$?"
  LAST=$(( $(date +%s) - t0 ))
  echo "bench-stage: round $round took ${LAST}s"
done
python3 packages/conformance/bench/stage_bench_merge.py "$OUTFILE"
