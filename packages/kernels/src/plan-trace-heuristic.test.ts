/**
 * Characterization: the native calls of heuristic and pinned plans (see plan-trace.test-helpers.ts),
 * compared call for call with src/__traces__/heuristic.trace.
 */
import { vi } from 'vitest';
import { ENGINES, PROBLEMS, type Scenario, traceSuite } from './plan-trace.test-helpers.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const scenarios: Scenario[] = [];
const problems = Object.keys(PROBLEMS);
for (const problem of problems) {
  const fullRuns = ['small32', 'small16', 'point32', 'dw32', 'f64n'].includes(problem);
  scenarios.push({
    name: `heuristic ${problem} e28`,
    problem,
    engines: 'e28',
    preference: {},
    fullRuns,
  });
}
for (const problem of ['small32', 'point32', 'dw32', 'small16']) {
  for (const engines of Object.keys(ENGINES).filter((e) => e !== 'e28')) {
    scenarios.push({ name: `heuristic ${problem} ${engines}`, problem, engines, preference: {} });
  }
}
const variants: [string, Partial<Scenario>][] = [
  ['deterministic', { preference: { deterministic: true }, engines: 'notes' }],
  ['no tf32', { preference: { allowTf32: false }, engines: 'notes' }],
  ['ws 0', { preference: { maxWorkspaceBytes: 0 }, engines: 'ws' }],
  ['ws 4096', { preference: { maxWorkspaceBytes: 4096 }, engines: 'ws' }],
  ['detour always', { options: { layoutDetour: 'always' } }],
  ['detour never', { options: { layoutDetour: 'never' } }],
  ['asfw always', { options: { bwDataAsForward: 'always' } }],
  ['asfw never', { options: { bwDataAsForward: 'never' } }],
  ['both always', { options: { layoutDetour: 'always', bwDataAsForward: 'always' } }],
  ['sync query first', { sync: true, queryFirst: true }],
  ['detour always query first', { options: { layoutDetour: 'always' }, queryFirst: true }],
];
for (const problem of ['small32', 'point32', 'small16', 'dw32']) {
  for (const [label, v] of variants) {
    scenarios.push({
      name: `heuristic ${problem} ${label}`,
      problem,
      engines: 'e28',
      preference: {},
      ...v,
    });
  }
}
scenarios.push({
  name: 'heuristic point32 detour always full',
  problem: 'point32',
  engines: 'e28',
  preference: {},
  options: { layoutDetour: 'always', bwDataAsForward: 'always' },
  fullRuns: true,
});
scenarios.push({
  name: 'heuristic small32 none full',
  problem: 'small32',
  engines: 'none',
  preference: {},
  fullRuns: true,
});
for (const problem of problems) {
  scenarios.push({
    name: `pinned ${problem}`,
    problem,
    engines: 'e28',
    preference: { algorithm: 'pinned' },
  });
}
for (const [label, v] of variants.slice(4)) {
  scenarios.push({
    name: `pinned small32 ${label}`,
    problem: 'small32',
    engines: 'e28',
    preference: { algorithm: 'pinned' },
    ...v,
  });
}
scenarios.push({
  name: 'pinned small32 full',
  problem: 'small32',
  engines: 'e28',
  preference: { algorithm: 'pinned', maxWorkspaceBytes: 0 },
  runs: ['fw'],
  fullRuns: true,
});

traceSuite('heuristic', scenarios);
