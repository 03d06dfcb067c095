#!/usr/bin/env node
// Device check of the depthwise kernels (cuda/depthwise.cu → src/depthwise-ptx.ts), run on the
// GPU machine (bundled by scripts/device/pack.sh; session.sh phase `depthwise`):
//   node depthwise-device-check.mjs
// 1. Exactness: every element kind × layout × pass on odd shapes (chunks of output depths, a
//    reach in depth of up to 8, tiles cut at every edge, strides, 40 and 300 channels, batch 1 cut
//    into slices): fresh random operands, the output poisoned (0xff bytes: NaN), the launch on the
//    GPU against depthwiseHost in f64 (relative L2 over the inputs as rounded to the element), also
//    with alpha = 2, beta = 0.5 on a random prior output, and the tiled kernel at other chunks and
//    rows. Backward-filter (two passes through a workspace) also runs twice on a poisoned output
//    and must be bit-identical.
// 2. Timing on X3D's layer (n 8, c 192, 16×28×28, 3×3×3, pad 1), every element and layout: ours
//    per pass, and cuDNN's heuristic and autotuned choice (our kernels unloaded, so the plans
//    take cuDNN; autotune into a temporary cache) for backward-filter (DEPTHWISE_CUDNN_PASSES
//    widens it), CUDA events, the median of 30 calls in each of 3 rounds; the suite's shapes are
//    shared/bench/conv3d-suite.json's x3d-depthwise. X3D's backward-filter is checked bit-identical
//    run to run at full size, and in NCDHW against f64 (wgrad-x3d-check.mjs) on the default pass 1
//    (wgradrow) and the others (wgrad, wgradrow at 4,096 blocks), all timed. cuDNN's autotune stops once DEPTHWISE_BUDGET_S (100) has passed.
// DEPTHWISE_PTX_VARIANTS (label=path.ptx,...) times other builds of cuda/depthwise.cu on X3D's
// layer next to the built-in one: an A/B in one run. Exit code 1 on any mismatch.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceBuffer, Module, Stream } from '../../driver/dist/index.js';
import { ElementKind } from '../../types/dist/index.js';
import {
  DepthwiseKernels,
  depthwiseHost,
  depthwiseLaunch,
  depthwiseUnsupported,
} from '../src/depthwise.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { desc, filler, operand } from './depthwise-operands.mjs';
import { elementArray, eventTimer, loadElement, relL2 } from './device-helpers.mjs';
import { checkWgrad, directDw } from './wgrad-x3d-check.mjs';

const started = Date.now();
const budgetS = Number(process.env.DEPTHWISE_BUDGET_S ?? 100);
const stream = Stream.create();
const device = stream.device;
const kernels = DepthwiseKernels.forDevice(device);
if (kernels instanceof Error) {
  console.log(`FAIL: the depthwise kernels did not load: ${kernels.message}`);
  process.exit(1);
}
let failures = 0;
let passes = 0;

const ELEMENTS = {
  f32: { kind: ElementKind.F32, bytes: 4, tol: 1e-5 },
  f64: { kind: ElementKind.F64, bytes: 8, tol: 1e-12 },
  f16: { kind: ElementKind.F16, bytes: 2, tol: 2e-3 },
  bf16: { kind: ElementKind.Bf16, bytes: 2, tol: 1.6e-2 },
};

const shapes = [
  { c: 3, n: 2, in: [4, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [3, 37, 70], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [5, 9, 11], k: [3, 3, 3], pad: [2, 2, 2], dil: [2, 2, 2] },
  { c: 3, in: [4, 6, 9], k: [1, 3, 5], pad: [0, 1, 3] },
  { c: 1, in: [33, 5, 6], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 2, in: [17, 4, 5], k: [4, 3, 3], pad: [3, 1, 1], dil: [2, 1, 1] },
  { c: 2, in: [4, 3, 3], k: [2, 3, 3], pad: [1, 1, 1] },
  { c: 3, in: [9, 12, 13], k: [5, 5, 5], pad: [2, 2, 2] },
  { c: 4, n: 2, in: [64, 28, 28], k: [3, 3, 3], pad: [1, 1, 1], only: 'ncdhw' },
  { c: 2, in: [3, 4, 5], k: [3, 3, 3], pad: [3, 1, 1] },
  { c: 4, n: 3, in: [7, 8, 9], k: [3, 3, 3], pad: [1, 1, 1], stride: [2, 2, 2] },
  { c: 2, in: [9, 7, 10], k: [3, 2, 3], pad: [2, 0, 1], stride: [2, 1, 2], dil: [2, 1, 1] },
  { c: 300, n: 2, in: [5, 9, 9], k: [3, 3, 3], pad: [1, 1, 1], only: 'ndhwc' },
  { c: 40, n: 3, in: [6, 7, 9], k: [3, 3, 3], pad: [1, 1, 1], only: 'ndhwc' },
  { c: 2, in: [16, 40, 48], k: [3, 3, 3], pad: [1, 1, 1] },
];

for (const [name, el] of Object.entries(ELEMENTS)) {
  // A shape with `only` checks what it is for in one layout (the host's tiled emulation is slow).
  for (const [shape, layout] of shapes.flatMap((t) =>
    t.only
      ? [[t, t.only]]
      : [
          [t, 'ncdhw'],
          [t, 'ndhwc'],
        ],
  )) {
    const d = desc(shape, el.kind, layout);
    for (const pass of ['fw', 'bwData', 'bwFilter']) {
      if (depthwiseUnsupported(d, pass) !== null) continue;
      const base = depthwiseLaunch(d, pass);
      const launches = [base];
      // The other NCDHW backward-filter pass-1 kernels where the shape takes them.
      if (pass === 'bwFilter') {
        for (const kernel of ['wgrad', 'wgradrow']) {
          const other = depthwiseLaunch(d, pass, { wgrad: { kernel } });
          if (other.kernel === kernel && base.kernel !== kernel) launches.push(other);
        }
      }
      // Other chunks and rows of the tiled kernel (its geometry) in one 4- and one 2-byte element.
      if (base.kernel === 'tiled' && (name === 'f32' || name === 'bf16')) {
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
          const ws = DeviceBuffer.alloc(Math.max(1, launch.workspaceBytes));
          ws.memsetSync(0xff);
          bufs[0].uploadSync(input.host);
          bufs[1].uploadSync(w.host);
          const call = kernels.call(launch, el.kind);
          const runOnce = () => {
            if (beta === 0) bufs[2].memsetSync(0xff);
            else bufs[2].uploadSync(prior.host);
            call.run(
              stream,
              bufs[0].devicePtr,
              bufs[1].devicePtr,
              bufs[2].devicePtr,
              alpha,
              beta,
              ws.devicePtr,
            );
            stream.synchronizeSync();
            const out = elementArray(name, outCount);
            bufs[2].downloadSync(out);
            return out;
          };
          const got = runOnce();
          // Backward-filter: a second run on a poisoned output must give the same bits.
          const again = pass === 'bwFilter' ? runOnce() : got;
          const same = Buffer.from(got.buffer).equals(Buffer.from(again.buffer));
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
          const what = `${name} ${layout} ${pass} ${launch.kernel}${launch.span ?? ''} c=${shape.c} n=${shape.n ?? 1} in=${shape.in} k=${shape.k} pad=${shape.pad ?? 0} stride=${shape.stride ?? 1} dil=${shape.dil ?? 1} grid=${launch.grid} ints-tail=${launch.ints.slice(-2)} alpha=${alpha} beta=${beta}`;
          if (!(err <= el.tol) || !same) {
            failures++;
            console.log(`FAIL ${what}: rel L2 ${err}${same ? '' : ', two runs differ'}`);
          } else {
            passes++;
            console.log(
              `PASS ${what}: rel L2 ${err.toExponential(2)}${pass === 'bwFilter' ? ', two runs bit-identical' : ''}`,
            );
          }
          for (const b of [...bufs, ws]) b.dispose();
        }
      }
    }
  }
}

const time = eventTimer(stream, { warmup: 5 });
/** The median of 3 rounds of `time(run)` (each the median of 30 calls), and the rounds. */
function rounds(run, timer = time) {
  const r = [0, 1, 2].map(() => timer(run));
  const median = [...r].sort((x, y) => x - y)[1];
  return {
    ms: median,
    text: `${median.toFixed(4)} ms (rounds ${r.map((v) => v.toFixed(4)).join(' ')})`,
  };
}

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
/** X3D's operands in one element and layout: x, w, y-sized, workspace; freed by dispose(). */
function x3dOperands(name, layout) {
  const el = ELEMENTS[name];
  const d = desc(x3d, el.kind, layout);
  const [x, w, y] = [d.xElements, d.wElements, d.yElements].map((n) =>
    DeviceBuffer.alloc(n * el.bytes),
  );
  const hosts = { x: filler(name, d.xElements), y: filler(name, d.yElements) };
  x.uploadSync(hosts.x);
  w.uploadSync(filler(name, d.wElements));
  y.uploadSync(hosts.y);
  const bytes = ['wgrad', 'wgradrow'].map((kernel) =>
    depthwiseLaunch(d, 'bwFilter', { wgrad: { kernel, rowBlocks: 4096 } }),
  );
  const ws = DeviceBuffer.alloc(Math.max(1, ...bytes.map((l) => l.workspaceBytes)));
  return {
    d,
    hosts,
    el,
    x,
    w,
    y,
    ws,
    dispose: () => {
      for (const b of [x, w, y, ws]) b.dispose();
    },
  };
}
const LAYOUTS = ['ncdhw', 'ndhwc'];
for (const [name, el] of Object.entries(ELEMENTS)) {
  for (const layout of LAYOUTS) {
    const o = x3dOperands(name, layout);
    const line = [`TIME x3d ${name} ${layout} ours`];
    for (const pass of ['fw', 'bwData', 'bwFilter']) {
      const base = depthwiseLaunch(o.d, pass);
      const tries = [['default', base]];
      // The NDHWC kernel that gathers every tap (clvec) beside the one that marches (A/B).
      if (base.kernel === 'clmarch')
        tries.push(['clvec', depthwiseLaunch(o.d, pass, { march: false })]);
      // The other NCDHW backward-filter pass-1 kernels beside the default (A/B), and wgradrow
      // aiming for 4,096 blocks (its default 1,024).
      if (pass === 'bwFilter') {
        for (const [label, choice] of [
          ['wgrad', { kernel: 'wgrad' }],
          ['row 4096', { kernel: 'wgradrow', rowBlocks: 4096 }],
        ]) {
          const other = depthwiseLaunch(o.d, pass, { wgrad: choice });
          if (other.kernel === choice.kernel) tries.push([label, other]);
        }
      }
      if (base.kernel === 'tiled') {
        for (const [chunk, rows] of [
          [8, 4],
          [16, 2],
        ]) {
          tries.push([`chunk ${chunk} rows ${rows}`, depthwiseLaunch(o.d, pass, { chunk, rows })]);
        }
      }
      const [input, w, out] = {
        fw: [o.x, o.w, o.y],
        bwData: [o.y, o.w, o.x],
        bwFilter: [o.x, o.y, o.w],
      }[pass];
      for (const [build, k] of builds) {
        for (const [what, launch] of tries) {
          const call = k.call(launch, el.kind);
          const t = rounds(() =>
            call.run(stream, input.devicePtr, w.devicePtr, out.devicePtr, 1, 0, o.ws.devicePtr),
          );
          line.push(
            `${pass} ${build} ${launch.kernel} ${what} (grid ${launch.grid.join('x')}${launch.workspaceBytes ? `, workspace ${launch.workspaceBytes} B` : ''}): ${t.text}`,
          );
        }
      }
      if (pass === 'bwFilter') {
        // Full size, run to run: the same bits.
        const call = kernels.call(base, el.kind);
        const bits = () => {
          out.memsetSync(0xff);
          call.run(stream, input.devicePtr, w.devicePtr, out.devicePtr, 1, 0, o.ws.devicePtr);
          stream.synchronizeSync();
          const host = new Uint8Array(o.d.wElements * el.bytes);
          out.downloadSync(host);
          return Buffer.from(host);
        };
        const same = bits().equals(bits());
        if (same) passes++;
        else failures++;
        line.push(
          `${same ? 'PASS' : 'FAIL'} bwFilter two runs ${same ? 'bit-identical' : 'differ'}`,
        );
        if (layout === 'ncdhw') {
          const v = (h) => Float64Array.from(h, (_, i) => loadElement(name, h, i));
          const want = directDw(o.d, v(o.hosts.x), v(o.hosts.y));
          const r = checkWgrad(
            kernels,
            stream,
            o,
            name,
            tries.map(([, l]) => l),
            want,
          );
          failures += r.failed;
          passes += r.lines.length - r.failed;
          line.push(...r.lines);
        }
      }
    }
    console.log(line.join('\n  '));
    o.dispose();
  }
}

// Backward-filter with few channels or a small batch (the slices must still fill the GPU).
for (const shape of [
  { c: 32, n: 2, in: [32, 64, 64], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 64, n: 4, in: [16, 56, 56], k: [3, 3, 3], pad: [1, 1, 1] },
  { c: 24, n: 1, in: [16, 56, 56], k: [3, 3, 3], pad: [1, 1, 1] },
]) {
  for (const name of ['f32', 'bf16']) {
    for (const layout of LAYOUTS) {
      const el = ELEMENTS[name];
      const d = desc(shape, el.kind, layout);
      // The default pass 1 and the other NCDHW ones (A/B), where the shape takes them.
      const base = depthwiseLaunch(d, 'bwFilter');
      const others = ['wgrad']
        .map((kernel) => depthwiseLaunch(d, 'bwFilter', { wgrad: { kernel } }))
        .filter((l) => l.kernel !== base.kernel);
      for (const launch of [base, ...others]) {
        const [x, dy, dw, ws] = [
          d.xElements * el.bytes,
          d.yElements * el.bytes,
          d.wElements * el.bytes,
          launch.workspaceBytes,
        ].map((bytes) => DeviceBuffer.alloc(bytes));
        x.uploadSync(filler(name, d.xElements));
        dy.uploadSync(filler(name, d.yElements));
        const call = kernels.call(launch, el.kind);
        const t = rounds(() =>
          call.run(stream, x.devicePtr, dy.devicePtr, dw.devicePtr, 1, 0, ws.devicePtr),
        );
        console.log(
          `TIME ${launch.kernel} ${name} ${layout} c=${shape.c} n=${shape.n} in=${shape.in} (grid ${launch.grid.join('x')}): ${t.text}`,
        );
        for (const b of [x, dy, dw, ws]) b.dispose();
      }
    }
  }
}

// The verdict so far, in case the phase's limit cuts cuDNN's timing short.
console.log(
  `depthwise: ${passes} passed, ${failures} failed (exactness and determinism; cuDNN's timing follows)`,
);

// cuDNN on the same layer: our kernels unloaded, so every plan takes cuDNN (its heuristic engine
// can take 40–50 ms a call here: fewer calls a round).
const slowTime = eventTimer(stream, { warmup: 2, reps: 10 });
DepthwiseKernels.resetForTests();
DepthwiseKernels.forDevice(device, () => {
  throw new Error('unloaded by the device check to time cuDNN');
});
process.removeAllListeners('warning');
const cachePath = join(mkdtempSync(join(tmpdir(), 'depthwise-check-')), 'autotune.json');
const cudnnPasses = (process.env.DEPTHWISE_CUDNN_PASSES ?? 'bwFilter').split(',');
const RUN = {
  fw: (p, o) => p.runFw({ x: o.x, w: o.w, y: o.y, stream }),
  bwData: (p, o) => p.runBwData({ dy: o.y, w: o.w, dx: o.x, stream }),
  bwFilter: (p, o) => p.runDw({ x: o.x, dy: o.y, dw: o.w, stream }),
};
for (const [name, layout] of [
  ['f32', 'ncdhw'],
  ['f64', 'ncdhw'],
  ['f16', 'ncdhw'],
  ['bf16', 'ncdhw'],
  ['f16', 'ndhwc'],
  ['bf16', 'ndhwc'],
  ['f32', 'ndhwc'],
]) {
  const o = x3dOperands(name, layout);
  const line = [`TIME x3d ${name} ${layout} cuDNN`];
  for (const algorithm of ['heuristic', 'autotune']) {
    if (algorithm === 'autotune' && (Date.now() - started) / 1000 > budgetS) {
      line.push(`SKIP autotune: the check's ${budgetS} s budget has passed`);
      continue;
    }
    let plan;
    try {
      plan = await Conv3dPlan.select(
        stream,
        o.d,
        { algorithm },
        { passes: cudnnPasses, autotuneCachePath: cachePath, onProgress: () => {} },
      );
      for (const pass of cudnnPasses) {
        const t = rounds(() => RUN[pass](plan, o), slowTime);
        line.push(`${pass} ${algorithm} ${plan.algorithm(pass).name}: ${t.text}`);
      }
    } catch (error) {
      line.push(`${algorithm}: not timed (${error.message})`);
    } finally {
      plan?.dispose();
    }
  }
  console.log(line.join('\n  '));
  o.dispose();
}
rmSync(cachePath, { force: true });
console.log(`depthwise device check: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`depthwise: ${passes} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
