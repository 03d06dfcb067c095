#!/usr/bin/env bash
# The consumer test: what the README promises an npm user, checked from the packed tarballs.
# Packs every package (pack.sh), installs the tarballs with plain npm into a fresh folder outside
# the workspace (no pnpm, no links), then under Node 20 and Node 24:
#   - the README example, verbatim (extract-example.mjs), type-checks with tsc --strict and runs;
#     without a GPU it must end in the documented LibraryNotFoundError with its fixes;
#   - a CommonJS require of every package works;
#   - nccl-sys's probe() without NCCL lists what it searched; with the fake libnccl and fake
#     libcuda (test-only C built here with cc), collectives' initAll + allReduce run;
#   - `npx baracuda --version` and `npx baracuda doctor` run (doctor exits 1 without a GPU).
# Needs `pnpm build`, scripts/native/build-prebuilt.sh x64, and a registry for typescript and
# @types/node (the only packages not from the tarballs). NODE24_BIN: a folder with Node 24's node.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
work="$(mktemp -d /tmp/baracuda-consumer.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "consumer: FAIL: $*" >&2; exit 1; }

echo "-- pack"
bash scripts/consumer/pack.sh "$work/tarballs"
version=$(node -p "require('./packages/conformance/package.json').version")
ls "$work"/tarballs/*.tgz | grep -v native-linux-arm64 > "$work/install-list"
for tarball in "$work"/tarballs/baracuda-*.tgz; do
  listing=$(tar tzf "$tarball")
  for must in package/LICENSE-MIT package/LICENSE-APACHE; do
    grep -qx "$must" <<<"$listing" || fail "$(basename "$tarball") lacks ${must#package/}"
  done
  if grep -E '\.map$|__pycache__|\.pyc$|RESULTS\.md$' <<<"$listing"; then
    fail "$(basename "$tarball") ships source maps, bytecode or the lab notebook"
  fi
done

echo "-- npm install into $work/app"
mkdir -p "$work/app"
cd "$work/app"
npm init -y >/dev/null
npm pkg set type=module
npm install --no-audit --no-fund --loglevel=error $(cat "$work/install-list") >/dev/null
[ -d node_modules/@baracuda/native-linux-x64 ] || fail "npm did not install @baracuda/native-linux-x64"
[ ! -e node_modules/@baracuda/native-linux-arm64 ] || fail "npm installed the arm64 package on x64"
if find node_modules -type l -not -path 'node_modules/.bin/*' | grep -q .; then fail "the install links packages"; fi
npm install --no-audit --no-fund --loglevel=error --no-save typescript@5.9.3 @types/node@20 >/dev/null
node "$repo/scripts/consumer/extract-example.mjs" > example.ts
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "strict": true,
    "target": "ES2022",
    "lib": ["ES2022", "ESNext.Disposable"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "types": ["node"],
    "outDir": "out",
    "skipLibCheck": false
  },
  "files": ["example.ts"]
}
JSON
cat > require-all.cjs <<'JS'
const names = ['types', 'driver', 'cudnn-sys', 'kernels', 'conformance', 'nccl-sys', 'collectives'];
for (const name of names) {
  const loaded = require(`@baracuda/${name}`);
  if (Object.keys(loaded).length === 0) throw new Error(`@baracuda/${name} exported nothing`);
}
const { Conv3dDescriptor } = require('@baracuda/kernels');
const desc = Conv3dDescriptor.create({ batch: 1, cIn: 4, dIn: 8, hIn: 8, wIn: 8, cOut: 4,
  dFilt: 3, hFilt: 3, wFilt: 3, element: 'f32' });
console.log(`require: ${names.length} packages, Conv3dDescriptor ${desc.describe()}`);
JS
# nccl-sys without NCCL: its probe never throws and lists every path it searched; the addon itself
# (from the platform package) loaded. With the fake NCCL and the fake driver (test-only C, built
# here with cc when there is one), collectives' Communicator.initAll + allReduce work end to end.
cat > nccl.mjs <<'JS'
import { probe } from '@baracuda/nccl-sys';
const found = probe();
if (process.env.BARACUDA_NCCL_LIBRARY) {
  if (!found.available) throw new Error(`the fake NCCL did not load: ${found.reason}`);
  const { Device, DeviceBuffer, Stream } = await import('@baracuda/driver');
  const { Communicator } = await import('@baracuda/collectives');
  const devices = [Device.get(0), Device.get(1)];
  const comms = Communicator.initAll(devices);
  const streams = devices.map((d) => Stream.create(d));
  const buffers = devices.map((device, r) => {
    const buffer = DeviceBuffer.alloc(8, { device });
    buffer.uploadSync(new Float32Array([r + 1, 10 * (r + 1)]));
    return buffer;
  });
  comms.forEach((c, r) => c.allReduce(buffers[r], buffers[r], streams[r], { kind: 'f32' }));
  await Promise.all(comms.map((c, r) => c.synchronize(streams[r])));
  const sum = new Float32Array(2);
  buffers[0].downloadSync(sum);
  if (sum[0] !== 3 || sum[1] !== 30) throw new Error(`allReduce gave [${[...sum]}]`);
  for (const c of comms) c.dispose();
  console.log(`nccl: the fake NCCL at ${found.libraryPath}: initAll + allReduce over 2 ranks: [${[...sum]}]`);
} else {
  if (found.available) throw new Error('expected no NCCL here');
  if (found.tried.length === 0) throw new Error('probe() listed no search');
  if (/Could not load baracuda_nccl/.test(String(found.reason))) throw new Error(found.reason);
  console.log(`nccl: probe() without NCCL: searched ${found.tried.length} paths (${found.tried[0].path}, ...)`);
}
JS
fake_dir="$work/fakes"
mkdir -p "$fake_dir"
if command -v cc >/dev/null; then
  cc -shared -fPIC -O1 -o "$fake_dir/libcuda.so.1" "$repo/packages/driver/test/fake-libcuda.c" -ldl
  cc -shared -fPIC -O1 -pthread -o "$fake_dir/libnccl.so.2" \
    "$repo/packages/nccl-sys/native/testing/fake_nccl.c" -ldl
fi

for node_dir in "$(dirname "$(command -v node)")" "${NODE24_BIN:-}"; do
  [ -n "$node_dir" ] || { echo "consumer: NODE24_BIN not set: Node 24 not tested" >&2; continue; }
  export PATH="$node_dir:$PATH"
  echo "-- Node $(node --version)"
  rm -rf out
  npx tsc -p tsconfig.json || fail "the README example does not type-check with tsc --strict"
  set +e
  node out/example.js > run.out 2> run.err
  status=$?
  set -e
  if [ $status -eq 0 ]; then
    echo "the example ran to the end (a GPU is here)"
  else
    grep -q '^LibraryNotFoundError: Could not load libcuda.so.1 (NVIDIA driver).' run.err \
      || { cat run.err >&2; fail "the example did not end in the documented LibraryNotFoundError"; }
    grep -q -- 'In a container, run with `--gpus all`' run.err || fail "the error lacks its fixes"
    grep -q 'BARACUDA_CUDA_DRIVER_LIBRARY' run.err || fail "the error lacks BARACUDA_CUDA_DRIVER_LIBRARY"
    echo "the example ends in the documented LibraryNotFoundError with its fixes (exit $status)"
  fi
  node require-all.cjs
  node nccl.mjs
  if [ -f "$fake_dir/libnccl.so.2" ]; then
    BARACUDA_CUDA_DRIVER_LIBRARY="$fake_dir/libcuda.so.1" FAKE_CUDA_DEVICE_COUNT=2 \
      BARACUDA_NCCL_LIBRARY="$fake_dir/libnccl.so.2" node nccl.mjs
  fi
  got=$(npx baracuda --version)
  [ "$got" = "$version" ] || fail "npx baracuda --version printed '$got', expected $version"
  echo "npx baracuda --version: $got"
  set +e
  npx baracuda doctor > doctor.out 2>&1
  status=$?
  set -e
  grep -q '^baracuda .* doctor' doctor.out || { cat doctor.out >&2; fail "doctor did not report"; }
  if [ $status -ne 0 ]; then
    grep -q 'What to do:' doctor.out || fail "doctor without a GPU does not say what to do"
  fi
  echo "npx baracuda doctor: exit $status ($(grep -c . doctor.out) lines)"
done
echo "-- build from source (no prebuilt): BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild, with cmake-js"
rm -rf node_modules/@baracuda/native-linux-x64
node -e "const p = require('@baracuda/driver').probe(); if (!/Could not load baracuda_driver/.test(p.reason)) process.exit(1)" \
  || fail "the driver addon still loads with the platform package removed"
npm install --no-audit --no-fund --loglevel=error --no-save cmake-js@8.0.0 >/dev/null
BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild @baracuda/driver @baracuda/cudnn-sys @baracuda/nccl-sys \
  >/dev/null 2>&1 || fail "npm rebuild with BARACUDA_BUILD_FROM_SOURCE=1 failed"
for file in driver/build/Release/baracuda_driver.node cudnn-sys/build/Release/baracuda_cudnn.node \
  nccl-sys/build/Release/baracuda_nccl.node; do
  [ -f "node_modules/@baracuda/$file" ] || fail "the build from source made no $file"
done
node -e "
  const driver = require('@baracuda/driver').probe(), cudnn = require('@baracuda/cudnn-sys').probe();
  const nccl = require('@baracuda/nccl-sys').probe();
  for (const reason of [driver.reason, cudnn.reason, nccl.reason]) if (/Could not load baracuda_/.test(String(reason))) process.exit(1);" \
  || fail "the addons built from source do not load"
echo "built the three addons from source with the headers that came with the packages; they load"
echo "consumer: ok"
