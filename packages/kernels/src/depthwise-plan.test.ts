/**
 * How Conv3dPlan picks and runs our depthwise kernels (the 'native' path), against the fake
 * libcudnn.so.9 of @baracuda/cudnn-sys (cuDNN 9.14.0) and a fake module loader in place of the
 * CUDA driver: which passes take them, how a run hands its operands over, and what autotune's
 * cache makes of them. The kernels' arithmetic is checked in depthwise.test.ts (host mirror) and
 * on the GPU by the conformance suites.
 */
import { DeviceBuffer, Stream } from '@baracuda/driver';
import { ElementKind, InvalidArgumentError, WorkspaceTooSmallError } from '@baracuda/types';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DepthwiseKernels } from './depthwise.js';
import { Conv3dDescriptor } from './descriptor.js';
import {
  fakeDevice as device,
  fakeAutotuneCache,
  fakeStream as stream,
  useFakeCuda,
  useFakeCudnn,
} from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';
import { type CapturedWarning, captureWarnings } from './warnings.test-helpers.js';

const fake = useFakeCudnn();
// Real (fake-libcuda) Streams where a plan allocates its own workspace.
const fakeCuda = useFakeCuda();
// One graph-API engine, so the passes left to cuDNN build (the fake has few legacy functions).
const savedEngines = process.env.FAKE_CUDNN_ENGINES;
process.env.FAKE_CUDNN_ENGINES = '0';
afterAll(() => {
  if (savedEngines === undefined) delete process.env.FAKE_CUDNN_ENGINES;
  else process.env.FAKE_CUDNN_ENGINES = savedEngines;
});

/** n=1, 4 channels, groups 4, 4×5×6, 3×3×3 pad 1. */
function depthwise(
  element: ElementKind = ElementKind.F32,
  layout: 'ncdhw' | 'ndhwc' = 'ncdhw',
  channels = 4,
) {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: channels,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: channels,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element,
  })
    .withPadding(1, 1, 1)
    .withGroups(channels)
    .withLayout(layout);
}

interface Launch {
  name: string;
  params: Uint8Array;
}
let launches: Launch[];
let warnings: CapturedWarning[];

/** Loads the fake module into DepthwiseKernels' per-device cache (ordinal 0, the fake device). */
function primeKernels(works: boolean) {
  DepthwiseKernels.resetForTests();
  DepthwiseKernels.forDevice(device, () => {
    if (!works) throw new Error('PTX JIT failed');
    return {
      getFunction: (name: string) => ({
        launch: (_s: unknown, _g: unknown, _b: unknown, _shared: number, params: Uint8Array) => {
          launches.push({ name, params: params.slice() });
        },
      }),
    };
  });
}

/** The three pointers a launch was given (in, w, out). */
function pointers(l: Launch): bigint[] {
  const v = new DataView(l.params.buffer, l.params.byteOffset, l.params.byteLength);
  return [0, 8, 16].map((o) => v.getBigUint64(o, true));
}

beforeEach(() => {
  launches = [];
  warnings = captureWarnings();
  primeKernels(true);
});
afterEach(() => {
  vi.restoreAllMocks();
  DepthwiseKernels.resetForTests();
});

const slice = (ptr: bigint) => ({ devicePtr: ptr, byteLength: 1 << 20 });

describe.skipIf(fake === null)(
  'the native depthwise path (fake library; skipped where no C compiler is found)',
  () => {
    it('heuristic: every pass on our kernels, backward-filter in two passes through the workspace', () => {
      const plan = Conv3dPlan.selectSync(stream, depthwise());
      const fw = plan.algorithm('fw');
      expect(fw).toEqual({
        path: 'native',
        name: 'baracuda depthwise tiled',
        numericalNotes: [],
        workspaceBytes: 0,
        deterministic: true,
        mathPrecision: 'f32',
      });
      expect(plan.algorithm('bwData').path).toBe('native');
      // One slot of partial sums (one sample, 120 output positions): 4 channels × 27 taps of f32.
      expect(plan.algorithm('bwFilter')).toEqual({
        path: 'native',
        name: 'baracuda depthwise wgradrow',
        numericalNotes: [],
        workspaceBytes: 432,
        deterministic: true,
        mathPrecision: 'f32',
      });
      expect(plan.queryBwFilterWorkspaceSize()).toBe(432);
      expect(plan.queryFwWorkspaceSize()).toBe(0);
      expect(plan.queryBwDataWorkspaceSize()).toBe(0);
      // Forward reads x into y; backward-data reads dy into dx.
      plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n) });
      plan.runBwData({ w: slice(0x2000n), dy: slice(0x3000n), dx: slice(0x1000n), alpha: 2 });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_depthwise_tiled3_f32',
        'baracuda_depthwise_tiled3_f32',
      ]);
      expect(pointers(launches[0]!)).toEqual([0x1000n, 0x2000n, 0x3000n]);
      expect(pointers(launches[1]!)).toEqual([0x3000n, 0x2000n, 0x1000n]);
      // Arguments are checked as on every path.
      expect(() =>
        plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n), beta: Number.NaN }),
      ).toThrow('beta');
      expect(launches).toHaveLength(2);
      plan.dispose();
      expect(warnings).toEqual([]);
    });

    it('backward-filter: pass 1 reads x and dy into the workspace, pass 2 the partials into dw', () => {
      for (const layout of ['ncdhw', 'ndhwc'] as const) {
        launches = [];
        const plan = Conv3dPlan.selectSync(stream, depthwise(ElementKind.F32, layout, 128));
        const kernel = layout === 'ncdhw' ? 'wgradrow' : 'wgradcl';
        // Slots of 128 channels × 27 taps of f32. NCDHW (a 3×3×3 filter: wgradrow): 128 blocks a
        // slot (a channel each, all 27 taps), one slot (too few segments to cut); NDHWC: 8 blocks
        // a slot, 120 positions cut in 3 slices of 40 (at least 4 per row of threads).
        const slots = layout === 'ncdhw' ? 1 : 3;
        expect(plan.algorithm('bwFilter')).toMatchObject({
          path: 'native',
          name: `baracuda depthwise ${kernel}`,
          deterministic: true,
          workspaceBytes: slots * 128 * 27 * 4,
        });
        expect(plan.precisionGuarantee()).toMatchObject({ deterministic: true });
        // The caller's workspace.
        plan.runDw({
          x: slice(0x1000n),
          dy: slice(0x3000n),
          dw: slice(0x2000n),
          beta: 1,
          workspace: slice(0x9000n),
        });
        expect(launches.map((l) => l.name)).toEqual([
          `baracuda_depthwise_${kernel}_f32`,
          'baracuda_depthwise_wgradsum_f32',
        ]);
        expect(pointers(launches[0]!)).toEqual([0x1000n, 0x3000n, 0x9000n]);
        expect(pointers(launches[1]!).slice(0, 2)).toEqual([0x9000n, 0x2000n]);
        // Pass 2's count (C × taps) and slots, after its two pointers.
        const v = new DataView(launches[1]!.params.buffer, launches[1]!.params.byteOffset);
        expect([v.getBigUint64(16, true), v.getInt32(24, true)]).toEqual([128n * 27n, slots]);
        // A workspace short of the partial sums is refused before anything runs.
        expect(() =>
          plan.runDw({
            x: slice(0x1000n),
            dy: slice(0x3000n),
            dw: slice(0x2000n),
            workspace: { devicePtr: 0x9000n, byteLength: 100 },
          }),
        ).toThrow(WorkspaceTooSmallError);
        expect(launches).toHaveLength(2);
        plan.dispose();
      }
      // A workspace cap under one slot of partial sums leaves backward-filter to cuDNN.
      const capped = Conv3dPlan.selectSync(stream, depthwise(), { maxWorkspaceBytes: 431 });
      expect(capped.algorithm('bwFilter').path).not.toBe('native');
      capped.dispose();
      expect(warnings).toEqual([]);
    });

    it.skipIf(fakeCuda === null)(
      'backward-filter without a workspace given: the plan grows its own',
      () => {
        const own = Stream.create();
        const bufs = [0, 1, 2].map(() => DeviceBuffer.alloc(1 << 20));
        const [x, dy, dw] = bufs.map((b) => ({ devicePtr: b.devicePtr, byteLength: b.byteLength }));
        const plan = Conv3dPlan.selectSync(own, depthwise(ElementKind.F64, 'ndhwc', 40));
        // What the default mode's quick tune launched at select is not this test's subject.
        launches = [];
        // 40 channels: two blocks of 32 lanes; 3 slots (as above) of 40 × 27 taps of f64.
        expect(plan.queryBwFilterWorkspaceSize()).toBe(3 * 40 * 27 * 8);
        plan.runDw({ x: x!, dy: dy!, dw: dw!, stream: own });
        plan.runDw({ x: x!, dy: dy!, dw: dw!, stream: own });
        expect(launches.map((l) => l.name)).toEqual([
          'baracuda_depthwise_wgradcl_f64',
          'baracuda_depthwise_wgradsum_f64',
          'baracuda_depthwise_wgradcl_f64',
          'baracuda_depthwise_wgradsum_f64',
        ]);
        const ws = pointers(launches[0]!)[2]!;
        expect(ws).not.toBe(0n);
        expect(bufs.map((b) => b.devicePtr)).not.toContain(ws);
        // The same workspace for every run, pass 2 reading what pass 1 wrote.
        expect([pointers(launches[1]!)[0], pointers(launches[2]!)[2]]).toEqual([ws, ws]);
        plan.dispose();
        for (const b of bufs) b.dispose();
        own.dispose();
      },
    );

    it('backward-filter: a cuDNN autotune entry keeps cuDNN', async () => {
      const path = fakeAutotuneCache([[depthwise(), 'bwFilter', { engineIndex: 0, knobs: [] }]]);
      const plan = await Conv3dPlan.select(
        stream,
        depthwise(),
        { algorithm: 'autotune' },
        { passes: ['bwFilter'], autotuneCachePath: path },
      );
      expect(plan.algorithm('bwFilter').path).not.toBe('native');
      plan.dispose();
    });

    it('a device address not aligned to the element is refused before anything runs', () => {
      const plan = Conv3dPlan.selectSync(stream, depthwise(ElementKind.F64));
      const run = () => plan.runFw({ x: slice(0x1004n), w: slice(0x2000n), y: slice(0x3000n) });
      expect(run).toThrow(
        new InvalidArgumentError(
          'x device address',
          'a multiple of 8 bytes (one f64 element)',
          '0x1004',
        ),
      );
      // cuDNN's passes check the same way.
      expect(() =>
        plan.runDw({ x: slice(0x1000n), dy: slice(0x3000n), dw: slice(0x2002n) }),
      ).toThrow('Expected a multiple of 8 bytes (one f64 element) for dw device address');
      expect(launches).toEqual([]);
      plan.dispose();
    });

    it('a bad alpha, beta, stream or workspace is refused on our kernels and on cuDNN alike', () => {
      // No workspace for backward-filter's partial sums: it runs on cuDNN.
      const plan = Conv3dPlan.selectSync(stream, depthwise(), { maxWorkspaceBytes: 0 });
      const fw = (extra: object) =>
        plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n), ...extra });
      const dw = (extra: object) =>
        plan.runDw({ x: slice(0x1000n), dy: slice(0x3000n), dw: slice(0x2000n), ...extra });
      const bad: [object, InvalidArgumentError][] = [
        [{ alpha: Number.NaN }, new InvalidArgumentError('alpha', 'a finite number', Number.NaN)],
        [{ beta: '1' }, new InvalidArgumentError('beta', 'a finite number', '1')],
        [{ stream: {} }, new InvalidArgumentError('stream', 'a Stream from @baracuda/driver', {})],
        [
          { workspace: 42 },
          new InvalidArgumentError('workspace', 'a DeviceSlice, a Workspace or undefined', 42),
        ],
      ];
      expect(plan.algorithm('fw').path).toBe('native');
      expect(plan.algorithm('bwFilter').path).not.toBe('native');
      for (const [extra, error] of bad) {
        expect(() => fw(extra)).toThrow(error);
        expect(() => dw(extra)).toThrow(error);
      }
      expect(launches).toEqual([]);
      plan.dispose();
    });

    it('f64 launches the f64 kernel; untuned, a strided problem stays on cuDNN', () => {
      const plan = Conv3dPlan.selectSync(stream, depthwise(ElementKind.F64));
      expect(plan.algorithm('fw').name).toBe('baracuda depthwise tiled');
      expect(plan.precisionGuarantee()).toMatchObject({
        mathPrecision: 'f64',
        deterministic: true,
      });
      plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n) });
      expect(launches.map((l) => l.name)).toEqual(['baracuda_depthwise_tiled3_f64']);
      plan.dispose();
      // The gather kernel (any stride) runs only where autotune timed it faster (below).
      const strided = Conv3dPlan.selectSync(stream, depthwise().withStride(2, 2, 2));
      expect(strided.algorithm('fw').path).not.toBe('native');
      expect(strided.algorithm('bwData').path).not.toBe('native');
      strided.dispose();
    });

    it('NDHWC stride 1 runs forward and backward-data on the channels-last kernel that marches in depth', () => {
      expect(
        Conv3dPlan.selectSync(stream, depthwise(ElementKind.Bf16, 'ndhwc')).algorithm('bwFilter')
          .name,
      ).toBe('baracuda depthwise wgradcl');
      // No workspace: backward-filter on cuDNN.
      const plan = Conv3dPlan.selectSync(stream, depthwise(ElementKind.Bf16, 'ndhwc'), {
        maxWorkspaceBytes: 0,
      });
      expect(plan.algorithm('fw').name).toBe('baracuda depthwise clmarch');
      expect(plan.algorithm('bwData').name).toBe('baracuda depthwise clmarch');
      expect(plan.algorithm('bwFilter').path).toBe('graph');
      plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n) });
      plan.runBwData({ dy: slice(0x4000n), w: slice(0x2000n), dx: slice(0x5000n) });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_depthwise_clmarch_bf16',
        'baracuda_depthwise_clmarch_bf16',
      ]);
      expect(launches.map(pointers)).toEqual([
        [0x1000n, 0x2000n, 0x3000n],
        [0x4000n, 0x2000n, 0x5000n],
      ]);
      // The sku names cuDNN while a pass (backward-filter) runs there, ours when none does.
      expect(plan.sku().backend).toBe('cudnn');
      plan.dispose();
      const ours = Conv3dPlan.selectSync(stream, depthwise(ElementKind.Bf16, 'ndhwc'), undefined, {
        passes: ['fw', 'bwData'],
      });
      // Passes are built at first use: until then the sku says cuDNN, as the precision says intent.
      expect(ours.sku().backend).toBe('cudnn');
      expect([ours.algorithm('fw').path, ours.algorithm('bwData').path]).toEqual([
        'native',
        'native',
      ]);
      expect(ours.sku().backend).toBe('native');
      expect(ours.precisionGuarantee()).toMatchObject({
        deterministic: true,
        mathPrecision: 'bf16',
      });
      ours.dispose();
    });

    it('pinned mode and grouped (not depthwise) problems stay on cuDNN', () => {
      const pinned = Conv3dPlan.selectSync(stream, depthwise(), { algorithm: 'pinned' });
      expect(pinned.algorithm('fw').path).toBe('legacy');
      pinned.dispose();
      const pinnedNdhwc = Conv3dPlan.selectSync(stream, depthwise(ElementKind.F32, 'ndhwc'), {
        algorithm: 'pinned',
      });
      expect(pinnedNdhwc.algorithm('fw').path).not.toBe('native');
      pinnedNdhwc.dispose();
      const grouped = Conv3dPlan.selectSync(
        stream,
        Conv3dDescriptor.create({ ...depthwise(), cOut: 8 }).withGroups(4),
      );
      expect(grouped.algorithm('fw').path).not.toBe('native');
      grouped.dispose();
      expect(launches).toEqual([]);
    });

    it('f16 NCDHW on cuDNN 9.14 runs our kernels ahead of the erratum detour', () => {
      const plan = Conv3dPlan.selectSync(stream, depthwise(ElementKind.F16));
      expect(plan.errataApplied).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
      expect(plan.algorithm('fw').name).toBe('baracuda depthwise tiled');
      expect(plan.algorithm('bwFilter').name).toBe('baracuda depthwise wgradrow');
      plan.runFw({ x: slice(0x1000n), w: slice(0x2000n), y: slice(0x3000n) });
      expect(launches.map((l) => l.name)).toEqual(['baracuda_depthwise_tiled3_f16']);
      plan.dispose();
    });

    it('kernels that do not load leave the passes to cuDNN, with a warning', () => {
      primeKernels(false);
      const plan = Conv3dPlan.selectSync(stream, depthwise());
      expect(plan.algorithm('fw').path).not.toBe('native');
      expect(warnings.map((w) => w.code)).toEqual(['BARACUDA_DEPTHWISE_KERNELS']);
      expect(warnings[0]!.message).toContain('PTX JIT failed');
      plan.dispose();
    });

    it("autotune's cache: a native entry runs our kernel; a cuDNN entry keeps cuDNN", async () => {
      const path = fakeAutotuneCache([
        [depthwise(), 'fw', { engineIndex: -1, knobs: [] }],
        [depthwise(), 'bwData', { engineIndex: 0, knobs: [] }],
      ]);
      const plan = await Conv3dPlan.select(
        stream,
        depthwise(),
        { algorithm: 'autotune' },
        { passes: ['fw', 'bwData'], autotuneCachePath: path },
      );
      expect(plan.algorithm('fw').path).toBe('native');
      expect(plan.algorithm('bwData').path).not.toBe('native');
      expect(warnings).toEqual([]);
      plan.dispose();
      // A strided problem whose cache names our kernel runs the gather kernel.
      const strided = depthwise().withStride(2, 2, 2);
      fakeAutotuneCache([[strided, 'fw', { engineIndex: -1, knobs: [] }]], path);
      const gathering = await Conv3dPlan.select(
        stream,
        strided,
        { algorithm: 'autotune' },
        { passes: ['fw'], autotuneCachePath: path },
      );
      expect(gathering.algorithm('fw').name).toBe('baracuda depthwise gather');
      gathering.dispose();
      // The cache names our kernel, which does not load here: the heuristics choose, with a warning.
      primeKernels(false);
      const fallback = await Conv3dPlan.select(
        stream,
        depthwise(),
        { algorithm: 'autotune' },
        { passes: ['fw'], autotuneCachePath: path },
      );
      expect(fallback.algorithm('fw').path).not.toBe('native');
      expect(warnings.map((w) => w.code)).toContain('BARACUDA_AUTOTUNE_STALE');
      expect(warnings.find((w) => w.code === 'BARACUDA_AUTOTUNE_STALE')!.message).toContain(
        "baracuda's depthwise kernel",
      );
      fallback.dispose();
    });
  },
);
