/**
 * ConvTranspose3dDescriptor (PyTorch's nn.ConvTranspose3d semantics, every validation rule with
 * its exact message, extents against a brute-force inverse of the convolution's) and
 * ConvTranspose3dPlan on the fakes: which convolution pass each transposed pass runs, the
 * operand roles the graph receives (FAKE_CUDNN_EXECUTE_LOG), pre/post paddings, pinned, brand
 * checks and the factory-only constructor.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConvKind,
  DisposedError,
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  UnsupportedError,
} from '@baracuda/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { C } from './sys.js';
import { startTrace, stopTrace } from './trace-recorder.test-helpers.js';
import { ConvTranspose3dDescriptor } from './transpose-descriptor.js';
import { ConvTranspose3dPlan } from './transpose-plan.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('./trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

/** A U-Net up-convolution: 4→2 channels, 3×4×5 in, 3×3×3 filter, stride 2, pad 1, outputPadding 1. */
const up = () =>
  ConvTranspose3dDescriptor.create({
    batch: 2,
    cIn: 4,
    dIn: 3,
    hIn: 4,
    wIn: 5,
    cOut: 2,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  })
    .withStride(2, 2, 2)
    .withPadding(1, 1, 1)
    .withOutputPadding(1, 1, 1);

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('ConvTranspose3dDescriptor', () => {
  it('has nn.ConvTranspose3d extents and shapes, and names the convolution it transposes', () => {
    const d = up();
    // (in − 1)·2 − 2 + 2 + 1 + 1 = 2·in
    expect(d.outputDims()).toEqual([6, 8, 10]);
    expect(d.xShape).toEqual([2, 4, 3, 4, 5]);
    expect(d.wShape).toEqual([4, 2, 3, 3, 3]);
    expect(d.yShape).toEqual([2, 2, 6, 8, 10]);
    expect(d.describe()).toBe(
      'convTranspose3d n=2 c=4→2 in=3×4×5 k=3×3×3 pad=1×1×1 outPad=1×1×1 stride=2×2×2 dil=1×1×1 groups=1 f32 ncdhw',
    );
    const conv = d.conv();
    // x_conv = the transposed output, y_conv = its input, the same filter tensor; post = pad − outputPadding.
    expect(conv.describe()).toBe(
      'conv3d n=2 c=2→4 in=6×8×10 k=3×3×3 pad=1×1×1/0×0×0 stride=2×2×2 dil=1×1×1 groups=1 f32 ncdhw',
    );
    expect([conv.xShape, conv.wShape, conv.yShape]).toEqual([d.yShape, d.wShape, d.xShape]);
    expect(d.trailingPlanes()).toEqual([0, 0, 0]);
  });

  it('takes asymmetric padding, groups, dilation and the NDHWC layout', () => {
    const d = ConvTranspose3dDescriptor.create({
      batch: 1,
      cIn: 6,
      dIn: 2,
      hIn: 3,
      wIn: 4,
      cOut: 9,
      dFilt: 2,
      hFilt: 3,
      wFilt: 1,
      element: ElementKind.Bf16,
    })
      .withPadding({ before: [0, 1, 0], after: [1, 0, 0] })
      .withDilation(1, 2, 1)
      .withStride(3, 1, 2)
      .withGroups(3)
      .withLayout('ndhwc');
    // D: 1·3 − 0 − 1 + 1 + 1 = 4; H: 2 − 1 − 0 + 4 + 1 = 6; W: 3·2 + 1 = 7
    expect(d.outputDims()).toEqual([4, 6, 7]);
    expect(d.wShape).toEqual([6, 3, 2, 3, 1]);
    expect(d.conv().describe()).toBe(
      'conv3d n=1 c=9→6 in=4×6×7 k=2×3×1 pad=0×1×0/1×0×0 stride=3×1×2 dil=1×2×1 groups=3 bf16 ndhwc',
    );
  });

  it('covers only the reached planes where outputPadding > padAfter, and says how many it leaves', () => {
    const d = up().withPadding(0, 0, 0).withOutputPadding(1, 0, 1);
    // (in − 1)·2 + 2 + 1 + op
    expect(d.outputDims()).toEqual([8, 9, 12]);
    expect(d.trailingPlanes()).toEqual([1, 0, 1]);
    expect(d.conv().describe()).toBe(
      'conv3d n=2 c=2→4 in=7×9×11 k=3×3×3 pad=0×0×0 stride=2×2×2 dil=1×1×1 groups=1 f32 ncdhw',
    );
    expect(d.conv().outputDims()).toEqual([3, 4, 5]);
  });

  it('refuses every bad field with the exact message', () => {
    const d = up();
    const cases: [() => unknown, Function, string][] = [
      [
        () => d.withOutputPadding(2, 0, 0).validate(),
        InvalidProblemError,
        'Expected outputPaddingD below max(strideD, dilationD) = 2 but received 2',
      ],
      [
        () => d.withStride(1, 1, 1).withDilation(1, 3, 1).withOutputPadding(0, 2, 1).validate(),
        InvalidProblemError,
        'Expected outputPaddingW below max(strideW, dilationW) = 1 but received 1',
      ],
      [
        () => d.withOutputPadding(0, -1, 0).validate(),
        InvalidProblemError,
        'Expected a non-negative integer for outputPaddingH but received -1 of type number',
      ],
      [
        () => d.withOutputPadding(0, 0, 0.5).validate(),
        InvalidArgumentError,
        'Expected a non-negative integer for outputPaddingW but received 0.5 of type number',
      ],
      [
        () => d.withPadding(-1, 0, 0).validate(),
        InvalidProblemError,
        'Expected a non-negative integer for padD but received -1 of type number',
      ],
      [
        () => d.withPadding({ before: [0, 0, 0], after: [0, 0, 2 ** 31] }).validate(),
        InvalidProblemError,
        "Expected padAfterW to fit cuDNN's int32 limit of 2147483647 but received 2147483648",
      ],
      [
        () => d.withStride(0, 1, 1).validate(),
        InvalidProblemError,
        'Expected a positive integer for strideD but received 0 of type number',
      ],
      [
        () => d.withDilation(1, '2' as never, 1).validate(),
        InvalidArgumentError,
        'Expected a positive integer for dilationH but received "2" of type string',
      ],
      [
        () => d.withGroups(3).validate(),
        InvalidProblemError,
        'Expected groups (3) to divide cIn (4) and cOut (2), but it does not divide cIn or cOut',
      ],
      [
        () => d.withPadding(4, 0, 0).validate(),
        InvalidProblemError,
        "Expected a positive output extent within cuDNN's int32 limit, but the output depth is 0: dIn=3 strideD=2 padD=4 padAfterD=4 dilationD=1 dFilt=3 outputPaddingD=1 gives (3-1)*2 - 2*4 + 1*(3-1) + 1 + 1 = 0",
      ],
      [
        () => d.withPadding('same' as never),
        InvalidArgumentError,
        'Expected three numbers (d, h, w) or { before: [d, h, w], after: [d, h, w] } (\'same\' is not defined for a transposed convolution) for padding but received "same" of type string',
      ],
      [
        () => d.withLayout('nchw' as never),
        InvalidArgumentError,
        "Expected 'ncdhw' or 'ndhwc' for layout but received \"nchw\" of type string",
      ],
      [
        () =>
          ConvTranspose3dDescriptor.create({ ...problemOf(d), element: 'i8' as never }).validate(),
        UnsupportedError,
        'Expected one of f32, f64, f16, bf16 for element (cuDNN 3-D convolution) but received "i8" of type string',
      ],
      [
        () => ConvTranspose3dDescriptor.create(null as never),
        InvalidArgumentError,
        'Expected an object {batch, cIn, dIn, hIn, wIn, cOut, dFilt, hFilt, wFilt, element} for problem but received null',
      ],
    ];
    for (const [f, type, message] of cases) {
      const e = errorOf(() => {
        f();
        throw new Error(`accepted: ${message}`);
      });
      expect(e, message).toBeInstanceOf(type);
      expect(e.message).toBe(message);
    }
  });

  it('output extents match a brute-force inverse of the convolution’s over 4,000 seeded random descriptors', () => {
    let seed = 0x9e3779b9;
    const int = (lo: number, hi: number) => {
      seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x297a2d39) >>> 0;
      return lo + (seed % (hi - lo + 1));
    };
    let valid = 0;
    for (let i = 0; i < 4000; i++) {
      const axes = [0, 1, 2].map(() => {
        const s = int(1, 4);
        const dil = int(1, 3);
        return {
          input: int(1, 9),
          k: int(1, 5),
          s,
          dil,
          pb: int(0, 3),
          pa: int(0, 3),
          op: int(0, Math.max(s, dil) - 1),
        };
      });
      const d = ConvTranspose3dDescriptor.create({
        batch: 1,
        cIn: 1,
        dIn: axes[0]!.input,
        hIn: axes[1]!.input,
        wIn: axes[2]!.input,
        cOut: 1,
        dFilt: axes[0]!.k,
        hFilt: axes[1]!.k,
        wFilt: axes[2]!.k,
        element: ElementKind.F32,
      })
        .withStride(axes[0]!.s, axes[1]!.s, axes[2]!.s)
        .withDilation(axes[0]!.dil, axes[1]!.dil, axes[2]!.dil)
        .withPadding({
          before: [axes[0]!.pb, axes[1]!.pb, axes[2]!.pb],
          after: [axes[0]!.pa, axes[1]!.pa, axes[2]!.pa],
        })
        .withOutputPadding(axes[0]!.op, axes[1]!.op, axes[2]!.op);
      // The transposed extent: the smallest X (X ≥ 1) whose convolution gives `input`, plus
      // outputPadding; PyTorch's rule. Searched, not computed.
      const expected = axes.map(({ input, k, s, dil, pb, pa, op }) => {
        // The window count of the convolution is monotone in X: search it from below zero.
        for (let x = -60; x < 100; x++) {
          if (Math.floor((x + pb + pa - dil * (k - 1) - 1) / s) + 1 === input) return x + op;
        }
        return undefined;
      });
      const reachable = expected.every((e) => e !== undefined && e >= 1);
      const dims = (() => {
        try {
          return d.outputDims();
        } catch (error) {
          expect(error, (error as Error).message).toBeInstanceOf(InvalidProblemError);
          return undefined;
        }
      })();
      if (reachable) {
        expect(dims, JSON.stringify(axes)).toEqual(expected);
        valid++;
      } else {
        expect(dims, JSON.stringify(axes)).toBeUndefined();
      }
    }
    expect(valid).toBeGreaterThan(1500);
  });

  it('is immutable, factory-made and brand-checked', () => {
    const d = up();
    expect(Object.isFrozen(d)).toBe(true);
    expect(() => new (ConvTranspose3dDescriptor as never as new () => unknown)()).toThrow(
      /ConvTranspose3dDescriptor\.create/,
    );
    const e = errorOf(() => ConvTranspose3dDescriptor.prototype.outputDims.call({}));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toMatch(
      /^Expected a ConvTranspose3dDescriptor for this of ConvTranspose3dDescriptor#outputDims/,
    );
  });
});

function problemOf(d: ConvTranspose3dDescriptor) {
  return {
    batch: d.batch,
    cIn: d.cIn,
    dIn: d.dIn,
    hIn: d.hIn,
    wIn: d.wIn,
    cOut: d.cOut,
    dFilt: d.dFilt,
    hFilt: d.hFilt,
    wFilt: d.wFilt,
    element: d.element,
  };
}

describe('ConvTranspose3dPlan argument checks', () => {
  it('refuses a foreign descriptor and a forged receiver', async () => {
    await expect(ConvTranspose3dPlan.select({ raw: 0n }, {} as never)).rejects.toThrow(
      new InvalidArgumentError('desc', 'a ConvTranspose3dDescriptor', {}),
    );
    const e = errorOf(() => ConvTranspose3dPlan.prototype.runFw.call({}, {} as never));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toMatch(
      /^Expected a ConvTranspose3dPlan for this of ConvTranspose3dPlan#runFw/,
    );
    expect(() => new (ConvTranspose3dPlan as never as new () => unknown)()).toThrow();
  });
});

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'ConvTranspose3dPlan on the fakes (skipped where no C compiler is found)',
  () => {
    let driver: typeof import('@baracuda/driver');
    let log: string;
    const saved = process.env.FAKE_CUDNN_ENGINES;
    beforeAll(async () => {
      driver = await import('@baracuda/driver');
      log = join(mkdtempSync(join(tmpdir(), 'baracuda-transpose-')), 'execute.log');
      process.env.FAKE_CUDNN_EXECUTE_LOG = log;
      process.env.FAKE_CUDNN_ENGINES = '28';
    });
    afterAll(() => {
      delete process.env.FAKE_CUDNN_EXECUTE_LOG;
      if (saved === undefined) delete process.env.FAKE_CUDNN_ENGINES;
      else process.env.FAKE_CUDNN_ENGINES = saved;
    });
    const lastExecution = () => {
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      return lines[lines.length - 1]!.split(' ').slice(0, 3);
    };

    it('runs each pass as its convolution pass, with the roles swapped as the definition says', () => {
      const { DeviceBuffer, Stream } = driver;
      const stream = Stream.create();
      const d = up().withPadding({ before: [1, 1, 1], after: [2, 1, 1] });
      const bytes =
        4 * Math.max(...[d.xShape, d.wShape, d.yShape].map((s) => s.reduce((a, b) => a * b)));
      const [x, w, y] = [0, 1, 2].map(() => DeviceBuffer.alloc(bytes));
      const hex = (b: typeof x) => b!.devicePtr.toString(16);
      const lines = startTrace();
      // 'first': each pass's graph is built on its first query (the quick tune builds them at select).
      const plan = ConvTranspose3dPlan.selectSync(stream, d, undefined, { heuristic: 'first' });
      try {
        // The graph's operation per pass: fw → the convolution's backward-data, and so on.
        const opOf = (pass: 'fw' | 'bwData' | 'bwFilter') => {
          const before = lines.length;
          plan.queryFwWorkspaceSize();
          if (pass === 'bwData') plan.queryBwDataWorkspaceSize();
          if (pass === 'bwFilter') plan.queryBwFilterWorkspaceSize();
          return lines.slice(before).join('\n');
        };
        const ops = C as unknown as Record<string, number>;
        const created = (name: string) => `BCreateDescriptor(${ops[name]})`;
        expect(opOf('fw')).toContain(
          created('CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR'),
        );
        expect(opOf('bwData')).toContain(
          created('CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR'),
        );
        expect(opOf('bwFilter')).toContain(
          created('CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR'),
        );
        // pre = before, post = after − outputPadding (2 − 1 on D, 1 − 1 elsewhere).
        const attr = (a: number) =>
          lines.filter((l) => l.includes(`, ${a}, ${C.CUDNN_TYPE_INT64}, `));
        expect(
          new Set(attr(C.CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS).map((l) => l.replace(/^.*, /, ''))),
        ).toEqual(new Set(['i64[1,1,1])']));
        expect(
          new Set(attr(C.CUDNN_ATTR_CONVOLUTION_POST_PADDINGS).map((l) => l.replace(/^.*, /, ''))),
        ).toEqual(new Set(['i64[1,0,0])']));
        // Operands in uid order (x_conv, w, y_conv): x_conv is the transposed output.
        plan.runFw({ x: x!, w: w!, y: y! });
        expect(lastExecution()).toEqual([hex(y), hex(w), hex(x)]);
        plan.runBwData({ dy: y!, w: w!, dx: x! });
        expect(lastExecution()).toEqual([hex(y), hex(w), hex(x)]);
        plan.runDw({ x: x!, dy: y!, dw: w! });
        expect(lastExecution()).toEqual([hex(y), hex(w), hex(x)]);
        expect(plan.algorithm('fw').name).toBe('engine 28');
        expect(plan.sku().op).toBe(ConvKind.ConvTranspose3d);
        expect(plan.precisionGuarantee().accumulator).toBe(ElementKind.F32);
        expect(plan.outputDims()).toEqual(d.outputDims());
        // Shapes are the transposed ones: a y one element short is refused, naming y.
        const short = errorOf(() =>
          plan.runFw({
            x: x!,
            w: w!,
            y: { devicePtr: y!.devicePtr, byteLength: 4 * d.yShape.reduce((a, b) => a * b) - 4 },
          }),
        );
        expect(short.message).toMatch(/\by\b/);
      } finally {
        plan.dispose();
        stopTrace();
      }
      expect(plan.disposed).toBe(true);
      expect(() => plan.runFw({ x: x!, w: w!, y: y! })).toThrow(DisposedError);
      for (const b of [x, w, y]) b!.dispose();
      stream.dispose?.();
      if (existsSync(log)) rmSync(log);
    });

    it('autotune tunes the convolution passes the transposed passes name, and caches them under the convolution', async () => {
      const { Stream } = driver;
      const stream = Stream.create();
      const cachePath = join(mkdtempSync(join(tmpdir(), 'baracuda-transpose-cache-')), 'a.json');
      const lines: string[] = [];
      const d = up();
      const plan = await ConvTranspose3dPlan.select(
        stream,
        d,
        { algorithm: 'autotune' },
        { passes: ['fw'], autotuneCachePath: cachePath, onProgress: (m) => lines.push(m) },
      );
      try {
        const keys = Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).entries).map((k) =>
          k.split(' | ').slice(0, 2).join(' '),
        );
        // The transposed forward is the convolution's backward-data, keyed by the convolution
        // (and by its NDHWC twin, which the layout detour's candidate tunes).
        expect(keys).toContain(`${d.conv().describe()} pass=bwData`);
        expect(keys.every((k) => k.endsWith(' pass=bwData'))).toBe(true);
        expect(lines.some((l) => l.startsWith(`${d.conv().describe()} bwData: `))).toBe(true);
        expect(plan.algorithm('fw').name).toBe('engine 28');
        // The report names the transposed pass that was tuned.
        const report = plan.selectReport();
        expect(report.passes.map((p) => [p.pass, p.how])).toEqual([['fw', 'autotune']]);
        expect(report.wallMs).toBeGreaterThan(0);
      } finally {
        plan.dispose();
      }
    });

    it('a depthwise transposed convolution runs our depthwise kernels (the convolution’s backward-data)', () => {
      const { Stream } = driver;
      const d = ConvTranspose3dDescriptor.create({
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
      const plan = ConvTranspose3dPlan.selectSync(Stream.create(), d);
      try {
        expect(plan.algorithm('fw').path).toBe('native');
        expect(plan.algorithm('fw').name).toMatch(/^baracuda depthwise/);
      } finally {
        plan.dispose();
      }
    });

    it('pinned runs the legacy algorithms for symmetric problems and refuses asymmetric ones', () => {
      const { Stream } = driver;
      const stream = Stream.create();
      const plan = ConvTranspose3dPlan.selectSync(stream, up().withOutputPadding(0, 0, 0), {
        algorithm: 'pinned',
      });
      expect(plan.algorithm('fw').name).toMatch(/^CUDNN_CONVOLUTION_BWD_DATA_ALGO/);
      expect(plan.algorithm('bwData').name).toMatch(/^CUDNN_CONVOLUTION_FWD_ALGO/);
      plan.dispose();
      // outputPadding 1 with pad 1 makes the convolution's padding 1 before, 0 after.
      const e = errorOf(() =>
        ConvTranspose3dPlan.selectSync(stream, up(), { algorithm: 'pinned' }),
      );
      expect(e).toBeInstanceOf(UnsupportedError);
      expect(e.message).toMatch(
        /^The legacy cuDNN API .* pads asymmetrically; use algorithm 'heuristic' or 'autotune'/,
      );
    });

    it('refuses trailing planes a stride or more past the last window (dilation > stride), saying what to do', () => {
      const { Stream } = driver;
      // stride 1, dilation 3: outputPadding 2 past padAfter 0 leaves 2 planes, 2 strides past.
      const d = up()
        .withStride(1, 1, 1)
        .withPadding(0, 0, 0)
        .withOutputPadding(0, 0, 2)
        .withDilation(1, 1, 3);
      const e = errorOf(() => ConvTranspose3dPlan.selectSync(Stream.create(), d));
      expect(e).toBeInstanceOf(UnsupportedError);
      expect(e.message).toBe(
        `${d.describe()} has trailing output planes ([0, 0, 2] per axis) at least a stride past the last window (outputPadding − padAfter ≥ stride, possible only with dilation > stride); ConvTranspose3dPlan does not run these: pad the after side by more`,
      );
    });

    it("selects trailing planes on one axis next to post-padding on another (the GPU check's problem1)", () => {
      const { Stream } = driver;
      // D: outputPadding 1 past pad 0 (a trailing plane); H: 1 against pad 1; W: pad 1 both sides.
      const d = ConvTranspose3dDescriptor.create({
        batch: 1,
        cIn: 8,
        dIn: 3,
        hIn: 5,
        wIn: 4,
        cOut: 6,
        dFilt: 2,
        hFilt: 3,
        wFilt: 3,
        element: ElementKind.F32,
      })
        .withStride(2, 2, 2)
        .withPadding(0, 1, 1)
        .withOutputPadding(1, 1, 0);
      expect(d.trailingPlanes()).toEqual([1, 0, 0]);
      expect(d.outputDims()).toEqual([7, 10, 7]);
      const plan = ConvTranspose3dPlan.selectSync(Stream.create(), d);
      expect(plan.algorithm('fw').name).toMatch(/trailing planes/);
      plan.dispose();
    });

    it('runs outputPadding > padAfter on the reached planes, and the trailing planes by cudnnTransformTensor', () => {
      const { DeviceBuffer, Stream } = driver;
      const stream = Stream.create();
      // op 1 past pad 0 on D and W: the convolution covers 7×9×11 of the 8×9×12 output.
      const d = up().withPadding(0, 0, 0).withOutputPadding(1, 0, 1);
      expect(d.trailingPlanes()).toEqual([1, 0, 1]);
      const bytes =
        4 * Math.max(...[d.xShape, d.wShape, d.yShape].map((s) => s.reduce((a, b) => a * b)));
      const [x, w, y] = [0, 1, 2].map(() => DeviceBuffer.alloc(bytes));
      const lines = startTrace();
      const plan = ConvTranspose3dPlan.selectSync(stream, d);
      try {
        expect(plan.algorithm('fw').name).toBe(
          'engine 28 (reached planes; the trailing planes by cudnnTransformTensor)',
        );
        const before = lines.length;
        plan.runFw({ x: x!, w: w!, y: y!, beta: 0.5 });
        const run = lines.slice(before);
        // The reached box as a view of y (full strides) and dense; the trailing boxes past D, then past W.
        const nd = run.filter((l) => l.startsWith('SetTensorNdDescriptor'));
        expect(
          nd.map((l) => l.replace(/^SetTensorNdDescriptor\(#\d+, /, '').replace(/\)( = .*)?$/, '')),
        ).toEqual([
          '0, 5, i32[2,2,7,9,11], i32[1728,864,108,12,1]',
          '0, 5, i32[2,2,7,9,11], i32[1386,693,99,11,1]',
          '0, 5, i32[2,2,1,9,12], i32[1728,864,108,12,1]',
          '0, 5, i32[2,2,1,9,12], i32[216,108,108,12,1]',
          '0, 5, i32[2,2,7,9,1], i32[1728,864,108,12,1]',
          '0, 5, i32[2,2,7,9,1], i32[126,63,9,1,1]',
        ]);
        const order = run
          .filter((l) => /^(BExecute|TransformTensor)/.test(l))
          .map((l) => l.replace(/\(.*$/, ''));
        expect(order).toEqual([
          'BExecute',
          'TransformTensor',
          'TransformTensor',
          'TransformTensor',
        ]);
        // The convolution wrote plan-owned scratch, not y; y got alpha·scratch + 0.5·y.
        expect(lastExecution()[0]).not.toBe(y!.devicePtr.toString(16));
        const transforms = run.filter((l) => l.startsWith('TransformTensor'));
        expect(transforms.every((l) => l.includes('f32[0.5]'))).toBe(true);
        // Backward-data: dy's reached box into scratch first, then the convolution's forward.
        const mark = lines.length;
        plan.runBwData({ dy: y!, w: w!, dx: x! });
        expect(
          lines
            .slice(mark)
            .filter((l) => /^(BExecute|TransformTensor)/.test(l))
            .map((l) => l.replace(/\(.*$/, '')),
        ).toEqual(['TransformTensor', 'BExecute']);
        // Run arguments are checked against the full output: a y one element short is refused.
        const yElements = d.yShape.reduce((a, b) => a * b);
        const e = errorOf(() =>
          plan.runFw({
            x: x!,
            w: w!,
            y: { devicePtr: y!.devicePtr, byteLength: 4 * yElements - 4 },
          }),
        );
        expect(e.message).toMatch(/\by\b/);
      } finally {
        plan.dispose();
        expect(stopTrace().filter((l) => !l.startsWith('cudnnCreate '))).toEqual([]);
      }
    });
  },
);
