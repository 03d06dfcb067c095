#!/usr/bin/env node
// What the default mode's quick tune and autotune would time, one by one, on the shapes where the
// default fell off a cliff (bundled by scripts/device/pack.sh; session phase `quick-probe`):
//   node quick-probe-device.mjs
// For each case and pass: every engine config the heuristics offer (modes A, B, FALLBACK merged in
// that order, as autotune walks them; the quick tune walks A then FALLBACK and takes the first
// QUICK_CONFIGS that build), each with its engine index and knobs, the modes that offered it,
// numerical and behaviour notes, whether the preference allows it, its plan-build (finalize) ms,
// its workspace and ONE timed call (CUDA events; a second one when the first took under 3 s, both
// printed). Once a single call took over 3 s, the rest of that list is listed but not run; a list
// stops running after LIST_CAP_MS of calls, and nothing runs after DEADLINE_MS (the script must
// stay within about 60 s). Then our routes, each forced through the public options and timed
// (median of 3 after 1): the heuristics' first choice, the layout detour, backward-data as a
// forward pass, the space-to-depth routes, our depthwise kernel, and (where the case says so) the
// quick tune itself with its select time. It checks nothing (exit 0 unless it crashed): it is
// data for the quick tune's candidate rules. PROBE_JSON=<path> also writes every row as JSON.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event, Stream } from '../../driver/dist/index.js';
import { resolvePlanPreference } from '../src/compat.ts';
import { engineOf } from '../src/cudnn/engine-configs.ts';
import { bindStream } from '../src/cudnn/handle.ts';
import { operationGraph, variantPack } from '../src/cudnn/operation-graph.ts';
import { depthwiseExecutor } from '../src/exec/depthwise.ts';
import { resolveOptions } from '../src/plan/options.ts';
import { Conv3dPlan } from '../src/plan.ts';
import { engineName, engineRejection } from '../src/policy.ts';
import { tuneBench } from '../src/select/autotune/bench.ts';
import { createCore } from '../src/select/create.ts';
import { candidates, finalizeAllowed } from '../src/select/graph-choice.ts';
import { C, cudnn } from '../src/sys.ts';
import { eventTimer } from './device-helpers.mjs';
import { descriptorOf, onesOperands, runOf, suiteCases } from './suite-shapes.mjs';

const T0 = performance.now();
const DEADLINE_MS = Number(process.env.PROBE_DEADLINE_MS ?? 52000);
const CALL_CAP_MS = 3000;
const LIST_CAP_MS = Number(process.env.PROBE_LIST_CAP_MS ?? 9000);
const QUICK_CONFIGS = 3;
// name:dtype:layout:passes[:flags]; flags: 'other' also lists the other layout's engines (the
// layout detour of cuDNN), 'quick' also times the quick tune's own select.
const CASES = (
  process.env.PROBE_CASES ??
  'videomae-patch:f16:ndhwc:bwData,videomae-patch:f32:ncdhw:bwData,i3d-stem:f32:ncdhw:bwData+bwFilter:quick,x3d-depthwise:f16:ndhwc:fw+bwData+bwFilter:other+quick'
)
  .split(',')
  .map((s) => {
    const [name, dtype, layout, passes, flags = ''] = s.split(':');
    return { name, dtype, layout, passes: passes.split('+'), flags: new Set(flags.split('+')) };
  });
// cudnnBackendBehaviorNote_t names, by value.
const BEHAVIOUR = [
  'RUNTIME_COMPILATION',
  'FILTER_INT8x32_REORDER',
  'BIAS_INT8x32_REORDER',
  'CUDA_GRAPH_NATIVE_API',
];
const suite = { cases: suiteCases() };
const stream = Stream.create();
const rows = [];
const left = () => DEADLINE_MS - (performance.now() - T0);
const log = (line, row) => {
  console.log(line);
  if (row) rows.push(row);
};

/** An engine config's behaviour notes (names), or ['?'] when cuDNN does not say. */
function behaviourNotes(scope, cfg) {
  const engine = engineOf(scope, cfg);
  if (engine === null) return ['?'];
  try {
    const r = cudnn.cudnnBackendGetAttribute(
      engine,
      C.CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
      C.CUDNN_TYPE_BEHAVIOR_NOTE,
      16,
    );
    if (r.status !== 0) return [`status ${r.status}`];
    const values = r.values;
    const n = Math.min(Number(r.elementCount), values.length);
    return Array.from({ length: n }, (_, i) => BEHAVIOUR[Number(values[i])] ?? String(values[i]));
  } catch (error) {
    return [`error ${error.message}`];
  } finally {
    scope.destroyBackend(engine);
  }
}

/** ms of one call enqueued by `run` (CUDA events around it, waited on). */
function timeOne(start, end, run) {
  start.record(stream);
  const ok = run();
  end.record(stream);
  end.synchronizeSync();
  return ok === false ? Number.NaN : Event.elapsedMs(start, end);
}

/** Every engine config of the pass, in autotune's order, listed and (within the caps) timed. */
function probeEngines(label, d, pass, detour = false) {
  const core = createCore(
    stream,
    d,
    resolvePlanPreference({ algorithm: 'heuristic' }),
    resolveOptions({}),
  );
  const { ctx } = core;
  const scope = ctx.scope;
  const { graph, parts } = operationGraph(scope, ctx.desc, pass, 1, 0, 16);
  const modesOf = new Map();
  const idOf = (c) => `${c.engineIndex}:${JSON.stringify(c.knobs)}`;
  for (const [mode, tag] of [
    [C.CUDNN_HEUR_MODE_A, 'A'],
    [C.CUDNN_HEUR_MODE_B, 'B'],
    [C.CUDNN_HEUR_MODE_FALLBACK, 'F'],
  ]) {
    const t = performance.now();
    const list = candidates(ctx, graph, [mode]);
    log(
      `${label}: heuristics mode ${tag}: ${list.length} configs in ${(performance.now() - t).toFixed(1)} ms`,
    );
    list.forEach((c, i) => {
      const id = idOf(c);
      modesOf.set(id, `${modesOf.get(id) ?? ''}${tag}${i}`);
      scope.destroyBackend(c.cfg);
    });
  }
  const quickOrder = candidates(ctx, graph, [C.CUDNN_HEUR_MODE_A, C.CUDNN_HEUR_MODE_FALLBACK]).map(
    (c) => {
      scope.destroyBackend(c.cfg);
      return idOf(c);
    },
  );
  const all = candidates(ctx, graph, [
    C.CUDNN_HEUR_MODE_A,
    C.CUDNN_HEUR_MODE_B,
    C.CUDNN_HEUR_MODE_FALLBACK,
  ]);
  const bench = tuneBench(ctx, true);
  const { x, w, y } = bench.sets[0];
  const start = Event.create(stream.device, { timing: true, blockingSync: false });
  const end = Event.create(stream.device, { timing: true, blockingSync: false });
  bindStream(scope.handle, stream.raw, ctx.problem);
  let quickBuilt = 0;
  let capped = '';
  let spent = 0;
  for (let i = 0; i < all.length; i++) {
    const c = all[i];
    const id = idOf(c);
    const name = engineName(c.engineIndex, c.knobs);
    const qi = quickOrder.indexOf(id);
    const behaviour = behaviourNotes(scope, c.cfg);
    const rejected = engineRejection(c.notes, ctx.preference, ctx.desc.element);
    const row = {
      label,
      pass,
      i,
      engine: c.engineIndex,
      knobs: c.knobs,
      name,
      modes: modesOf.get(id) ?? '',
      quickIndex: qi,
      numerical: c.notes,
      behaviour,
      rejected,
    };
    const head = `${label} #${i} ${name} modes=${row.modes} quickOrder=${qi} notes=[${c.notes.join(',')}] behaviour=[${behaviour.join(',')}]`;
    if (rejected !== null) {
      log(`${head}: not allowed (${rejected})`, row);
      scope.destroyBackend(c.cfg);
      continue;
    }
    if (left() < 0) {
      log(`${head}: not built (the probe's deadline)`, row);
      scope.destroyBackend(c.cfg);
      continue;
    }
    const tb = performance.now();
    const built = finalizeAllowed(ctx, c);
    row.buildMs = performance.now() - tb;
    if (built === null) {
      log(`${head}: does not build (${row.buildMs.toFixed(1)} ms)`, row);
      scope.destroyBackend(c.cfg);
      continue;
    }
    row.workspaceBytes = built.workspaceBytes;
    if (qi >= 0 && quickBuilt < QUICK_CONFIGS) row.quickTimes = `quick#${quickBuilt++}`;
    const ws = `ws ${(built.workspaceBytes / 1048576).toFixed(1)} MiB, build ${row.buildMs.toFixed(1)} ms`;
    if (capped !== '' || spent > LIST_CAP_MS || left() < 0) {
      log(
        `${head} ${row.quickTimes ?? ''}: ${ws}; not run (${capped || (spent > LIST_CAP_MS ? 'list cap' : 'deadline')})`,
        row,
      );
    } else {
      let vp;
      try {
        vp = variantPack(scope, x, w, y, bench.workspace(built.workspaceBytes));
        const run = () => cudnn.cudnnBackendExecute(scope.handle.handle, built.plan, vp) === 0;
        const t1 = timeOne(start, end, run);
        row.firstMs = t1;
        spent += Number.isFinite(t1) ? t1 : 0;
        if (t1 > CALL_CAP_MS) capped = `a call of #${i} took ${t1.toFixed(0)} ms`;
        else if (Number.isFinite(t1)) {
          row.againMs = timeOne(start, end, run);
          spent += row.againMs;
        }
        log(
          `${head} ${row.quickTimes ?? ''}: ${ws}; call ${t1.toFixed(4)} ms, again ${row.againMs?.toFixed(4) ?? '-'} ms`,
          row,
        );
      } catch (error) {
        log(`${head}: ${ws}; run failed: ${error.message}`, row);
      } finally {
        if (vp !== undefined) scope.destroyBackend(vp);
      }
    }
    scope.destroyBackend(built.plan);
    scope.destroyBackend(c.cfg);
  }
  // Our depthwise kernel, as the quick tune and autotune would time it.
  const dw = depthwiseExecutor(ctx, pass);
  if (dw !== null && left() > 0) {
    const args = { alpha: 1, beta: 0, stream, userWs: null };
    const run = () => {
      dw.run(bench.sets[0], args);
      return true;
    };
    const t1 = timeOne(start, end, run);
    const t2 = Math.min(timeOne(start, end, run), timeOne(start, end, run));
    log(`${label} ours ${dw.info().name}: call ${t1.toFixed(4)} ms, again ${t2.toFixed(4)} ms`, {
      label,
      pass,
      ours: dw.info().name,
      firstMs: t1,
      againMs: t2,
    });
  }
  // The layout detour of the pass as the inner plan of the other layout runs it by default (our
  // depthwise kernel there where it applies, else the heuristics' first config), transposes included.
  if (detour && left() > 0) {
    try {
      const via = core.ensureDetour();
      const name = via.inner.executor(pass).info().name;
      const args = { alpha: 1, beta: 0, stream, userWs: null };
      const run = () => {
        via.run(pass, bench.sets[0], args);
        return true;
      };
      const t1 = timeOne(start, end, run);
      const t2 = timeOne(start, end, run);
      const t3 = timeOne(start, end, run);
      log(
        `${label} detour (${name} via the other layout): call ${t1.toFixed(4)} ms, again ${t2.toFixed(4)}, ${t3.toFixed(4)} ms`,
        {
          label,
          pass,
          detour: name,
          firstMs: t1,
          againMs: Math.min(t2, t3),
        },
      );
    } catch (error) {
      log(`${label} detour: failed: ${error.message}`);
    }
  }
  for (const p of parts) scope.destroyBackend(p);
  start.dispose();
  end.dispose();
  bench.dispose();
  core.dispose();
}

const time = eventTimer(stream, { warmup: 1, reps: 3 });

/** Our routes forced through the public options, each timed per pass. */
async function probeRoutes(label, d, passes, flags) {
  const ops = onesOperands(d, stream);
  const routes = [
    ['first', { heuristic: 'first' }],
    ['detour', { heuristic: 'first', layoutDetour: 'always' }],
    ['asForward', { heuristic: 'first', bwDataAsForward: 'always' }],
    ['patchGemm', { heuristic: 'first', patchGemm: 'always' }],
    ['stemS2D', { heuristic: 'first', stemSpaceToDepth: 'always' }],
  ];
  if (flags.has('quick')) {
    routes.push(['quick', { heuristic: 'quick-tune' }]);
    routes.push(['detourQuick', { heuristic: 'quick-tune', layoutDetour: 'always' }]);
  }
  for (const [route, options] of routes) {
    if (left() < 0) {
      log(`${label} route ${route}: not timed (the probe's deadline)`);
      continue;
    }
    const cache = join(mkdtempSync(join(tmpdir(), 'baracuda-probe-')), 'cache.json');
    let plan;
    const t = performance.now();
    try {
      plan = await Conv3dPlan.select(
        stream,
        d,
        { algorithm: 'heuristic' },
        { autotuneCachePath: cache, passes, ...options },
      );
    } catch (error) {
      log(`${label} route ${route}: select failed: ${error.message}`);
      continue;
    }
    const selectMs = performance.now() - t;
    const report = plan.selectReport();
    for (const pass of passes) {
      const name = plan.algorithm(pass).name;
      const sel = report.passes.find((p) => p.pass === pass);
      let ms;
      try {
        ms = time(runOf(plan, ops, pass));
      } catch (error) {
        log(`${label} route ${route} ${pass}: run failed: ${error.message}`);
        continue;
      }
      const how = sel ? `; ${sel.how}, ${sel.timed} timed, ${sel.wallMs.toFixed(0)} ms` : '';
      log(
        `${label} route ${route} ${pass}: ${ms.toFixed(4)} ms/call (${name}${how}); select ${selectMs.toFixed(0)} ms`,
        {
          label,
          pass,
          route,
          name,
          ms,
          selectMs,
          passWallMs: sel?.wallMs,
        },
      );
    }
    plan.dispose();
  }
  for (const b of Object.values(ops)) b.dispose();
}

for (const k of CASES) {
  const c = suite.cases.find((s) => s.name === k.name);
  if (!c) {
    console.log(`${k.name}: not in the suite`);
    continue;
  }
  const d = descriptorOf(c, k.dtype, k.layout);
  for (const pass of k.passes) {
    const label = `${k.name} ${k.dtype} ${k.layout} ${pass}`;
    try {
      probeEngines(label, d, pass, k.flags.has('other'));
      if (k.flags.has('other')) {
        const other = k.layout === 'ndhwc' ? 'ncdhw' : 'ndhwc';
        probeEngines(
          `${k.name} ${k.dtype} ${other}(detour) ${pass}`,
          descriptorOf(c, k.dtype, other),
          pass,
        );
      }
    } catch (error) {
      console.log(`${label}: probe failed: ${error.stack}`);
    }
  }
  try {
    await probeRoutes(`${k.name} ${k.dtype} ${k.layout}`, d, k.passes, k.flags);
  } catch (error) {
    console.log(`${k.name}: routes failed: ${error.stack}`);
  }
  console.log(
    `--- ${k.name} ${k.dtype} ${k.layout} done at ${((performance.now() - T0) / 1000).toFixed(1)} s`,
  );
}
if (process.env.PROBE_JSON) writeFileSync(process.env.PROBE_JSON, JSON.stringify(rows, null, 1));
stream.dispose();
console.log(
  `quick-probe: ${rows.length} rows in ${((performance.now() - T0) / 1000).toFixed(1)} s`,
);
