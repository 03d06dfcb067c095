#!/usr/bin/env bash
# The conv3d benchmark against PyTorch on the GPU machine, run twice: once with our default cuDNN,
# once with PyTorch's own cuDNN (BARACUDA_CUDNN_LIBRARY) so one comparison is like for like.
#
# Assumes (from the repository root on the device machine):
#   /tmp/node                 the node binary (or a node install directory with bin/node)
#   .carry/cli.cjs            packages/conformance/dist/cli.cjs
#   .carry/baracuda_driver.node, .carry/baracuda_cudnn.node   the built addons
#   /opt/torch/.venv          python + torch (else python3 on PATH; PYTHON=... overrides)
#   $OUT                      a folder whose contents come back
#
# Usage:
#   bash packages/conformance/scripts/device-bench.sh [--quick] [both|system|torch]
#
#   both (default)  system cuDNN, then torch's cuDNN; each side gets half the time.
#   system | torch  one comparison only, with the whole time (use two calls for the full suite).
#   --quick         the representative cases (c3d-conv2, unet3d-bottleneck, videomae-patch,
#                   x3d-depthwise, pointwise, resnext3d-grouped), warm-up 3, pinned mode capped
#                   at 500 ms per row. Still a median of 30 reps.
#
# Everything is bounded so that `both` fits in ~8 minutes: our side stops starting new rows after
# OURS_BUDGET_S seconds, PyTorch's after 80% of TORCH_TIMEOUT_S and is killed at TORCH_TIMEOUT_S.
# Rows cut by a budget are marked "skipped (time budget ...)" in the outputs.
# Knobs (environment, optional): OURS_BUDGET_S, TORCH_TIMEOUT_S, REPS, WARMUP, DTYPES, CASES, BENCH_GROUPS
# (--groups), ROUNDS (--rounds: above 1 the two sides take turns, and OURS_BUDGET_S bounds both),
# ALGOS, PASSES, PYTHON, TORCH_CUDNN (path of torch's libcudnn.so.9), EXTRA_ARGS, CLI (another
# bundled CLI than .carry/cli.cjs, e.g. an older build for an A/B run).
#
# Outputs: $OUT/bench-system/ and $OUT/bench-torchcudnn/, each holding bench-<label>.{md,json,svg},
# torch-job-<label>.json, torch-results-<label>.json, stdout.md (the table), progress.log and
# bench.log (both, with the command line).
set -uo pipefail

QUICK=()
WHICH=both
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=(--quick) ;;
    both|system|torch) WHICH="$arg" ;;
    *) echo "device-bench.sh: unknown argument '$arg' (expected --quick, both, system or torch)" >&2; exit 2 ;;
  esac
done

NODE=/tmp/node
[ -d "$NODE" ] && NODE="$NODE/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || echo /tmp/node)"
CARRY="$(pwd)/.carry"
CLI="${CLI:-$CARRY/cli.cjs}"
OUT="${OUT:-$(pwd)/out}"
mkdir -p "$OUT"
export BARACUDA_ADDON_DIR="$CARRY"

TORCH_VENV=/opt/torch/.venv
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  if [ -x "$TORCH_VENV/bin/python" ]; then PYTHON="$TORCH_VENV/bin/python"; else PYTHON=python3; fi
fi
TORCH_CUDNN="${TORCH_CUDNN:-$TORCH_VENV/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9}"
SCRIPT="$(pwd)/packages/conformance/bench/torch_conv3d_bench.py"

if [ "$WHICH" = both ]; then
  OURS_BUDGET_S="${OURS_BUDGET_S:-110}"
  TORCH_TIMEOUT_S="${TORCH_TIMEOUT_S:-100}"
else
  OURS_BUDGET_S="${OURS_BUDGET_S:-270}"
  TORCH_TIMEOUT_S="${TORCH_TIMEOUT_S:-240}"
fi

common=(bench --vs-torch --python "$PYTHON" --torch-script "$SCRIPT"
  --time-budget-s "$OURS_BUDGET_S" --torch-timeout-s "$TORCH_TIMEOUT_S" "${QUICK[@]}")
[ -n "${REPS:-}" ] && common+=(--reps "$REPS")
[ -n "${WARMUP:-}" ] && common+=(--warmup "$WARMUP")
[ -n "${DTYPES:-}" ] && common+=(--dtypes "$DTYPES")
[ -n "${CASES:-}" ] && common+=(--cases "$CASES")
# BENCH_GROUPS, not GROUPS: bash keeps the user's group ids in GROUPS.
[ -n "${BENCH_GROUPS:-}" ] && common+=(--groups "$BENCH_GROUPS")
[ -n "${ROUNDS:-}" ] && common+=(--rounds "$ROUNDS")
[ -n "${ALGOS:-}" ] && common+=(--algos "$ALGOS")
[ -n "${PASSES:-}" ] && common+=(--passes "$PASSES")
# shellcheck disable=SC2206
[ -n "${EXTRA_ARGS:-}" ] && common+=($EXTRA_ARGS)

status=0
# Returns the CLI's exit status.
run_one() {
  local label="$1" dir="$OUT/bench-$1"
  mkdir -p "$dir"
  {
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $("$NODE" --version) $CLI ${common[*]} --label $label --out $dir"
    echo "# BARACUDA_CUDNN_LIBRARY=${BARACUDA_CUDNN_LIBRARY:-(default search)} python=$PYTHON"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || true
  } | tee "$dir/bench.log"
  "$NODE" --max-old-space-size=8192 "$CLI" "${common[@]}" --label "$label" --out "$dir" \
    >"$dir/stdout.md" 2>"$dir/progress.log"
  local rc=$?
  cat "$dir/progress.log" "$dir/stdout.md" >>"$dir/bench.log"
  tail -n 15 "$dir/progress.log"
  echo "exit status ($label): $rc" | tee -a "$dir/bench.log"
  # The summary lines, for a quick look in the command output.
  sed -n '/^## Geometric means/,$p' "$dir/stdout.md" | head -40
  return "$rc"
}

if [ "$WHICH" = both ] || [ "$WHICH" = system ]; then
  (unset BARACUDA_CUDNN_LIBRARY; run_one system) || status=$?
fi
if [ "$WHICH" = both ] || [ "$WHICH" = torch ]; then
  if [ -f "$TORCH_CUDNN" ]; then
    (
      export BARACUDA_CUDNN_LIBRARY="$TORCH_CUDNN"
      # cuDNN 9 loads its engine sub-libraries by name: make torch's folder win for them too.
      export LD_LIBRARY_PATH="$(dirname "$TORCH_CUDNN")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      run_one torchcudnn
    ) || status=$?
  else
    echo "device-bench.sh: PyTorch's cuDNN not found at $TORCH_CUDNN; set TORCH_CUDNN" | tee "$OUT/bench-torchcudnn.missing"
    status=1
  fi
fi
exit "$status"
