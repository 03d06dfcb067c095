#!/usr/bin/env bash
# One shard of the whole shared suite against both PyTorch columns, on the GPU machine (issue 22).
# The lead runs one device call per shard and joins the JSONs here with `bench merge`.
#
# Assumes (from the repository root on the device machine; scripts/device/pack.sh made them):
#   /tmp/node                 the node binary (session.sh unpacks .carry/node.xz there)
#   .carry/cli.cjs            packages/conformance/dist/cli.cjs
#   .carry/commit.txt         the commit the bundle was built from (pack.sh)
#   .carry/*.node             the built addons
#   /opt/torch/.venv          python + torch (else python3 on PATH; PYTHON=... overrides)
#   $OUT                      a folder whose contents come back (at most 8 files)
#
# Usage:
#   SHARD=1/3 bash packages/conformance/scripts/suite-shard.sh
#
# Knobs (environment):
#   SHARD         k/M, required: which shard (bench --shard)
#   PRESET        fit (default): 3 rounds of 30 reps after 5 warm-up calls, our heuristic vs PyTorch
#                 default on every row, our autotune vs PyTorch tuned on the f16 ndhwc groups (one
#                 per case); full: the tuned pair on every group too (a cold autotune of all 64
#                 groups: about 45 min of GPU time in all, 6 or more shards)
#   CACHE         cold (default): autotune starts from an empty cache; carried: from
#                 .carry/autotune-cache.json (the report says which)
#   CUDNN         torch (default): our side on PyTorch's own libcudnn, so both pick from the same
#                 engines; system: the machine's libcudnn
#   TIME_BUDGET_S start no group after this many seconds (default 420: the device kills a call at
#                 600 s); groups not started are marked skipped, and a later shard call may measure them
#   EXTRA_ARGS    more bench flags (e.g. --cases a,b for a check run)
#
# Outputs in $OUT (three files: the device returns at most 8): bench-shard-<k>-of-<M>.json (the raw
# report bench merge takes; bench merge renders the table), suite-shard-<k>-of-<M>.log (the command
# line, nvidia-smi, progress) and autotune-cache-shard-<k>-of-<M>.json (the choices it tuned, to
# carry into a later run with CACHE=carried).
set -uo pipefail

SHARD="${SHARD:?set SHARD=k/M}"
PRESET="${PRESET:-fit}"
CACHE="${CACHE:-cold}"
CUDNN="${CUDNN:-torch}"
TIME_BUDGET_S="${TIME_BUDGET_S:-420}"
NODE=/tmp/node
[ -d "$NODE" ] && NODE="$NODE/bin/node"
[ -x "$NODE" ] || NODE="$(command -v node || echo /tmp/node)"
CARRY="$(pwd)/.carry"
OUT="${OUT:-$(pwd)/out}"
mkdir -p "$OUT"
export BARACUDA_ADDON_DIR="$CARRY"
TORCH_VENV=/opt/torch/.venv
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  if [ -x "$TORCH_VENV/bin/python" ]; then PYTHON="$TORCH_VENV/bin/python"; else PYTHON=python3; fi
fi
TORCH_CUDNN="${TORCH_CUDNN:-$TORCH_VENV/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9}"
name="shard-${SHARD%/*}-of-${SHARD#*/}"

case "$PRESET" in
  fit) preset=(--tuned-on f16:ndhwc) ;;
  full) preset=() ;;
  *) echo "suite-shard.sh: PRESET is fit or full, not '$PRESET'" >&2; exit 2 ;;
esac

# A cold run starts from an empty cache file of its own; a carried one from the cache carried in.
export BARACUDA_AUTOTUNE_CACHE="$OUT/autotune-cache-$name.json"
rm -f "$BARACUDA_AUTOTUNE_CACHE"
case "$CACHE" in
  cold) ;;
  carried)
    [ -f "$CARRY/autotune-cache.json" ] || { echo "suite-shard.sh: CACHE=carried needs .carry/autotune-cache.json" >&2; exit 2; }
    cp "$CARRY/autotune-cache.json" "$BARACUDA_AUTOTUNE_CACHE" && chmod u+w "$BARACUDA_AUTOTUNE_CACHE" ;;
  *) echo "suite-shard.sh: CACHE is cold or carried, not '$CACHE'" >&2; exit 2 ;;
esac

case "$CUDNN" in
  torch)
    export BARACUDA_CUDNN_LIBRARY="$TORCH_CUDNN"
    # cuDNN 9 loads its engine sub-libraries by name: make torch's folder win for them too.
    export LD_LIBRARY_PATH="$(dirname "$TORCH_CUDNN")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  system) unset BARACUDA_CUDNN_LIBRARY ;;
  *) echo "suite-shard.sh: CUDNN is torch or system, not '$CUDNN'" >&2; exit 2 ;;
esac

[ -f "$CARRY/commit.txt" ] && export BARACUDA_BENCH_COMMIT="$(cat "$CARRY/commit.txt")"

args=(bench --vs-torch --python "$PYTHON"
  --torch-script "$(pwd)/packages/conformance/bench/torch_conv3d_bench.py"
  --shard "$SHARD" --algos heuristic,autotune --rounds 3 --reps 30 --warmup 5
  --time-budget-s "$TIME_BUDGET_S" --torch-timeout-s 300 "${preset[@]}"
  --label "$name" --out "$OUT/$name")
# shellcheck disable=SC2206
[ -n "${EXTRA_ARGS:-}" ] && args+=($EXTRA_ARGS)

log="$OUT/suite-$name.log"
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $("$NODE" --version) cli.cjs ${args[*]}"
  echo "# commit ${BARACUDA_BENCH_COMMIT:-unknown} PRESET=$PRESET CACHE=$CACHE CUDNN=$CUDNN BARACUDA_CUDNN_LIBRARY=${BARACUDA_CUDNN_LIBRARY:-(default search)} python=$PYTHON"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || true
} | tee "$log"
"$NODE" --max-old-space-size=8192 "$CARRY/cli.cjs" "${args[@]}" >/dev/null 2>>"$log"
status=$?
# The raw report at the top of $OUT; the rest of the bench's folder stays behind.
cp "$OUT/$name/bench-$name.json" "$OUT/bench-$name.json" 2>/dev/null
rm -rf "${OUT:?}/$name"
echo "exit status ($name): $status" | tee -a "$log"
grep -E '^(shard|\[|host overhead|Shard)' "$log" | tail -n 5
exit "$status"
