/**
 * Characterization: the native calls of autotuned plans (see plan-trace.test-helpers.ts), with
 * the autotune cache empty, hit, stale and corrupt, compared call for call with
 * src/__traces__/autotune.trace.
 */
import { vi } from 'vitest';
import { type Scenario, traceSuite } from './plan-trace.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const autotune = { algorithm: 'autotune' } as const;
const scenarios: Scenario[] = [];
for (const problem of [
  'small32',
  'small16',
  'small16n',
  'point32',
  'pointBf16n',
  'strided32',
  'f64n',
  'dw32',
  'dw32n',
]) {
  scenarios.push({
    name: `autotune ${problem} e28 empty`,
    problem,
    engines: 'e28',
    preference: autotune,
  });
  scenarios.push({
    name: `autotune ${problem} e28 hit`,
    problem,
    engines: 'e28',
    preference: autotune,
    cache: 'hit',
  });
}
scenarios.push({
  name: 'autotune small32 knobs empty',
  problem: 'small32',
  engines: 'knobs',
  preference: autotune,
});
scenarios.push({
  name: 'autotune small32 knobs hit',
  problem: 'small32',
  engines: 'knobs',
  preference: autotune,
  cache: 'hit',
  fullRuns: true,
});
for (const problem of ['small32', 'point32', 'dw32']) {
  scenarios.push({
    name: `autotune ${problem} e28 corrupt`,
    problem,
    engines: 'e28',
    preference: autotune,
    cache: 'corrupt',
  });
  scenarios.push({
    name: `autotune ${problem} notes deterministic`,
    problem,
    engines: 'notes',
    preference: { ...autotune, deterministic: true },
  });
  scenarios.push({
    name: `autotune ${problem} notes no tf32`,
    problem,
    engines: 'notes',
    preference: { ...autotune, allowTf32: false },
  });
  scenarios.push({
    name: `autotune ${problem} ws 0`,
    problem,
    engines: 'ws',
    preference: { ...autotune, maxWorkspaceBytes: 0 },
  });
  scenarios.push({
    name: `autotune ${problem} none`,
    problem,
    engines: 'none',
    preference: autotune,
  });
}
const variants: [string, Partial<Scenario>][] = [
  ['detour wins', { launchMs: '-0.25' }],
  ['detour wins hit', { launchMs: '-0.25', cache: 'hit', fullRuns: true }],
  ['detour loses', { launchMs: '0.25' }],
  ['detour never', { launchMs: '-0.25', options: { layoutDetour: 'never' } }],
  ['detour always', { options: { layoutDetour: 'always' } }],
  ['detour always hit', { options: { layoutDetour: 'always' }, cache: 'hit' }],
  ['asfw never', { launchMs: '-0.25', options: { bwDataAsForward: 'never' } }],
  ['asfw always', { options: { bwDataAsForward: 'always' } }],
  ['asfw always hit', { options: { bwDataAsForward: 'always' }, cache: 'hit' }],
  [
    'both never',
    { launchMs: '-0.25', options: { bwDataAsForward: 'never', layoutDetour: 'never' } },
  ],
  ['sync', { sync: true, launchMs: '-0.25' }],
  ['passes fw', { options: { passes: ['fw'] }, queryFirst: true }],
  ['passes bwData twice', { options: { passes: ['bwData', 'bwData'] }, launchMs: '-0.25' }],
];
for (const problem of ['small32', 'point32', 'small16', 'small16n']) {
  for (const [label, v] of variants) {
    scenarios.push({
      name: `autotune ${problem} ${label}`,
      problem,
      engines: 'e28',
      preference: autotune,
      ...v,
    });
  }
}
const stale: [string, string, Scenario['cache'], Partial<Scenario>?][] = [
  ['engine gone', 'small32', { stale: [['fw', { engineIndex: 99, knobs: [] }]] }],
  ['knobs gone', 'small32', { stale: [['fw', { engineIndex: 28, knobs: [[2, 7]] }]] }],
  ['native on cudnn problem', 'small32', { stale: [['bwFilter', { engineIndex: -1, knobs: [] }]] }],
  ['native on depthwise', 'dw32', { stale: [['bwFilter', { engineIndex: -1, knobs: [] }]] }],
  ['asfw on strided', 'strided32', { stale: [['bwData', { engineIndex: -2, knobs: [] }]] }],
  ['asfw on fw', 'point32', { stale: [['fw', { engineIndex: -2, knobs: [] }]] }],
  ['asfw hit', 'point32', { stale: [['bwData', { engineIndex: -2, knobs: [], timeMs: 0.5 }]] }],
  [
    'asfw never',
    'point32',
    { stale: [['bwData', { engineIndex: -2, knobs: [] }]] },
    { options: { bwDataAsForward: 'never' } },
  ],
  ['detour on f64', 'f64n', { stale: [['fw', { engineIndex: -3, knobs: [] }]] }],
  ['detour hit', 'small32', { stale: [['bwFilter', { engineIndex: -3, knobs: [] }]] }],
  [
    'detour never',
    'small32',
    { stale: [['fw', { engineIndex: -3, knobs: [] }]] },
    { options: { layoutDetour: 'never' } },
  ],
  ['detour into erratum', 'small16n', { stale: [['fw', { engineIndex: -3, knobs: [] }]] }],
  ['unknown sentinel', 'small32', { stale: [['fw', { engineIndex: -7, knobs: [] }]] }],
];
for (const [label, problem, cache, extra] of stale) {
  scenarios.push({
    name: `autotune ${problem} stale ${label}`,
    problem,
    engines: 'e28',
    preference: autotune,
    cache,
    ...extra,
  });
}

traceSuite('autotune', scenarios);
