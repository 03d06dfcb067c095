#!/usr/bin/env node
// Time to a plan, and what each selection mode's plan then costs per call, on the GPU machine
// (bundled by scripts/device/pack.sh; session phase `budget`):
//   node budget-device-check.mjs
// On shapes of the shared suite (packages/conformance/suites/conv3d-suite.json), each with a cold
// autotune cache of its own, selects a plan of the listed passes in four ways:
//   first      heuristic mode, heuristic: 'first' (the heuristics' first config; PyTorch's default)
//   quick      heuristic mode, heuristic: 'quick-tune' (the default)
//   bounded    autotune under the default budget (2000 ms per pass)
//   unbounded  autotune with autotuneBudgetMs: 0 (every candidate; skipped on the shapes listed in
//              BUDGET_SKIP_UNBOUNDED (name:dtype:layout,...), by default all but unet3d-bottleneck,
//              so that the script stays within about 120 s)
// and prints, per mode, select's wall time and per pass what it timed, whether the budget cut
// it, its time to plan, the chosen route and its time per call (CUDA events, median of 20 calls
// after 5, operands filled on the device). The shapes include the default mode's cliffs of run 64
// (X3D's NDHWC depthwise, every pass: our kernel 2-6x autotune's choice; VideoMAE's patch
// backward-data: 11 s of quick tune on a 5.5 s engine; the I3D stem's f32 backward passes: 1.8 s).
// Our kernels' modules load once per process (PTX compiled by the driver: about 1.3 s for the
// space-to-depth module on an H200, run 68; now the cubin of the GPU's architecture where we ship
// one), before any shape, and that time is printed apart with the image each module loaded from
// ('sass sm_90' or 'ptx').
// Checks (a failure exits 1):
//   - the quick tune's select costs at most (passes × 200 ms) + 1000 ms (scratch, plan builds);
//   - bounded autotune's select costs at most passes × (2000 ms × 1.5 + 2000 ms) (the budget counts
//     candidates' timings; each pass's random operands and their upload come on top), and no more
//     than the unbounded one where both ran;
//   - no cliff: the quick tune's per-pass time is within 1.5× the best autotuned time of the pass.
// It measures time only: the routes' results are checked by the conformance `check` phases and the
// depthwise, layout and s2d checks. BUDGET_SHAPES (name:dtype:layout[:pass+pass],...) replaces the
// shape list.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stream } from '../../driver/dist/index.js';
import { ElementKind } from '../../types/dist/index.js';
import { Conv3dDescriptor } from '../src/descriptor.ts';
import { moduleSources } from '../src/module-cache.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { eventTimer } from './device-helpers.mjs';
import { descriptorOf, onesOperands, runOf, suiteCases } from './suite-shapes.mjs';

const SHAPES = (
  process.env.BUDGET_SHAPES ??
  'x3d-depthwise:f16:ndhwc,videomae-patch:f16:ndhwc,videomae-patch:f32:ncdhw:bwData,i3d-stem:f32:ncdhw:bwData+bwFilter,x3d-depthwise:f16:ncdhw,i3d-stem:f16:ndhwc,unet3d-bottleneck:bf16:ndhwc'
)
  .split(',')
  .map((s) => {
    const [name, dtype, layout, passes] = s.split(':');
    return [name, dtype, layout, passes ? passes.split('+') : ['fw', 'bwData', 'bwFilter']];
  });
const SKIP_UNBOUNDED = new Set(
  (
    process.env.BUDGET_SKIP_UNBOUNDED ??
    'videomae-patch:f16:ndhwc,videomae-patch:f32:ncdhw,i3d-stem:f32:ncdhw,x3d-depthwise:f16:ndhwc,x3d-depthwise:f16:ncdhw,i3d-stem:f16:ndhwc'
  )
    .split(',')
    .filter(Boolean),
);
const suite = { cases: suiteCases() };
const stream = Stream.create();
const time = eventTimer(stream, { warmup: 5, reps: 20 });
let passed = 0;
let failed = 0;
const check = (ok, line) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
};

// Unbounded before bounded: the first autotune of a shape in a process also pays for loading
// cuDNN's kernels of every engine it builds (run 74: bounded first 4255 ms, then unbounded 1330 ms,
// each timing about 140 configs a pass), so the bounded one is compared with the unbounded one warm.
const MODES = [
  ['first', { algorithm: 'heuristic' }, { heuristic: 'first' }],
  ['quick', { algorithm: 'heuristic' }, { heuristic: 'quick-tune' }],
  ['unbounded', { algorithm: 'autotune' }, { autotuneBudgetMs: 0 }],
  ['bounded', { algorithm: 'autotune' }, {}],
];

/** Our kernels' modules loaded once (as the first plan of a process would): depthwise, layout, s2d. */
async function loadModules() {
  const started = performance.now();
  const tiny = (k, groups) =>
    Conv3dDescriptor.create({
      batch: 1,
      cIn: 4,
      dIn: 4,
      hIn: 8,
      wIn: 8,
      cOut: 4,
      dFilt: k[0],
      hFilt: k[1],
      wFilt: k[2],
      element: ElementKind.F16,
    })
      .withGroups(groups)
      .withLayout('ndhwc');
  const runs = [
    [tiny([2, 4, 4], 1).withStride(2, 4, 4), { heuristic: 'first', patchGemm: 'always' }],
    [tiny([3, 3, 3], 1).withPadding(1, 1, 1), { heuristic: 'first', layoutDetour: 'always' }],
    [tiny([3, 3, 3], 4).withPadding(1, 1, 1), { heuristic: 'first' }],
  ];
  for (const [d, options] of runs) {
    const cache = join(mkdtempSync(join(tmpdir(), 'baracuda-budget-')), 'cache.json');
    const plan = await Conv3dPlan.select(
      stream,
      d,
      { algorithm: 'heuristic' },
      {
        autotuneCachePath: cache,
        ...options,
      },
    );
    const ops = onesOperands(d, stream);
    for (const pass of ['fw', 'bwData', 'bwFilter']) runOf(plan, ops, pass)();
    stream.synchronizeSync();
    for (const b of Object.values(ops)) b.dispose();
    plan.dispose();
  }
  return performance.now() - started;
}

try {
  const ms = await loadModules();
  // Which image each module came from: the cubin of this GPU's architecture (no JIT) or the PTX.
  const from = Object.entries(moduleSources())
    .map(([unit, source]) => `${unit} from ${source}`)
    .join(', ');
  console.log(`our kernels' modules loaded in ${ms.toFixed(0)} ms (once per process): ${from}`);
} catch (error) {
  check(false, `loading our kernels' modules failed: ${error.message}`);
}

for (const [name, dtype, layout, PASSES] of SHAPES) {
  const c = suite.cases.find((k) => k.name === name);
  if (!c) {
    check(false, `${name}: not in the suite`);
    continue;
  }
  const d = descriptorOf(c, dtype, layout);
  const ops = onesOperands(d, stream);
  const best = {};
  const results = {};
  for (const [mode, preference, options] of MODES) {
    if (mode === 'unbounded' && SKIP_UNBOUNDED.has(`${name}:${dtype}:${layout}`)) {
      console.log(`${name} ${dtype} ${layout} ${mode}: skipped (BUDGET_SKIP_UNBOUNDED)`);
      continue;
    }
    const cache = join(mkdtempSync(join(tmpdir(), 'baracuda-budget-')), 'cache.json');
    let plan;
    const selectStart = performance.now();
    try {
      plan = await Conv3dPlan.select(
        stream,
        d,
        { ...preference, allowTf32: dtype === 'tf32' },
        {
          autotuneCachePath: cache,
          passes: PASSES,
          // Every progress line with the ms since select began: where a select's time goes.
          onProgress: (m) =>
            console.log(`  +${(performance.now() - selectStart).toFixed(0)} ms ${m}`),
          ...options,
        },
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
        ms = time(runOf(plan, ops, pass));
      } catch (error) {
        console.log(`  ${pass}: run failed: ${error.message}`);
        continue;
      }
      perPass[pass] = ms;
      if (mode === 'bounded' || mode === 'unbounded') best[pass] = Math.min(best[pass] ?? ms, ms);
      const how = sel
        ? `${sel.how}, ${sel.timed} timed${sel.budgetCut ? ', cut by the budget' : ''}, time to plan ${sel.wallMs.toFixed(0)} ms`
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
    const quickBound = PASSES.length * 200 + 1000;
    check(
      results.quick.wallMs <= quickBound,
      `${name} ${dtype} ${layout}: quick tune's select ${results.quick.wallMs.toFixed(0)} ms (bound ${quickBound} ms)`,
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
      PASSES.length * (2000 * 1.5 + 2000),
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
