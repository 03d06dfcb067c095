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
cp packages/driver/build/Release/baracuda_driver.node packages/cudnn-sys/build/Release/baracuda_cudnn.node .carry/
cp packages/conformance/dist/cli.cjs .carry/cli.cjs
for s in driver/scripts/device-check driver/scripts/module-device-check cudnn-sys/scripts/device-check kernels/scripts/device-smoke kernels/scripts/layout-device-check kernels/scripts/depthwise-device-check kernels/scripts/event-overhead; do
  name=$(echo "$s" | cut -d/ -f1)-$(basename "$s")
  npx esbuild "packages/$s.mjs" --bundle --platform=node --format=esm --target=node20 \
    --log-level=warning --outfile=".carry/$name.mjs"
done
ls -la .carry
