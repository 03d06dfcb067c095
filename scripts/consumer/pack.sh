#!/usr/bin/env bash
# Packs every public package into one folder, as npm would publish them (pnpm pack turns the
# workspace: ranges into versions), plus node-addon-api (a dependency of driver and cudnn-sys;
# carried along so that an install on a machine without a registry needs nothing else).
# Needs `pnpm build` and scripts/native/build-prebuilt.sh first (the prebuilt packages are
# packed with whatever addons they hold; x64 at least). Prints each tarball's size and content.
# Usage: pack.sh <out-dir>
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:?usage: pack.sh <out-dir>}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
pnpm="$PWD/.tools/node_modules/.bin/pnpm"
[ -f packages/native-linux-x64/baracuda_driver.node ] \
  || { echo "pack: packages/native-linux-x64 has no addons: run scripts/native/build-prebuilt.sh" >&2; exit 1; }
for dir in packages/*/; do
  if node -e "process.exit(require('./${dir}package.json').private ? 0 : 1)"; then continue; fi
  case "$dir" in
    packages/native-linux-arm64/) [ -f "$dir/baracuda_driver.node" ] || { echo "pack: skipping $dir (not cross-built)"; continue; } ;;
  esac
  (cd "$dir" && "$pnpm" pack --pack-destination "$out" >/dev/null)
done
addon_api="$(cd packages/driver && node -p "require('node:path').dirname(require.resolve('node-addon-api/package.json'))")"
(cd "$out" && npm pack "$addon_api" --loglevel=error >/dev/null)
for tarball in "$out"/*.tgz; do
  files=$(tar tzf "$tarball" | sed 's|^package/||' | grep -v '/$')
  printf '%-44s %8s  %3d files: %s\n' "$(basename "$tarball")" "$(du -h "$tarball" | cut -f1)" \
    "$(printf '%s\n' "$files" | wc -l)" \
    "$(printf '%s\n' "$files" | sed -E 's|^(dist\|native\|suites\|bench)/.*|\1/|' | sort -u | tr '\n' ' ')"
done
