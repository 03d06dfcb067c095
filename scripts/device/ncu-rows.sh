#!/usr/bin/env bash
# Nsight Compute on both sides of benchmark rows: which kernels each side launches for one call,
# with their launch shapes (grid, block, cluster, registers, shared memory) and durations, read
# the same way (ncu serializes kernels; clocks and caches left alone). For rows where the two
# sides' times differ by 1-2%: is it the same kernel?
#
# NCU_ROWS: space-separated CASE:DTYPE:LAYOUT:PASS:REGEX (REGEX picks the kernels, e.g. wgrad).
# Ours runs the bench CLI's heuristic plan (--algos heuristic, or NCU_ALGOS); PyTorch runs
# packages/conformance/bench/torch_profile_row.py. Outputs: $OUT/ncu-<row>-{ours,torch}.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
NODE=/tmp/node
export BARACUDA_ADDON_DIR="$PWD/.carry"
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo /usr/local/cuda/bin/ncu)"
SUITE=packages/conformance/suites/conv3d-suite.json
PY=/opt/torch/.venv/bin/python
[ -x "$PY" ] || PY=python3
common=(--clock-control none --cache-control none --section LaunchStats --metrics gpu__time_duration.sum --csv --page details)
echo "ncu: $NCU ($("$NCU" --version 2>&1 | tail -1))"
status=0
for spec in ${NCU_ROWS:-}; do
  IFS=: read -r case dtype layout pass regex <<<"$spec"
  name="$case-$dtype-$layout-$pass"
  echo "=== $name (kernels matching '$regex')"
  "$NCU" "${common[@]}" --kernel-name "regex:$regex" --launch-skip 4 --launch-count 4 \
    "$NODE" .carry/cli.cjs bench --suite "$SUITE" --groups "$case:$dtype:$layout" --passes "$pass" \
    --algos "${NCU_ALGOS:-heuristic}" --reps 8 --warmup 2 --out "/tmp/ncu-bench-$name" \
    >"$OUT/ncu-$name-ours.csv" 2>"$OUT/ncu-$name-ours.log" || status=$?
  "$NCU" "${common[@]}" --kernel-name "regex:$regex" --nvtx --nvtx-include "measure/" \
    "$PY" packages/conformance/bench/torch_profile_row.py "$SUITE" "$case" "$dtype" "$layout" "$pass" 4 \
    >"$OUT/ncu-$name-torch.csv" 2>"$OUT/ncu-$name-torch.log" || status=$?
  for side in ours torch; do
    echo "--- $side"
    grep -E '"(Duration|Grid Size|Block Size|Cluster Size|Registers Per Thread|Dynamic Shared Memory Per Block|Static Shared Memory Per Block)"' \
      "$OUT/ncu-$name-$side.csv" | awk -F'","' '{print substr($5,1,90) " | " $(NF-2) " = " $NF}' | head -40
    tail -n 3 "$OUT/ncu-$name-$side.log"
  done
done
exit "$status"
