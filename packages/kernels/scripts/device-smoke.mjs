#!/usr/bin/env node
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
// Device smoke test for @baracuda/kernels (run on the GPU machine after `pnpm build`):
//   node packages/kernels/scripts/device-smoke.mjs [--quick]
// For f32/f16/bf16/f64 × ncdhw/ndhwc × heuristic/pinned it runs a tiny fw / bwData / bwFilter,
// checks each against a naive f64 CPU convolution (relative L2 error), prints algorithm(pass),
// and measures the per-run host overhead of runFw (1,000 calls without sync, µs per call)
// for heuristic vs pinned. Exit code 1 if any check fails unexpectedly.
import { Conv3dDescriptor, Conv3dPlan } from '../dist/index.js';
import { elementArray, loadElement, relL2, storeElement } from './device-helpers.mjs';

const quick = process.argv.includes('--quick');
const stream = Stream.create();
let failures = 0;

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

/** Host values (f64, rounded to the element) + device bytes, laid out per the descriptor's strides. */
function makeTensor(element, shape, strides, random) {
  const n = shape.reduce((a, b) => a * b, 1);
  const logical = new Float64Array(n);
  const bytes = { f64: 8, f32: 4, f16: 2, bf16: 2 }[element];
  const host = elementArray(element, n);
  let i = 0;
  for (let a = 0; a < shape[0]; a++)
    for (let b = 0; b < shape[1]; b++)
      for (let c = 0; c < shape[2]; c++)
        for (let d = 0; d < shape[3]; d++)
          for (let e = 0; e < shape[4]; e++) {
            const off =
              a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3] + e * strides[4];
            logical[i++] = storeElement(element, host, off, random());
          }
  const buffer = DeviceBuffer.alloc(n * bytes);
  buffer.uploadSync(host);
  return { buffer, logical, host, n, shape, strides };
}

function download(element, t) {
  const host = elementArray(element, t.n);
  t.buffer.downloadSync(host);
  const out = new Float64Array(t.n);
  const [A, B, Cc, D, E] = t.shape;
  const s = t.strides;
  let i = 0;
  for (let a = 0; a < A; a++)
    for (let b = 0; b < B; b++)
      for (let c = 0; c < Cc; c++)
        for (let d = 0; d < D; d++)
          for (let e = 0; e < E; e++) {
            const off = a * s[0] + b * s[1] + c * s[2] + d * s[3] + e * s[4];
            out[i++] = loadElement(element, host, off);
          }
  return out;
}

/** Naive direct cross-correlation in f64: returns y, dx (for given dy) and dw (for given dy). */
function reference(desc, x, w, dy) {
  const [N, C, D, H, W] = desc.xShape;
  const [K, Cg, KD, KH, KW] = desc.wShape;
  const [, , OD, OH, OW] = desc.yShape;
  const g = desc.groups;
  const Kg = K / g;
  const y = new Float64Array(desc.yElements);
  const dx = new Float64Array(desc.xElements);
  const dw = new Float64Array(desc.wElements);
  const xi = (n, c, d, h, ww) => (((n * C + c) * D + d) * H + h) * W + ww;
  const wi = (k, c, d, h, ww) => (((k * Cg + c) * KD + d) * KH + h) * KW + ww;
  const yi = (n, k, d, h, ww) => (((n * K + k) * OD + d) * OH + h) * OW + ww;
  for (let n = 0; n < N; n++)
    for (let k = 0; k < K; k++) {
      const grp = Math.floor(k / Kg);
      for (let od = 0; od < OD; od++)
        for (let oh = 0; oh < OH; oh++)
          for (let ow = 0; ow < OW; ow++) {
            let acc = 0;
            const gy = dy[yi(n, k, od, oh, ow)];
            for (let c = 0; c < Cg; c++)
              for (let kd = 0; kd < KD; kd++) {
                const id = od * desc.strideD - desc.padD + kd * desc.dilationD;
                if (id < 0 || id >= D) continue;
                for (let kh = 0; kh < KH; kh++) {
                  const ih = oh * desc.strideH - desc.padH + kh * desc.dilationH;
                  if (ih < 0 || ih >= H) continue;
                  for (let kw = 0; kw < KW; kw++) {
                    const iw = ow * desc.strideW - desc.padW + kw * desc.dilationW;
                    if (iw < 0 || iw >= W) continue;
                    const xIdx = xi(n, grp * Cg + c, id, ih, iw);
                    const wIdx = wi(k, c, kd, kh, kw);
                    acc += x[xIdx] * w[wIdx];
                    dx[xIdx] += gy * w[wIdx];
                    dw[wIdx] += gy * x[xIdx];
                  }
                }
              }
            y[yi(n, k, od, oh, ow)] = acc;
          }
    }
  return { y, dx, dw };
}

const TOL = { f64: 1e-12, f32: 1e-5, f16: 5e-3, bf16: 3e-2 };

/** A layer: batch, channels in/out, extents, filter, padding, stride, dilation, groups. */
function layer(element, layout, l) {
  return Conv3dDescriptor.create({
    batch: l.n,
    cIn: l.c[0],
    dIn: l.in[0],
    hIn: l.in[1],
    wIn: l.in[2],
    cOut: l.c[1],
    dFilt: l.k[0],
    hFilt: l.k[1],
    wFilt: l.k[2],
    element,
  })
    .withPadding(...l.pad)
    .withStride(...l.stride)
    .withDilation(...l.dil)
    .withGroups(l.groups)
    .withLayout(layout);
}
const SMOKE_LAYER = {
  n: 2,
  c: [8, 16],
  in: [6, 7, 8],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 2, 1],
  dil: [1, 1, 1],
  groups: 2,
};
/** Stride 1, grouped, an asymmetric filter, padding and dilation: backward-data as a forward pass applies. */
const AS_FORWARD_LAYER = {
  n: 2,
  c: [8, 12],
  in: [5, 6, 7],
  k: [3, 2, 3],
  pad: [1, 0, 2],
  stride: [1, 1, 1],
  dil: [1, 1, 2],
  groups: 4,
};

async function one(element, layout, algorithm) {
  const desc = layer(element, layout, SMOKE_LAYER);
  const tag = `${element.padEnd(4)} ${layout} ${algorithm.padEnd(9)}`;
  let plan;
  try {
    plan = await Conv3dPlan.select(stream, desc, { algorithm });
  } catch (error) {
    console.log(`${tag} select: ${error.name}: ${error.message.split('\n')[0]}`);
    if (error.name !== 'UnsupportedError') failures++;
    return;
  }
  const r = rng(1234);
  const x = makeTensor(element, desc.xShape, desc.xStrides, r);
  const w = makeTensor(element, desc.wShape, desc.wStrides, r);
  const dy = makeTensor(element, desc.yShape, desc.yStrides, r);
  const y = makeTensor(element, desc.yShape, desc.yStrides, () => Number.NaN); // poisoned
  const dx = makeTensor(element, desc.xShape, desc.xStrides, () => Number.NaN);
  const dw = makeTensor(element, desc.wShape, desc.wStrides, () => Number.NaN);
  const ref = reference(desc, x.logical, w.logical, dy.logical);
  const passes = [
    ['fw', () => plan.runFw({ x: x.buffer, w: w.buffer, y: y.buffer }), y, ref.y],
    ['bwData', () => plan.runBwData({ w: w.buffer, dy: dy.buffer, dx: dx.buffer }), dx, ref.dx],
    ['bwFilter', () => plan.runDw({ x: x.buffer, dy: dy.buffer, dw: dw.buffer }), dw, ref.dw],
  ];
  for (const [pass, run, out, want] of passes) {
    try {
      run();
      stream.synchronizeSync();
      const err = relL2(download(element, out), want);
      const ok = err <= TOL[element];
      if (!ok) failures++;
      const a = plan.algorithm(pass);
      console.log(
        `${tag} ${pass.padEnd(8)} ${ok ? 'ok  ' : 'FAIL'} relL2=${err.toExponential(2)} ${a.path} ${a.name} ws=${a.workspaceBytes} notes=[${a.numericalNotes.join(',')}] det=${a.deterministic} math=${a.mathPrecision}`,
      );
    } catch (error) {
      console.log(`${tag} ${pass.padEnd(8)} ${error.name}: ${error.message.split('\n')[0]}`);
      if (error.name !== 'UnsupportedError') failures++;
    }
  }
  // beta = 1 accumulates: y = conv + y  → 2*conv
  try {
    plan.runFw({ x: x.buffer, w: w.buffer, y: y.buffer, beta: 1 });
    stream.synchronizeSync();
    const err = relL2(
      download(element, y),
      ref.y.map((v) => 2 * v),
    );
    const ok = err <= TOL[element] * 2;
    if (!ok) failures++;
    console.log(`${tag} fw beta=1 ${ok ? 'ok  ' : 'FAIL'} relL2=${err.toExponential(2)}`);
  } catch (error) {
    console.log(`${tag} fw beta=1 ${error.name}: ${error.message.split('\n')[0]}`);
  }
  console.log(`${tag} sku: ${JSON.stringify(plan.sku())}`);
  for (const t of [x, w, dy, y, dx, dw]) t.buffer.dispose();
  plan.dispose();
}

/**
 * Backward-data as a forward pass on the flipped filter (`bwDataAsForward: 'always'`) of a
 * stride-1 grouped layer: beta 0 into a poisoned dx, then alpha 0.5 and beta 1 on top of it
 * (dx = 0.5 * conv + dx = 1.5 * conv), each against the CPU reference.
 */
async function asForward(element, layout) {
  const desc = layer(element, layout, AS_FORWARD_LAYER);
  const tag = `${element.padEnd(4)} ${layout} as-forward`;
  const plan = await Conv3dPlan.select(stream, desc, undefined, { bwDataAsForward: 'always' });
  const r = rng(99);
  const x = makeTensor(element, desc.xShape, desc.xStrides, r);
  const w = makeTensor(element, desc.wShape, desc.wStrides, r);
  const dy = makeTensor(element, desc.yShape, desc.yStrides, r);
  const dx = makeTensor(element, desc.xShape, desc.xStrides, () => Number.NaN);
  const ref = reference(desc, x.logical, w.logical, dy.logical);
  const name = plan.algorithm('bwData').name;
  const runs = [
    ['beta=0', {}, 1],
    ['alpha=0.5 beta=1', { alpha: 0.5, beta: 1 }, 1.5],
  ];
  for (const [what, scalars, scale] of runs) {
    plan.runBwData({ w: w.buffer, dy: dy.buffer, dx: dx.buffer, ...scalars });
    stream.synchronizeSync();
    const err = relL2(
      download(element, dx),
      ref.dx.map((v) => scale * v),
    );
    const ok = err <= TOL[element] && name.includes('flipped');
    if (!ok) failures++;
    console.log(
      `${tag} bwData ${what} ${ok ? 'ok  ' : 'FAIL'} relL2=${err.toExponential(2)} ${name}`,
    );
  }
  for (const t of [x, w, dy, dx]) t.buffer.dispose();
  plan.dispose();
}

async function overhead(element, layout, algorithm) {
  const desc = Conv3dDescriptor.create({
    batch: 1,
    cIn: 8,
    dIn: 4,
    hIn: 4,
    wIn: 4,
    cOut: 8,
    dFilt: 1,
    hFilt: 1,
    wFilt: 1,
    element,
  }).withLayout(layout);
  let plan;
  try {
    plan = await Conv3dPlan.select(stream, desc, { algorithm });
  } catch (error) {
    console.log(
      `overhead ${element} ${layout} ${algorithm}: ${error.name}: ${error.message.split('\n')[0]}`,
    );
    return;
  }
  const bytes = { f64: 8, f32: 4, f16: 2, bf16: 2 }[element];
  const x = DeviceBuffer.alloc(desc.xElements * bytes);
  const w = DeviceBuffer.alloc(desc.wElements * bytes);
  const y = DeviceBuffer.alloc(desc.yElements * bytes);
  x.memsetSync(0);
  w.memsetSync(0);
  try {
    for (let i = 0; i < 50; i++) plan.runFw({ x, w, y });
    stream.synchronizeSync();
    const calls = quick ? 200 : 1000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) plan.runFw({ x, w, y });
    const t1 = process.hrtime.bigint();
    stream.synchronizeSync();
    const us = Number(t1 - t0) / 1000 / calls;
    console.log(
      `overhead runFw ${element} ${layout} ${algorithm.padEnd(9)} ${us.toFixed(2)} µs/call (${plan.algorithm('fw').name})`,
    );
  } catch (error) {
    console.log(
      `overhead ${element} ${layout} ${algorithm}: ${error.name}: ${error.message.split('\n')[0]}`,
    );
  }
  for (const b of [x, w, y]) b.dispose();
  plan.dispose();
}

for (const element of ['f32', 'f16', 'bf16', 'f64'])
  for (const layout of ['ncdhw', 'ndhwc'])
    for (const algorithm of ['heuristic', 'pinned']) await one(element, layout, algorithm);
for (const element of ['f32', 'f16', 'bf16', 'f64'])
  for (const layout of ['ncdhw', 'ndhwc']) await asForward(element, layout);

for (const element of ['f16', 'f32'])
  for (const layout of ['ndhwc', 'ncdhw'])
    for (const algorithm of ['heuristic', 'pinned']) await overhead(element, layout, algorithm);

stream.dispose();
console.log(
  failures === 0 ? 'device smoke: all checks passed' : `device smoke: ${failures} failure(s)`,
);
process.exitCode = failures === 0 ? 0 : 1;
