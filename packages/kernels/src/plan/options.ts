/** The options of `Conv3dPlan.select`, checked and their defaults settled. */
import { InvalidArgumentError } from '@baracuda/types';
import { defaultAutotuneCachePath } from '../autotune-cache.js';
import { type Conv3dPass, PASSES } from '../core/pass.js';
import type { ResolvedOptions } from '../core/types.js';
import { DEFAULT_AUTOTUNE_BUDGET_MS } from '../tuning.js';

/** Options of `Conv3dPlan.select`. */
export interface Conv3dPlanOptions {
  /**
   * The autotune cache file. Defaults to `$BARACUDA_AUTOTUNE_CACHE`, else
   * `$XDG_CACHE_HOME/baracuda/conv3d-autotune.json`, else `~/.cache/baracuda/conv3d-autotune.json`.
   */
  autotuneCachePath?: string;
  /** The passes autotune tunes at select. Defaults to `['fw', 'bwData', 'bwFilter']`. */
  passes?: Conv3dPass[];
  /**
   * Receives progress lines while tuning. Defaults to `undefined`: after 1 s of tuning, progress
   * lines go to stderr.
   */
  onProgress?: (message: string) => void;
  /**
   * Ids of errata (see `CONV3D_ERRATA`) to run past anyway, with a warning. Defaults to the
   * comma-separated `$BARACUDA_IGNORE_ERRATA`, else `[]`.
   */
  ignoreErrata?: string[];
  /**
   * Backward-data of a stride-1 layer as the forward convolution of dy with the filter transposed
   * per group and flipped in space (the flip runs on our kernel into plan-owned scratch before each
   * call). `'tuned'` (the default): autotune times it against the backward-data engines and takes
   * it when faster; heuristic plans do not use it. `'always'`: heuristic and autotuned plans use it
   * wherever it applies (tests, or where it is known to be faster). `'never'`: it is not used. Not
   * used by pinned plans. Defaults to `$BARACUDA_BWDATA_AS_FORWARD`, else `'tuned'`.
   */
  bwDataAsForward?: 'tuned' | 'always' | 'never';
  /**
   * The layout detour: a problem run as the same problem in the other layout (NCDHW through
   * NDHWC, NDHWC through NCDHW): our layout transposes of the operands into plan-owned scratch,
   * that problem's own plan, and the result transposed back. cuDNN's engines for one layout often
   * transpose to the other inside; ours move 90–97% of a copy's bandwidth on an H200. `'tuned'`
   * (the default): autotune times it per pass against the engines for the problem's own layout
   * and takes it when at least 2% faster (f32, TF32, f16 and bf16; not f64); the default
   * mode's quick tune times it too where our depthwise kernels apply (groups = channels; our
   * kernels differ by layout) and takes it when 3% faster; a heuristic plan with `'first'` does
   * not use it. `'always'`: every pass takes it, heuristic or autotuned (tests, or where it is
   * known to be faster). `'never'`: it is not used except where an erratum requires it. Never
   * into a layout an erratum covers; not used by pinned plans. Defaults to
   * `$BARACUDA_LAYOUT_DETOUR`, else `'tuned'`.
   */
  layoutDetour?: 'tuned' | 'always' | 'never';
  /**
   * Autotune's time budget per pass, in wall-clock milliseconds, checked between candidates
   * (never inside a measurement). Candidates are timed in ranked order (the routes the shape
   * qualifies for: our depthwise kernels and the space-to-depth routes; the heuristics' order,
   * configs that compile at run time after the precompiled ones and only for a pass of 1 ms or
   * more, cuDNN's reference engines only when nothing else ran; our other routes; the knob search
   * around the fastest), none
   * slower than the best engine timed is installed, and when the budget is spent
   * the best so far wins; its cache entry records the budget, so that a select with a larger
   * budget (or none) tunes that pass again. `0` or `Infinity`: no budget (every candidate is
   * timed, as before budgets existed). Defaults to `$BARACUDA_AUTOTUNE_BUDGET_MS`, else
   * 500 (`DEFAULT_AUTOTUNE_BUDGET_MS`).
   */
  autotuneBudgetMs?: number;
  /**
   * What the heuristic mode (`algorithm: 'heuristic'`, the default) does at select, for each pass
   * in `options.passes`. `'quick-tune'` (the default): the heuristics' first choice, then the
   * routes the shape qualifies for (our depthwise kernel and its layout detour, the space-to-depth
   * routes, as their options allow), then the next engine configs of heuristic modes A and B, are
   * each made when their turn comes and timed a few runs on scratch operands (at most 200 ms per
   * pass, `QUICK_TUNE_BUDGET_MS`, checked before each; a hopeless one runs once), and the fastest
   * runs (the first keeps its place unless another is at least 3% faster); the choice is kept in
   * the autotune cache under its own key, so a later select of the problem times nothing. `'first'`: the heuristics' first
   * config that builds, nothing timed (the behaviour before quick tuning, and PyTorch's default).
   * Defaults to `$BARACUDA_HEURISTIC`, else `'quick-tune'`.
   */
  heuristic?: 'quick-tune' | 'first';
  /**
   * Patch embedding as a GEMM, where the kernel equals the stride on every axis with no padding,
   * dilation 1 and groups 1: x folded patch by patch into channels (space-to-depth, our kernel,
   * into plan-owned scratch) and the 1×1×1 convolution of that with the same filter bytes, a GEMM
   * cuDNN runs as its own plan (backward-data: the result folded back). `'tuned'` (the default):
   * timed where the shape qualifies, never where it does not: autotune times it per pass (before
   * the heuristics' configs) and takes it when at least 2% faster than the best it timed, the
   * default mode's quick tune when 3% faster than the heuristics' first choice; a heuristic plan
   * with `heuristic: 'first'` does not use it. `'always'`: every pass it applies to takes it, heuristic or autotuned (tests, or where it
   * is known to be faster). `'never'`: not used. Not used by pinned plans. Defaults to
   * `$BARACUDA_PATCH_GEMM`, else `'tuned'`.
   */
  patchGemm?: 'tuned' | 'always' | 'never';
  /**
   * The stem as a stride-1 convolution: a stride-2 layer on at most 4 input channels (kernel of 3
   * or more, dilation 1, groups 1) run on x folded 2×2×2 into 8·cIn channels (the padding
   * materialized as zeros) with the filter rearranged to ceil(k / 2) taps per axis. `'tuned'`,
   * `'always'` and `'never'` as for `patchGemm`. Defaults to `$BARACUDA_STEM_S2D`, else `'tuned'`.
   */
  stemSpaceToDepth?: 'tuned' | 'always' | 'never';
}

/** The options checked, and their defaults settled, once per select. */
export function resolveOptions(options: Conv3dPlanOptions | undefined): ResolvedOptions {
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  ) {
    throw new InvalidArgumentError('options', 'an object or undefined', options);
  }
  const o = options ?? {};
  // Only undefined takes a default: null is a wrong value like any other.
  const path = o.autotuneCachePath === undefined ? defaultAutotuneCachePath() : o.autotuneCachePath;
  if (typeof path !== 'string' || path.length === 0) {
    throw new InvalidArgumentError('options.autotuneCachePath', 'a non-empty string', path);
  }
  const passes = o.passes === undefined ? [...PASSES] : o.passes;
  // Array.from visits holes (as undefined), which some() skips.
  if (!Array.isArray(passes) || Array.from(passes).some((p) => !PASSES.includes(p))) {
    throw new InvalidArgumentError(
      'options.passes',
      "an array of 'fw', 'bwData' and 'bwFilter'",
      passes,
    );
  }
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new InvalidArgumentError('options.onProgress', 'a function', o.onProgress);
  }
  const ignore =
    o.ignoreErrata === undefined
      ? (process.env.BARACUDA_IGNORE_ERRATA ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : o.ignoreErrata;
  if (!Array.isArray(ignore) || Array.from(ignore).some((s) => typeof s !== 'string')) {
    throw new InvalidArgumentError('options.ignoreErrata', 'an array of erratum ids', ignore);
  }
  return {
    autotuneCachePath: path,
    passes: [...new Set(passes)],
    onProgress: o.onProgress,
    ignoreErrata: ignore,
    bwDataAsForward: detourOption(
      o.bwDataAsForward,
      'bwDataAsForward',
      'BARACUDA_BWDATA_AS_FORWARD',
    ),
    layoutDetour: detourOption(o.layoutDetour, 'layoutDetour', 'BARACUDA_LAYOUT_DETOUR'),
    autotuneBudgetMs: budgetOption(o.autotuneBudgetMs),
    heuristic: heuristicOption(o.heuristic),
    patchGemm: detourOption(o.patchGemm, 'patchGemm', 'BARACUDA_PATCH_GEMM'),
    stemSpaceToDepth: detourOption(o.stemSpaceToDepth, 'stemSpaceToDepth', 'BARACUDA_STEM_S2D'),
  };
}

/**
 * `options.autotuneBudgetMs`, else `$BARACUDA_AUTOTUNE_BUDGET_MS`, else the default; 0 and
 * Infinity both mean no budget (resolved to Infinity).
 */
function budgetOption(value: unknown): number {
  const expected = 'a non-negative number of milliseconds (0 or Infinity: no budget)';
  let chosen = value;
  let name = 'options.autotuneBudgetMs';
  if (value === undefined) {
    const env = process.env.BARACUDA_AUTOTUNE_BUDGET_MS;
    if (env === undefined || env.trim() === '') return DEFAULT_AUTOTUNE_BUDGET_MS;
    name = '$BARACUDA_AUTOTUNE_BUDGET_MS';
    const parsed = Number(env);
    chosen = Number.isNaN(parsed) ? env : parsed;
  }
  if (typeof chosen !== 'number' || Number.isNaN(chosen) || chosen < 0) {
    throw new InvalidArgumentError(name, expected, chosen);
  }
  return chosen === 0 ? Number.POSITIVE_INFINITY : chosen;
}

/** `options.heuristic`, else `$BARACUDA_HEURISTIC`, else `'quick-tune'`. */
function heuristicOption(value: unknown): 'quick-tune' | 'first' {
  const fromEnv = value === undefined ? process.env.BARACUDA_HEURISTIC : undefined;
  const chosen = value === undefined ? fromEnv || 'quick-tune' : value;
  if (chosen !== 'quick-tune' && chosen !== 'first') {
    throw new InvalidArgumentError(
      fromEnv ? '$BARACUDA_HEURISTIC' : 'options.heuristic',
      "'quick-tune' or 'first'",
      chosen,
    );
  }
  return chosen;
}

/** A detour's option: as given, else from `$<env>`, else `'tuned'`; checked either way. */
function detourOption(value: unknown, name: string, env: string): 'tuned' | 'always' | 'never' {
  const fromEnv = value === undefined ? process.env[env] : undefined;
  const chosen = value === undefined ? fromEnv || 'tuned' : value;
  if (chosen !== 'tuned' && chosen !== 'always' && chosen !== 'never') {
    throw new InvalidArgumentError(
      fromEnv ? `$${env}` : `options.${name}`,
      "'tuned', 'always' or 'never'",
      chosen,
    );
  }
  return chosen;
}
