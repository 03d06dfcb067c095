#!/usr/bin/env bash
# Autotune's time to a plan against what it finds, per budget: the suite's f16 NDHWC groups (the
# ones the suite tunes), a cold cache per budget, our side only (no PyTorch), on PyTorch's cuDNN.
# For each budget in BUDGETS_MS (ms a pass, $BARACUDA_AUTOTUNE_BUDGET_MS), one bench run writes
# $OUT/curve-<budget>/ (its JSON holds each row's select time, how many configs it timed, whether
# the budget cut it, and the chosen plan's median), and curve-<budget>.progress.xz every progress
# line, stamped with ms into its select. Assumes session.sh's /tmp/node and .carry/.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/out}"
NODE=/tmp/node
TORCH_CUDNN=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9
status=0
for budget in ${BUDGETS_MS:-150 500 2000}; do
  echo "=== budget ${budget} ms a pass ($(date -u +%H:%M:%S))"
  rm -f "/tmp/curve-cache-$budget.json"
  BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN BARACUDA_AUTOTUNE_BUDGET_MS=$budget \
    BARACUDA_AUTOTUNE_CACHE="/tmp/curve-cache-$budget.json" \
    "$NODE" --max-old-space-size=60000 .carry/cli.cjs bench \
    --suite packages/conformance/suites/conv3d-suite.json --dtypes f16 --layouts ndhwc \
    --algos autotune --passes fw,bwData,bwFilter --reps 20 --warmup 3 \
    --label "budget-$budget" --out "$OUT/curve-$budget" 2>"$OUT/curve-$budget.progress" | tail -n 40 || status=$?
  # Every progress line, stamped with ms into its select: where the time to a plan goes.
  grep -c "^autotune +" "$OUT/curve-$budget.progress" || true
  xz -f "$OUT/curve-$budget.progress" || true
done
exit $status
