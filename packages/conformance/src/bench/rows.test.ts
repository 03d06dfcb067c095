import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';
import { BIG, SMALL } from './fixtures.test-helpers.js';
import { convMacs } from './math.js';
import { groupKey, planGroups, planPasses } from './rows.js';

const all = {
  dtypes: ['f32', 'tf32', 'f16', 'bf16', 'f64'] as const,
  layouts: ['ncdhw', 'ndhwc'] as const,
  passes: ['fw', 'bwData', 'bwFilter'] as const,
};

describe('planGroups', () => {
  it('expands case × dtype × layout with ndhwc only for f16/bf16 and f64 only under the MAC budget', () => {
    const { groups, notes } = planGroups([SMALL, BIG], {
      dtypes: [...all.dtypes],
      layouts: [...all.layouts],
      passes: [...all.passes],
      cases: undefined,
      f64MaxMacs: convMacs(SMALL),
    });
    const keys = groups.map((g) => `${g.case.name}/${g.dtype}/${g.layout}`);
    expect(keys).toEqual([
      'small/f32/ncdhw',
      'small/tf32/ncdhw',
      'small/f16/ncdhw',
      'small/f16/ndhwc',
      'small/bf16/ncdhw',
      'small/bf16/ndhwc',
      'small/f64/ncdhw',
      'big/f32/ncdhw',
      'big/tf32/ncdhw',
      'big/f16/ncdhw',
      'big/f16/ndhwc',
      'big/bf16/ncdhw',
      'big/bf16/ndhwc',
    ]);
    expect(groups.every((g) => g.passes.length === 3)).toBe(true);
    expect(notes).toEqual(['f64 runs only on cases with at most 1.4e+7 MACs; left out: big.']);
  });

  it('computes rotation sets from the working set of the dtype', () => {
    const { groups } = planGroups([SMALL, BIG], {
      dtypes: ['f16', 'f32'],
      layouts: ['ncdhw'],
      passes: ['fw'],
      cases: undefined,
      f64MaxMacs: 0,
    });
    // SMALL is tiny: the cap. BIG moves ~155 MB in f16 and ~309 MB in f32: no rotation.
    expect(groups.map((g) => g.sets)).toEqual([64, 64, 1, 1]);
  });

  it('filters by case name and reports unknown names', () => {
    const { groups, notes } = planGroups([SMALL, BIG], {
      dtypes: ['f16'],
      layouts: ['ndhwc'],
      passes: ['bwFilter'],
      cases: ['big', 'nope'],
      f64MaxMacs: 0,
    });
    expect(groups.map((g) => `${g.case.name}/${g.layout}/${g.passes.join()}`)).toEqual([
      'big/ndhwc/bwFilter',
    ]);
    expect(notes).toEqual(['Unknown case names ignored: nope (suite has small, big).']);
  });
});

describe('planGroups with --groups', () => {
  it('keeps only the named groups, in suite order, and notes names that match nothing', () => {
    const options = parseBenchArgs(['--groups', 'big:tf32:ncdhw,small:f16:ndhwc,small:f64:ndhwc']);
    const { groups, notes } = planGroups([SMALL, BIG], options);
    expect(groups.map(groupKey)).toEqual(['small:f16:ndhwc', 'big:tf32:ncdhw']);
    expect(notes).toContain('--groups that match no group: small:f64:ndhwc.');
    expect(() => parseBenchArgs(['--groups', 'small:f16'])).toThrow(
      'Expected a comma-separated list of case:dtype:layout for --groups but received "small:f16"',
    );
    // --quick's case list gives way to the groups asked for.
    expect(parseBenchArgs(['--quick', '--groups', 'dilated:f16:ncdhw']).cases).toBeUndefined();
  });
});

describe('planPasses', () => {
  it('selects bwData and bwFilter for bwStep, each pass once, in order', () => {
    expect(planPasses(['fw', 'bwData', 'bwFilter', 'bwStep'])).toEqual([
      'fw',
      'bwData',
      'bwFilter',
    ]);
    expect(planPasses(['bwStep'])).toEqual(['bwData', 'bwFilter']);
    expect(planPasses(['bwStep', 'fw'])).toEqual(['bwData', 'bwFilter', 'fw']);
  });
});
