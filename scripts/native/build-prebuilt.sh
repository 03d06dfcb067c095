#!/usr/bin/env bash
# Fills the prebuilt platform packages (packages/native-linux-x64, packages/native-linux-arm64)
# with the addons, each kept within the glibc 2.28 baseline, then checks them.
# Usage: build-prebuilt.sh [x64] [arm64]   (default: both)
# x64 copies what the workspace build made (`pnpm build` first: it links with the baseline on);
# arm64 cross-compiles with Debian's g++-aarch64-linux-gnu (installed here when missing and root).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x64 arm64)
addons=("driver:baracuda_driver.node" "cudnn-sys:baracuda_cudnn.node" "nccl-sys:baracuda_nccl.node" "cublaslt-sys:baracuda_cublaslt.node")

for arch in "${arches[@]}"; do
  dest="packages/native-linux-$arch"
  case "$arch" in
    x64)
      for entry in "${addons[@]}"; do
        pkg="${entry%%:*}" file="${entry#*:}"
        src="packages/$pkg/build/Release/$file"
        [ -f "$src" ] || { echo "build-prebuilt: $src is missing: run pnpm build first" >&2; exit 1; }
        cp "$src" "$dest/$file"
      done
      ;;
    arm64)
      if ! command -v aarch64-linux-gnu-g++ >/dev/null; then
        if [ "$(id -u)" = 0 ]; then
          apt-get install -y -q --no-install-recommends g++-aarch64-linux-gnu >/dev/null
        else
          echo "build-prebuilt: needs aarch64-linux-gnu-g++ (apt-get install g++-aarch64-linux-gnu)" >&2
          exit 1
        fi
      fi
      for entry in "${addons[@]}"; do
        pkg="${entry%%:*}" file="${entry#*:}"
        (cd "packages/$pkg" && "$root/.tools/node_modules/.bin/pnpm" exec cmake-js compile \
          --out build/linux-arm64 \
          --CDCMAKE_TOOLCHAIN_FILE="$root/scripts/native/toolchain-linux-arm64.cmake" \
          --CDBARACUDA_GLIBC_BASELINE=ON >"build-linux-arm64.log" 2>&1) \
          || { cat "packages/$pkg/build-linux-arm64.log" >&2; exit 1; }
        rm -f "packages/$pkg/build-linux-arm64.log"
        cp "packages/$pkg/build/linux-arm64/Release/$file" "$dest/$file"
      done
      ;;
    *) echo "build-prebuilt: unknown arch '$arch': expected x64 or arm64" >&2; exit 2 ;;
  esac
done
files=()
for arch in "${arches[@]}"; do files+=(packages/native-linux-"$arch"/*.node); done
bash scripts/native/check-glibc.sh "${files[@]}"
