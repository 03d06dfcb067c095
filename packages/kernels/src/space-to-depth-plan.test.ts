/**
 * The space-to-depth routes in plans, without a GPU: the driver's fake libcuda (our PTX "loads";
 * FAKE_CUDA_LAUNCH_MS makes runs that launch our kernels time faster) under the fake libcudnn
 * (engine 28 only; FAKE_CUDNN_EXECUTE_LOG logs each execution's data pointers). Where a test reads
 * the launches, a recording module stands in for our transform kernels.
 */
import { ElementKind } from '@baracuda/types';
import { afterEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { patchRoute, stemRoute } from './space-to-depth.js';
import { SpaceToDepthKernels } from './space-to-depth-kernels.js';
import { fakeOperands, fakeTuning } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** n=1, 3→8 channels, 4×8×8, a 2×4×4 patch embedding. */
function patch(element: ElementKind = ElementKind.F32, layout: 'ncdhw' | 'ndhwc' = 'ndhwc') {
  return patchOf(8, element, layout);
}

/** The patch problem with `wIn` columns (9: one no patch covers). */
function patchOf(
  wIn: number,
  element: ElementKind = ElementKind.F32,
  layout: 'ncdhw' | 'ndhwc' = 'ndhwc',
) {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 3,
    dIn: 4,
    hIn: 8,
    wIn,
    cOut: 8,
    dFilt: 2,
    hFilt: 4,
    wFilt: 4,
    element,
  })
    .withStride(2, 4, 4)
    .withLayout(layout);
}

/** n=1, 3→4 channels, 9×10×11, a 7×7×7 stride-2 stem padded by 3. */
function stem(layout: 'ncdhw' | 'ndhwc' = 'ndhwc') {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 3,
    dIn: 9,
    hIn: 10,
    wIn: 11,
    cOut: 4,
    dFilt: 7,
    hFilt: 7,
    wFilt: 7,
    element: ElementKind.F16,
  })
    .withStride(2, 2, 2)
    .withPadding(3, 3, 3)
    .withLayout(layout);
}

interface Launch {
  name: string;
  grid: readonly number[];
  words: bigint[];
}
let launches: Launch[] = [];

/** Our transform kernels as a recording module (ordinal 0: the fake device). */
function recordLaunches(): void {
  launches = [];
  SpaceToDepthKernels.resetForTests();
  SpaceToDepthKernels.forDevice({ ordinal: 0 } as never, () => ({
    getFunction: (name: string) => ({
      launch: (
        _s: unknown,
        grid: readonly number[],
        _b: unknown,
        _shared: number,
        params: Uint8Array,
      ) => {
        const v = new DataView(params.buffer, params.byteOffset, params.byteLength);
        const words = Array.from({ length: params.byteLength / 8 }, (_, i) =>
          v.getBigUint64(i * 8, true),
        );
        launches.push({ name, grid, words });
      },
    }),
  }));
}

afterEach(() => {
  SpaceToDepthKernels.resetForTests();
  delete process.env.BARACUDA_PATCH_GEMM;
  delete process.env.BARACUDA_STEM_S2D;
});

describe('the routes’ inner problems and scratch', () => {
  it('a patch: the 1×1×1 problem on C·kd·kh·kw channels, the same filter bytes', () => {
    const route = patchRoute(patch())!;
    expect(route.inner.describe()).toBe(
      Conv3dDescriptor.create({
        batch: 1,
        cIn: 96,
        dIn: 2,
        hIn: 2,
        wIn: 2,
        cOut: 8,
        dFilt: 1,
        hFilt: 1,
        wFilt: 1,
        element: ElementKind.F32,
      })
        .withLayout('ndhwc')
        .describe(),
    );
    expect(route.inner.wElements).toBe(patch().wElements);
    expect(route.x.elements).toBe(1 * 96 * 8);
    expect(route.w).toBeNull();
  });
  it('a stem: 24 channels, kernel 4×4×4, no padding, stride 1, the padding in the scratch', () => {
    const route = stemRoute(stem())!;
    const d = route.inner;
    expect([d.cIn, d.dFilt, d.padD, d.strideD]).toEqual([24, 4, 0, 1]);
    // Out 5×5×6: 5 + 4 - 1 = 8, 8, 9 blocks of 2×2×2 per axis.
    expect([d.dIn, d.hIn, d.wIn]).toEqual([8, 8, 9]);
    expect(d.outputDims()).toEqual(stem().outputDims());
    expect(route.x.elements).toBe(24 * 8 * 8 * 9);
    expect(route.w!.elements).toBe(4 * 24 * 64);
  });
});

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'space-to-depth routes in plans (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const { stream, tune, newCache, executions, cacheEntries } = fakeTuning('baracuda-s2d');

    it("'always': every pass of a patch takes it, named after the inner plan, on scratch", async () => {
      recordLaunches();
      const { Conv3dPlan } = await import('./plan.js');
      const d = patch();
      const plan = Conv3dPlan.selectSync(stream(), d, undefined, { patchGemm: 'always' });
      for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
        expect(plan.algorithm(pass).name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      }
      const { x, w, y } = fakeOperands(d);
      plan.runFw({ x, w, y });
      // x gathered into scratch (in 16-byte vectors: the fold never leaves x, its runs of
      // kw·C elements are contiguous); the 1×1×1 plan on (scratch, the caller's w and y).
      expect(launches.map((l) => l.name)).toEqual(['baracuda_s2d_gather_b32_v16']);
      const [src, scratch] = launches[0]!.words;
      expect(src).toBe(0x10000n);
      expect([0x10000n, 0x20000n, 0x30000n]).not.toContain(scratch);
      expect(executions().at(-1)!.split(' ').slice(0, 3)).toEqual([
        scratch!.toString(16),
        '20000',
        '30000',
      ]);
      // The plan's total: the scratch's elements, in vectors of 4.
      expect(launches[0]!.words[2 + 8 * 3 + 1]).toBe(BigInt(patchRoute(d)!.x.elements / 4));
      // Backward-filter: x gathered, the inner plan straight into the caller's dw.
      launches = [];
      plan.runDw({ x, dy: y, dw: w });
      expect(launches.map((l) => l.name)).toEqual(['baracuda_s2d_gather_b32_v16']);
      expect(executions().at(-1)!.split(' ').slice(1, 3)).toEqual(['20000', '30000']);
      // Backward-data, beta 0: the inner plan into scratch, folded back. Every position of x is
      // some patch's, so the inverse is a permutation: a vector gather.
      launches = [];
      plan.runBwData({ w, dy: y, dx: x });
      expect(launches.map((l) => l.name)).toEqual(['baracuda_s2d_gather_b32_v16']);
      expect(launches[0]!.words.slice(0, 2)).toEqual([scratch, 0x10000n]);
      // Repeat calls allocate nothing new: the same scratch.
      plan.runFw({ x, w, y });
      expect(launches.at(-1)!.words[1]).toBe(scratch);
      plan.dispose();
      // A trailing column no patch covers: the element inverse, zeroing it at beta 0 (mode 0)
      // and, at beta 1, keeping it (mode 1) after the caller's dx is gathered into scratch.
      const wide = patchOf(9);
      const partial = Conv3dPlan.selectSync(stream(), wide, undefined, { patchGemm: 'always' });
      const big = fakeOperands(wide);
      const modeWord = 2 + 5 * 3 + 3 * 5 + 1;
      for (const [beta, mode] of [
        [0, 0n],
        [1, 1n],
      ] as const) {
        launches = [];
        partial.runBwData({ w: big.w, dy: big.y, dx: big.x, beta });
        const names = launches.map((l) => l.name);
        expect(names).toEqual([
          ...(beta === 0 ? [] : ['baracuda_s2d_gather_b32']),
          'baracuda_s2d_inverse_b32',
        ]);
        expect(launches.at(-1)!.words[modeWord]).toBe(mode);
      }
      partial.dispose();
    });

    it("'always': a stem's forward gathers x and the filter, f16 on the 2-byte kernels", async () => {
      recordLaunches();
      const { Conv3dPlan } = await import('./plan.js');
      // f16 NCDHW with a 7×7×7 filter is the cuDNN 9.8–9.14 erratum's (the fake is 9.14): the
      // plan runs it through NDHWC, where the route is taken.
      const erratum = Conv3dPlan.selectSync(stream(), stem('ncdhw'), undefined, {
        stemSpaceToDepth: 'always',
      });
      expect(erratum.algorithm('fw').name).toBe(
        'stem: space-to-depth 2×2×2 + engine 28 4×4×4 stride 1 via NDHWC (cuDNN 9.8–9.14 erratum)',
      );
      erratum.dispose();
      launches = [];
      const d = stem('ndhwc');
      const plan = Conv3dPlan.selectSync(stream(), d, undefined, { stemSpaceToDepth: 'always' });
      expect(plan.algorithm('fw').name).toBe(
        'stem: space-to-depth 2×2×2 + engine 28 4×4×4 stride 1',
      );
      const { x, w, y } = fakeOperands(d);
      plan.runFw({ x, w, y });
      expect(launches.map((l) => [l.name, l.words[0]])).toEqual([
        ['baracuda_s2d_gather_b16', 0x10000n],
        ['baracuda_s2d_gather_b16', 0x20000n],
      ]);
      // Backward-filter, beta 0: x gathered, dw' into scratch, folded back into the caller's dw.
      launches = [];
      plan.runDw({ x, dy: y, dw: w });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_s2d_gather_b16',
        'baracuda_s2d_inverse_b16',
      ]);
      expect(launches[1]!.words[1]).toBe(0x20000n);
      plan.dispose();
    });

    it("does not apply where the shape is not a patch or stem, even with 'always'", async () => {
      recordLaunches();
      const { Conv3dPlan } = await import('./plan.js');
      const grouped = Conv3dDescriptor.create({
        batch: 1,
        cIn: 4,
        dIn: 4,
        hIn: 8,
        wIn: 8,
        cOut: 8,
        dFilt: 2,
        hFilt: 4,
        wFilt: 4,
        element: ElementKind.F32,
      })
        .withStride(2, 4, 4)
        .withGroups(2);
      for (const d of [
        patch().withStride(2, 4, 2),
        patch().withPadding(0, 1, 0),
        patch().withDilation(1, 1, 2),
        grouped,
        stem().withStride(1, 2, 2),
      ]) {
        const plan = Conv3dPlan.selectSync(stream(), d, undefined, {
          patchGemm: 'always',
          stemSpaceToDepth: 'always',
        });
        for (const pass of ['fw', 'bwData', 'bwFilter'] as const) {
          expect(plan.algorithm(pass).name, d.describe()).toBe('engine 28');
        }
        plan.dispose();
      }
      expect(launches).toEqual([]);
      // The default mode ('tuned'): the quick tune times the route where the shape qualifies, and
      // keeps cuDNN's first choice unless the route is 3% faster (on the fakes both time alike).
      const plan = Conv3dPlan.selectSync(stream(), patch());
      expect(plan.algorithm('fw').name).toBe('engine 28');
      plan.dispose();
      expect(launches.length).toBeGreaterThan(0);
    });

    it('autotune takes it when 2% faster, caches it, and takes it from the cache', async () => {
      SpaceToDepthKernels.resetForTests();
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const d = patch(ElementKind.Bf16);
      const cachePath = newCache();
      const { plan, lines } = await tune(d, cachePath, ['fw'], { layoutDetour: 'never' });
      expect(lines).toContain('fw: patch GEMM: space-to-depth + engine 28 1×1×1 -0.250 ms, chosen');
      expect(plan.algorithm('fw').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      expect(cacheEntries(cachePath)).toEqual([
        [
          `${patchRoute(d)!.inner.describe()} pass=fw`,
          expect.objectContaining({ engineIndex: 28 }),
        ],
        [`${d.describe()} pass=fw`, { engineIndex: -8, knobs: [], timeMs: -0.25 }],
      ]);
      plan.dispose();
      delete process.env.FAKE_CUDA_LAUNCH_MS;
      const again = await tune(d, cachePath, ['fw'], { layoutDetour: 'never' });
      expect(again.lines).toEqual([]);
      expect(again.plan.algorithm('fw').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      again.plan.dispose();
      // 'never': tuned again without it.
      const never = await tune(d, cachePath, ['fw'], { layoutDetour: 'never', patchGemm: 'never' });
      expect(never.lines.filter((l) => l.includes('space-to-depth'))).toEqual([]);
      expect(never.plan.algorithm('fw').name).toBe('engine 28');
      never.plan.dispose();
    });

    it('autotune times the route even when its budget is spent', async () => {
      SpaceToDepthKernels.resetForTests();
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const d = patch(ElementKind.Bf16);
      // A budget spent after the first config: the route is timed anyway (alwaysTimed).
      const { plan, lines } = await tune(d, newCache(), ['fw'], {
        layoutDetour: 'never',
        autotuneBudgetMs: 1e-6,
      });
      expect(lines.some((l) => l.includes('budget'))).toBe(true);
      expect(plan.algorithm('fw').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      plan.dispose();
      delete process.env.FAKE_CUDA_LAUNCH_MS;
    });

    it('autotune keeps cuDNN when the route is not 2% faster', async () => {
      SpaceToDepthKernels.resetForTests();
      const d = stem();
      const { plan, lines } = await tune(d, newCache(), ['fw'], { layoutDetour: 'never' });
      // Timed before the survey (ranked first, so it leads then), it loses to cuDNN's best after.
      expect(lines).toContain(
        'fw: stem: space-to-depth 2×2×2 + engine 28 4×4×4 stride 1 0.000 ms, chosen',
      );
      expect(lines).toContain(
        "fw: stem: space-to-depth 2×2×2 + engine 28 4×4×4 stride 1 0.000 ms lost to cuDNN's best, 0.000 ms",
      );
      expect(plan.algorithm('fw').name).toBe('engine 28');
      plan.dispose();
    });

    it('checks the options, with the exact messages', async () => {
      const { Conv3dPlan } = await import('./plan.js');
      expect(() =>
        Conv3dPlan.selectSync(stream(), patch(), undefined, { patchGemm: 'often' as 'never' }),
      ).toThrow(
        `Expected 'tuned', 'always' or 'never' for options.patchGemm but received "often" of type string`,
      );
      expect(() =>
        Conv3dPlan.selectSync(stream(), stem(), undefined, { stemSpaceToDepth: 1 as never }),
      ).toThrow(
        `Expected 'tuned', 'always' or 'never' for options.stemSpaceToDepth but received 1 of type number`,
      );
      process.env.BARACUDA_PATCH_GEMM = 'sometimes';
      expect(() => Conv3dPlan.selectSync(stream(), patch())).toThrow(
        `Expected 'tuned', 'always' or 'never' for $BARACUDA_PATCH_GEMM but received "sometimes" of type string`,
      );
      process.env.BARACUDA_PATCH_GEMM = 'always';
      const fromEnv = Conv3dPlan.selectSync(stream(), patch());
      expect(fromEnv.algorithm('fw').name).toBe('patch GEMM: space-to-depth + engine 28 1×1×1');
      fromEnv.dispose();
      delete process.env.BARACUDA_PATCH_GEMM;
      process.env.BARACUDA_STEM_S2D = 'maybe';
      expect(() => Conv3dPlan.selectSync(stream(), stem())).toThrow(
        `Expected 'tuned', 'always' or 'never' for $BARACUDA_STEM_S2D but received "maybe" of type string`,
      );
    });
  },
);
