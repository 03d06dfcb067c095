#!/usr/bin/env node
import { toleranceFor } from '../../conformance/src/check/tolerances.ts';
import {
  conv3dBackwardData,
  conv3dBackwardDataAt,
  conv3dBackwardFilter,
  conv3dBackwardFilterAt,
  conv3dForward,
  conv3dForwardAt,
} from '../../conformance/src/reference/conv3d.ts';
// Device check of math '3xtf32' (cuda/split-tf32.cu and exec/split-tf32.ts), run on the GPU machine
// (bundled by scripts/device/pack.sh; session.sh phase `tf32x3`, on cuDNN 9.19: the TF32 erratum of
// 9.10.2-9.15 turns 3xTF32 into strict f32, which this check then reports as a failure):
//   node tf32x3-device-check.mjs
// 1. The split kernel, bit for bit against splitTf32Host, on random values and specials (Inf, NaN,
//    FLT_MAX, subnormals, -0), on the float4 kernel and the scalar one.
// 2. Every pass x both layouts x heuristic/autotune of odd, grouped, strided and dilated shapes
//    and four layers of the shared suite (scaled to fit): fresh random inputs in [-1, 1), outputs
//    poisoned with NaN, relative L2 against the f64 reference of @baracuda/conformance (full, or
//    on sampled points for the large layers), held to the STRICT f32 tolerance of `check`; small
//    shapes also with alpha 2, beta 0.5 on a random prior output.
// 3. The large layers' time: strict f32, TF32 and 3xTF32 plans (heuristic; TF32X3_TIME_ALGO=autotune
//    for tuned plans) per pass, CUDA events, median of TF32X3_REPS (10) runs; the factor
//    strict / 3xTF32 is printed, with the issue's goal (>= 1.8x) marked met or not.
// Prints one line per case and `tf32x3: N passed, M failed, S skipped`; exit 1 on any failure.
// TF32X3_BUDGET_S (90): autotune cases after this many seconds are skipped (and counted).
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { Conv3dDescriptor, Conv3dPlan } from '../dist/index.js';
import { SplitKernels, splitTf32Host } from '../src/split-tf32.ts';
import { eventTimer, relL2 } from './device-helpers.mjs';

const TOL = toleranceFor('3xtf32');
const STRICT = toleranceFor('f32');
const BUDGET_S = Number(process.env.TF32X3_BUDGET_S ?? 90);
const REPS = Number(process.env.TF32X3_REPS ?? 10);
const TIME_ALGO = process.env.TF32X3_TIME_ALGO ?? 'heuristic';
const SAMPLE_POINTS = 256;
const started = Date.now();
const stream = Stream.create();
let passed = 0;
let failed = 0;
let skipped = 0;
const result = (ok, line) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
};
if (TOL !== STRICT) result(false, `3xtf32 tolerance ${TOL} is not strict f32's ${STRICT}`);

/** A deterministic generator (xorshift32) per case, so a failure reproduces. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}
const seedBase = (Date.now() ^ (process.pid << 8)) >>> 0;
console.log(`tf32x3: seed ${seedBase.toString(16)}, tolerance ${TOL} (strict f32)`);

function randomF32(n, r) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = r() * 2 - 1;
  return a;
}

// ---------------------------------------------------------------------------------------------
// 1. the split kernel, bit for bit
{
  const kernels = SplitKernels.forDevice(stream.device);
  if (kernels instanceof Error) {
    result(false, `split kernel did not load: ${kernels.message}`);
  } else {
    const r = rng(seedBase ^ 0x5117);
    const n = 1 << 20;
    const src = new Float32Array(n);
    const bits = new Uint32Array(src.buffer);
    for (let i = 0; i < n; i++) bits[i] = (r() * 2 ** 32) >>> 0;
    const specials = [0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffbfffff, 0x7f7fffff];
    specials.push(0xff7fffff, 0x00000001, 0x007fffff, 0x80000000, 0, 0x3f800fff, 0x3f801000);
    specials.forEach((b, i) => {
      bits[i] = b;
    });
    const want = splitTf32Host(src);
    const buf = DeviceBuffer.alloc(n * 4 + 16);
    const hi = DeviceBuffer.alloc(n * 4 + 16);
    const lo = DeviceBuffer.alloc(n * 4 + 16);
    for (const [label, offset, count] of [
      ['float4', 0, n],
      ['scalar (odd count, 4-byte offset)', 4, n - 3],
    ]) {
      buf.uploadSync(src.subarray(0, count), offset);
      hi.memsetSync(0xff);
      lo.memsetSync(0xff);
      const o = BigInt(offset);
      kernels.split(stream, buf.devicePtr + o, hi.devicePtr + o, lo.devicePtr + o, count);
      stream.synchronizeSync();
      const gotHi = new Uint32Array(count);
      const gotLo = new Uint32Array(count);
      hi.downloadSync(gotHi, offset);
      lo.downloadSync(gotLo, offset);
      const wantHi = new Uint32Array(want.hi.buffer, 0, count);
      const wantLo = new Uint32Array(want.lo.buffer, 0, count);
      let bad = 0;
      let first = -1;
      for (let i = 0; i < count; i++) {
        if (gotHi[i] !== wantHi[i] || gotLo[i] !== wantLo[i]) {
          bad++;
          if (first < 0) first = i;
        }
      }
      const where =
        first < 0
          ? ''
          : ` first at ${first}: src ${bits[first].toString(16)} hi ${gotHi[first].toString(16)}/${wantHi[first].toString(16)} lo ${gotLo[first].toString(16)}/${wantLo[first].toString(16)}`;
      result(bad === 0, `split ${label} ${count} elements: ${bad} differ from the host${where}`);
    }
    for (const b of [buf, hi, lo]) b.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. correctness of every pass
const SMALL = [
  { name: 'odd-channels', n: 2, c: 3, k: 5, in: [5, 7, 6], f: [3, 3, 3], pad: [1, 1, 1] },
  { name: 'grouped', n: 1, c: 8, k: 12, in: [6, 6, 6], f: [3, 3, 3], pad: [1, 1, 1], groups: 4 },
  {
    name: 'strided-dilated',
    n: 2,
    c: 6,
    k: 4,
    in: [9, 10, 11],
    f: [3, 2, 3],
    pad: [2, 0, 1],
    stride: [2, 1, 2],
    dil: [2, 1, 1],
  },
  { name: 'pointwise-small', n: 2, c: 16, k: 24, in: [4, 5, 6], f: [1, 1, 1] },
  {
    name: 'stem-like',
    n: 1,
    c: 7,
    k: 9,
    in: [8, 8, 8],
    f: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 2, 2],
  },
];
// The shared suite's large f32 layers, batch or extent cut to fit the time.
const LARGE = [
  { name: 'c3d-conv2 (n 4)', n: 4, c: 64, k: 128, in: [16, 56, 56], f: [3, 3, 3], pad: [1, 1, 1] },
  {
    name: 'unet3d-enc1 (n 1, 64^3)',
    n: 1,
    c: 32,
    k: 32,
    in: [64, 64, 64],
    f: [3, 3, 3],
    pad: [1, 1, 1],
  },
  {
    name: 'r3d-downsample (n 4)',
    n: 4,
    c: 64,
    k: 128,
    in: [16, 56, 56],
    f: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [2, 2, 2],
  },
  {
    name: 'dilated (n 1)',
    n: 1,
    c: 64,
    k: 64,
    in: [32, 64, 64],
    f: [3, 3, 3],
    pad: [2, 2, 2],
    dil: [2, 2, 2],
  },
];

function descriptor(s, layout) {
  const [pd, ph, pw] = s.pad ?? [0, 0, 0];
  const [sd, sh, sw] = s.stride ?? [1, 1, 1];
  const [dd, dh, dw] = s.dil ?? [1, 1, 1];
  return Conv3dDescriptor.create({
    batch: s.n,
    cIn: s.c,
    cOut: s.k,
    dIn: s.in[0],
    hIn: s.in[1],
    wIn: s.in[2],
    dFilt: s.f[0],
    hFilt: s.f[1],
    wFilt: s.f[2],
    element: 'f32',
  })
    .withPadding(pd, ph, pw)
    .withStride(sd, sh, sw)
    .withDilation(dd, dh, dw)
    .withGroups(s.groups ?? 1)
    .withLayout(layout);
}

function problem(s, layout) {
  return {
    n: s.n,
    cIn: s.c,
    cOut: s.k,
    in: s.in,
    k: s.f,
    pad: s.pad ?? [0, 0, 0],
    stride: s.stride ?? [1, 1, 1],
    dil: s.dil ?? [1, 1, 1],
    groups: s.groups ?? 1,
    layout,
  };
}

const PASSES = {
  fw: { inputs: ['x', 'w'], out: 'y', full: conv3dForward, at: conv3dForwardAt },
  bwData: { inputs: ['y', 'w'], out: 'x', full: conv3dBackwardData, at: conv3dBackwardDataAt },
  bwFilter: {
    inputs: ['x', 'y'],
    out: 'w',
    full: conv3dBackwardFilter,
    at: conv3dBackwardFilterAt,
  },
};

function run(plan, pass, bufs, extra = {}) {
  if (pass === 'fw') plan.runFw({ x: bufs.x, w: bufs.w, y: bufs.y, ...extra });
  else if (pass === 'bwData') plan.runBwData({ w: bufs.w, dy: bufs.y, dx: bufs.x, ...extra });
  else plan.runDw({ x: bufs.x, dy: bufs.y, dw: bufs.w, ...extra });
}

async function checkCase(s, layout, algorithm, large, seed) {
  const tag = `${s.name} ${layout} ${algorithm}`;
  if (algorithm === 'autotune' && (Date.now() - started) / 1000 > BUDGET_S) {
    skipped++;
    console.log(`skip ${tag}: past the ${BUDGET_S} s budget`);
    return;
  }
  const d = descriptor(s, layout);
  const p = problem(s, layout);
  let plan;
  try {
    plan = await Conv3dPlan.select(stream, d, { math: '3xtf32', algorithm });
  } catch (error) {
    result(false, `${tag} select: ${error.name}: ${error.message.split('\n')[0]}`);
    return;
  }
  if (plan.errataApplied.length > 0) {
    result(
      false,
      `${tag}: errata ${plan.errataApplied.join(',')} applied: 3xTF32 is not in effect`,
    );
  }
  const counts = { x: d.xElements, w: d.wElements, y: d.yElements };
  const r = rng(seed);
  // Fresh inputs for the case, each pass reading two of them and writing a poisoned fourth buffer.
  const host = {};
  const inputs = {};
  for (const role of ['x', 'w', 'y']) {
    host[role] = randomF32(counts[role], r);
    inputs[role] = DeviceBuffer.alloc(counts[role] * 4);
    inputs[role].uploadSync(host[role]);
  }
  const outBuf = DeviceBuffer.alloc(Math.max(...Object.values(counts)) * 4);
  for (const [pass, spec] of Object.entries(PASSES)) {
    const bufs = { ...inputs, [spec.out]: outBuf.slice(0, counts[spec.out] * 4) };
    const [a, b] = spec.inputs.map((role) => host[role]);
    const n = counts[spec.out];
    const idx = large
      ? Array.from({ length: Math.min(SAMPLE_POINTS, n) }, () => Math.floor(r() * n))
      : null;
    const ref = large
      ? spec.at(p, a, b, idx)
      : spec.full(p, Float64Array.from(a), Float64Array.from(b));
    const scalars = large
      ? [[1, 0]]
      : [
          [1, 0],
          [2, 0.5],
        ];
    for (const [alpha, beta] of scalars) {
      const prior = beta === 0 ? null : randomF32(n, r);
      if (prior) bufs[spec.out].uploadSync(prior);
      else bufs[spec.out].fillSync32(0xffc00000);
      try {
        run(plan, pass, bufs, { alpha, beta });
        await stream.synchronize();
      } catch (error) {
        result(false, `${tag} ${pass} a=${alpha} b=${beta}: ${error.name}: ${error.message}`);
        continue;
      }
      const got = new Float32Array(n);
      bufs[spec.out].downloadSync(got);
      const picked = idx ? idx.map((i) => got[i]) : got;
      const want = (idx ?? ref).map(
        (_, j) => alpha * ref[j] + (prior ? beta * prior[idx ? idx[j] : j] : 0),
      );
      const unwritten = picked.filter((v) => Number.isNaN(v)).length;
      const err = relL2(picked, want);
      const info = plan.algorithm(pass);
      result(
        err <= TOL && unwritten === 0,
        `${tag} ${pass.padEnd(8)} a=${alpha} b=${beta} relL2=${err.toExponential(2)} unwritten=${unwritten}${idx ? ` (${idx.length} points)` : ''} ${info.name} math=${info.mathPrecision}`,
      );
    }
  }
  for (const b of [...Object.values(inputs), outBuf]) b.dispose();
  const pg = plan.precisionGuarantee();
  console.log(`     ${tag} precision ${pg.mathPrecision} acc=${pg.accumulator}`);
  plan.dispose();
}

let seed = seedBase;
for (const layout of ['ncdhw', 'ndhwc']) {
  for (const algorithm of ['heuristic', 'autotune']) {
    for (const s of SMALL) await checkCase(s, layout, algorithm, false, seed++);
  }
}
for (const layout of ['ncdhw', 'ndhwc']) {
  for (const algorithm of ['heuristic', 'autotune']) {
    for (const s of LARGE) await checkCase(s, layout, algorithm, true, seed++);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. time: strict f32 vs TF32 vs 3xTF32 on the large layers
const time = eventTimer(stream, { warmup: 3, reps: REPS });
const MODES = [
  ['strict', { allowTf32: false }],
  ['tf32', { allowTf32: true }],
  ['3xtf32', { math: '3xtf32' }],
];
const totals = { strict: 0, tf32: 0, '3xtf32': 0 };
for (const s of LARGE) {
  const d = descriptor(s, 'ncdhw');
  const bufs = {
    x: DeviceBuffer.alloc(d.xElements * 4),
    w: DeviceBuffer.alloc(d.wElements * 4),
    y: DeviceBuffer.alloc(d.yElements * 4),
  };
  const r = rng(seed++);
  for (const role of ['x', 'w', 'y']) {
    bufs[role].uploadSync(randomF32({ x: d.xElements, w: d.wElements, y: d.yElements }[role], r));
  }
  const ms = {};
  for (const [mode, pref] of MODES) {
    let plan;
    try {
      plan = await Conv3dPlan.select(stream, d, { ...pref, algorithm: TIME_ALGO });
      const per = {};
      for (const pass of Object.keys(PASSES)) per[pass] = time(() => run(plan, pass, bufs));
      ms[mode] = per;
    } catch (error) {
      result(false, `time ${s.name} ${mode}: ${error.name}: ${error.message.split('\n')[0]}`);
    } finally {
      plan?.dispose();
    }
  }
  for (const pass of Object.keys(PASSES)) {
    if (!ms.strict || !ms.tf32 || !ms['3xtf32']) break;
    for (const mode of Object.keys(totals)) totals[mode] += ms[mode][pass];
    console.log(
      `time ${s.name} ncdhw ${TIME_ALGO} ${pass.padEnd(8)} strict ${ms.strict[pass].toFixed(3)} ms  tf32 ${ms.tf32[pass].toFixed(3)} ms  3xtf32 ${ms['3xtf32'][pass].toFixed(3)} ms  strict/3xtf32 ${(ms.strict[pass] / ms['3xtf32'][pass]).toFixed(2)}x`,
    );
  }
  for (const b of Object.values(bufs)) b.dispose();
}
if (totals['3xtf32'] > 0) {
  const factor = totals.strict / totals['3xtf32'];
  console.log(
    `time total (large layers, all passes): strict ${totals.strict.toFixed(2)} ms, tf32 ${totals.tf32.toFixed(2)} ms, 3xtf32 ${totals['3xtf32'].toFixed(2)} ms: 3xTF32 ${factor.toFixed(2)}x faster than strict f32 (goal >= 1.8x: ${factor >= 1.8 ? 'met' : 'not met'})`,
  );
}
stream.dispose();
console.log(
  `tf32x3: ${passed} passed, ${failed} failed, ${skipped} skipped (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
process.exit(failed > 0 ? 1 : 0);
