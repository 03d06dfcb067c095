/**
 * Autotune's time budget and the default mode's quick tune, end to end on the fake libcuda and
 * libcudnn. The budget's clock is replaced (budgetClock: every read is 100 ms after the last), so
 * no test depends on the wall clock; our depthwise kernel times faster than cuDNN's engines with
 * FAKE_CUDA_LAUNCH_MS negative (the fake's cuDNN engines all time 0 ms).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AUTOTUNE_CACHE_VERSION, autotuneKey, readAutotuneCache } from './autotune-cache.js';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { resolveOptions } from './plan/options.js';
import type { Conv3dPlanOptions } from './plan.js';
import { budgetClock } from './select/autotune/budget.js';
import { pick } from './select/autotune/quick.js';
import { fakeTuning } from './tuning.test-helpers.js';
import { captureWarnings } from './warnings.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** Every read of the budget's clock is 100 ms after the one before. */
function steppingClock() {
  let t = 0;
  vi.spyOn(budgetClock, 'now').mockImplementation(() => {
    t += 100;
    return t;
  });
}

/** n=1, 4 channels, groups 4, 4×5×6, 3×3×3 pad 1 (backward-filter: our wgrad kernel). */
function depthwise(): Conv3dDescriptor {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 4,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  })
    .withPadding(1, 1, 1)
    .withGroups(4);
}

describe('options.autotuneBudgetMs and options.heuristic', () => {
  afterEach(() => {
    delete process.env.BARACUDA_AUTOTUNE_BUDGET_MS;
    delete process.env.BARACUDA_HEURISTIC;
  });
  const resolve = (o: Conv3dPlanOptions) => resolveOptions({ autotuneCachePath: '/tmp/x', ...o });

  it('defaults to 500 ms and quick-tune; 0 and Infinity mean no budget', () => {
    expect(resolve({}).autotuneBudgetMs).toBe(500);
    expect(resolve({}).heuristic).toBe('quick-tune');
    expect(resolve({ autotuneBudgetMs: 0 }).autotuneBudgetMs).toBe(Number.POSITIVE_INFINITY);
    expect(resolve({ autotuneBudgetMs: Number.POSITIVE_INFINITY }).autotuneBudgetMs).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(resolve({ autotuneBudgetMs: 350.5 }).autotuneBudgetMs).toBe(350.5);
    expect(resolve({ heuristic: 'first' }).heuristic).toBe('first');
  });

  it('reads the environment when the option is not given', () => {
    process.env.BARACUDA_AUTOTUNE_BUDGET_MS = '500';
    process.env.BARACUDA_HEURISTIC = 'first';
    expect(resolve({}).autotuneBudgetMs).toBe(500);
    expect(resolve({}).heuristic).toBe('first');
    expect(resolve({ autotuneBudgetMs: 10, heuristic: 'quick-tune' })).toMatchObject({
      autotuneBudgetMs: 10,
      heuristic: 'quick-tune',
    });
    process.env.BARACUDA_AUTOTUNE_BUDGET_MS = 'Infinity';
    expect(resolve({}).autotuneBudgetMs).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [
      { autotuneBudgetMs: -1 },
      'Expected a non-negative number of milliseconds (0 or Infinity: no budget) for options.autotuneBudgetMs but received -1 of type number',
    ],
    [
      { autotuneBudgetMs: Number.NaN },
      'Expected a non-negative number of milliseconds (0 or Infinity: no budget) for options.autotuneBudgetMs but received NaN of type number',
    ],
    [
      { autotuneBudgetMs: '2000' },
      'Expected a non-negative number of milliseconds (0 or Infinity: no budget) for options.autotuneBudgetMs but received "2000" of type string',
    ],
    [
      { heuristic: 'fast' },
      "Expected 'quick-tune' or 'first' for options.heuristic but received \"fast\" of type string",
    ],
  ])('refuses %o', (o, message) => {
    expect(() => resolve(o as Conv3dPlanOptions)).toThrow(message);
  });

  it('names the environment variable it read a bad value from', () => {
    process.env.BARACUDA_AUTOTUNE_BUDGET_MS = 'soon';
    expect(() => resolve({})).toThrow(
      'Expected a non-negative number of milliseconds (0 or Infinity: no budget) for $BARACUDA_AUTOTUNE_BUDGET_MS but received "soon" of type string',
    );
    delete process.env.BARACUDA_AUTOTUNE_BUDGET_MS;
    process.env.BARACUDA_HEURISTIC = 'none';
    expect(() => resolve({})).toThrow(
      "Expected 'quick-tune' or 'first' for $BARACUDA_HEURISTIC but received \"none\" of type string",
    );
  });
});

describe('the cache file with budgets and quick-tune keys', () => {
  afterEach(() => vi.restoreAllMocks());
  const parts = {
    problem: 'p',
    pass: 'fw',
    scalingKind: 'f32',
    deterministic: false,
    allowTf32: false,
    deviceName: 'd',
    computeCapability: { major: 9, minor: 0 },
    cudnnVersion: 91900,
  };

  it('keys the quick tune apart, and refuses another select', () => {
    expect(autotuneKey(parts)).toBe(
      'p | pass=fw | scaling=f32 | deterministic=false | tf32=false | device=d sm90 | cudnn=91900',
    );
    expect(autotuneKey({ ...parts, select: 'quick-tune' })).toBe(
      'p | pass=fw | scaling=f32 | deterministic=false | tf32=false | device=d sm90 | cudnn=91900 | select=quick-tune',
    );
    expect(() => autotuneKey({ ...parts, select: 'fast' as never })).toThrow(
      'Expected \'quick-tune\' or undefined for parts.select but received "fast" of type string',
    );
  });

  it('reads old entries and budget-cut ones, and drops a malformed budget', () => {
    const warnings = captureWarnings();
    const path = join(mkdtempSync(join(tmpdir(), 'baracuda-budget-file-')), 'a.json');
    writeFileSync(
      path,
      JSON.stringify({
        version: AUTOTUNE_CACHE_VERSION,
        entries: {
          old: { engineIndex: 28, knobs: [], timeMs: 1.5 },
          cut: { engineIndex: 0, knobs: [[2, 1]], timeMs: 2, budgetMs: 2000 },
          bad: { engineIndex: 0, knobs: [], budgetMs: 'soon' },
          zero: { engineIndex: 0, knobs: [], budgetMs: 0 },
        },
      }),
    );
    expect(readAutotuneCache(path).entries).toEqual({
      old: { engineIndex: 28, knobs: [], timeMs: 1.5 },
      cut: { engineIndex: 0, knobs: [[2, 1]], timeMs: 2, budgetMs: 2000 },
    });
    expect(warnings.map((w) => w.message)).toEqual([
      `Ignoring 2 malformed entries of the autotune cache ${path}`,
    ]);
  });
});

describe('the quick tune keeps the first choice unless another is 3% faster', () => {
  it.each([
    [[1, 0.99], 0],
    [[1, 0.96], 1],
    [[1, 0.5, 0.4], 2],
    [[Number.POSITIVE_INFINITY, 2], 1],
    [[1, Number.POSITIVE_INFINITY], 0],
  ])('%o -> %i', (times, chosen) => {
    expect(pick(times)).toBe(chosen);
  });
});

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune within a budget, and the quick tune (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache, cacheEntries } = fakeTuning('baracuda-budget');
    afterEach(() => vi.restoreAllMocks());
    // Four configs, in the heuristics' order.
    const engines = '28;0:2=1;0:2=3;58';

    it('times the heuristics configs in their order until the budget is spent, and marks the entry', async () => {
      process.env.FAKE_CUDNN_ENGINES = engines;
      steppingClock();
      const cachePath = newCache();
      const d = smallProblem(ElementKind.F32);
      const { plan, lines } = await tune(d, cachePath, ['fw'], { autotuneBudgetMs: 250 });
      // Read at the start (100), then before the 2nd (200: 100 spent), 3rd (300) and 4th (400:
      // 300 ms spent, over 250): three configs timed, in the heuristics' order.
      expect(lines.filter((l) => l.startsWith('fw: candidate'))).toEqual([
        'fw: candidate 1/4 engine 28 0.000 ms',
        'fw: candidate 2/4 engine 0 (TILE_SIZE=1) 0.000 ms',
        'fw: candidate 3/4 engine 0 (TILE_SIZE=3) 0.000 ms',
      ]);
      expect(lines).toContain(
        'fw: budget of 250 ms spent after 3 of 4 offered configs; the best so far wins',
      );
      expect(lines.at(-1)).toBe(
        'fw: the budget of 250 ms cut the search after 3 timed; chose engine 28',
      );
      expect(plan.algorithm('fw').name).toBe('engine 28');
      const report = plan.selectReport();
      expect(report.passes).toEqual([
        expect.objectContaining({
          pass: 'fw',
          how: 'autotune',
          timed: 3,
          budgetMs: 250,
          budgetCut: true,
        }),
      ]);
      plan.dispose();
      expect(cacheEntries(cachePath)).toEqual([
        [`${d.describe()} pass=fw`, { engineIndex: 28, knobs: [], timeMs: 0, budgetMs: 250 }],
      ]);

      // The same budget (or a smaller one) takes the cut entry; a larger one tunes again.
      for (const budget of [250, 100]) {
        const hit = await tune(d, cachePath, ['fw'], { autotuneBudgetMs: budget });
        expect(hit.lines).toEqual([]);
        expect(hit.plan.selectReport().passes).toEqual([
          expect.objectContaining({ pass: 'fw', how: 'cache', timed: 0, budgetCut: false }),
        ]);
        hit.plan.dispose();
      }
      const full = await tune(d, cachePath, ['fw'], { autotuneBudgetMs: 0, layoutDetour: 'never' });
      expect(full.lines[0]).toBe(
        'fw: the cached choice was cut by a budget of 250 ms; tuning again under no budget',
      );
      expect(full.lines.filter((l) => l.startsWith('fw: candidate'))).toHaveLength(4);
      expect(full.plan.selectReport().passes[0]).toMatchObject({
        how: 'autotune',
        timed: 4,
        budgetMs: Number.POSITIVE_INFINITY,
        budgetCut: false,
      });
      full.plan.dispose();
      expect(cacheEntries(cachePath)).toEqual([
        [`${d.describe()} pass=fw`, { engineIndex: 28, knobs: [], timeMs: 0 }],
      ]);
    });

    it('reads entries written before budgets existed as complete searches', async () => {
      process.env.FAKE_CUDNN_ENGINES = engines;
      steppingClock();
      const d = smallProblem(ElementKind.F32);
      const cachePath = newCache();
      const opts = { autotuneBudgetMs: 150, layoutDetour: 'never' as const };
      (await tune(d, cachePath, ['fw'], opts)).plan.dispose();
      // The entry as a version without budgets wrote it: no budgetMs, another config.
      const file = JSON.parse(readFileSync(cachePath, 'utf8'));
      const [key] = Object.keys(file.entries);
      file.entries[key!] = { engineIndex: 0, knobs: [[2, 3]] };
      writeFileSync(cachePath, JSON.stringify(file));
      const { plan, lines } = await tune(d, cachePath, ['fw'], { ...opts, autotuneBudgetMs: 0 });
      expect(lines).toEqual([]);
      expect(plan.algorithm('fw').name).toBe('engine 0 (TILE_SIZE=3)');
      plan.dispose();
    });

    it('times our depthwise kernel even when the budget is spent, before the knob search', async () => {
      process.env.FAKE_CUDNN_ENGINES = engines;
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      steppingClock();
      const { plan, lines } = await tune(depthwise(), newCache(), ['bwFilter'], {
        autotuneBudgetMs: 50,
      });
      expect(lines.filter((l) => l.startsWith('bwFilter: candidate'))).toHaveLength(1);
      expect(lines.some((l) => /^bwFilter: baracuda depthwise .* ms, chosen$/.test(l))).toBe(true);
      expect(plan.algorithm('bwFilter').path).toBe('native');
      plan.dispose();
    });

    it('times our depthwise kernel before the survey (ranked first), the knob search last', async () => {
      process.env.FAKE_CUDNN_ENGINES = '0:2=1;28';
      process.env.FAKE_CUDNN_KNOB_INFO = '0:2=0..5/1';
      try {
        const { plan, lines } = await tune(depthwise(), newCache(), ['fw'], {
          autotuneBudgetMs: 0,
          layoutDetour: 'never',
        });
        plan.dispose();
        const ours = lines.findIndex((l) => l.startsWith('fw: baracuda depthwise'));
        const knobs = lines.findIndex((l) => l.startsWith('fw: knob search'));
        const first = lines.findIndex((l) => l.startsWith('fw: candidate 1/2'));
        const last = lines.findIndex((l) => l.startsWith('fw: candidate 2/2'));
        expect(ours).toBeGreaterThanOrEqual(0);
        expect(first).toBeGreaterThan(ours);
        expect(knobs).toBeGreaterThan(last);
      } finally {
        delete process.env.FAKE_CUDNN_KNOB_INFO;
      }
    });

    it('quick-tunes the default mode: persisted under its own key, reused, never autotune', async () => {
      process.env.FAKE_CUDNN_ENGINES = engines;
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const { Conv3dPlan } = await import('./plan.js');
      const cachePath = newCache();
      const d = depthwise();
      const lines: string[] = [];
      const options = {
        passes: ['bwFilter' as const],
        autotuneCachePath: cachePath,
        layoutDetour: 'never' as const,
      };
      const plan = await Conv3dPlan.select(stream(), d, undefined, {
        ...options,
        onProgress: (m) => lines.push(m),
      });
      // Our kernel (the pass's untuned default), the heuristics' first config, then the next two
      // configs (the layout detour is another test's): our kernel, faster here, runs the pass.
      expect(plan.algorithm('bwFilter').path).toBe('native');
      expect(plan.selectReport().passes).toEqual([
        expect.objectContaining({ pass: 'bwFilter', how: 'quick-tune', timed: 4, budgetMs: 200 }),
      ]);
      const p = `${d.describe()} bwFilter:`;
      expect(lines).toEqual([
        `${p} quick 1/4 baracuda depthwise wgradrow -0.500 ms`,
        `${p} quick 2/4 engine 28 0.000 ms`,
        `${p} quick 3/4 engine 0 (TILE_SIZE=1) 0.000 ms`,
        `${p} quick 4/4 engine 0 (TILE_SIZE=3) 0.000 ms`,
        `${p} quick tune chose baracuda depthwise wgradrow (-0.500 ms) of 4 timed`,
      ]);
      plan.dispose();
      expect(cacheEntries(cachePath)).toEqual([
        [
          `${d.describe()} pass=bwFilter`,
          { engineIndex: -1, knobs: [], timeMs: expect.any(Number) },
        ],
      ]);
      const key = Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).entries)[0];
      expect(key).toMatch(/ \| select=quick-tune$/);
      // Again: from the cache, nothing timed.
      const again = await Conv3dPlan.select(stream(), d, undefined, options);
      expect(again.algorithm('bwFilter').path).toBe('native');
      expect(again.selectReport().passes).toEqual([
        expect.objectContaining({ pass: 'bwFilter', how: 'cache', timed: 0 }),
      ]);
      again.dispose();
      // 'first': nothing timed, no report entry; a depthwise backward-filter runs our kernel
      // untuned (the rule of depthwise.ts), not the heuristics' first config.
      const first = await Conv3dPlan.select(stream(), d, undefined, {
        ...options,
        heuristic: 'first',
      });
      expect(first.algorithm('bwFilter').path).toBe('native');
      expect(first.selectReport().passes).toEqual([]);
      first.dispose();
      // Autotune does not take the quick choice: it tunes, under its own key.
      const tuned = await tune(d, cachePath, ['bwFilter']);
      expect(tuned.lines.some((l) => l.startsWith('bwFilter: candidate 1/4'))).toBe(true);
      tuned.plan.dispose();
      const keys = Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).entries);
      expect(keys.filter((k) => k.endsWith(' | select=quick-tune'))).toHaveLength(1);
      expect(keys.filter((k) => k.startsWith(`${d.describe()} | pass=bwFilter`))).toHaveLength(2);
    });
  },
);
