#!/usr/bin/env bash
# Run the conformance check on the GPU machine with nothing but node and the bundled CLI.
#
# Assumes:
#   /tmp/node                 the node binary (or a node install directory with bin/node)
#   .carry/cli.cjs            packages/conformance/dist/cli.cjs
#   .carry/baracuda_driver.node, .carry/baracuda_cudnn.node   the built addons
#   $OUT                      a folder whose contents come back
#
# Usage (from the repository root on the device machine):
#   bash packages/conformance/scripts/device-run.sh            # default suites except `large`, with extras
#   SUITES=large ALGOS=heuristic EXTRAS=--no-extras bash packages/conformance/scripts/device-run.sh
#   SUITE_FILE=/path/conv3d-suite.json bash packages/conformance/scripts/device-run.sh
# Environment knobs (all optional): SUITES, SUITE_FILE, DTYPES, LAYOUTS, PASSES, ALGOS, EXTRAS
# (--extras | --no-extras), SEED, LEAK_CYCLES, LABEL (file name suffix), BARACUDA_CUDNN_LIBRARY.
set -uo pipefail

NODE=/tmp/node
[ -d "$NODE" ] && NODE="$NODE/bin/node"
CARRY="$(pwd)/.carry"
OUT="${OUT:-$(pwd)/out}"
mkdir -p "$OUT"
LABEL="${LABEL:-}"
SUFFIX="${LABEL:+-$LABEL}"

export BARACUDA_ADDON_DIR="$CARRY"

args=(check --json "$OUT/check$SUFFIX.json")
if [ -n "${SUITE_FILE:-}" ]; then
  args+=(--suite "$SUITE_FILE")
  [ -n "${SUITES:-}" ] && args+=(--suites "$SUITES")
else
  args+=(--suites "${SUITES:-tiny,odd,grouped,shared-scaled}")
fi
[ -n "${DTYPES:-}" ] && args+=(--dtypes "$DTYPES")
[ -n "${LAYOUTS:-}" ] && args+=(--layouts "$LAYOUTS")
[ -n "${PASSES:-}" ] && args+=(--passes "$PASSES")
[ -n "${ALGOS:-}" ] && args+=(--algos "$ALGOS")
[ -n "${SEED:-}" ] && args+=(--seed "$SEED")
[ -n "${LEAK_CYCLES:-}" ] && args+=(--leak-cycles "$LEAK_CYCLES")
args+=("${EXTRAS:---extras}")

{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $("$NODE" --version) node $CARRY/cli.cjs ${args[*]}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
} | tee "$OUT/check$SUFFIX.log"

# The big heap is for the `large` suite: its inputs are 2^28–1.8·10^9 elements, held in f64 on
# the host for the reference.
"$NODE" --max-old-space-size=16384 "$CARRY/cli.cjs" "${args[@]}" 2>&1 | tee -a "$OUT/check$SUFFIX.log"
status=${PIPESTATUS[0]}
echo "exit status: $status" | tee -a "$OUT/check$SUFFIX.log"
exit "$status"
