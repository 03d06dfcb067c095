import { describe, expect, it } from 'vitest';
import { passSelection } from './selection.js';

const entry = (
  pass: 'fw' | 'bwData' | 'bwFilter',
  how: 'autotune' | 'quick-tune' | 'cache',
  timed: number,
  budgetMs: number,
  budgetCut: boolean,
  wallMs: number,
) => ({ pass, how, timed, budgetMs, budgetCut, wallMs });

describe('passSelection', () => {
  const report = {
    passes: [
      entry('fw', 'autotune', 12, 2000, true, 2100),
      entry('bwData', 'cache', 0, 2000, false, 1),
      entry('bwFilter', 'autotune', 30, Number.POSITIVE_INFINITY, false, 5000),
    ],
  };

  it('reads one pass as it is, an unbounded budget as null', () => {
    expect(passSelection(report, ['fw'])).toEqual({
      how: 'autotune',
      timed: 12,
      budgetMs: 2000,
      budgetCut: true,
      wallMs: 2100,
    });
    expect(passSelection(report, ['bwFilter'])?.budgetMs).toBeNull();
  });

  it('sums and joins the two passes of a backward step', () => {
    expect(passSelection(report, ['bwData', 'bwFilter'])).toEqual({
      how: 'cache+autotune',
      timed: 30,
      budgetMs: null,
      budgetCut: false,
      wallMs: 5001,
    });
  });

  it('is undefined for a pass the report does not hold', () => {
    expect(passSelection({ passes: [] }, ['fw'])).toBeUndefined();
  });
});
