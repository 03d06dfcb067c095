#!/usr/bin/env bash
# Build what travels to the GPU machine into .carry/ (git-ignored): node itself, the two addons,
# the bundled conformance CLI, and each package's device script bundled into one ESM file.
# The GPU machine has no registry and no node_modules, so everything must be self-contained.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.tools/node_modules/.bin:$PATH"
mkdir -p .carry
[ -s .carry/node.xz ] || xz -T2 -c "$(command -v node)" > .carry/node.xz
pnpm build >/dev/null
cp packages/driver/build/Release/baracuda_driver.node packages/cudnn-sys/build/Release/baracuda_cudnn.node packages/nccl-sys/build/Release/baracuda_nccl.node packages/cublaslt-sys/build/Release/baracuda_cublaslt.node .carry/
cp packages/conformance/dist/cli.cjs .carry/cli.cjs
# The commit the bundle was built from, for every bench row (the device copy has no .git):
# -dirty when tracked files differ from it, so a bench merge refuses to mix it with a clean build.
commit=$(git rev-parse HEAD)
git diff --quiet HEAD -- || commit="$commit-dirty"
echo "$commit" > .carry/commit.txt
# The event-overhead script (the `events` phase) only with PACK_EVENTS=1: room is short (below).
scripts="driver/scripts/device-check driver/scripts/module-device-check cudnn-sys/scripts/device-check kernels/scripts/device-smoke kernels/scripts/layout-device-check kernels/scripts/depthwise-device-check kernels/scripts/epilogue-device-check kernels/scripts/layer-bench kernels/scripts/stage-bench kernels/scripts/s2d-device-check kernels/scripts/budget-device-check kernels/scripts/leak-device-check cudnn-sys/scripts/handle-cycle-device-check collectives/scripts/nccl-device-check kernels/scripts/tf32x3-device-check kernels/scripts/quick-probe-device kernels/scripts/family-device-check kernels/scripts/cublaslt-device-check"
[ "${PACK_EVENTS:-0}" = 1 ] && scripts="$scripts kernels/scripts/event-overhead"
rm -f .carry/kernels-event-overhead.mjs .carry/chunk-*.mjs
# One esbuild run over every script, split into shared chunks: the kernels library (its PTX
# included, ~2.3 MiB) travels once instead of once per script. Each script keeps its name,
# .carry/<package>-<script>.mjs, and imports the chunks beside it.
entries=()
for s in $scripts; do
  entries+=("$(echo "$s" | cut -d/ -f1)-$(basename "$s")=packages/$s.mjs")
done
npx esbuild "${entries[@]}" --bundle --splitting --platform=node --format=esm --target=node20 \
  --out-extension:.js=.mjs --chunk-names='chunk-[hash]' --log-level=warning --outdir=.carry
# PACK_CONSUMER=1: what `consumer` (scripts/device/consumer.sh) installs there with npm, offline:
# every package's tarball, node-addon-api, and npm itself (about 4 MiB).
if [ "${PACK_CONSUMER:-0}" = 1 ]; then
  rm -rf .carry/consumer
  bash scripts/native/build-prebuilt.sh x64
  bash scripts/consumer/pack.sh .carry/consumer
  rm -f .carry/consumer/baracuda-native-linux-arm64-*.tgz
  npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
  npm_dir="$(cd "$npm_dir" && pwd)"
  tar -C "$(dirname "$npm_dir")" -cJf .carry/consumer/npm.tar.xz "$(basename "$npm_dir")"
fi
ls -la .carry
# The device tool carries at most 64 MiB: the tracked files, the untracked ones git does not
# ignore, and .carry. Say how close this is (results/ grows every session).
tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
untracked=$(git ls-files -z -o --exclude-standard | xargs -0 -r du -cb 2>/dev/null | tail -1 | cut -f1)
carry=$(du -sb .carry | cut -f1)
total=$(( tracked + ${untracked:-0} + carry ))
limit=$(( 64 * 1024 * 1024 ))
echo "travels: $(( total / 1048576 )) MiB of 64 (tracked $(( tracked / 1048576 )), untracked $(( ${untracked:-0} / 1048576 )), .carry $(( carry / 1048576 )))"
if [ "$total" -gt "$limit" ]; then
  echo "pack.sh: over the device tool's 64 MiB; leave out a bundle this run does not need (rm .carry/<name>.mjs)" >&2
fi
