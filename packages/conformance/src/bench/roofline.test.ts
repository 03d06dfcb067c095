import { describe, expect, it } from 'vitest';
import { ok, row } from './fixtures.test-helpers.js';
import {
  factorsCell,
  factorText,
  floorFactor,
  furthestFromFloor,
  rowFactors,
  rowFloorMs,
  torchBestMs,
} from './roofline.js';

const torch = (medianMs: number, status: 'ok' | 'error' = 'ok') => ({ id: 'x', status, medianMs });

describe('roofline factors', () => {
  it("take one pass's floor, and twice it for bwStep's two passes", () => {
    expect(rowFloorMs(row('a|f16|ndhwc|fw', [], { floorMs: 0.2 }))).toBe(0.2);
    expect(rowFloorMs(row('a|f16|ndhwc|bwStep', [], { floorMs: 0.2 }))).toBe(0.4);
    expect(rowFloorMs(row('a|f16|ndhwc|fw', []))).toBeUndefined();
    expect(rowFloorMs(row('a|f16|ndhwc|fw', [], { floorMs: 0 }))).toBeUndefined();
  });

  it("take PyTorch's better column that ran", () => {
    const r = row('a|f16|ndhwc|fw', [], {
      torch: { default: torch(2), tuned: torch(1.5) },
    });
    expect(torchBestMs(r)).toBe(1.5);
    const failed = row('a|f16|ndhwc|fw', [], {
      torch: { default: torch(2), tuned: torch(0.1, 'error') },
    });
    expect(torchBestMs(failed)).toBe(2);
    expect(torchBestMs(row('a|f16|ndhwc|fw', []))).toBeUndefined();
  });

  it('divide each side’s best by the floor and print them as ours/PyTorch', () => {
    const r = row('a|f16|ndhwc|fw', [ok('heuristic', 0.9)], {
      bestMs: 0.9,
      floorMs: 0.3,
      torch: { default: torch(36) },
    });
    expect(floorFactor(r, 0.6)).toBeCloseTo(2, 12);
    expect(rowFactors(r)).toEqual({ ours: expect.closeTo(3, 12), torch: expect.closeTo(120, 12) });
    expect(factorsCell(r)).toBe('3.0/120');
    expect(factorsCell(row('a|f16|ndhwc|fw', []))).toBe('—');
    expect(factorsCell(undefined)).toBe('—');
    expect(factorText(undefined)).toBe('—');
    expect(factorText(9.96)).toBe('10');
    expect(factorText(9.94)).toBe('9.9');
    expect(factorText(10.4)).toBe('10');
  });

  it('list the rows furthest from the floor by our factor, highest first', () => {
    const rows = [1, 5, 3, 5].map((f, i) =>
      row(`c${i}|f16|ndhwc|fw`, [], { bestMs: f, floorMs: 1 }),
    );
    rows.push(row('none|f16|ndhwc|fw', [], { floorMs: 1 }));
    expect(furthestFromFloor(rows, 3).map((e) => [e.row.case, e.ours])).toEqual([
      ['c1', 5],
      ['c3', 5],
      ['c2', 3],
    ]);
    // One per key: the highest row of each.
    const caseGroup = (r: (typeof rows)[number]) => (r.case === 'c2' ? 'x' : 'y');
    expect(furthestFromFloor(rows, 3, caseGroup).map((e) => [e.row.case, e.ours])).toEqual([
      ['c1', 5],
      ['c2', 3],
    ]);
  });
});
