/**
 * Plans under `math: '3xtf32'` end to end without a GPU: the fake libcuda of @baracuda/driver
 * (which loads our PTX and records launches) under the fake libcudnn.so.9 of @baracuda/cudnn-sys
 * (cuDNN 9.14.0: the TF32 erratum applies unless ignored; one scripted tensor-core engine; an
 * execute log of each execution's data pointers and plan), and the split executor on its own
 * over a recording inner plan (the operands and alpha/beta of each of its three calls).
 */
import { ElementKind, InvalidArgumentError, WorkspaceTooSmallError } from '@baracuda/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Conv3dPass, Operands } from './core/pass.js';
import type { AlgorithmInfo, RunScalars } from './core/types.js';
import type { Conv3dDescriptor } from './descriptor.js';
import type { ExecContext, InnerPlan, PassExecutor } from './exec/executor.js';
import { SPLIT_INPUTS, splitScratch, Tf32x3Split } from './exec/split-tf32.js';
import { smallProblem, useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import type { Conv3dPlan } from './plan.js';
import { recordingLoader } from './ptx.test-helpers.js';
import { SplitKernels } from './split-tf32.js';
import type { StreamLike } from './sys.js';
import { fakeOperands, fakeTuning } from './tuning.test-helpers.js';
import { captureWarnings } from './warnings.test-helpers.js';

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();
const TF32_ERRATUM = 'cudnn-9.10-conv3d-tf32';

const innerInfo: AlgorithmInfo = Object.freeze({
  path: 'graph',
  name: 'engine 28',
  engineIndex: 28,
  knobs: [],
  numericalNotes: ['CUDNN_NUMERICAL_NOTE_TENSOR_CORE'],
  workspaceBytes: 4096,
  deterministic: true,
  mathPrecision: 'tf32',
});

/** An inner plan whose executors record each run (operands and scalars) instead of running. */
function recordingInner(ctx: ExecContext) {
  const runs: { pass: Conv3dPass; ops: Operands; alpha: number; beta: number }[] = [];
  let disposed = 0;
  const executor = (pass: Conv3dPass): PassExecutor => ({
    info: () => innerInfo,
    workspaceBytes: () => innerInfo.workspaceBytes,
    built: () => innerInfo,
    run: (ops: Operands, s: RunScalars) => runs.push({ pass, ops, alpha: s.alpha, beta: s.beta }),
  });
  const inner: InnerPlan = {
    ctx,
    executor,
    built: () => innerInfo,
    dispose: () => {
      disposed++;
    },
  };
  return { inner, runs, disposed: () => disposed };
}

describe('splitScratch', () => {
  it('holds hi and lo of both inputs of each pass, each part 256-byte aligned', () => {
    // x 1·4·4·4·4 = 256 elements, w 4·4·1·3·3 = 144, y 4·4·2·2 = 64.
    const d = smallProblem(ElementKind.F32);
    expect([d.xElements, d.wElements, d.yElements]).toEqual([256, 144, 64]);
    expect(splitScratch(d, 'fw')).toEqual({ offsets: [0, 1024, 2048, 2816], bytes: 3584 });
    expect(splitScratch(d, 'bwData')).toEqual({ offsets: [0, 256, 512, 1280], bytes: 2048 });
    expect(splitScratch(d, 'bwFilter')).toEqual({ offsets: [0, 1024, 2048, 2304], bytes: 2560 });
    expect(SPLIT_INPUTS).toEqual({ fw: ['x', 'w'], bwData: ['y', 'w'], bwFilter: ['x', 'y'] });
  });
});

describe.skipIf(fakeCuda === null)(
  'Tf32x3Split over a recording inner plan (fake libcuda; skipped where no C compiler is found)',
  () => {
    let stream: (StreamLike & { dispose(): void }) | undefined;
    let device: ExecContext['device'];
    beforeEach(async () => {
      const { Device, Stream } = await import('@baracuda/driver');
      device = Device.get(0) as unknown as ExecContext['device'];
      stream = Stream.create();
    });
    afterEach(() => stream?.dispose());

    function make(desc: Conv3dDescriptor, accumulateWorkspace?: (pass: Conv3dPass) => number) {
      const { loader, launches } = recordingLoader();
      SplitKernels.resetForTests();
      const kernels = SplitKernels.forDevice(device, loader);
      SplitKernels.resetForTests();
      if (kernels instanceof Error) throw kernels;
      const ctx = {
        desc,
        problem: desc.describe(),
        device,
        stream: stream!,
      } as unknown as ExecContext;
      const rec = recordingInner(ctx);
      const split = new Tf32x3Split(ctx, kernels, rec.inner, accumulateWorkspace);
      return { split, launches, ...rec };
    }

    it.each([
      ['fw', 'x', 'w', 'y'],
      ['bwData', 'y', 'w', 'x'],
      ['bwFilter', 'x', 'y', 'w'],
    ] as const)('%s splits %s and %s and runs three products into %s', (pass, a, b, out) => {
      const d = smallProblem(ElementKind.F32);
      const { split, launches, runs } = make(d);
      const ops: Operands = { x: 0x10000n, w: 0x20000n, y: 0x30000n };
      split.executor(pass).run(ops, { alpha: 2, beta: 0.5, stream: stream!, userWs: null });
      // Two splits, each of one input into its two parts of the scratch.
      const params = launches.map((l) => [...new BigUint64Array(l.params.slice().buffer)]);
      expect(params.map((p) => [p[0], p[3]])).toEqual([
        [ops[a], BigInt(a === 'x' ? d.xElements : d.yElements)],
        [ops[b], BigInt(b === 'w' ? d.wElements : d.yElements)],
      ]);
      const { offsets } = splitScratch(d, pass);
      const base = params[0]![1]!;
      const [aHi, aLo, bHi, bLo] = offsets.map((o) => base + BigInt(o));
      expect(params.map((p) => [p[1], p[2]])).toEqual([
        [aHi, aLo],
        [bHi, bLo],
      ]);
      // lo·hi with the caller's beta, then hi·lo and hi·hi added (beta 1); alpha on each.
      expect(runs.map((r) => [r.pass, r.ops[a], r.ops[b], r.ops[out], r.alpha, r.beta])).toEqual([
        [pass, aLo, bHi, ops[out], 2, 0.5],
        [pass, aHi, bLo, ops[out], 2, 1],
        [pass, aHi, bHi, ops[out], 2, 1],
      ]);
      expect(split.scratchBytes(pass)).toBe(splitScratch(d, pass).bytes);
    });

    it('reuses its scratch on a repeat call and grows it only for a larger pass', () => {
      const { split, launches } = make(smallProblem(ElementKind.F32));
      const ops: Operands = { x: 0x10000n, w: 0x20000n, y: 0x30000n };
      const run = (pass: Conv3dPass) =>
        split.executor(pass).run(ops, { alpha: 1, beta: 0, stream: stream!, userWs: null });
      const base = () => new BigUint64Array(launches.at(-1)!.params.slice().buffer)[1]!;
      run('bwData');
      const first = launches.at(-2)!;
      const firstBase = new BigUint64Array(first.params.slice().buffer)[1]!;
      run('bwData');
      expect(new BigUint64Array(launches.at(-2)!.params.slice().buffer)[1]).toBe(firstBase);
      // fw needs 3584 bytes to bwData's 2048: a new buffer; bwData then fits in it.
      run('fw');
      const grown = new BigUint64Array(launches.at(-2)!.params.slice().buffer)[1]!;
      run('bwData');
      expect(new BigUint64Array(launches.at(-2)!.params.slice().buffer)[1]).toBe(grown);
      expect(base()).toBeGreaterThan(0n);
      split.dispose();
    });

    it('refuses a workspace smaller than the inner plan needs before enqueuing anything', () => {
      const { split, launches, runs } = make(smallProblem(ElementKind.F32));
      const userWs = { devicePtr: 0x40000n, byteLength: 100 };
      expect(() =>
        split
          .executor('fw')
          .run({ x: 1n, w: 2n, y: 3n }, { alpha: 1, beta: 0, stream: stream!, userWs }),
      ).toThrow(new WorkspaceTooSmallError(4096, 100));
      expect([launches.length, runs.length]).toEqual([0, 0]);
    });

    it("reports and checks the beta-1 plan's workspace where it is the larger", () => {
      const { split, launches, runs } = make(smallProblem(ElementKind.F32), () => 8192);
      expect(split.executor('fw').workspaceBytes()).toBe(8192);
      expect(split.executor('fw').info().workspaceBytes).toBe(8192);
      const userWs = { devicePtr: 0x40000n, byteLength: 5000 };
      expect(() =>
        split
          .executor('fw')
          .run({ x: 1n, w: 2n, y: 3n }, { alpha: 1, beta: 0, stream: stream!, userWs }),
      ).toThrow(new WorkspaceTooSmallError(8192, 5000));
      expect([launches.length, runs.length]).toEqual([0, 0]);
      // The larger of the two: the default choice's 4096 over a smaller beta-1 plan.
      expect(
        make(smallProblem(ElementKind.F32), () => 10)
          .split.executor('bwData')
          .workspaceBytes(),
      ).toBe(4096);
    });

    it('reports the inner choice as 3xTF32 and frees the inner plan with itself', () => {
      const { split, disposed } = make(smallProblem(ElementKind.F32));
      const info = split.executor('bwFilter').info();
      expect([info.name, info.mathPrecision, info.workspaceBytes]).toEqual([
        '3xTF32 over engine 28',
        'tf32x3',
        4096,
      ]);
      expect(split.executor('bwFilter').built()?.name).toBe('3xTF32 over engine 28');
      expect(split.executor('fw').workspaceBytes()).toBe(4096);
      split.dispose();
      expect(disposed()).toBe(1);
    });

    it('is only for f32 problems', () => {
      expect(() => make(smallProblem(ElementKind.F16))).toThrow(
        "Expected 'f32' with math '3xtf32' for desc.element but received \"f16\" of type string",
      );
    });
  },
);

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  "Conv3dPlan with math '3xtf32' (fake libcuda and libcudnn; skipped where no C compiler is found)",
  () => {
    const { stream, executions, newCache } = fakeTuning('baracuda-3xtf32');
    beforeEach(() => {
      // A tensor-core engine (numerical note 0), what the TF32 inner plan takes, and one without,
      // what strict f32 (backward-filter, SPLIT_PASSES) takes.
      process.env.FAKE_CUDNN_ENGINES = '28!0;70';
    });
    afterEach(() => vi.restoreAllMocks());

    async function select(
      d: Conv3dDescriptor,
      preference: Record<string, unknown> = {},
      options: Record<string, unknown> = {},
    ): Promise<Conv3dPlan> {
      const { Conv3dPlan } = await import('./plan.js');
      captureWarnings();
      return Conv3dPlan.selectSync(
        stream(),
        d,
        { math: '3xtf32', ...preference },
        { ignoreErrata: [TF32_ERRATUM], ...options },
      );
    }

    it('runs every pass as three executions of one TF32 plan on split scratch', async () => {
      const d = smallProblem(ElementKind.F32);
      // 'first': no quick tune at select, so that the executions below are the runs' alone.
      const plan = await select(d, {}, { heuristic: 'first' });
      expect(plan.precisionGuarantee().mathPrecision).toBe('tf32x3');
      expect(plan.algorithm('fw').name).toBe('3xTF32 over engine 28');
      expect(plan.queryFwWorkspaceSize()).toBe(plan.algorithm('fw').workspaceBytes);
      const { x, w, y } = fakeOperands(d);
      plan.runFw({ x, w, y });
      const runs = executions().map((l) => l.split(' '));
      expect(runs).toHaveLength(3);
      // x and w come from the scratch (never the caller's), y is the caller's on every call.
      for (const r of runs) {
        expect(['10000', '20000'].includes(r[0]!) || ['10000', '20000'].includes(r[1]!)).toBe(
          false,
        );
        expect(r[2]).toBe('30000');
      }
      // lo·hi, hi·lo, hi·hi: x lo then hi twice, w hi, lo, hi.
      expect(runs[1]![0]).toBe(runs[2]![0]);
      expect(runs[0]![0]).not.toBe(runs[1]![0]);
      expect(runs[0]![1]).toBe(runs[2]![1]);
      expect(runs[1]![1]).not.toBe(runs[2]![1]);
      // beta 0 for the first, beta 1 for the next two: two execution plans.
      expect(runs[1]!.at(-2)).toBe(runs[2]!.at(-2));
      expect(runs[0]!.at(-2)).not.toBe(runs[1]!.at(-2));
      const sku = plan.sku();
      expect([sku.backend, sku.precisionGuarantee.mathPrecision]).toEqual(['cudnn', 'tf32x3']);
      expect(plan.errataApplied).toEqual([]);
      plan.runBwData({ w, dy: y, dx: x, beta: 1 });
      plan.runDw({ x, dy: y, dw: w, alpha: 0.5 });
      // beta 1 throughout for backward-data: one plan, three executions; dx the caller's.
      const more = executions()
        .slice(3)
        .map((l) => l.split(' '));
      expect(more.slice(0, 3).map((r) => r[0])).toEqual(['10000', '10000', '10000']);
      expect(new Set(more.slice(0, 3).map((r) => r.at(-2))).size).toBe(1);
      // Backward-filter runs in strict f32 (SPLIT_PASSES): one execution on the caller's x and dw.
      expect(more.slice(3).map((r) => [r[0], r[1]])).toEqual([['10000', '20000']]);
      expect(plan.algorithm('bwFilter').name).toBe('engine 70');
      plan.dispose();
    });

    it('tunes the inner plan under autotune', async () => {
      const d = smallProblem(ElementKind.F32);
      const lines: string[] = [];
      const plan = await select(
        d,
        { algorithm: 'autotune' },
        { passes: ['fw'], autotuneCachePath: newCache(), onProgress: (m: string) => lines.push(m) },
      );
      expect(lines.some((l) => l.includes('fw: candidate 1/2 engine 28'))).toBe(true);
      expect(plan.algorithm('fw').name).toBe('3xTF32 over engine 28');
      plan.dispose();
    });

    it('runs strict f32 where the TF32 erratum applies (cuDNN 9.10.2–9.15)', async () => {
      // An engine without tensor cores: what strict f32 takes.
      process.env.FAKE_CUDNN_ENGINES = '28';
      const plan = await select(smallProblem(ElementKind.F32), {}, { ignoreErrata: [] });
      expect(plan.errataApplied).toEqual([TF32_ERRATUM]);
      expect(plan.preference.math).toBe('default');
      expect(plan.precisionGuarantee().mathPrecision).toBe('f32');
      expect(plan.algorithm('fw').name).not.toContain('3xTF32');
      plan.dispose();
    });

    it('refuses other element kinds, TF32 and the pinned algorithms', async () => {
      for (const element of [ElementKind.F16, ElementKind.Bf16, ElementKind.F64]) {
        await expect(select(smallProblem(element))).rejects.toThrow(
          new InvalidArgumentError('desc.element', "'f32' with math '3xtf32'", element),
        );
      }
      await expect(select(smallProblem(ElementKind.F32), { allowTf32: true })).rejects.toThrow(
        "Expected false with math '3xtf32' for allowTf32 but received true",
      );
      await expect(select(smallProblem(ElementKind.F32), { algorithm: 'pinned' })).rejects.toThrow(
        "Expected 'heuristic' or 'autotune' with math '3xtf32' for algorithm",
      );
    });
  },
);
