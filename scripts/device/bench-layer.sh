#!/usr/bin/env bash
# The layer benchmark (issue 23 (a)): conv + bias + ReLU forward, ours (one runFw with the epilogue)
# against PyTorch eager (F.relu(F.conv3d(x, w, b))), both sides in turns, ROUNDS rounds, each side a
# fresh process per round; then the merge (median over rounds of each round's median of 30 calls
# between CUDA events). Usage: NODE=... bash scripts/device/bench-layer.sh LOGDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
LOGDIR="${1:-out}"
NODE="${NODE:-node}"
SUITE=packages/conformance/suites/conv3d-suite.json
ROWS="${LAYER_ROWS:-c3d-conv2:f16:ndhwc c3d-conv2:bf16:ndhwc unet3d-enc1:f16:ndhwc unet3d-enc1:bf16:ndhwc dilated:f16:ndhwc r3d-downsample:f16:ndhwc c3d-conv2:f16:ncdhw unet3d-enc1:f16:ncdhw}"
OUTFILE="$LOGDIR/bench-layer.jsonl"
: > "$OUTFILE"
for round in $(seq 1 "${ROUNDS:-3}"); do
  $NODE .carry/kernels-layer-bench.mjs "$SUITE" "$round" $ROWS >> "$OUTFILE" || echo "ours round $round failed rc=$?"
  python3 packages/conformance/bench/torch_layer_bench.py "$SUITE" "$round" $ROWS >> "$OUTFILE" || echo "torch round $round failed rc=$?"
done
python3 packages/conformance/bench/layer_bench_merge.py "$OUTFILE"
