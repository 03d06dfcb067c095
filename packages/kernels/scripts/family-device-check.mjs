#!/usr/bin/env node
import {
  conv3dBackwardData,
  convInput,
  convTranspose3dBackwardData,
  convTranspose3dForward,
  epilogueBackwardOn,
  epilogueForwardOn,
  inputActivationBackward,
  transposeInput,
  transposeOutput,
} from '../../conformance/src/reference/index.ts';
// Device check of the conv family's tails (branch tfamily), run on the GPU machine (bundled by
// scripts/device/pack.sh; session.sh phase `check-family`):
//   node family-device-check.mjs [--quick]
// 1. ConvTranspose3dPlan.runFw with the descriptor's epilogue (withEpilogue: every activation,
//    bias and residual switched across the rows, alpha/beta (1, 0) or (2, 0.5)), every element
//    kind × layout, on odd shapes, groups, stride 2 with output padding (with and without trailing
//    planes); heuristic everywhere, pinned and autotune on some rows.
// 2. ConvTranspose3dPlan.runBwEpilogue (dyPre and dBias) per element × layout × activation.
// 3. runBwData with an input activation (withInputActivation) on Conv3dPlan and ConvTranspose3dPlan:
//    dx · act'(x or preActivation); relu, gelu, geluTanh and silu take the fused graph where an
//    engine finalizes, and the unfused route (our kernel after the pass) on rows with beta ≠ 0 and
//    in pinned mode; the other activations always run unfused. algorithm() is printed per row.
// 4. runBwEpilogue({ dyPre, dBias }) without dy (the bias gradient only) on both plans.
// Then, timed, one large layer's backward-data plain and with the input relu's backward.
// Every row: fresh random inputs, outputs poisoned with NaN (0xff bytes), the result against the
// f64 reference of packages/conformance by relative L2. One line per case, then
// `tfamily: N passed, M failed`; exit code 1 on any failure. Rows past the time budget
// (FAMILY_CHECK_BUDGET_S, default 80 s) are reported as not run, never passed.
import { DeviceBuffer, Stream } from '../../driver/dist/index.js';
import { Conv3dPlan, ConvTranspose3dPlan } from '../dist/index.js';
import { eventTimer, relL2 } from './device-helpers.mjs';
import { ACTIVATIONS, download, ELEMENTS, poisoned, random, upload } from './epilogue-rows.mjs';
import {
  CONVS,
  convolution,
  FROM_OUTPUT,
  interleave,
  product,
  refProblem,
  savedTensors,
  TRANSPOSED,
  transposed,
} from './family-problems.mjs';

const quick = process.argv.includes('--quick');
const stream = Stream.create();
let passed = 0;
let failed = 0;
let refused = 0;

/**
 * A row's error: pinned mode's legacy algorithm refusing the problem at its first run (as it does
 * without a tail) is counted apart, like a refusal at select; anything else fails the row.
 */
function rowError(mode, what, error) {
  if (
    mode === 'pinned' &&
    error?.code === 'BARACUDA_UNSUPPORTED' &&
    /^The pinned /.test(error.message)
  ) {
    refused++;
    console.log(`UNSUPPORTED ${what}: ${error.message.split('\n')[0]}`);
    return;
  }
  report(false, `${what}: ${error?.stack ?? error}`);
}

function report(ok, line) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
}

/** select, or null (counted apart) where pinned mode's legacy algorithm or an erratum refuses. */
async function selectOrRefuse(Plan, desc, mode, passes, what) {
  try {
    return await Plan.select(stream, desc, { algorithm: mode }, { passes });
  } catch (error) {
    if (mode === 'pinned' && error?.code === 'BARACUDA_UNSUPPORTED') {
      refused++;
      console.log(`UNSUPPORTED ${what}: ${error.message.split('\n')[0]}`);
      return null;
    }
    throw error;
  }
}

async function transposedForward(p, pi, element, layout, mode, act, bias, residual, alpha, beta) {
  const desc = transposed(p, element, layout).withEpilogue({ ...act, bias, residual });
  const what = `convT fw ${element} ${layout} ${mode} problem${pi} ${desc.epilogue.describe()} alpha=${alpha} beta=${beta}`;
  const buffers = [];
  const keep = (b) => {
    buffers.push(b);
    return b;
  };
  let plan;
  try {
    plan = await selectOrRefuse(ConvTranspose3dPlan, desc, mode, ['fw'], what);
    if (plan === null) return;
    const ny = product(desc.yShape);
    const x = random(element, product(desc.xShape));
    const w = random(element, product(desc.wShape));
    const b = random(element, desc.cOut);
    const z = random(element, ny);
    const prior = random(element, ny);
    const y = keep(beta === 0 ? poisoned(element, ny) : upload(element, prior));
    const wantsPre = desc.epilogue.backwardInput === 'preActivation';
    const pre = wantsPre ? keep(poisoned(element, ny)) : undefined;
    plan.runFw({
      x: keep(upload(element, x)),
      w: keep(upload(element, w)),
      y,
      alpha,
      beta,
      ...(bias ? { bias: keep(upload(element, b)) } : {}),
      ...(residual ? { z: keep(upload(element, z)) } : {}),
      ...(pre ? { preActivation: pre } : {}),
    });
    await stream.synchronize();
    const rp = refProblem(p, layout);
    const conv = convTranspose3dForward(rp, x.values, w.values);
    for (let i = 0; i < conv.length; i++) conv[i] = alpha * conv[i] + beta * prior.values[i];
    const want = epilogueForwardOn(transposeOutput(rp), conv, {
      ...act,
      ...(bias ? { bias: b.values } : {}),
      ...(residual ? { z: z.values } : {}),
    });
    const err = relL2(download(element, y, ny), want.y);
    const preErr = pre ? relL2(download(element, pre, ny), want.pre) : 0;
    const tol = ELEMENTS[element].tol;
    report(
      err <= tol && preErr <= tol,
      `${what}: relL2 ${err.toExponential(2)}${pre ? ` pre ${preErr.toExponential(2)}` : ''} (tol ${tol}) [${plan.algorithm('fw').name}]`,
    );
  } catch (error) {
    rowError(mode, what, error);
  } finally {
    plan?.dispose();
    for (const b of buffers) b.dispose();
  }
}

/** The saved tensors as a forward would store them: a pre-activation, and its output rounded. */
async function transposedBwEpilogue(element, layout, act) {
  const p = TRANSPOSED[2];
  const desc = transposed(p, element, layout).withEpilogue({ ...act, bias: true });
  const what = `convT bwEpilogue ${element} ${layout} ${desc.epilogue.describe()}`;
  const buffers = [];
  const keep = (b) => {
    buffers.push(b);
    return b;
  };
  let plan;
  try {
    plan = await ConvTranspose3dPlan.select(stream, desc);
    const count = product(desc.yShape);
    const dy = random(element, count);
    const { preT, outT } = savedTensors(element, act, count);
    const input = desc.epilogue.backwardInput;
    const dyPre = input === 'none' ? undefined : keep(poisoned(element, count));
    const dBias = keep(poisoned(element, desc.cOut));
    plan.runBwEpilogue({
      dy: keep(upload(element, dy)),
      ...(input === 'output' ? { y: keep(upload(element, outT)) } : {}),
      ...(input === 'preActivation' ? { preActivation: keep(upload(element, preT)) } : {}),
      ...(dyPre ? { dyPre } : {}),
      dBias,
    });
    await stream.synchronize();
    const fromOutput = input === 'output';
    const t = transposeOutput(refProblem(p, layout));
    const want = epilogueBackwardOn(
      t,
      dy.values,
      fromOutput ? outT.values : preT.values,
      act,
      fromOutput,
    );
    const tol = ELEMENTS[element].tol;
    const gradErr = dyPre ? relL2(download(element, dyPre, count), want.dyPre) : 0;
    const biasErr = relL2(download(element, dBias, desc.cOut), want.dBias);
    report(
      gradErr <= tol && biasErr <= tol,
      `${what}: dyPre relL2 ${gradErr.toExponential(2)} dBias relL2 ${biasErr.toExponential(2)} (tol ${tol})`,
    );
  } catch (error) {
    report(false, `${what}: ${error?.stack ?? error}`);
  } finally {
    plan?.dispose();
    for (const b of buffers) b.dispose();
  }
}

/** runBwEpilogue({ dyPre, dBias }) without dy: dBias = Σ dyPre only (a stack's fused backward-data wrote dyPre). */
async function biasOnlyRow(kind, element, layout) {
  const base =
    kind === 'conv'
      ? convolution(CONVS[1], element, layout)
      : transposed(TRANSPOSED[1], element, layout);
  const desc = base.withEpilogue({ bias: true, activation: 'gelu' });
  const Plan = kind === 'conv' ? Conv3dPlan : ConvTranspose3dPlan;
  const what = `${kind} bwEpilogue dyPre-only ${element} ${layout} ${desc.epilogue.describe()}`;
  const buffers = [];
  const keep = (b) => {
    buffers.push(b);
    return b;
  };
  let plan;
  try {
    plan = await Plan.select(stream, desc);
    const count = product(desc.yShape);
    const g = random(element, count);
    const dBias = keep(poisoned(element, desc.cOut));
    plan.runBwEpilogue({ dyPre: keep(upload(element, g)), dBias });
    await stream.synchronize();
    const p = kind === 'conv' ? CONVS[1] : TRANSPOSED[1];
    const rp = refProblem(p, layout);
    const t =
      kind === 'conv'
        ? { n: p.n, c: p.cOut, dims: desc.outputDims(), layout }
        : transposeOutput(rp);
    const want = epilogueBackwardOn(t, g.values, g.values, { activation: 'identity' });
    const err = relL2(download(element, dBias, desc.cOut), want.dBias);
    const tol = ELEMENTS[element].tol;
    report(err <= tol, `${what}: dBias relL2 ${err.toExponential(2)} (tol ${tol})`);
  } catch (error) {
    report(false, `${what}: ${error?.stack ?? error}`);
  } finally {
    plan?.dispose();
    for (const b of buffers) b.dispose();
  }
}

async function inputActivationRow(kind, p, pi, element, layout, mode, act, alpha, beta) {
  const base = kind === 'conv' ? convolution(p, element, layout) : transposed(p, element, layout);
  const desc = base.withInputActivation(act);
  const Plan = kind === 'conv' ? Conv3dPlan : ConvTranspose3dPlan;
  const what = `${kind} bwData+${act.activation}' ${element} ${layout} ${mode} problem${pi} alpha=${alpha} beta=${beta}`;
  const buffers = [];
  const keep = (b) => {
    buffers.push(b);
    return b;
  };
  let plan;
  try {
    plan = await selectOrRefuse(Plan, desc, mode, ['bwData'], what);
    if (plan === null) return;
    const nx = product(desc.xShape);
    const dy = random(element, product(desc.yShape));
    const w = random(element, product(desc.wShape));
    const prior = random(element, nx);
    const dx = keep(beta === 0 ? poisoned(element, nx) : upload(element, prior));
    const { preT, outT } = savedTensors(element, act, nx);
    const fromOutput = FROM_OUTPUT.includes(act.activation);
    plan.runBwData({
      w: keep(upload(element, w)),
      dy: keep(upload(element, dy)),
      dx,
      alpha,
      beta,
      ...(fromOutput
        ? { x: keep(upload(element, outT)) }
        : { preActivation: keep(upload(element, preT)) }),
    });
    await stream.synchronize();
    const rp = refProblem(p, layout);
    const grad =
      kind === 'conv'
        ? conv3dBackwardData(rp, dy.values, w.values)
        : convTranspose3dBackwardData(rp, dy.values, w.values);
    for (let i = 0; i < grad.length; i++) grad[i] = alpha * grad[i] + beta * prior.values[i];
    const t = kind === 'conv' ? convInput(rp) : transposeInput(rp);
    const want = inputActivationBackward(
      t,
      grad,
      fromOutput ? outT.values : preT.values,
      act,
      fromOutput,
    );
    const err = relL2(download(element, dx, nx), want);
    const tol = ELEMENTS[element].tol;
    report(
      err <= tol,
      `${what}: relL2 ${err.toExponential(2)} (tol ${tol}) [${plan.algorithm('bwData').name}]`,
    );
  } catch (error) {
    rowError(mode, what, error);
  } finally {
    plan?.dispose();
    for (const b of buffers) b.dispose();
  }
}

/** The lists' items taken in turns: the first of each, then the second of each, ... */
const started = performance.now();
const BUDGET_S = Number(process.env.FAMILY_CHECK_BUDGET_S ?? 80);
const groups = [];
let row = 0;
for (const element of Object.keys(ELEMENTS)) {
  for (const layout of ['ncdhw', 'ndhwc']) {
    // One list per activation, interleaved below, so a run cut short has covered every
    // activation and every kind of row before it repeats one.
    const perActivation = [];
    for (const [ai, act] of ACTIVATIONS.entries()) {
      const rows = [];
      perActivation.push(rows);
      if (quick && ai > 2) continue;
      for (const [pi, p] of TRANSPOSED.entries()) {
        if ((ai + pi) % 2 === 1 && pi !== 1) continue;
        const mode = row % 11 === 4 ? 'pinned' : row % 13 === 6 ? 'autotune' : 'heuristic';
        const bias = row % 4 !== 3;
        const residual = row % 3 === 1;
        const [alpha, beta] = row % 5 === 2 ? [2, 0.5] : [1, 0];
        row++;
        rows.push(() =>
          transposedForward(p, pi, element, layout, mode, act, bias, residual, alpha, beta),
        );
      }
      rows.push(() => transposedBwEpilogue(element, layout, act));
      if (act.activation === 'identity') continue;
      for (const kind of ['conv', 'convT']) {
        const pi = (ai + (kind === 'conv' ? 0 : 1)) % 2;
        const p = kind === 'conv' ? CONVS[pi] : TRANSPOSED[pi * 2];
        rows.push(() => inputActivationRow(kind, p, pi, element, layout, 'heuristic', act, 1, 0));
        if (['relu', 'gelu', 'geluTanh', 'silu'].includes(act.activation)) {
          // The same fusable activation on the unfused route: beta ≠ 0, and pinned.
          rows.push(() =>
            inputActivationRow(kind, p, pi, element, layout, 'heuristic', act, 2, 0.5),
          );
          if (act.activation === 'relu') {
            rows.push(() => inputActivationRow(kind, p, pi, element, layout, 'pinned', act, 1, 0));
          }
        }
      }
    }
    perActivation[0].push(() => biasOnlyRow('conv', element, layout));
    perActivation[1].push(() => biasOnlyRow('convT', element, layout));
    groups.push(interleave(perActivation));
  }
}
// Round-robin over the (element, layout) groups, so a run cut short has covered every group alike.
const ordered = interleave(groups);
let notRun = 0;
for (const check of ordered) {
  if ((performance.now() - started) / 1000 > BUDGET_S) {
    notRun++;
    continue;
  }
  await check();
}
console.log(`checks took ${((performance.now() - started) / 1000).toFixed(1)} s`);

// Timing (CUDA events, median of 30): one large layer's backward-data, plain against with the
// input relu's backward (fused where algorithm('bwData') says so, else our kernel after it).
if (!quick) {
  const p = {
    n: 2,
    cIn: 64,
    cOut: 64,
    in: [32, 64, 64],
    k: [3, 3, 3],
    pad: [1, 1, 1],
    stride: [1, 1, 1],
    groups: 1,
  };
  for (const element of ['f16', 'bf16']) {
    try {
      await timeBwData(p, element);
    } catch (error) {
      report(false, `TIME ${element} bwData: ${error?.stack ?? error}`);
    }
  }
}

/** One large layer's backward-data timed plain and with the input relu's backward. */
async function timeBwData(p, element) {
  const base = convolution(p, element, 'ndhwc');
  const bytes = ELEMENTS[element].bytes;
  const counts = [base.wElements, base.yElements, base.xElements, base.xElements];
  const [w, dy, dx, x] = counts.map((n) => DeviceBuffer.alloc(n * bytes));
  const plans = [];
  try {
    // Fresh random operands (never zeros: they can run faster than real data).
    for (const [b, n] of [w, dy, dx, x].map((b, i) => [b, counts[i]]))
      b.uploadSync(random(element, n).host);
    const plain = await Conv3dPlan.select(stream, base);
    plans.push(plain);
    const tail = await Conv3dPlan.select(stream, base.withInputActivation({ activation: 'relu' }));
    plans.push(tail);
    const time = eventTimer(stream, { warmup: 5, reps: 30 });
    const msPlain = time(() => plain.runBwData({ w, dy, dx }));
    const msTail = time(() => tail.runBwData({ w, dy, dx, x }));
    console.log(
      `TIME ${element} ndhwc n2 64→64 32×64×64 k3 bwData: plain ${msPlain.toFixed(3)} ms [${plain.algorithm('bwData').name}], with relu' ${msTail.toFixed(3)} ms [${tail.algorithm('bwData').name}] (median of 30)`,
    );
  } finally {
    for (const plan of plans) plan.dispose();
    for (const b of [w, dy, dx, x]) b.dispose();
  }
}
if (refused > 0) console.log(`${refused} rows refused by pinned mode (not counted)`);
if (notRun > 0)
  console.log(
    `NOT RUN: ${notRun} of ${ordered.length} rows (past the ${BUDGET_S} s budget, not counted)`,
  );
console.log(`tfamily: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
