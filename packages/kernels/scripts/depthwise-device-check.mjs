#!/usr/bin/env node
// Device check of the NCDHW depthwise kernels (cuda/depthwise.cu → src/depthwise-ptx.ts), run on
// the GPU machine (bundled by scripts/device/pack.sh):
//   node depthwise-device-check.mjs
// For every element kind, both passes and odd shapes (chunks of output depths, a reach in depth of
// up to 8, tiles cut at every edge), fills the operands with fresh random values, poisons the
// output, runs the launch on the GPU and compares it with depthwiseHost in f64 (relative L2 over
// the inputs as rounded to the element), also with alpha = 2, beta = 0.5 on a random prior output,
// and with the chunk and rows the timing below tries; backward-filter (wgrad) too. Then times X3D's layer (n 8, c 192,
// 16×28×28, 3×3×3) on the tiled kernel at several chunks and rows, against a device-to-device
// copy of x (median of 30 calls between plain events). Exit code 1 on any mismatch.
// DEPTHWISE_PTX_VARIANTS (label=path.ptx,...) times other builds of cuda/depthwise.cu on X3D's
// layer next to the built-in one: an A/B in one run.
import { readFileSync } from 'node:fs';
import { DeviceBuffer, Module, Stream } from '../../driver/dist/index.js';
import { ElementKind } from '../../types/dist/index.js';
import {
  DepthwiseKernels,
  depthwiseHost,
  depthwiseLaunch,
  depthwiseUnsupported,
} from '../src/depthwise.ts';
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { elementArray, eventTimer, loadElement, relL2, storeElement } from './device-helpers.mjs';

const stream = Stream.create();
const device = stream.device;
const kernels = DepthwiseKernels.forDevice(device);
if (kernels instanceof Error) {
  console.log(`FAIL: the depthwise kernels did not load: ${kernels.message}`);
  process.exit(1);
}
let failures = 0;

const ELEMENTS = {
  f32: { kind: ElementKind.F32, bytes: 4, tol: 1e-5 },
  f64: { kind: ElementKind.F64, bytes: 8, tol: 1e-12 },
  f16: { kind: ElementKind.F16, bytes: 2, tol: 2e-3 },
  bf16: { kind: ElementKind.Bf16, bytes: 2, tol: 1.6e-2 },
};

/** Random values in [-1, 1) as the element's bytes, and their values as rounded (f64). */
function operand(element, count) {
  const host = elementArray(element, count);
  const values = Float64Array.from({ length: count }, (_, i) =>
    storeElement(element, host, i, Math.random() * 2 - 1),
  );
  return { host, values };
}

function desc(t, element) {
  const [pd, ph, pw] = t.pad ?? [0, 0, 0];
  const [sd, sh, sw] = t.stride ?? [1, 1, 1];
  const [dd, dh, dw] = t.dil ?? [1, 1, 1];
  return Conv3dDescriptor.create({
    batch: t.n ?? 1,
    cIn: t.c,
    cOut: t.c,
    dIn: t.in[0],
    hIn: t.in[1],
    wIn: t.in[2],
    dFilt: t.k[0],
    hFilt: t.k[1],
    wFilt: t.k[2],
    element,
  })
    .withPadding(pd, ph, pw)
    .withStride(sd, sh, sw)
    .withDilation(dd, dh, dw)
    .withGroups(t.c);
}

const shapes = [
  { c: 3, n: 2, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [3, 37, 70], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [5, 9, 11], k: [3, 3, 3], pad: [2, 2, 2], dil: [2, 2, 2] },
  { c: 3, in: [4, 6, 9], k: [1, 3, 5], pad: [0, 1, 3] },
  { c: 1, in: [33, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [17, 4, 5], k: [4, 3, 3], pad: [3, 1, 1], dil: [2, 1, 1] },
  { c: 2, in: [4, 3, 3], k: [2, 3, 3], pad: [1, 1, 1] },
  { c: 3, in: [9, 12, 13], k: [5, 5, 5], pad: [2, 2, 2] },
  { c: 4, n: 2, in: [64, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [3, 4, 5], k: [3, 3, 3], pad: [3, 1, 1] },
  { c: 4, n: 3, in: [7, 8, 9], k: [3, 3, 3], pad: [1, 1, 1], stride: [2, 2, 2] },
  { c: 2, in: [9, 7, 10], k: [3, 2, 3], pad: [2, 0, 1], stride: [2, 1, 2], dil: [2, 1, 1] },
  { c: 300, n: 2, in: [5, 9, 9], k: [3, 3, 3], pad: [1, 1, 1] },
];

for (const [name, el] of Object.entries(ELEMENTS)) {
  for (const shape of shapes) {
    const d = desc(shape, el.kind);
    for (const pass of ['fw', 'bwData', 'bwFilter']) {
      if (depthwiseUnsupported(d, pass) !== null) continue;
      const base = depthwiseLaunch(d, pass);
      const launches = [base];
      if (base.kernel === 'tiled') {
        launches.push(
          depthwiseLaunch(d, pass, { chunk: 1, rows: 1 }),
          depthwiseLaunch(d, pass, { chunk: 3, rows: 2 }),
        );
      }
      // The launch's operands: in, w (dy for bwFilter), out.
      const [inCount, wCount, outCount] = {
        fw: [d.xElements, d.wElements, d.yElements],
        bwData: [d.yElements, d.wElements, d.xElements],
        bwFilter: [d.xElements, d.yElements, d.wElements],
      }[pass];
      for (const launch of launches) {
        for (const [alpha, beta] of [
          [1, 0],
          [2, 0.5],
        ]) {
          const input = operand(name, inCount);
          const w = operand(name, wCount);
          const prior = operand(name, outCount);
          const bufs = [inCount, wCount, outCount].map((n) => DeviceBuffer.alloc(n * el.bytes));
          bufs[0].uploadSync(input.host);
          bufs[1].uploadSync(w.host);
          if (beta === 0) bufs[2].memsetSync(0xff);
          else bufs[2].uploadSync(prior.host);
          kernels
            .call(launch, el.kind)
            .run(stream, bufs[0].devicePtr, bufs[1].devicePtr, bufs[2].devicePtr, alpha, beta);
          stream.synchronizeSync();
          const got = elementArray(name, outCount);
          bufs[2].downloadSync(got);
          const want = depthwiseHost(
            launch,
            input.values,
            w.values,
            Float64Array.from(prior.values),
            alpha,
            beta,
          );
          const err = relL2(
            Float64Array.from(got, (_, i) => loadElement(name, got, i)),
            want,
          );
          const what = `${name} ${pass} ${launch.kernel}${launch.span ?? ''} c=${shape.c} in=${shape.in} k=${shape.k} pad=${shape.pad ?? 0} dil=${shape.dil ?? 1} grid=${launch.grid} ints-tail=${launch.ints.slice(-2)} alpha=${alpha} beta=${beta}`;
          if (!(err <= el.tol)) {
            failures++;
            console.log(`FAIL ${what}: rel L2 ${err}`);
          } else {
            console.log(`PASS ${what}: rel L2 ${err.toExponential(2)}`);
          }
          for (const b of bufs) b.dispose();
        }
      }
    }
  }
}

const time = eventTimer(stream, { warmup: 5 });

const x3d = { c: 192, n: 8, in: [16, 28, 28], k: [3, 3, 3], pad: [1, 1, 1] };
const builds = [['built-in', kernels]];
for (const spec of (process.env.DEPTHWISE_PTX_VARIANTS ?? '').split(',').filter(Boolean)) {
  const [label, path] = spec.split('=');
  DepthwiseKernels.resetForTests();
  const k = DepthwiseKernels.forDevice(device, (_ptx, dev) =>
    Module.load(readFileSync(path, 'utf8'), dev),
  );
  if (k instanceof Error) {
    failures++;
    console.log(`FAIL: PTX variant ${label} did not load: ${k.message}`);
  } else builds.push([label, k]);
}
for (const [name, el] of Object.entries(ELEMENTS)) {
  const d = desc(x3d, el.kind);
  const bytes = d.xElements * el.bytes;
  const a = DeviceBuffer.alloc(bytes);
  const b = DeviceBuffer.alloc(bytes);
  const w = DeviceBuffer.alloc(d.wElements * el.bytes);
  a.uploadSync(operand(name, d.xElements).host);
  w.uploadSync(operand(name, d.wElements).host);
  const copy = time(() => b.copyFrom({ devicePtr: a.devicePtr, byteLength: bytes }, stream));
  const line = [`TIME x3d ${name} copy of x ${copy.toFixed(4)} ms`];
  for (const pass of ['fw', 'bwData']) {
    const base = depthwiseLaunch(d, pass);
    const tries = [['default', base]];
    for (const [chunk, rows] of [
      [8, 4],
      [16, 2],
    ]) {
      tries.push([`chunk ${chunk} rows ${rows}`, depthwiseLaunch(d, pass, { chunk, rows })]);
    }
    for (const [build, k] of builds) {
      for (const [what, launch] of tries) {
        const call = k.call(launch, el.kind);
        const ms = time(() => call.run(stream, a.devicePtr, w.devicePtr, b.devicePtr, 1, 0));
        line.push(`${pass} ${build} ${what} (grid ${launch.grid.join('x')}): ${ms.toFixed(4)} ms`);
      }
    }
  }
  // Backward-filter (x, dy → dw), built-in kernels only; dy is x's size here (stride 1, pad 1).
  const wgrad = kernels.call(depthwiseLaunch(d, 'bwFilter'), el.kind);
  const ms = time(() => wgrad.run(stream, a.devicePtr, b.devicePtr, w.devicePtr, 1, 0));
  line.push(`bwFilter wgrad (grid ${d.cIn}): ${ms.toFixed(4)} ms`);
  console.log(line.join('\n  '));
  a.dispose();
  b.dispose();
  w.dispose();
}
// Backward-filter with few channels: a block each (autotune weighs it against cuDNN).
for (const shape of [
  { c: 32, n: 2, in: [32, 64, 64], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 64, n: 4, in: [16, 56, 56], k: [3, 3, 3], pad: [1, 1, 1] },
]) {
  for (const name of ['f32', 'bf16']) {
    const el = ELEMENTS[name];
    const d = desc(shape, el.kind);
    const [x, dy, dw] = [d.xElements, d.yElements, d.wElements].map((n) =>
      DeviceBuffer.alloc(n * el.bytes),
    );
    x.uploadSync(operand(name, d.xElements).host);
    dy.uploadSync(operand(name, d.yElements).host);
    const call = kernels.call(depthwiseLaunch(d, 'bwFilter'), el.kind);
    const ms = time(() => call.run(stream, x.devicePtr, dy.devicePtr, dw.devicePtr, 1, 0));
    console.log(`TIME wgrad ${name} c=${shape.c} n=${shape.n} in=${shape.in}: ${ms.toFixed(4)} ms`);
    for (const buf of [x, dy, dw]) buf.dispose();
  }
}
console.log(
  failures === 0
    ? 'depthwise device check: all passed'
    : `depthwise device check: ${failures} FAILED`,
);
process.exit(failures === 0 ? 0 : 1);
