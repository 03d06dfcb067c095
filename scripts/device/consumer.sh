#!/usr/bin/env bash
# On the GPU machine: what an npm user gets. Installs the packed tarballs carried in
# .carry/consumer/ (scripts/device/pack.sh with PACK_CONSUMER=1: every package's tarball,
# node-addon-api and npm itself) with npm, offline (there is no registry there), into a fresh
# folder, then runs `baracuda --version`, `doctor` (text and JSON) and `demo` from that install,
# with BARACUDA_ADDON_DIR unset so the addons come from @baracuda/native-linux-x64 as for a user.
# Prints everything; the session's `consumer` phase logs it under $OUT/logs/consumer.log, and the
# doctor report goes to $OUT/consumer-doctor.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
NODE="${NODE:-/tmp/node}"
carry="$repo/.carry/consumer"
[ -f "$carry/npm.tar.xz" ] || { echo "consumer: $carry/npm.tar.xz missing: pack with PACK_CONSUMER=1" >&2; exit 1; }
if [ ! -x "$NODE" ]; then xz -dc .carry/node.xz > "$NODE" && chmod +x "$NODE"; fi
# npm runs `node` from PATH for the packages' install scripts and for bins.
bin="$(mktemp -d /tmp/baracuda-bin.XXXXXX)"
ln -s "$NODE" "$bin/node"
export PATH="$bin:$PATH"
tar -C "$bin" -xJf "$carry/npm.tar.xz"
npm() { node "$bin/npm/bin/npm-cli.js" "$@"; }
unset BARACUDA_ADDON_DIR

app="$(mktemp -d /tmp/baracuda-app.XXXXXX)"
cd "$app"
printf '{ "name": "baracuda-consumer", "version": "1.0.0", "private": true, "type": "module" }\n' > package.json
echo "== node $(node --version), npm $(npm --version), $(ldd --version 2>&1 | head -1)"
echo "== npm install --offline (tarballs: $(ls "$carry"/*.tgz | wc -l))"
tarballs=$(ls "$carry"/*.tgz | grep -v native-linux-arm64)
# shellcheck disable=SC2086
npm install --offline --cache "$app/.npm-cache" --no-audit --no-fund --loglevel=warn $tarballs
echo "install rc=$?"
ls node_modules/@baracuda
echo "== baracuda --version"
node node_modules/.bin/baracuda --version
echo "== baracuda doctor"
node node_modules/.bin/baracuda doctor
echo "doctor rc=$?"
node node_modules/.bin/baracuda doctor --json > "$OUT/consumer-doctor.json"
echo "== the addons loaded from"
node -e "
  for (const f of ['baracuda_driver.node', 'baracuda_cudnn.node']) {
    const p = require.resolve('@baracuda/native-linux-x64/package.json').replace('package.json', f);
    require(p); console.log('  ' + p);
  }"
echo "== baracuda demo"
node node_modules/.bin/baracuda demo ${CONSUMER_DEMO_ARGS:-}
echo "demo rc=$?"
