#!/usr/bin/env bash
# One GPU-machine session: run the phases named in $@ (in order), each with a time limit,
# logging under $OUT/logs/, then pack the logs into $OUT/logs.tgz (only 8 files come back).
# Phases: consumer info abi abi-nccl abi-cublaslt cublaslt nccl driver module layout depthwise tf32x3 check-3xtf32 s2d budget quick-probe leak bench-ours cudnn smoke check check-919 check-extra check-as-fw check-s2d check-via check-shared check-conv-family large large-via demo bench bench-pair ncu events pointwise-forms torch-plan
#         errata-small errata-large errata-large-ndhwc errata-large-919 suite-shard suite-shards tf32-probe budget-curve
#         check-epilogue check-family bench-layer bench-stage demo-stage
# suite-shard: one shard of the whole-suite run against both PyTorch columns (issue 22), e.g.
#   SHARD=1/3 bash scripts/device/session.sh suite-shard
# writes $OUT/bench-shard-1-of-3.json for `bench merge` (packages/conformance/bench/README.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/out}"
LOGS="$OUT/logs"
mkdir -p "$LOGS"
if [ ! -x /tmp/node ]; then xz -dc .carry/node.xz > /tmp/node && chmod +x /tmp/node; fi
NODE=/tmp/node
export BARACUDA_ADDON_DIR="$PWD/.carry"
TORCH_CUDNN=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9
TORCH_NCCL_DIR=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl
# Autotune choices come back in $OUT; carry one back as .carry/autotune-cache.json to reuse it.
export BARACUDA_AUTOTUNE_CACHE="$OUT/autotune-cache.json"
if [ -f .carry/autotune-cache.json ] && [ ! -f "$BARACUDA_AUTOTUNE_CACHE" ]; then
  cp .carry/autotune-cache.json "$BARACUDA_AUTOTUNE_CACHE" && chmod u+w "$BARACUDA_AUTOTUNE_CACHE"
fi
# The device tool kills a call at 600 s, before the logs are packed: every phase's limit is cut so
# that the whole session ends DEADLINE_S seconds after it started, and a phase with < 30 s is skipped.
DEADLINE_S="${DEADLINE_S:-560}"
START_S=$(date +%s)

run() { # name limit command...
  local name=$1 limit=$2; shift 2
  local left=$(( DEADLINE_S - ($(date +%s) - START_S) ))
  if [ "$left" -lt 30 ]; then
    echo "=== $name skipped: ${left}s left of the session's ${DEADLINE_S}s" | tee -a "$OUT/summary.txt"
    return
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  echo "=== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*" | tee -a "$OUT/summary.txt"
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo "--- $name rc=$rc in $(( $(date +%s) - t0 ))s" | tee -a "$OUT/summary.txt"
  tail -n "${TAIL:-25}" "$LOGS/$name.log" >> "$OUT/summary.txt"
}

for phase in "$@"; do
  case "$phase" in
    info)
      run info 60 bash -c 'date -u; nvidia-smi; ldconfig -p | grep -E "libcudnn.so|libcuda.so"; ls /usr/include/x86_64-linux-gnu/cudnn_version*.h; grep -E "define CUDNN_(MAJOR|MINOR|PATCHLEVEL)" /usr/include/x86_64-linux-gnu/cudnn_version*.h; python3 -c "import torch; print(torch.__version__, torch.backends.cudnn.version(), torch.cuda.get_device_name())"' ;;
    abi) run abi-cudnn 120 bash packages/cudnn-sys/scripts/abi-check.sh ;;
    # NCCL's header from PyTorch's wheel (nvidia-nccl-cu*), against native/nccl_decls.h.
    abi-nccl) NCCL_INCLUDE_DIR=$TORCH_NCCL_DIR/include run abi-nccl 120 bash packages/nccl-sys/scripts/abi-check.sh ;;
    # Issue 25: every collective x kind, the data-parallel step vs one GPU, 1 vs N GPU step
    # throughput, all-reduce busBw. On 2+ GPUs rc 0 is the pass; on one GPU it runs a one-rank
    # smoke test (real NCCL: bindings, initRank, waits, the helper) and exits 3. NVLink multicast off.
    nccl) NCCL_NVLS_ENABLE=0 BARACUDA_NCCL_LIBRARY=$TORCH_NCCL_DIR/lib/libnccl.so.2 run nccl 300 $NODE .carry/collectives-nccl-device-check.mjs ;;
    # cuBLASLt's header where one is installed (the CUDA toolkit, or PyTorch's nvidia wheels),
    # against native/cublaslt_decls.h.
    abi-cublaslt) run abi-cublaslt 60 bash packages/cublaslt-sys/scripts/abi-check.sh ;;
    # Issue 24: the patch route on cuBLASLt, every pass x dtype x layout vs the f64 reference, and
    # its time per call against the route on cuDNN's 1x1x1 convolution and cuDNN on the conv.
    # cuBLASLt is found by the package's own search (PyTorch's venv among the places it looks).
    cublaslt) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run cublaslt 150 $NODE --max-old-space-size=16384 .carry/kernels-cublaslt-device-check.mjs ;;
    driver) run driver 300 $NODE .carry/driver-device-check.mjs "$LOGS/driver.json" ;;
    module) run module 60 $NODE .carry/driver-module-device-check.mjs ;;
    layout) run layout 120 $NODE .carry/kernels-layout-device-check.mjs ;;
    depthwise) run depthwise 180 $NODE .carry/kernels-depthwise-device-check.mjs ;;
    # Time to a plan per selection mode (first, quick tune, bounded and unbounded autotune) and
    # each choice's time per call, on the suite's cuDNN (packages/kernels/scripts/budget-device-check.mjs).
    budget) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run budget 180 $NODE --max-old-space-size=16384 .carry/kernels-budget-device-check.mjs ;;
    # Every candidate the quick tune and autotune would time on the default mode's cliff rows, each
    # built and run once, and our routes forced (packages/kernels/scripts/quick-probe-device.mjs).
    quick-probe) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run quick-probe 90 $NODE --max-old-space-size=16384 .carry/kernels-quick-probe-device.mjs ;;
    # The space-to-depth routes (patch GEMM, stem): kernels vs emulation, every pass x dtype x
    # layout forced on vs the f64 reference, and the route vs cuDNN on the suite's two shapes.
    s2d) run s2d 180 $NODE --max-old-space-size=16384 .carry/kernels-s2d-device-check.mjs ;;
    # The fused epilogue (bias, residual, every activation; runBwEpilogue) against the f64 reference.
    check-epilogue) run check-epilogue 120 $NODE .carry/kernels-epilogue-device-check.mjs ;;
    # The conv family's tails: the transposed convolution's epilogue and runBwEpilogue, and
    # runBwData with an input activation's backward (fused and unfused) on both plans, vs f64.
    check-family) run check-family 120 $NODE --max-old-space-size=8192 .carry/kernels-family-device-check.mjs ;;
    # Conv + bias + ReLU forward, ours against PyTorch eager, in turns (scripts/device/bench-layer.sh).
    bench-layer) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run bench-layer 150 env NODE=$NODE bash scripts/device/bench-layer.sh "$LOGS" ;;
    # A U-Net stage training step, ours against PyTorch eager / CUDA graphs / torch.compile, in turns,
    # round 1 checked against the f64 reference and PyTorch (scripts/device/bench-stage.sh).
    # torch.compile only in round 1 and only inside STAGE_COMPILE_BUDGET_S of the torch process;
    # rounds only while they fit STAGE_BUDGET_S, so the merge runs inside the limit.
    bench-stage) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run bench-stage 240 env NODE=$NODE STAGE_COMPILE_BUDGET_S=${STAGE_COMPILE_BUDGET_S:-45} STAGE_BUDGET_S=${STAGE_BUDGET_S:-200} bash scripts/device/bench-stage.sh "$LOGS" ;;
    check-919) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run check-919 420 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check-919.json" ${CHECK919_ARGS:-} ;;
    cudnn)
      EXPECT_CUDNN_VERSION=9.14 run cudnn-system 120 $NODE .carry/cudnn-sys-device-check.mjs
      BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN EXPECT_CUDNN_VERSION=9.19 run cudnn-torch 120 $NODE .carry/cudnn-sys-device-check.mjs ;;
    # math '3xtf32' (split kernel bit for bit, every pass x layout x mode against the f64 reference
    # at the strict-f32 tolerance, and its time against strict f32 and TF32) on cuDNN 9.19: the
    # system 9.14's TF32 erratum would turn it into strict f32.
    tf32x3) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run tf32x3 200 $NODE --max-old-space-size=16384 .carry/kernels-tf32x3-device-check.mjs ;;
    # The conformance suites (and CHECK_3XTF32_ARGS, e.g. --suite ...conv3d-suite.json) in 3xtf32.
    check-3xtf32) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run check-3xtf32 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --dtypes 3xtf32 --algos heuristic,autotune --no-extras --json "$LOGS/check-3xtf32.json" ${CHECK_3XTF32_ARGS:-} ;;
    smoke)
      run smoke-system 300 $NODE .carry/kernels-device-smoke.mjs
      BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run smoke-torch 300 $NODE .carry/kernels-device-smoke.mjs ;;
    check) run check 420 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check.json" ${CHECK_ARGS:-} ;;
    # Any other check: CHECK_EXTRA_ARGS names the suite and filters.
    check-extra) run check-extra 300 $NODE --max-old-space-size=60000 .carry/cli.cjs check --json "$LOGS/check-extra.json" ${CHECK_EXTRA_ARGS:-} ;;
    # Every pass through the problem in the other layout on our transposes (the layout detour's
    # 'always'), on both cuDNNs (never into the NCDHW half layouts of the 9.8-9.14 erratum).
    check-via)
      BARACUDA_LAYOUT_DETOUR=always run check-via 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check-via.json" ${CHECK_VIA_ARGS:-}
      BARACUDA_LAYOUT_DETOUR=always BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run check-via-919 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check-via-919.json" ${CHECK_VIA_ARGS:-} ;;
    # Every patch embedding and small-cIn stride-2 stem through the space-to-depth routes (the
    # options' 'always'): the shared suite's rows (videomae-patch, i3d-stem) and the default suites.
    check-s2d)
      BARACUDA_PATCH_GEMM=always BARACUDA_STEM_S2D=always run check-s2d-shared 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --suite packages/conformance/suites/conv3d-suite.json --no-extras --json "$LOGS/check-s2d-shared.json" ${CHECK_S2D_ARGS:-}
      BARACUDA_PATCH_GEMM=always BARACUDA_STEM_S2D=always run check-s2d 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check-s2d.json" ${CHECK_S2D_ARGS:-} ;;
    # Every stride-1 backward-data as a forward pass on the flipped filter (the option's 'always').
    check-as-fw) BARACUDA_BWDATA_AS_FORWARD=always run check-as-fw 420 $NODE --max-old-space-size=16384 .carry/cli.cjs check --json "$LOGS/check-as-fw.json" ${CHECK_AS_FW_ARGS:-} ;;
    check-shared) run check-shared 300 $NODE --max-old-space-size=16384 .carry/cli.cjs check --suite packages/conformance/suites/conv3d-suite.json --no-extras --json "$LOGS/check-shared.json" ${CHECK_ARGS:-} ;;
    # The conv family (issue 23): asymmetric/'same' padding and ConvTranspose3d, every dtype x layout x pass x mode
    # (~110 autotuned plans of small problems: autotune's budget cut to 300 ms a pass to stay near 2 minutes).
    check-conv-family) BARACUDA_AUTOTUNE_BUDGET_MS=${CONV_FAMILY_BUDGET_MS:-300} run check-conv-family 240 $NODE --max-old-space-size=16384 .carry/cli.cjs check --suites asym-pad,transpose --no-extras --json "$LOGS/check-conv-family.json" ${CONV_FAMILY_ARGS:-} ;;
    large) run large 420 $NODE --max-old-space-size=60000 .carry/cli.cjs check --suites large --no-extras --json "$LOGS/large.json" ${LARGE_ARGS:-} ;;
    # Our side only (no PyTorch), e.g. a suite's autotune choices: BENCH_EXTRA_ARGS names the rows.
    bench-ours) run bench-ours 300 $NODE --max-old-space-size=60000 .carry/cli.cjs bench --out "$LOGS/bench-ours" ${BENCH_EXTRA_ARGS:-} ;;
    bench) OUT="$LOGS" run bench 560 bash packages/conformance/scripts/device-bench.sh ${BENCH_ARGS:---quick both} ;;
    # Two comparisons at once, one per GPU of a two-GPU machine (BENCH_GPU0 / BENCH_GPU1: see bench-pair.sh).
    bench-pair) OUT="$LOGS" run bench-pair 560 bash scripts/device/bench-pair.sh ;;
    # One shard of the whole-suite run (SHARD=k/M; PRESET, CACHE, CUDNN: see suite-shard.sh). Its
    # raw JSON goes to $OUT itself, beside logs.tgz, for `bench merge` here.
    suite-shard) run "suite-shard-$(echo "${SHARD:?set SHARD=k/M}" | tr / -)" 560 bash packages/conformance/scripts/suite-shard.sh ;;
    # Several shards at once, one per GPU of a machine of several (SHARDS="1/4 2/4"; see bench-pair.sh).
    suite-shards) run suite-shards 560 env BENCH_MODE=shards bash scripts/device/bench-pair.sh ;;
    # What the kind of timing event adds to one call, on both sides (PyTorch's cuDNN for ours too);
    # pack with PACK_EVENTS=1.
    events)
      BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run events-ours 120 $NODE .carry/kernels-event-overhead.mjs
      run events-torch 120 python3 packages/conformance/bench/torch_event_overhead.py packages/conformance/suites/conv3d-suite.json pointwise:f32:ncdhw:bwData:3 dilated:bf16:ndhwc:bwFilter:2 ;;
    # Autotune's time to a plan against what it finds, per budget (BUDGETS_MS), f16 NDHWC groups.
    budget-curve) OUT="$LOGS" run budget-curve 400 bash scripts/device/budget-curve.sh ;;
    # How far cuDNN's TF32 kernels carry the 3xTF32 split: three calls, or one on concatenated operands.
    tf32-probe) run tf32-probe 200 python3 packages/conformance/bench/torch_3xtf32_probe.py ;;
    # PyTorch's backward-data of a 1x1x1 layer written as a forward pass on the transposed filter.
    pointwise-forms) run pointwise-forms 180 python3 packages/conformance/bench/torch_pointwise_forms.py packages/conformance/suites/conv3d-suite.json ${POINTWISE_FORMS:-pointwise:f32:ncdhw:2 pointwise:tf32:ncdhw:2 pointwise:f16:ncdhw:2 pointwise:bf16:ndhwc:2 pointwise:f64:ncdhw:2} ;;
    # cuDNN's API log of PyTorch running each row of TORCH_PLAN_ROWS ("case:dtype:layout:pass ..."):
    # its tail holds the execution plans of the calls after cudnn.benchmark chose.
    torch-plan)
      for row in ${TORCH_PLAN_ROWS:-}; do
        IFS=: read -r c d l p <<< "$row"
        CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG="/tmp/cudnn-$c-$d-$l-$p.log" run "torch-plan-$c-$d-$l-$p" 120 python3 packages/conformance/bench/torch_profile_row.py packages/conformance/suites/conv3d-suite.json "$c" "$d" "$l" "$p" 2
        tail -c 400000 "/tmp/cudnn-$c-$d-$l-$p.log" > "$LOGS/torch-plan-$c-$d-$l-$p.cudnn.log" 2>/dev/null
      done ;;
    # Nsight Compute on both sides of the rows in NCU_ROWS (see ncu-rows.sh), ours on PyTorch's
    # cuDNN so that both sides pick from the same engines (run 32 ran ours on the system's 9.14.0).
    ncu) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN OUT="$LOGS" run ncu 300 bash scripts/device/ncu-rows.sh ;;
    large-via) run large-via 300 $NODE --max-old-space-size=60000 .carry/cli.cjs check --suite packages/conformance/suites/errata-163539.json --max-macs 1000000000000000 --dtypes ${VIA_DTYPES:-bf16} --layouts ncdhw --algos heuristic --no-extras --json "$LOGS/large-via.json" ${VIA_ARGS:-} ;;
    demo) run demo 120 $NODE .carry/cli.cjs demo ;;
    # One U-Net stage training step, every activation and gradient against the f64 reference.
    demo-stage) run demo-stage 120 $NODE .carry/cli.cjs demo --stage ;;
    # 10,000 plan create/dispose cycles three ways: plain, one extra plan held (the shared cuDNN
    # handle lives through the loop), and V8's young space shrunk (garbage against a leak).
    leak)
      run leak-plain 120 $NODE --expose-gc .carry/kernels-leak-device-check.mjs ${LEAK_ARGS:-}
      run leak-hold 120 $NODE --expose-gc .carry/kernels-leak-device-check.mjs --hold ${LEAK_ARGS:-}
      run leak-semi1 120 $NODE --expose-gc --max-semi-space-size=1 .carry/kernels-leak-device-check.mjs ${LEAK_ARGS:-}
      run leak-hold-semi1 120 $NODE --expose-gc --max-semi-space-size=1 .carry/kernels-leak-device-check.mjs --hold ${LEAK_ARGS:-}
      # The same cycles on raw cuDNN handles (cudnnCreate/SetStream/Destroy), on both cuDNNs.
      run handle-cycle 120 $NODE --expose-gc .carry/cudnn-sys-handle-cycle-device-check.mjs ${LEAK_ARGS:-}
      run handle-cycle-hold 120 $NODE --expose-gc .carry/cudnn-sys-handle-cycle-device-check.mjs --hold ${LEAK_ARGS:-}
      BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run handle-cycle-919 120 $NODE --expose-gc .carry/cudnn-sys-handle-cycle-device-check.mjs ${LEAK_ARGS:-} ;;
    # What an npm user gets: the packed tarballs installed offline with npm into a fresh folder,
    # then doctor and the demo from there (pack with PACK_CONSUMER=1; scripts/device/consumer.sh).
    consumer) NODE=$NODE run consumer 240 bash scripts/device/consumer.sh ;;
    # The cuDNN 9.8-9.15 f16/bf16 defect: run what the errata table refuses, with the refusal lifted.
    errata-small) BARACUDA_IGNORE_ERRATA=cudnn-9.8-conv3d-half-ncdhw run errata-small 240 $NODE .carry/cli.cjs check --suites tiny,odd,grouped,shared-scaled --dtypes f16,bf16 --layouts ncdhw --algos heuristic,pinned --no-extras --json "$LOGS/errata-small.json" ;;
    errata-large) BARACUDA_IGNORE_ERRATA=cudnn-9.8-conv3d-half-ncdhw run errata-large 400 $NODE --max-old-space-size=60000 .carry/cli.cjs check --suite packages/conformance/suites/errata-163539.json --max-macs 1000000000000000 --dtypes ${ERRATA_DTYPES:-bf16,f16} --layouts ${ERRATA_LAYOUTS:-ncdhw} --algos heuristic --no-extras --json "$LOGS/errata-large.json" ;;
    errata-large-ndhwc) run errata-large-ndhwc 300 $NODE --max-old-space-size=60000 .carry/cli.cjs check --suite packages/conformance/suites/errata-163539.json --max-macs 1000000000000000 --dtypes bf16 --layouts ndhwc --algos heuristic --no-extras --json "$LOGS/errata-large-ndhwc.json" ;;
    errata-large-919) BARACUDA_CUDNN_LIBRARY=$TORCH_CUDNN run errata-large-919 300 $NODE --max-old-space-size=60000 .carry/cli.cjs check --suite packages/conformance/suites/errata-163539.json --max-macs 1000000000000000 --dtypes bf16 --layouts ncdhw --algos heuristic --no-extras --json "$LOGS/errata-large-919.json" ;;
    *) echo "unknown phase $phase" | tee -a "$OUT/summary.txt" ;;
  esac
done
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$LOGS"
