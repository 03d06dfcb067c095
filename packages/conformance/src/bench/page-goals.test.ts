/** The goals section's row lines: short goals list every row, long ones only their misses. */
import { describe, expect, it } from 'vitest';
import type { GoalResult } from './goals.js';
import { goalsSection } from './page-goals.js';

function result(rows: number, missed: number): GoalResult {
  return {
    id: 'defaultVsTuned',
    verdict: missed > 0 ? 'not met' : 'met',
    checks: Array.from({ length: rows }, (_, i) => ({
      label: `row ${i}`,
      value: '1.0× tuned',
      met: i >= missed,
    })),
  };
}

function rowLine(r: GoalResult): string {
  const out: string[] = [];
  goalsSection(out, [r]);
  return out.find((l) => l.startsWith('- **A default without cliffs**'))!;
}

describe('goalsSection', () => {
  it('lists every row of a goal over a few rows', () => {
    const line = rowLine(result(3, 1));
    expect(line).toContain('row 0 1.0× tuned ✗; row 1 1.0× tuned ✓; row 2 1.0× tuned ✓');
  });

  it('lists only the misses of a goal over many rows, then counts the rest', () => {
    expect(rowLine(result(40, 1))).toContain('(not met): row 0 1.0× tuned ✗; the other 39 ✓.');
    expect(rowLine(result(40, 0))).toBe('- **A default without cliffs** (met): all 40 ✓.');
  });
});
