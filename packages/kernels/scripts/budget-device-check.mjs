#!/usr/bin/env node
// Time to a plan, and what each selection mode's plan then costs per call, on the GPU machine
// (bundled by scripts/device/pack.sh; session phase `budget`):
//   node budget-device-check.mjs
// On a few shapes of the shared suite (packages/conformance/suites/conv3d-suite.json), each with a
// cold autotune cache of its own, selects a plan of fw, bwData and bwFilter in four ways:
//   first      heuristic mode, heuristic: 'first' (the heuristics' first config; PyTorch's default)
//   quick      heuristic mode, heuristic: 'quick-tune' (the default since the budget work)
//   bounded    autotune under the default budget (2000 ms per pass)
//   unbounded  autotune with autotuneBudgetMs: 0 (every candidate; skipped on the shapes listed in
//              BUDGET_SKIP_UNBOUNDED (name:dtype:layout,...), by default VideoMAE's patch embedding
//              (its cold unbounded tune took 144 s), X3D's depthwise bf16 NDHWC and I3D's stem, so
//              that the script stays within about 150 s: unbounded runs on x3d-depthwise f16 NCDHW
//              and unet3d-bottleneck only)
// and prints, per mode, select's wall time and per pass what it timed, whether the budget cut
// it, the chosen route and its time per call (CUDA events, median of 20 calls after 5, operands
// filled on the device). Checks (a failure exits 1):
//   - the quick tune's select costs at most 3 × 200 ms + 1000 ms (scratch, plan builds);
//   - bounded autotune's select costs at most 3 × (2000 ms × 1.5 + 2000 ms) (the budget counts
//     candidates' timings; each pass's random operands and their upload come on top), and no more
//     than the unbounded one where both ran;
//   - no cliff: the quick tune's per-pass time is within 1.5× the best autotuned time of the pass.
// It measures time only: the routes' results are checked by the conformance `check` phases and the
// depthwise and layout checks. BUDGET_SHAPES (name:dtype:layout,...) replaces the shape list.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { ElementKind } from '../../types/dist/index.js';
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { eventTimer } from './device-helpers.mjs';

const SHAPES = (
  process.env.BUDGET_SHAPES ??
  'videomae-patch:f16:ndhwc,x3d-depthwise:f16:ncdhw,x3d-depthwise:bf16:ndhwc,i3d-stem:f16:ndhwc,unet3d-bottleneck:bf16:ndhwc'
)
  .split(',')
  .map((s) => s.split(':'));
const SKIP_UNBOUNDED = new Set(
  (
    process.env.BUDGET_SKIP_UNBOUNDED ??
    'videomae-patch:f16:ndhwc,x3d-depthwise:bf16:ndhwc,i3d-stem:f16:ndhwc'
  )
    .split(',')
    .filter(Boolean),
);
const ELEMENT = {
  f16: ElementKind.F16,
  bf16: ElementKind.Bf16,
  f32: ElementKind.F32,
  tf32: ElementKind.F32,
};
const PASSES = ['fw', 'bwData', 'bwFilter'];
const suite = JSON.parse(readFileSync('packages/conformance/suites/conv3d-suite.json', 'utf8'));
const stream = Stream.create();
const time = eventTimer(stream, { warmup: 5, reps: 20 });
let passed = 0;
let failed = 0;
const check = (ok, line) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
};

function descriptorOf(c, dtype, layout) {
  let d = Conv3dDescriptor.create({
    batch: c.n,
    cIn: c.c_in,
    dIn: c.in[0],
    hIn: c.in[1],
    wIn: c.in[2],
    cOut: c.c_out,
    dFilt: c.k[0],
    hFilt: c.k[1],
    wFilt: c.k[2],
    element: ELEMENT[dtype],
  })
    .withPadding(...c.pad)
    .withStride(...c.stride)
    .withDilation(...c.dil)
    .withLayout(layout);
  if (c.groups) d = d.withGroups(c.groups);
  return d;
}

/** x, w, y filled with 1.0 in the element's format (a timing needs no particular values). */
function operands(d) {
  const make = (elements) => {
    const b = DeviceBuffer.alloc(elements * d.elementBytes, { stream });
    if (d.elementBytes === 2) b.fillSync16(d.element === ElementKind.F16 ? 0x3c00 : 0x3f80);
    else b.fillSync32(0x3f800000);
    return b;
  };
  return { x: make(d.xElements), w: make(d.wElements), y: make(d.yElements) };
}

const MODES = [
  ['first', { algorithm: 'heuristic' }, { heuristic: 'first' }],
  ['quick', { algorithm: 'heuristic' }, { heuristic: 'quick-tune' }],
  ['bounded', { algorithm: 'autotune' }, {}],
  ['unbounded', { algorithm: 'autotune' }, { autotuneBudgetMs: 0 }],
];

for (const [name, dtype, layout] of SHAPES) {
  const c = suite.cases.find((k) => k.name === name);
  if (!c) {
    check(false, `${name}: not in the suite`);
    continue;
  }
  const d = descriptorOf(c, dtype, layout);
  const ops = operands(d);
  const best = {};
  const results = {};
  for (const [mode, preference, options] of MODES) {
    if (mode === 'unbounded' && SKIP_UNBOUNDED.has(`${name}:${dtype}:${layout}`)) {
      console.log(`${name} ${dtype} ${layout} ${mode}: skipped (BUDGET_SKIP_UNBOUNDED)`);
      continue;
    }
    const cache = join(mkdtempSync(join(tmpdir(), 'baracuda-budget-')), 'cache.json');
    let plan;
    try {
      plan = await Conv3dPlan.select(
        stream,
        d,
        { ...preference, allowTf32: dtype === 'tf32' },
        { autotuneCachePath: cache, ...options },
      );
    } catch (error) {
      check(false, `${name} ${dtype} ${layout} ${mode}: select failed: ${error.message}`);
      continue;
    }
    const report = plan.selectReport();
    const perPass = {};
    for (const pass of PASSES) {
      const sel = report.passes.find((p) => p.pass === pass);
      let ms;
      try {
        const run =
          pass === 'fw'
            ? () => plan.runFw({ x: ops.x, w: ops.w, y: ops.y })
            : pass === 'bwData'
              ? () => plan.runBwData({ w: ops.w, dy: ops.y, dx: ops.x })
              : () => plan.runDw({ x: ops.x, dy: ops.y, dw: ops.w });
        ms = time(run);
      } catch (error) {
        console.log(`  ${pass}: run failed: ${error.message}`);
        continue;
      }
      perPass[pass] = ms;
      if (mode === 'bounded' || mode === 'unbounded') best[pass] = Math.min(best[pass] ?? ms, ms);
      const how = sel
        ? `${sel.how}, ${sel.timed} timed${sel.budgetCut ? ', cut by the budget' : ''}, ${sel.wallMs.toFixed(0)} ms`
        : 'not timed';
      console.log(
        `${name} ${dtype} ${layout} ${mode} ${pass}: ${ms.toFixed(4)} ms/call (${plan.algorithm(pass).name}; ${how})`,
      );
    }
    console.log(`${name} ${dtype} ${layout} ${mode}: select ${report.wallMs.toFixed(0)} ms`);
    results[mode] = { wallMs: report.wallMs, perPass };
    plan.dispose();
  }
  if (results.quick) {
    check(
      results.quick.wallMs <= 3 * 200 + 1000,
      `${name} ${dtype} ${layout}: quick tune's select ${results.quick.wallMs.toFixed(0)} ms (bound 1600 ms)`,
    );
    for (const pass of PASSES) {
      const q = results.quick.perPass[pass];
      if (q === undefined || best[pass] === undefined) continue;
      check(
        q <= 1.5 * best[pass],
        `${name} ${dtype} ${layout} ${pass}: quick tune ${q.toFixed(4)} ms is ${(q / best[pass]).toFixed(2)}× the best autotuned ${best[pass].toFixed(4)} ms (first config: ${(results.first?.perPass[pass] ?? Number.NaN).toFixed(4)} ms)`,
      );
    }
  }
  if (results.bounded) {
    const bound = Math.min(
      3 * (2000 * 1.5 + 2000),
      results.unbounded?.wallMs ?? Number.POSITIVE_INFINITY,
    );
    check(
      results.bounded.wallMs <= bound * 1.05,
      `${name} ${dtype} ${layout}: bounded autotune's select ${results.bounded.wallMs.toFixed(0)} ms (bound ${bound.toFixed(0)} ms; unbounded ${results.unbounded ? `${results.unbounded.wallMs.toFixed(0)} ms` : 'skipped'})`,
    );
  }
  for (const b of Object.values(ops)) b.dispose();
}
stream.dispose();
console.log(`budget: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
