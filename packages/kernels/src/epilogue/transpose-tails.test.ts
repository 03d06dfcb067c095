/**
 * The conv family's tails on the fakes (libcudnn.so.9 and a fake module loader): the transposed
 * convolution's epilogue (withEpilogue, runFw's bias/z, runBwEpilogue) and the input activation's
 * backward after backward-data (withInputActivation, runBwData's x/preActivation) on both plans —
 * every validation rule with its exact message, the fused graph where the fake offers an engine,
 * our kernel after the pass where it does not (FAKE_CUDNN_NO_FUSED), pinned, or the activation has
 * no cuDNN mode, and what algorithm() says. The arithmetic is checked against the f64 reference on
 * the GPU (scripts/family-device-check.mjs).
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElementKind, InvalidArgumentError, InvalidProblemError } from '@baracuda/types';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import {
  fakeDevice as device,
  fakeStream as stream,
  useFakeCudnn,
} from '../fake-cudnn.test-helpers.js';
import { Conv3dPlan } from '../plan.js';
import { ConvTranspose3dDescriptor } from '../transpose-descriptor.js';
import { ConvTranspose3dPlan } from '../transpose-plan.js';
import type { EpilogueOptions, InputActivationOptions } from './epilogue.js';
import { EpilogueKernels } from './kernels.js';
import { EPILOGUE_REFUSALS } from './refusals.test-helpers.js';

const fake = useFakeCudnn();
const saved = { engines: process.env.FAKE_CUDNN_ENGINES, log: process.env.FAKE_CUDNN_EXECUTE_LOG };
const log = join(tmpdir(), `baracuda-tails-exec-${process.pid}.log`);
process.env.FAKE_CUDNN_ENGINES = '0';
process.env.FAKE_CUDNN_EXECUTE_LOG = log;
afterAll(() => {
  for (const [name, value] of [
    ['FAKE_CUDNN_ENGINES', saved.engines],
    ['FAKE_CUDNN_EXECUTE_LOG', saved.log],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(log, { force: true });
});

interface Launch {
  name: string;
  grid: readonly number[];
  params: DataView;
}
let launches: Launch[];

function primeKernels() {
  EpilogueKernels.resetForTests();
  EpilogueKernels.forDevice(device, () => ({
    getFunction: (name: string) => ({
      launch: (_s: unknown, grid: readonly number[], _b: unknown, _sh: number, p: Uint8Array) => {
        launches.push({ name, grid, params: new DataView(p.slice().buffer) });
      },
    }),
  }));
}

beforeEach(() => {
  delete process.env.FAKE_CUDNN_NO_FUSED;
  launches = [];
  rmSync(log, { force: true });
  primeKernels();
});
afterEach(() => EpilogueKernels.resetForTests());

const problem = {
  batch: 2,
  cIn: 8,
  dIn: 4,
  hIn: 5,
  wIn: 6,
  cOut: 3,
  dFilt: 3,
  hFilt: 3,
  wFilt: 3,
  element: ElementKind.F32,
};
/** Transposed 8→3 channels, 4×5×6, 3×3×3 pad 1: x [2, 8, 4, 5, 6], y [2, 3, 4, 5, 6]. */
const up = (layout: 'ncdhw' | 'ndhwc' = 'ncdhw') =>
  ConvTranspose3dDescriptor.create(problem).withPadding(1, 1, 1).withLayout(layout);
/** The convolution 8→3 of the same extents (its x is [2, 8, ...], its y [2, 3, ...]). */
const conv = () => Conv3dDescriptor.create(problem).withPadding(1, 1, 1);
const Y = 2 * 3 * 4 * 5 * 6;
const X = 2 * 8 * 4 * 5 * 6;
const slice = (ptr: bigint, byteLength = 1 << 20) => ({ devicePtr: ptr, byteLength });
const u64 = (l: Launch, at: number) => l.params.getBigUint64(at, true);
const executed = (): string[][] => {
  try {
    return readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '));
  } catch {
    return [];
  }
};
/** The operand pointers of each execute (the log's first `count` fields). */
const bound = (count: number): string[][] => executed().map((l) => l.slice(0, count));

function refusal(make: () => unknown): Error {
  try {
    make();
  } catch (error) {
    return error as Error;
  }
  throw new Error('no error');
}

describe('ConvTranspose3dDescriptor#withEpilogue and withInputActivation', () => {
  it.each(EPILOGUE_REFUSALS)('withEpilogue refuses %j as the convolution does', (o, type, text) => {
    const error = refusal(() => up().withEpilogue(o as EpilogueOptions));
    expect(error).toBeInstanceOf(type);
    expect(error.message).toBe(text);
  });

  const activationRefusals = EPILOGUE_REFUSALS.filter(
    ([o]) =>
      typeof o === 'object' &&
      o !== null &&
      !Array.isArray(o) &&
      !('bias' in o) &&
      !('residual' in o) &&
      !('act' in o),
  );
  it('keeps a refusal of every activation rule for withInputActivation', () => {
    expect(activationRefusals.length).toBe(15);
  });
  it.each(activationRefusals)(
    'withInputActivation refuses %j on both descriptors',
    (o, type, text) => {
      const wanted = text.replaceAll('epilogue.', 'inputActivation.');
      for (const make of [
        () => up().withInputActivation(o as InputActivationOptions),
        () => conv().withInputActivation(o as InputActivationOptions),
      ]) {
        const error = refusal(make);
        expect(error).toBeInstanceOf(type);
        expect(error.message).toBe(wanted);
      }
    },
  );

  it.each([
    [
      { activation: 'relu', bias: true },
      InvalidProblemError,
      'Expected only the keys activation, slope, min, max in the inputActivation options but received the key "bias"',
    ],
    [
      { residual: false },
      InvalidProblemError,
      'Expected only the keys activation, slope, min, max in the inputActivation options but received the key "residual"',
    ],
    [
      null,
      InvalidArgumentError,
      'Expected an object {activation?, slope?, min?, max?} for inputActivation but received null',
    ],
  ])('withInputActivation refuses %j (an activation only)', (o, type, text) => {
    const error = refusal(() => conv().withInputActivation(o as InputActivationOptions));
    expect(error).toBeInstanceOf(type);
    expect(error.message).toBe(text);
    expect(refusal(() => up().withInputActivation(o as InputActivationOptions)).message).toBe(text);
  });

  it('carries both through every with*, says them in describe(), and leaves conv() plain', () => {
    const d = up()
      .withEpilogue({ bias: true, activation: 'leakyRelu', slope: 0.2 })
      .withInputActivation({ activation: 'relu' })
      .withStride(2, 2, 2)
      .withOutputPadding(1, 1, 1);
    expect(d.epilogue.describe()).toBe('bias+leakyRelu(0.2)');
    expect(d.inputActivation.describe()).toBe('relu');
    expect(d.describe()).toMatch(/ epilogue=bias\+leakyRelu\(0\.2\) inputActivation=relu$/);
    expect(d.conv().epilogue.isNone).toBe(true);
    expect(d.conv().inputActivation.isNone).toBe(true);
    expect(up().withInputActivation({}).inputActivation.isNone).toBe(true);
    expect(up().describe()).not.toContain('epilogue');
    expect(conv().withInputActivation({ activation: 'gelu' }).describe()).toMatch(
      / inputActivation=gelu$/,
    );
  });
});

/** Transposed-plan operands: x (the transposed input), w, y (its output). */
const tops = { x: slice(0x100000n), w: slice(0x2000n), y: slice(0x300000n) };

describe.skipIf(fake === null)(
  'the tails on the fake library (skipped where no C compiler is found)',
  () => {
    it("transposed epilogue, no fused engine: the convolution's backward-data, then our kernel on y", () => {
      process.env.FAKE_CUDNN_NO_FUSED = '1';
      const d = up().withEpilogue({ bias: true, residual: true, activation: 'relu' });
      const plan = ConvTranspose3dPlan.selectSync(stream, d);
      expect(plan.algorithm('fw')).toMatchObject({
        path: 'graph',
        name: 'engine 0 + baracuda epilogue kernel',
      });
      plan.runFw({ ...tops, bias: slice(0x5000n), z: slice(0x600000n) });
      expect(executed().length).toBe(1);
      expect(launches.map((l) => l.name)).toEqual(['baracuda_epilogue_apply_f32']);
      const l = launches[0]!;
      // y (the transposed output), bias, z, pre, total, channels (cOut 3), inner (D·H·W).
      expect([0, 8, 16, 24, 32, 40, 48].map((o) => u64(l, o))).toEqual([
        0x300000n,
        0x5000n,
        0x600000n,
        0n,
        BigInt(Y),
        3n,
        120n,
      ]);
      expect(l.params.getInt32(56, true)).toBe(1);
      const named = ConvTranspose3dPlan.selectSync(
        stream,
        up().withEpilogue({ bias: true, activation: 'relu' }),
      );
      expect(named.sku().epilogue).toBe('bias_relu');
      named.dispose();
      // The other passes are untouched.
      expect(plan.algorithm('bwData').name).not.toContain('epilogue');
      plan.dispose();
    });

    it('transposed epilogue, fused engine offered: one dgrad graph, the operands bound by role', () => {
      const d = up().withEpilogue({ bias: true, residual: true, activation: 'gelu' });
      const plan = ConvTranspose3dPlan.selectSync(stream, d);
      expect(plan.algorithm('fw')).toMatchObject({ path: 'graph', name: 'engine 0 fused' });
      expect(plan.sku()).toMatchObject({ op: 'conv_transpose3d', epilogue: undefined });
      plan.runFw({ ...tops, bias: slice(0x5000n), z: slice(0x600000n) });
      // uid order x_conv (the transposed y), w, y_conv (the transposed x), bias, z.
      expect(bound(5)).toEqual([['300000', '2000', '100000', '5000', '600000']]);
      expect(launches).toEqual([]);
      // beta ≠ 0 and a pre-activation to write take the unfused route.
      plan.runFw({ ...tops, bias: slice(0x5000n), z: slice(0x600000n), beta: 1 });
      plan.runFw({
        ...tops,
        bias: slice(0x5000n),
        z: slice(0x600000n),
        preActivation: slice(0x700000n),
      });
      expect(launches.length).toBe(2);
      expect(u64(launches[1]!, 24)).toBe(0x700000n);
      plan.dispose();
    });

    it('transposed epilogue: leakyRelu and pinned run unfused; NDHWC maps channels innermost', () => {
      const leaky = ConvTranspose3dPlan.selectSync(
        stream,
        up('ndhwc').withEpilogue({ activation: 'leakyRelu', slope: 0.3 }),
      );
      expect(leaky.algorithm('fw').name).toBe('engine 0 + baracuda epilogue kernel');
      leaky.runFw(tops);
      const l = launches[0]!;
      expect([40, 48].map((o) => u64(l, o))).toEqual([3n, 1n]);
      expect(l.params.getFloat64(64, true)).toBe(0.3);
      leaky.dispose();
      const pinned = ConvTranspose3dPlan.selectSync(
        stream,
        up().withEpilogue({ activation: 'tanh' }),
        {
          algorithm: 'pinned',
        },
      );
      expect(pinned.algorithm('fw')).toMatchObject({ path: 'legacy' });
      expect(pinned.algorithm('fw').name).toMatch(
        /^CUDNN_CONVOLUTION_BWD_DATA_ALGO_\w+ \+ baracuda epilogue kernel$/,
      );
      pinned.dispose();
    });

    it('transposed epilogue with trailing planes: the trailing-planes run, then our kernel', () => {
      const d = up()
        .withPadding(0, 0, 0)
        .withStride(2, 2, 2)
        .withOutputPadding(1, 1, 1)
        .withEpilogue({ activation: 'relu' });
      expect(d.trailingPlanes()).toEqual([1, 1, 1]);
      const plan = ConvTranspose3dPlan.selectSync(stream, d);
      expect(plan.algorithm('fw').name).toBe(
        'engine 0 (reached planes; the trailing planes by cudnnTransformTensor) + baracuda epilogue kernel',
      );
      plan.dispose();
    });

    it('transposed runFw refuses a missing, surplus or misshapen bias or residual', () => {
      const plan = ConvTranspose3dPlan.selectSync(stream, up().withEpilogue({ bias: true }));
      const run = (extra: object) => () => plan.runFw({ ...tops, ...extra } as never);
      expect(run({})).toThrow(
        new InvalidProblemError('Expected bias for epilogue bias but received undefined', 'bias'),
      );
      expect(run({ bias: slice(0x5000n), z: slice(0x600000n) })).toThrow(
        "Expected no z: the descriptor's epilogue (bias) has none",
      );
      expect(
        run({ bias: { element: ElementKind.F32, shape: [8], strides: [1], data: slice(0x5000n) } }),
      ).toThrow('Expected bias of shape [3] but received shape [8]');
      expect(run({ bias: slice(0x5000n), preActivation: slice(0x600000n, 100) })).toThrow(
        `preActivation`,
      );
      expect(launches).toEqual([]);
      expect(executed()).toEqual([]);
      plan.dispose();
    });

    it('transposed runBwEpilogue: dyPre from y, then dBias over the transposed output channels', () => {
      const plan = ConvTranspose3dPlan.selectSync(
        stream,
        up('ndhwc').withEpilogue({ bias: true, activation: 'sigmoid' }),
      );
      plan.runBwEpilogue({
        dy: slice(0x300000n),
        y: slice(0x400000n),
        dyPre: slice(0x500000n),
        dBias: slice(0x5000n),
        workspace: slice(0x900000n),
      });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_epilogue_act_grad_f32',
        'baracuda_epilogue_bias_grad_partial_f32',
        'baracuda_epilogue_bias_grad_finish_f32',
      ]);
      const [act, bias, finish] = launches as [Launch, Launch, Launch];
      expect([0, 8, 16, 24].map((o) => u64(act, o))).toEqual([
        0x300000n,
        0x400000n,
        0x500000n,
        BigInt(Y),
      ]);
      expect(act.params.getInt32(32, true)).toBe(6);
      // NDHWC: channels 3, inner 1, outer N·D·H·W (240 rows, one part); then dBias from it.
      expect([0, 16, 24, 32, 40].map((o) => u64(bias, o))).toEqual([0x500000n, 3n, 1n, 240n, 1n]);
      expect([8, 16, 24].map((o) => u64(finish, o))).toEqual([0x5000n, 3n, 1n]);
      expect(() =>
        plan.runBwEpilogue({
          dy: slice(0x300000n),
          preActivation: slice(0x400000n),
          dyPre: slice(0x500000n),
          dBias: slice(0x5000n),
        }),
      ).toThrow(
        "Expected y, not preActivation, for activation 'sigmoid': its backward reads the output",
      );
      expect(() =>
        plan.runBwEpilogue({
          dy: slice(0x300000n, 100),
          y: slice(0x400000n),
          dyPre: slice(0x500000n),
          dBias: slice(0x5000n),
        }),
      ).toThrow(`dy`);
      plan.dispose();
      const plain = ConvTranspose3dPlan.selectSync(stream, up());
      expect(() => plain.runBwEpilogue({ dy: slice(0x300000n) })).toThrow(
        'Expected a descriptor with an epilogue for runBwEpilogue but convTranspose3d n=2 c=8→3',
      );
      plain.dispose();
    });

    it('Conv3dPlan runBwData with an input relu: one fused dgrad + RELU_BWD graph, x bound as the saved tensor', () => {
      const plan = Conv3dPlan.selectSync(
        stream,
        conv().withInputActivation({ activation: 'relu' }),
      );
      expect(plan.algorithm('bwData')).toMatchObject({ path: 'graph', name: 'engine 0 fused' });
      expect(plan.algorithm('fw').name).not.toContain('fused');
      const dx = slice(0x100000n);
      plan.runBwData({ w: slice(0x2000n), dy: slice(0x300000n), dx, x: slice(0x400000n) });
      // uid order dx (x role), w, dy (y role), then the saved tensor (uid 6).
      expect(bound(4)).toEqual([['100000', '2000', '300000', '400000']]);
      expect(launches).toEqual([]);
      plan.dispose();
    });

    it('Conv3dPlan runBwData with an input activation, unfused: the pass, then act_grad in place on dx', () => {
      process.env.FAKE_CUDNN_NO_FUSED = '1';
      const plan = Conv3dPlan.selectSync(
        stream,
        conv().withInputActivation({ activation: 'silu' }),
      );
      expect(plan.algorithm('bwData').name).toBe('engine 0 + baracuda activation-backward kernel');
      plan.runBwData({
        w: slice(0x2000n),
        dy: slice(0x300000n),
        dx: slice(0x100000n),
        preActivation: slice(0x400000n),
      });
      expect(executed().length).toBe(1);
      expect(launches.map((l) => l.name)).toEqual(['baracuda_epilogue_act_grad_f32']);
      const l = launches[0]!;
      // dy = dx, saved, dyPre = dx, total = x's elements, act 5 (silu).
      expect([0, 8, 16, 24].map((o) => u64(l, o))).toEqual([
        0x100000n,
        0x400000n,
        0x100000n,
        BigInt(X),
      ]);
      expect(l.params.getInt32(32, true)).toBe(5);
      plan.dispose();
    });

    it('sigmoid, tanh, clamp and leakyRelu have no fused mode here: our kernel even where engines are offered', () => {
      for (const a of [
        { activation: 'sigmoid' },
        { activation: 'tanh' },
        { activation: 'clamp', min: 0, max: 6 },
        { activation: 'leakyRelu' },
      ] as const) {
        const plan = Conv3dPlan.selectSync(stream, conv().withInputActivation(a));
        expect(plan.algorithm('bwData').name).toBe(
          'engine 0 + baracuda activation-backward kernel',
        );
        plan.dispose();
      }
    });

    it('runBwData refuses the saved tensor the activation does not read, or its lack', () => {
      const relu = Conv3dPlan.selectSync(
        stream,
        conv().withInputActivation({ activation: 'relu' }),
      );
      const base = { w: slice(0x2000n), dy: slice(0x300000n), dx: slice(0x100000n) };
      expect(() => relu.runBwData(base)).toThrow(
        new InvalidProblemError(
          `Expected x (dx's shape) for input activation 'relu' of ${relu.descriptor.describe()} but received undefined`,
          'x',
        ),
      );
      expect(() =>
        relu.runBwData({ ...base, x: slice(0x400000n), preActivation: slice(0x400000n) }),
      ).toThrow(
        "Expected x, not preActivation, for input activation 'relu': its backward reads the activation's output (this layer's input x)",
      );
      expect(() => relu.runBwData({ ...base, x: slice(0x400000n, 64) })).toThrow('x');
      relu.dispose();
      const gelu = Conv3dPlan.selectSync(
        stream,
        conv().withInputActivation({ activation: 'gelu' }),
      );
      expect(() => gelu.runBwData({ ...base, x: slice(0x400000n) })).toThrow(
        "Expected preActivation, not x, for input activation 'gelu': its backward reads the pre-activation",
      );
      gelu.dispose();
      // Without an input activation, runBwData reads neither (as before).
      const plain = Conv3dPlan.selectSync(stream, conv());
      plain.runBwData({ ...base, x: slice(0x400000n) } as never);
      expect(launches).toEqual([]);
      expect(executed().length).toBe(1);
      plain.dispose();
    });

    it('ConvTranspose3dPlan runBwData with an input activation: the convolution forward then the BWD node, or our kernel', () => {
      const fused = ConvTranspose3dPlan.selectSync(
        stream,
        up().withInputActivation({ activation: 'relu' }),
      );
      expect(fused.algorithm('bwData').name).toBe('engine 0 fused');
      // Transposed bwData: dy (transposed y, the conv's x role), w, dx (transposed x, the conv's y role), x saved.
      fused.runBwData({
        w: slice(0x2000n),
        dy: slice(0x300000n),
        dx: slice(0x100000n),
        x: slice(0x400000n),
      });
      expect(bound(4)).toEqual([['300000', '2000', '100000', '400000']]);
      fused.dispose();
      rmSync(log, { force: true });
      const unfused = ConvTranspose3dPlan.selectSync(
        stream,
        up('ndhwc').withInputActivation({ activation: 'clamp', min: -1, max: 1 }),
      );
      expect(unfused.algorithm('bwData').name).toBe(
        'engine 0 + baracuda activation-backward kernel',
      );
      unfused.runBwData({
        w: slice(0x2000n),
        dy: slice(0x300000n),
        dx: slice(0x100000n),
        x: slice(0x400000n),
      });
      const l = launches[0]!;
      expect([0, 8, 16, 24].map((o) => u64(l, o))).toEqual([
        0x100000n,
        0x400000n,
        0x100000n,
        BigInt(X),
      ]);
      expect(l.params.getInt32(32, true)).toBe(8);
      expect([l.params.getFloat64(48, true), l.params.getFloat64(56, true)]).toEqual([-1, 1]);
      expect(() =>
        unfused.runBwData({ w: slice(0x2000n), dy: slice(0x300000n), dx: slice(0x100000n) }),
      ).toThrow("Expected x (dx's shape) for input activation 'clamp' of convTranspose3d");
      unfused.dispose();
    });
  },
);

describe.skipIf(fake === null)('runBwEpilogue with dyPre alone (fake library)', () => {
  it('reduces dBias from a gradient already through the activation, on both plans', () => {
    const layer = Conv3dDescriptor.create(problem)
      .withPadding(1, 1, 1)
      .withEpilogue({ bias: true, activation: 'gelu' });
    const plan = Conv3dPlan.selectSync(stream, layer);
    plan.runBwEpilogue({
      dyPre: slice(0x300000n),
      dBias: slice(0x5000n),
      workspace: slice(0x900000n),
    });
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_epilogue_bias_grad_partial_f32',
      'baracuda_epilogue_bias_grad_finish_f32',
    ]);
    // dy = dyPre; channels 3 (the convolution's y), inner D·H·W, outer N, one part; then dBias.
    expect([0, 16, 24, 32, 40].map((o) => u64(launches[0]!, o))).toEqual([
      0x300000n,
      3n,
      120n,
      2n,
      1n,
    ]);
    expect(u64(launches[1]!, 8)).toBe(0x5000n);
    expect(() =>
      plan.runBwEpilogue({
        dyPre: slice(0x300000n),
        preActivation: slice(0x400000n),
        dBias: slice(0x5000n),
      }),
    ).toThrow(
      "Expected neither y nor preActivation with dyPre alone (no dy): the activation's backward is done, only dBias is reduced from dyPre",
    );
    expect(() => plan.runBwEpilogue({ dyPre: slice(0x300000n) })).toThrow(
      'Expected dBias (the bias gradient, [3]) with dyPre alone but received undefined',
    );
    plan.dispose();
    const noBias = Conv3dPlan.selectSync(
      stream,
      Conv3dDescriptor.create(problem).withEpilogue({ activation: 'relu' }),
    );
    expect(() => noBias.runBwEpilogue({ dyPre: slice(0x300000n) })).toThrow(
      new InvalidProblemError(
        'Expected dy: dyPre alone asks for the bias gradient only, and epilogue relu has no bias',
        'dy',
      ),
    );
    noBias.dispose();
    launches = [];
    const t = ConvTranspose3dPlan.selectSync(
      stream,
      up().withEpilogue({ bias: true, activation: 'silu' }),
    );
    t.runBwEpilogue({
      dyPre: slice(0x300000n),
      dBias: slice(0x5000n),
      workspace: slice(0x900000n),
    });
    expect(launches.map((l) => l.name)).toEqual([
      'baracuda_epilogue_bias_grad_partial_f32',
      'baracuda_epilogue_bias_grad_finish_f32',
    ]);
    expect(u64(launches[0]!, 16)).toBe(3n);
    t.dispose();
  });
});
