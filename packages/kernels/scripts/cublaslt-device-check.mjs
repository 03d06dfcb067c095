#!/usr/bin/env node
// Device check of the patch-embedding route on cuBLASLt (packages/cublaslt-sys, src/exec/lt-gemm.ts,
// src/select/lt-gemm-candidate.ts), run on the GPU machine (bundled by scripts/device/pack.sh;
// session.sh phase `cublaslt`):
//   node cublaslt-device-check.mjs
// cuBLASLt is found by the package's own search (system, CUDA toolkit, pip wheels such as
// PyTorch's venv); the first line says where, or the check fails saying every path it tried.
// 1. The route as autotune installs it (makeLtPatchGemm: our transforms around one cuBLASLt
//    product per pass), every pass × f32/tf32/f16/bf16/f64 × both layouts, on the suite's
//    videomae-patch (batch cut to 2 for the host reference), a Swin3D-style 2×4×4 patch and an
//    odd shape with trailing positions no patch covers: fresh random inputs, outputs poisoned
//    (alpha 1, beta 0) or a random prior (alpha 2, beta 0.5), compared by relative L2 at sampled
//    points with the f64 reference, against the conformance tolerances.
// 2. Timing (CUDA events, median of 30) per pass at full size (videomae-patch and the Swin3D
//    patch, batch 8, f16 and bf16, both layouts): the cuBLASLt route, the route on cuDNN's 1×1×1
//    convolution (patchGemm 'always') and cuDNN's heuristic engine on the convolution itself
//    (patchGemm 'never'). Printed as TIME lines; no figure is asserted.
// Prints one line per case and `cublaslt: N passed, M failed`; exit code 1 on any failure.
import * as lt from '../../cublaslt-sys/dist/index.js';
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { resolvePlanPreference } from '../../types/dist/index.js';
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { resolveOptions } from '../src/plan/options.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { createCore } from '../src/select/create.ts';
import { makeLtPatchGemm } from '../src/select/lt-gemm-candidate.ts';
import { eventTimer } from './device-helpers.mjs';
import {
  BYTES,
  checkPass,
  KINDS,
  operand as randomOperand,
  seededRandom,
  storage,
} from './pass-check.mjs';

let passed = 0;
let failed = 0;
function report(ok, line) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
}

const found = lt.probe();
if (!found.available) {
  report(false, `cuBLASLt did not load: ${found.reason}`);
  for (const t of found.tried) console.log(`  tried ${t.path}: ${t.error}`);
  console.log(`cublaslt: ${passed} passed, ${failed} failed`);
  process.exit(1);
}
const v = found.version;
console.log(`cuBLASLt ${v.major}.${v.minor}.${v.patch} from ${found.libraryPath}`);

const stream = Stream.create();
const random = seededRandom(0xb1a5);
const operand = (element, count) => randomOperand(element, count, random);

const SHAPES = [
  // The suite's videomae-patch (n 8; 2 for the reference), a Swin3D-style patch, an odd one.
  { name: 'videomae-patch', n: 2, timeN: 8, cIn: 3, cOut: 768, in: [16, 224, 224], k: [2, 16, 16] },
  { name: 'swin3d-patch', n: 2, timeN: 8, cIn: 3, cOut: 96, in: [16, 224, 224], k: [2, 4, 4] },
  { name: 'odd-patch', n: 3, cIn: 5, cOut: 24, in: [7, 33, 21], k: [3, 2, 5] },
];

function problem(c, n, element, layout) {
  return Conv3dDescriptor.create({
    batch: n,
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
    .withStride(...c.k)
    .withLayout(layout)
    .validate();
}

/** The cuBLASLt route of `pass` as autotune installs it, with its plan core (dispose both). */
function ltRoute(d, pass, allowTf32) {
  const opts = resolveOptions({ layoutDetour: 'never', bwDataAsForward: 'never' });
  const core = createCore(stream, d, resolvePlanPreference({ allowTf32 }), opts);
  const route = makeLtPatchGemm(core, pass, opts);
  if (route === null) {
    core.dispose();
    return null;
  }
  return {
    route,
    run: (ops, alpha = 1, beta = 0) => route.run(ops, { alpha, beta, stream, userWs: null }),
    dispose: () => {
      route.dispose();
      core.dispose();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 1. correctness against the f64 reference

for (const c of SHAPES) {
  for (const dtype of ['f32', 'tf32', 'f16', 'bf16', 'f64']) {
    for (const layout of ['ncdhw', 'ndhwc']) {
      const el = storage(dtype);
      const bytes = BYTES[el];
      const d = problem(c, c.n, KINDS[dtype], layout);
      const p = {
        n: c.n,
        cIn: c.cIn,
        cOut: c.cOut,
        in: c.in,
        k: c.k,
        pad: [0, 0, 0],
        stride: c.k,
        dil: [1, 1, 1],
        groups: 1,
        layout,
      };
      const x = operand(el, d.xElements);
      const w = operand(el, d.wElements);
      const y = operand(el, d.yElements);
      const bufs = {
        x: DeviceBuffer.alloc(d.xElements * bytes),
        w: DeviceBuffer.alloc(d.wElements * bytes),
        y: DeviceBuffer.alloc(d.yElements * bytes),
      };
      for (const pass of ['fw', 'bwData', 'bwFilter']) {
        const what = `${c.name} ${dtype} ${layout} ${pass}`;
        let made = null;
        try {
          made = ltRoute(d, pass, dtype === 'tf32');
          if (made === null) {
            report(false, `${what}: no cuBLASLt route (no algorithm, or the route does not apply)`);
            continue;
          }
          const name = made.route.info().name;
          const route = made;
          checkPass({
            stream,
            pass,
            dtype,
            p,
            ops: { x, w, y },
            bufs,
            random,
            run: (alpha, beta) =>
              route.run(
                { x: bufs.x.devicePtr, w: bufs.w.devicePtr, y: bufs.y.devicePtr },
                alpha,
                beta,
              ),
            report,
            what,
            name,
            ok: (n) => (n.includes('cuBLASLt') ? '' : 'not the cuBLASLt route '),
          });
        } catch (error) {
          report(false, `${what}: threw ${error.message}`);
        } finally {
          made?.dispose();
        }
      }
      for (const b of Object.values(bufs)) b.dispose();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 2. timing at full size: cuBLASLt route, cuDNN 1×1×1 route, cuDNN on the convolution

const time = eventTimer(stream, { warmup: 3, reps: 30 });
const BASE = { layoutDetour: 'never', bwDataAsForward: 'never' };
try {
  for (const c of SHAPES.filter((s) => s.timeN !== undefined)) {
    for (const dtype of ['f16', 'bf16']) {
      for (const layout of ['ndhwc', 'ncdhw']) {
        const d = problem(c, c.timeN, KINDS[dtype], layout);
        const bytes = BYTES[dtype];
        const bufs = [d.xElements, d.wElements, d.yElements].map((n) => {
          const b = DeviceBuffer.alloc(n * bytes);
          b.memsetSync(0x3c);
          return b;
        });
        const [x, w, y] = bufs;
        const ops = { x: x.devicePtr, w: w.devicePtr, y: y.devicePtr };
        const viaCudnn = await Conv3dPlan.select(stream, d, undefined, {
          ...BASE,
          patchGemm: 'always',
        });
        const direct = await Conv3dPlan.select(stream, d, undefined, {
          ...BASE,
          patchGemm: 'never',
        });
        const planRun = {
          fw: (pl) => () => pl.runFw({ x, w, y }),
          bwData: (pl) => () => pl.runBwData({ w, dy: y, dx: x }),
          bwFilter: (pl) => () => pl.runDw({ x, dy: y, dw: w }),
        };
        for (const pass of ['fw', 'bwData', 'bwFilter']) {
          const line = [];
          let made = null;
          try {
            made = ltRoute(d, pass, false);
            if (made !== null)
              line.push(`cuBLASLt route ${time(() => made.run(ops)).toFixed(4)} ms`);
            else line.push('cuBLASLt route: none');
            for (const [label, pl] of [
              ['cuDNN 1×1×1 route', viaCudnn],
              ['cuDNN on the conv', direct],
            ]) {
              line.push(
                `${label} ${time(planRun[pass](pl)).toFixed(4)} ms [${pl.algorithm(pass).name}]`,
              );
            }
          } catch (error) {
            line.push(`threw ${error.message}`);
          } finally {
            made?.dispose();
          }
          console.log(`TIME ${c.name} n=${c.timeN} ${dtype} ${layout} ${pass}: ${line.join('; ')}`);
        }
        viaCudnn.dispose();
        direct.dispose();
        for (const b of bufs) b.dispose();
      }
    }
  }
} catch (error) {
  report(false, `timing: ${error.message}`);
}

console.log(`cublaslt: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
