/**
 * The stage check (check.ts) on the reference's own step: every row passes at f64 precision in
 * both layouts (which also shows the up convolution's passes equal those of its equivalent
 * convolution), and a wrong, a missing or an unwritten tensor fails its row and only its row.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../reference/index.js';
import { checkStageStep, STAGE_FILTER_POINTS } from './check.js';
import { type StageParams, stageBackward, stageForward } from './reference.js';
import { STAGE_OUTPUTS, type StageShape, type StageTensor, stageElementCounts } from './shape.js';

function step(shape: StageShape): Record<StageTensor, Float64Array> {
  const random = seededRandom(5);
  const n = stageElementCounts(shape);
  const fill = (name: StageTensor, scale: number) =>
    Float64Array.from({ length: n[name] }, () => (random() * 2 - 1) * scale);
  const params: StageParams = {
    w1: fill('w1', 0.3),
    b1: fill('b1', 0.2),
    w2: fill('w2', 0.3),
    b2: fill('b2', 0.2),
    wd: fill('wd', 0.3),
    bd: fill('bd', 0.2),
    wu: fill('wu', 0.5),
  };
  const x = fill('x', 1);
  const dy = fill('dy', 1);
  const acts = stageForward(shape, params, x);
  return { ...params, x, dy, ...acts, ...stageBackward(shape, params, x, acts, dy) };
}

const every = (count: number, points: number) =>
  Array.from({ length: Math.min(count, points) }, (_, i) => i);

describe.each(['ncdhw', 'ndhwc'] as const)('checkStageStep (%s)', (layout) => {
  const shape: StageShape = { n: 2, c: 3, cDown: 4, size: [4, 6, 4], layout };
  const tensors = step(shape);

  it('passes the reference step on every output at f64 precision', () => {
    const rows = checkStageStep(shape, (name) => tensors[name], every);
    expect(rows.map((r) => r.tensor).sort()).toEqual([...STAGE_OUTPUTS].sort());
    for (const row of rows) {
      expect(row.error, row.tensor).toBeLessThan(1e-12);
      expect(row.unwritten).toBe(0);
    }
    const dw1 = rows.find((r) => r.tensor === 'dw1')!;
    expect(dw1.points).toBe(Math.min(STAGE_FILTER_POINTS, tensors.dw1.length));
  });

  it.each(['a2', 'y', 'dwu', 'db2', 'dx', 'dw1'] as const)(
    'fails %s alone when it is 1%% off',
    (bad) => {
      const wrong = { ...tensors, [bad]: tensors[bad].map((v) => v * 1.01) };
      const rows = checkStageStep(shape, (name) => wrong[name], every);
      for (const row of rows) {
        if (row.tensor === bad) expect(row.error).toBeGreaterThan(5e-3);
        else if (row.error > 1e-12) {
          // Only a tensor computed from the wrong one (the next layer's input) may move.
          expect(['a3', 'da1', 'dp1', 'db1', 'dx', 'dw1', 'dw2', 'dwd', 'dp2']).toContain(
            row.tensor,
          );
        }
      }
    },
  );

  it('counts a poisoned element as unwritten', () => {
    const holes = { ...tensors, dwd: tensors.dwd.slice() };
    holes.dwd[holes.dwd.length - 1] = Number.NaN;
    const rows = checkStageStep(shape, (name) => holes[name], every);
    expect(rows.find((r) => r.tensor === 'dwd')!.unwritten).toBe(1);
    expect(rows.filter((r) => r.unwritten > 0)).toHaveLength(1);
  });
});
