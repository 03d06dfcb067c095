/**
 * Backward-data of a 1×1×1 layer as a forward pass on the transposed filter, end to end without a
 * GPU: the fake libcuda of @baracuda/driver (FAKE_CUDA_LAUNCH_MS makes the runs that launch our
 * transpose time faster or slower) under the fake libcudnn.so.9 of @baracuda/cudnn-sys, which
 * offers one knob-less engine and logs each execution's data pointers (FAKE_CUDNN_EXECUTE_LOG).
 */
import * as cudnnSys from '@baracuda/cudnn-sys';
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { bwDataAsForward } from './bwdata-forward.js';
import { releaseCudnnHandles } from './cudnn/handle.js';
import { Conv3dDescriptor } from './descriptor.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { fakeTuning, pointwiseProblem, selectFromCache } from './tuning.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

const pointwise = pointwiseProblem;

describe('bwDataAsForward', () => {
  it('turns a stride-1 layer around: dy in, dx out, padded to the full convolution', () => {
    // A 1×1×1 layer stays unpadded (its dilation does not matter). 'Same' 3×3×3 with pad 1 stays
    // pad 1; 'valid' (pad 0) becomes pad 2 (dilation 1) or 4 (dilation 2); a 5-tap axis padded by
    // 1 becomes 3. Groups stay; the flipped filter is [cIn, cOut / groups, T, R, S].
    const layers: [Conv3dDescriptor, string, number[]][] = [
      [
        pointwise(ElementKind.Bf16).withLayout('ndhwc').withDilation(2, 3, 1),
        'conv3d n=2 c=6→4 in=3×2×5 k=1×1×1 pad=0×0×0 stride=1×1×1 dil=2×3×1 groups=1 bf16 ndhwc',
        [4, 6, 1, 1, 1],
      ],
      [
        Conv3dDescriptor.create({
          batch: 2,
          cIn: 8,
          dIn: 9,
          hIn: 11,
          wIn: 12,
          cOut: 12,
          dFilt: 3,
          hFilt: 3,
          wFilt: 5,
          element: ElementKind.F16,
        })
          .withPadding(1, 0, 1)
          .withDilation(1, 2, 1)
          .withGroups(4),
        'conv3d n=2 c=12→8 in=9×7×10 k=3×3×5 pad=1×4×3 stride=1×1×1 dil=1×2×1 groups=4 f16 ncdhw',
        [8, 3, 3, 3, 5],
      ],
    ];
    for (const [d, described, wShape] of layers) {
      const f = bwDataAsForward(d)!;
      expect(f.describe()).toBe(described);
      // The forward problem's x, w and y are the layer's dy, flipped W and dx.
      expect([f.xShape, f.yShape, f.wShape]).toEqual([d.yShape, d.xShape, wShape]);
    }
  });

  it('is null for a strided layer, or one padded past its reach', () => {
    const d = pointwise();
    expect(bwDataAsForward(d.withStride(1, 2, 1))).toBeNull();
    expect(bwDataAsForward(d.withPadding(0, 0, 1))).toBeNull();
    expect(bwDataAsForward(smallProblem(ElementKind.F32).withPadding(0, 3, 1))).toBeNull();
    expect(bwDataAsForward(smallProblem(ElementKind.F32).withPadding(0, 1, 1))).not.toBeNull();
  });
});

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'autotune times backward-data as a forward pass (fake libcuda and libcudnn; skipped where no C compiler is found)',
  () => {
    const h = fakeTuning('baracuda-as-fw');
    const { newCache, executions } = h;
    /** An autotuned plan of the backward-data pass alone (layout-detour.test.ts times the layout
     * detour, and both together). */
    const tune = (desc: Conv3dDescriptor, cachePath: string) =>
      h.tune(desc, cachePath, ['bwData'], { layoutDetour: 'never' });

    it('takes it when it times faster, runs dx = conv(dy, W^T) and caches the choice', async () => {
      // Each run of the detour launches our transpose: -0.25 ms makes it the faster.
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const cachePath = newCache();
      const { plan, lines } = await tune(pointwise(), cachePath);
      expect(lines).toContain(
        'bwData: as forward on the flipped filter (engine 28) -0.250 ms, chosen',
      );
      // The forward problem tuned as its own plan, on its own operands.
      expect(lines.filter((l) => l.startsWith('fw: candidate '))).toEqual([
        'fw: candidate 1/1 engine 28 0.000 ms',
      ]);
      const info = plan.algorithm('bwData');
      expect(info.name).toBe('engine 28 as forward on the flipped filter');
      expect(plan.queryBwDataWorkspaceSize()).toBe(info.workspaceBytes);
      expect(h.cacheEntries(cachePath)).toEqual([
        [
          'conv3d n=2 c=6→4 in=3×2×5 k=1×1×1 pad=0×0×0 stride=1×1×1 dil=1×1×1 groups=1 f32 ncdhw pass=fw',
          expect.objectContaining({ engineIndex: 28 }),
        ],
        [
          'conv3d n=2 c=4→6 in=3×2×5 k=1×1×1 pad=0×0×0 stride=1×1×1 dil=1×1×1 groups=1 f32 ncdhw pass=bwData',
          { engineIndex: -2, knobs: [], timeMs: -0.25 },
        ],
      ]);
      // A run executes the forward plan with x = dy, w = the transposed filter, y = dx.
      const d = pointwise();
      const slice = (ptr: bigint, elements: number) => ({
        devicePtr: ptr,
        byteLength: 4 * elements,
      });
      const w = slice(0x10000n, d.wElements);
      const dy = slice(0x20000n, d.yElements);
      const dx = slice(0x30000n, d.xElements);
      plan.runBwData({ w, dy, dx, beta: 1 });
      const [x_, w_, y_] = executions().at(-1)!.split(' ');
      expect([x_, y_]).toEqual(['20000', '30000']);
      expect(w_).not.toBe('10000');
      plan.dispose();
      // A second plan takes both choices from the cache: nothing is timed.
      delete process.env.FAKE_CUDA_LAUNCH_MS;
      const again = await tune(pointwise(), cachePath);
      expect(again.lines).toEqual([]);
      expect(again.plan.algorithm('bwData').name).toBe(info.name);
      again.plan.dispose();
    });

    it('keeps the backward-data engine when the detour is not faster', async () => {
      const cachePath = newCache();
      const { plan, lines } = await tune(pointwise(), cachePath);
      expect(lines).toContain('bwData: as forward on the flipped filter (engine 28) 0.000 ms');
      expect(plan.algorithm('bwData').name).toBe('engine 28');
      const bwData = h.cacheEntries(cachePath).find(([k]) => String(k).includes('pass=bwData'))!;
      expect(bwData[1]).toEqual(expect.objectContaining({ engineIndex: 28 }));
      // Runs execute the backward-data plan on the caller's pointers.
      const d = pointwise();
      const slice = (ptr: bigint, elements: number) => ({
        devicePtr: ptr,
        byteLength: 4 * elements,
      });
      plan.runBwData({
        w: slice(0x10000n, d.wElements),
        dy: slice(0x20000n, d.yElements),
        dx: slice(0x30000n, d.xElements),
      });
      expect(executions().at(-1)!.split(' ').slice(0, 3)).toEqual(['30000', '10000', '20000']);
      plan.dispose();
    });

    it("is used by heuristic plans with bwDataAsForward 'always', and never with 'never'", async () => {
      const { Conv3dPlan } = await import('./plan.js');
      const d = Conv3dDescriptor.create({
        batch: 1,
        cIn: 4,
        dIn: 5,
        hIn: 5,
        wIn: 5,
        cOut: 8,
        dFilt: 3,
        hFilt: 3,
        wFilt: 3,
        element: ElementKind.F16,
      })
        .withPadding(1, 1, 1)
        .withGroups(2)
        .withLayout('ndhwc');
      const plan = Conv3dPlan.selectSync(h.stream(), d, undefined, { bwDataAsForward: 'always' });
      expect(plan.algorithm('bwData').name).toBe('engine 28 as forward on the flipped filter');
      expect(plan.algorithm('fw').name).toBe('engine 28');
      const slice = (ptr: bigint, elements: number) => ({
        devicePtr: ptr,
        byteLength: 2 * elements,
      });
      plan.runBwData({
        w: slice(0x10000n, d.wElements),
        dy: slice(0x20000n, d.yElements),
        dx: slice(0x30000n, d.xElements),
      });
      const [x_, w_, y_] = executions().at(-1)!.split(' ');
      expect([x_, y_]).toEqual(['20000', '30000']);
      expect(w_).not.toBe('10000');
      plan.dispose();
      // The forward problem's plan went with it: the device's shared cuDNN handle, which both
      // held, is idle now (it outlives plans), so releasing idle handles destroys it.
      expect(releaseCudnnHandles()).toBe(1);
      expect(cudnnSys.cudnnGetLastErrorString()).toMatch(/^cudnnDestroy #\d+$/);
      // 'never': not timed, even where it would be the faster.
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const lines: string[] = [];
      const tuned = await Conv3dPlan.select(
        h.stream(),
        pointwise(),
        { algorithm: 'autotune' },
        {
          passes: ['bwData'],
          autotuneCachePath: newCache(),
          bwDataAsForward: 'never',
          layoutDetour: 'never',
          onProgress: (m) => lines.push(m),
        },
      );
      expect(lines.filter((l) => l.includes('flipped'))).toEqual([]);
      expect(tuned.algorithm('bwData').name).toBe('engine 28');
      tuned.dispose();
      await expect(
        Conv3dPlan.select(h.stream(), pointwise(), undefined, {
          bwDataAsForward: 'sometimes' as 'never',
        }),
      ).rejects.toThrow(
        `Expected 'tuned', 'always' or 'never' for options.bwDataAsForward but received "sometimes" of type string`,
      );
      process.env.BARACUDA_BWDATA_AS_FORWARD = 'always';
      try {
        const fromEnv = Conv3dPlan.selectSync(h.stream(), d);
        expect(fromEnv.algorithm('bwData').name).toBe('engine 28 as forward on the flipped filter');
        fromEnv.dispose();
        // The option wins over the environment.
        const never = Conv3dPlan.selectSync(h.stream(), d, undefined, { bwDataAsForward: 'never' });
        expect(never.algorithm('bwData').name).toBe('engine 28');
        never.dispose();
        process.env.BARACUDA_BWDATA_AS_FORWARD = 'often';
        expect(() => Conv3dPlan.selectSync(h.stream(), d)).toThrow(
          `Expected 'tuned', 'always' or 'never' for $BARACUDA_BWDATA_AS_FORWARD but received "often" of type string`,
        );
      } finally {
        delete process.env.BARACUDA_BWDATA_AS_FORWARD;
      }
    });

    it('is not timed for a layer it does not apply to', async () => {
      process.env.FAKE_CUDA_LAUNCH_MS = '-0.25';
      const { plan, lines } = await tune(pointwise().withStride(2, 1, 1), newCache());
      expect(lines.filter((l) => l.includes('flipped'))).toEqual([]);
      expect(plan.algorithm('bwData').name).toBe('engine 28');
      plan.dispose();
    });
  },
);

describe.skipIf(fakeCudnn === null)('a cached detour that does not apply (fake libcudnn)', () => {
  it('is stale: a warning, then the heuristics', async () => {
    const d = smallProblem(ElementKind.F32).withStride(1, 1, 2);
    const { warnings, name } = await selectFromCache(d, 'bwData', { engineIndex: -2, knobs: [] });
    expect(warnings).toEqual([
      [
        'BARACUDA_AUTOTUNE_STALE',
        `The autotune cache's backward-data as forward on the flipped filter for ${d.describe()} bwData does not apply; using engine 28`,
      ],
    ]);
    expect(name).toBe('engine 28');
  });
});
