#!/usr/bin/env node
// Device check of the space-to-depth routes (patch embedding as a GEMM, the stem as a stride-1
// convolution; cuda/space-to-depth.cu → src/space-to-depth-ptx.ts, exec/space-to-depth.ts), run
// on the GPU machine (bundled by scripts/device/pack.sh; session.sh phase `s2d`):
//   node s2d-device-check.mjs
// 1. Our transform kernels against their host emulation, bit for bit: the gather (1 and 3
//    elements per thread) and the inverse (uncovered positions zeroed, kept, scaled) of patch and
//    stem maps, every element size, both layouts, on fresh random values, destinations poisoned.
// 2. Plans with the routes forced on (`patchGemm` / `stemSpaceToDepth: 'always'`): every pass ×
//    f32/tf32/f16/bf16/f64 × both layouts, on the suite's videomae-patch and i3d-stem (batch cut
//    for the host reference), held-out patches (2×4×4 Swin-style, 1×8×8, 4×4×4, non-divisible
//    extents) and stems (5×5×5, odd extents), and shapes where the route must not apply (kernel ≠
//    stride, padding, groups, dilation, a stem of 8 channels): fresh random inputs, outputs
//    poisoned (beta 0) or a random prior (alpha 2, beta 0.5), compared by relative L2 at sampled
//    points (trailing positions included) with the f64 reference, against the conformance
//    tolerances.
// 3. Timing (CUDA events, median of 30) of the route against cuDNN's heuristic choice on the
//    suite's two shapes at full size (f16, bf16, both layouts, every pass), and cuDNN's autotuned
//    best forward in bf16 NDHWC with its time to plan (S2D_AUTOTUNE=0 leaves that out); then
//    each transform of the route alone per call, with the bytes it moves per s (the gather at 1,
//    2 and 4 elements per thread, the inverse).
// Prints one line per case and `s2d: N passed, M failed`; exit code 1 on any failure.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { inverseAsGather, vectorGather } from '../src/gather-vector.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { InverseMode, patchRoute, stemRoute } from '../src/space-to-depth.ts';
import { gatherHost, inverseHost } from '../src/space-to-depth-host.ts';
import { SpaceToDepthKernels } from '../src/space-to-depth-kernels.ts';
import { elementArray, eventTimer } from './device-helpers.mjs';
import {
  BYTES,
  checkPass,
  KINDS,
  operand as randomOperand,
  seededRandom,
  storage,
} from './pass-check.mjs';
import { mapCases, planCases, suite } from './s2d-device-shapes.mjs';

const stream = Stream.create();
const kernels = SpaceToDepthKernels.forDevice(stream.device);
if (kernels instanceof Error) {
  console.log(`FAIL: the space-to-depth kernels did not load: ${kernels.message}`);
  console.log('s2d: 0 passed, 1 failed');
  process.exit(1);
}
let passed = 0;
let failed = 0;
function report(ok, line) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
}

const random = seededRandom(0x5eed);
const operand = (element, count) => randomOperand(element, count, random);

function problem(c, element, layout) {
  const [pd, ph, pw] = c.pad ?? [0, 0, 0];
  return Conv3dDescriptor.create({
    batch: c.n,
    cIn: c.cIn,
    cOut: c.cOut,
    dIn: c.in[0],
    hIn: c.in[1],
    wIn: c.in[2],
    dFilt: c.k[0],
    hFilt: c.k[1],
    wFilt: c.k[2],
    element,
  })
    .withPadding(pd, ph, pw)
    .withStride(...c.stride)
    .withDilation(...(c.dil ?? [1, 1, 1]))
    .withGroups(c.groups ?? 1)
    .withLayout(layout)
    .validate();
}

// ---------------------------------------------------------------------------------------------
// 1. the kernels against their emulation, bit for bit

/** Which kernel the default launch of `map` between buffers a and b takes. */
function vectorName(map, bytes, a, b) {
  const plan = map === null ? null : vectorGather(map, bytes, a.devicePtr, b.devicePtr);
  return plan === null ? 'elements' : `${plan.vectorBytes}-byte vectors, vstride ${plan.vstride}`;
}

for (const dtype of ['f32', 'f64', 'f16', 'bf16']) {
  for (const layout of ['ncdhw', 'ndhwc']) {
    for (const c of mapCases) {
      const d = problem(c, KINDS[dtype], layout);
      const route = patchRoute(d) ?? stemRoute(d);
      const transforms = [['x', route.x, d.xElements]];
      if (route.w !== null) transforms.push(['w', route.w, d.wElements]);
      for (const [role, t, count] of transforms) {
        const src = operand(dtype, count).host;
        const bytes = BYTES[dtype];
        const a = DeviceBuffer.alloc(count * bytes);
        const b = DeviceBuffer.alloc(t.elements * bytes);
        a.uploadSync(src);
        const want = gatherHost(src, elementArray(dtype, t.elements), t.gather);
        const what = `${dtype} ${layout} ${route.kind} ${role} k=${c.k} in=${c.in}`;
        // 1, 3 and 4 elements per thread (the odometer, a short last thread), then the default:
        // in vectors where the map allows (gather-vector.ts), else 4 a thread.
        for (const per of [1, 3, 4, undefined]) {
          b.memsetSync(0xff);
          kernels.gather(stream, a.devicePtr, b.devicePtr, t.gather, bytes, per);
          const got = elementArray(dtype, t.elements);
          stream.synchronizeSync();
          b.downloadSync(got);
          report(
            got.every((v, i) => Object.is(v, want[i])),
            `kernel gather ${per === undefined ? `default (${vectorName(t.gather, bytes, a, b)})` : `${per}/thread`} ${what} (${t.elements} elements)`,
          );
        }
        // The inverse of a fresh random transformed tensor, over a fresh random prior.
        for (const [mode, beta] of [
          [InverseMode.Zero, 0],
          [InverseMode.Keep, 1],
          [InverseMode.Scale, 0.3],
        ]) {
          const from = operand(dtype, t.elements).host;
          const prior = operand(dtype, count).host;
          const ref = inverseHost(from, prior.slice(), t.inverse, mode, beta, KINDS[dtype]);
          b.uploadSync(from);
          // The element kernel, then the default (a vector gather where the inverse covers all).
          for (const vector of [false, true]) {
            a.uploadSync(prior);
            kernels.inverse(
              stream,
              b.devicePtr,
              a.devicePtr,
              t.inverse,
              mode,
              beta,
              KINDS[dtype],
              bytes,
              vector,
            );
            const back = elementArray(dtype, count);
            stream.synchronizeSync();
            a.downloadSync(back);
            const how = vector ? vectorName(inverseAsGather(t.inverse), bytes, b, a) : 'elements';
            report(
              back.every((v, i) => Object.is(v, ref[i])),
              `kernel inverse (${how}) mode=${mode} beta=${beta} ${what} (partial ${t.inverse.partial})`,
            );
          }
        }
        a.dispose();
        b.dispose();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 2. plans with the routes forced on, against the f64 reference

const FORCED = {
  patchGemm: 'always',
  stemSpaceToDepth: 'always',
  layoutDetour: 'never',
  bwDataAsForward: 'never',
};

for (const c of planCases) {
  for (const dtype of ['f32', 'tf32', 'f16', 'bf16', 'f64']) {
    for (const layout of ['ncdhw', 'ndhwc']) {
      const el = storage(dtype);
      const bytes = BYTES[el];
      const d = problem(c, KINDS[dtype], layout);
      const p = {
        n: c.n,
        cIn: c.cIn,
        cOut: c.cOut,
        in: c.in,
        k: c.k,
        pad: c.pad ?? [0, 0, 0],
        stride: c.stride,
        dil: c.dil ?? [1, 1, 1],
        groups: c.groups ?? 1,
        layout,
      };
      let plan;
      try {
        plan = await Conv3dPlan.select(stream, d, { allowTf32: dtype === 'tf32' }, FORCED);
      } catch (error) {
        report(false, `${c.name} ${dtype} ${layout}: select threw ${error.message}`);
        continue;
      }
      const x = operand(el, d.xElements);
      const w = operand(el, d.wElements);
      const y = operand(el, d.yElements);
      const bufs = {
        x: DeviceBuffer.alloc(d.xElements * bytes),
        w: DeviceBuffer.alloc(d.wElements * bytes),
        y: DeviceBuffer.alloc(d.yElements * bytes),
      };
      for (const pass of ['fw', 'bwData', 'bwFilter']) {
        try {
          const name = plan.algorithm(pass).name;
          const routed = name.includes('space-to-depth');
          const s = (alpha, beta) => ({ alpha, beta });
          checkPass({
            stream,
            pass,
            dtype,
            p,
            ops: { x, w, y },
            bufs,
            random,
            run: (alpha, beta) => {
              if (pass === 'fw') plan.runFw({ x: bufs.x, w: bufs.w, y: bufs.y, ...s(alpha, beta) });
              else if (pass === 'bwData')
                plan.runBwData({ w: bufs.w, dy: bufs.y, dx: bufs.x, ...s(alpha, beta) });
              else plan.runDw({ x: bufs.x, dy: bufs.y, dw: bufs.w, ...s(alpha, beta) });
            },
            report,
            what: `${c.name} ${dtype} ${layout} ${pass}`,
            name,
            ok: () => (routed === c.route ? '' : `route ${routed ? 'taken' : 'missing'} `),
          });
        } catch (error) {
          report(false, `${c.name} ${dtype} ${layout} ${pass}: threw ${error.message}`);
        }
      }
      for (const b of Object.values(bufs)) b.dispose();
      plan.dispose();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3. timing on the suite's shapes

const time = eventTimer(stream, { warmup: 3, reps: 30 });

/**
 * The route's transforms alone, per call, with the rate at which they move bytes (read + written:
 * H200's HBM3e peaks near 4.8 TB/s), so a run shows how far from bandwidth they are.
 */
function timeTransforms(c, d, dtype, layout, x, w) {
  const route = patchRoute(d) ?? stemRoute(d);
  if (route === null) return;
  const bytes = BYTES[dtype];
  const ops = [['x', route.x, x, d.xElements]];
  if (route.w !== null) ops.push(['w', route.w, w, d.wElements]);
  const line = [];
  for (const [role, t, buf, count] of ops) {
    const scratch = DeviceBuffer.alloc(t.elements * bytes);
    const moved = (t.elements + count) * bytes;
    const rate = (ms) => `${ms.toFixed(4)} ms ${(moved / ms / 1e6).toFixed(0)} GB/s`;
    const ptr = [buf.devicePtr, scratch.devicePtr];
    // The gather at 1, 2 and 4 elements per thread, and the default (vectors where it can).
    for (const per of [1, 2, 4, undefined]) {
      const g = time(() => kernels.gather(stream, ptr[0], ptr[1], t.gather, bytes, per));
      const how =
        per === undefined
          ? `default (${vectorName(t.gather, bytes, buf, scratch)})`
          : `${per}/thread`;
      line.push(`${role} gather ${how} ${rate(g)}`);
    }
    const mode = InverseMode.Zero;
    const el = KINDS[dtype];
    for (const vector of [false, true]) {
      const inv = () =>
        kernels.inverse(stream, ptr[1], ptr[0], t.inverse, mode, 0, el, bytes, vector);
      const how = vector
        ? `default (${vectorName(inverseAsGather(t.inverse), bytes, scratch, buf)})`
        : 'elements';
      line.push(`${role} inverse ${how} ${rate(time(inv))}`);
    }
    scratch.dispose();
  }
  console.log(`TIME ${c.name} ${dtype} ${layout} transforms: ${line.join('; ')}`);
}
const NO_ROUTES = { ...FORCED, patchGemm: 'never', stemSpaceToDepth: 'never' };
const autotune = process.env.S2D_AUTOTUNE !== '0';
const cachePath = join(mkdtempSync(join(tmpdir(), 's2d-')), 'autotune.json');
try {
  for (const c of suite) {
    for (const dtype of ['f16', 'bf16']) {
      for (const layout of ['ndhwc', 'ncdhw']) {
        const d = problem(c, KINDS[dtype], layout);
        const bytes = BYTES[dtype];
        const bufs = [d.xElements, d.wElements, d.yElements].map((n) => {
          const b = DeviceBuffer.alloc(n * bytes);
          b.memsetSync(0x3c);
          return b;
        });
        const [x, w, y] = bufs;
        const runs = {
          fw: (pl) => () => pl.runFw({ x, w, y }),
          bwData: (pl) => () => pl.runBwData({ w, dy: y, dx: x }),
          bwFilter: (pl) => () => pl.runDw({ x, dy: y, dw: w }),
        };
        const plans = [
          ['route', await Conv3dPlan.select(stream, d, undefined, FORCED)],
          ['cuDNN heuristic', await Conv3dPlan.select(stream, d, undefined, NO_ROUTES)],
        ];
        if (autotune && layout === 'ndhwc' && dtype === 'bf16') {
          const t0 = Date.now();
          const tuned = await Conv3dPlan.select(
            stream,
            d,
            { algorithm: 'autotune' },
            {
              ...NO_ROUTES,
              passes: ['fw'],
              autotuneCachePath: cachePath,
              onProgress: () => {},
            },
          );
          console.log(
            `TIME ${c.name} ${dtype} ${layout}: cuDNN autotune (fw) took ${((Date.now() - t0) / 1000).toFixed(1)} s`,
          );
          plans.push(['cuDNN autotuned', tuned]);
        }
        for (const pass of ['fw', 'bwData', 'bwFilter']) {
          const line = [];
          try {
            for (const [label, pl] of plans) {
              if (label === 'cuDNN autotuned' && pass !== 'fw') continue;
              const ms = time(runs[pass](pl));
              line.push(`${label} ${ms.toFixed(4)} ms [${pl.algorithm(pass).name}]`);
            }
          } catch (error) {
            line.push(`threw ${error.message}`);
          }
          console.log(`TIME ${c.name} ${dtype} ${layout} ${pass}: ${line.join('; ')}`);
        }
        timeTransforms(c, d, dtype, layout, x, w);
        for (const [, pl] of plans) pl.dispose();
        for (const b of bufs) b.dispose();
      }
    }
  }
} catch (error) {
  report(false, `timing: ${error.message}`);
}

console.log(`s2d: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
