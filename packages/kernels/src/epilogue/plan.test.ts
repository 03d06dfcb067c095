/**
 * How Conv3dPlan runs a descriptor's epilogue, against the fake libcudnn.so.9 and a fake module
 * loader in place of the CUDA driver: the convolution (graph API or pinned legacy) then our
 * epilogue kernel with the right pointers and parameters, what algorithm('fw') says, the run
 * arguments' checks, and the backward pieces. The kernels' arithmetic is checked against the f64
 * reference on the GPU (scripts/epilogue-device-check.mjs).
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BufferTooSmallError,
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import {
  fakeDevice as device,
  fakeStream as stream,
  useFakeCudnn,
} from '../fake-cudnn.test-helpers.js';
import { Conv3dPlan } from '../plan.js';
import type { EpilogueOptions } from './epilogue.js';
import { biasGradScratchBytes, biasGradSplit, channelMap, EpilogueKernels } from './kernels.js';

describe('the split of dBias', () => {
  it('takes 32 channels a block in NDHWC and a channel a block in NCDHW, parts along the rest', () => {
    // unet-s64 conv1: n=2, 32 channels, 64³.
    expect(biasGradSplit(channelMap([2, 32, 64, 64, 64], 'ndhwc'))).toEqual({
      blocks: 1,
      parts: 512,
    });
    expect(biasGradSplit(channelMap([2, 32, 64, 64, 64], 'ncdhw'))).toEqual({
      blocks: 32,
      parts: 128,
    });
    // A small tensor is one part; 768 channels in NDHWC make 24 blocks of 32.
    expect(biasGradSplit(channelMap([1, 3, 2, 2, 2], 'ncdhw'))).toEqual({ blocks: 3, parts: 1 });
    expect(biasGradSplit(channelMap([8, 768, 8, 14, 14], 'ndhwc'))).toEqual({
      blocks: 24,
      parts: 43,
    });
  });
});

const fake = useFakeCudnn();
const saved = { engines: process.env.FAKE_CUDNN_ENGINES, log: process.env.FAKE_CUDNN_EXECUTE_LOG };
const log = join(tmpdir(), `baracuda-epilogue-exec-${process.pid}.log`);
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

function primeKernels(works: boolean) {
  EpilogueKernels.resetForTests();
  EpilogueKernels.forDevice(device, () => {
    if (!works) throw new Error('PTX JIT failed');
    return {
      getFunction: (name: string) => ({
        launch: (_s: unknown, grid: readonly number[], _b: unknown, _sh: number, p: Uint8Array) => {
          const copy = p.slice();
          launches.push({ name, grid, params: new DataView(copy.buffer) });
        },
      }),
    };
  });
}

beforeEach(() => {
  delete process.env.FAKE_CUDNN_NO_FUSED;
  launches = [];
  rmSync(log, { force: true });
  primeKernels(true);
});
afterEach(() => EpilogueKernels.resetForTests());

/** n=2, 3→8 channels, 4×5×6, 3×3×3 pad 1: y is [2, 8, 4, 5, 6]. */
function layer(options: EpilogueOptions, layout: 'ncdhw' | 'ndhwc' = 'ncdhw') {
  return Conv3dDescriptor.create({
    batch: 2,
    cIn: 3,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 8,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  })
    .withPadding(1, 1, 1)
    .withLayout(layout)
    .withEpilogue(options);
}
const Y = 2 * 8 * 4 * 5 * 6;
const slice = (ptr: bigint, byteLength = 1 << 20) => ({ devicePtr: ptr, byteLength });
/** A workspace for dBias's partial sums (the plan's own needs a real stream). */
const ws = slice(0x900000n);
const operands = { x: slice(0x1000n), w: slice(0x2000n), y: slice(0x100000n) };
const u64 = (l: Launch, at: number) => l.params.getBigUint64(at, true);
const executes = () => {
  try {
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe.skipIf(fake === null)(
  'the epilogue (fake library; skipped where no C compiler is found)',
  () => {
    it('heuristic, no fused engine: the graph engine runs the convolution, then our kernel applies bias, z and relu in place', () => {
      process.env.FAKE_CUDNN_NO_FUSED = '1';
      const plan = Conv3dPlan.selectSync(
        stream,
        layer({ bias: true, residual: true, activation: 'relu' }),
      );
      const info = plan.algorithm('fw');
      expect(info.path).toBe('graph');
      expect(info.name).toBe('engine 0 + baracuda epilogue kernel');
      plan.runFw({ ...operands, bias: slice(0x5000n), z: slice(0x200000n) });
      expect(executes()).toBe(1);
      expect(launches.map((l) => l.name)).toEqual(['baracuda_epilogue_apply_f32']);
      const l = launches[0]!;
      // y, bias, z, pre, total, channels, inner (D·H·W in NCDHW), then act = 1 (relu).
      expect([0, 8, 16, 24, 32, 40, 48].map((o) => u64(l, o))).toEqual([
        0x100000n,
        0x5000n,
        0x200000n,
        0n,
        BigInt(Y),
        8n,
        120n,
      ]);
      expect(l.params.getInt32(56, true)).toBe(1);
      expect(l.grid).toEqual([Math.ceil(Y / 256), 1, 1]);
      // The plain passes are untouched by the epilogue.
      expect(plan.algorithm('bwData').name).not.toContain('epilogue');
      plan.dispose();
    });

    it('heuristic, fused engine offered: one graph execute, no kernel of ours', () => {
      const plan = Conv3dPlan.selectSync(
        stream,
        layer({ bias: true, residual: true, activation: 'relu' }),
      );
      expect(plan.algorithm('fw')).toMatchObject({ path: 'graph', name: 'engine 0 fused' });
      expect(plan.sku().epilogue).toBeUndefined(); // bias + z + relu: no SKU name
      plan.runFw({ ...operands, bias: slice(0x5000n), z: slice(0x200000n) });
      expect(executes()).toBe(1);
      // x, w, y, bias, z in uid order.
      expect(readFileSync(log, 'utf8').split(' ').slice(0, 5)).toEqual([
        '1000',
        '2000',
        '100000',
        '5000',
        '200000',
      ]);
      expect(launches).toEqual([]);
      // beta ≠ 0 and a pre-activation to write take the unfused route.
      plan.runFw({ ...operands, bias: slice(0x5000n), z: slice(0x200000n), beta: 1 });
      plan.runFw({
        ...operands,
        bias: slice(0x5000n),
        z: slice(0x200000n),
        preActivation: slice(0x300000n),
      });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_epilogue_apply_f32',
        'baracuda_epilogue_apply_f32',
      ]);
      expect(executes()).toBe(3);
      plan.dispose();
    });

    it('leakyRelu and clamp are not fused (our kernel after the convolution)', () => {
      for (const options of [
        { activation: 'leakyRelu' },
        { activation: 'clamp', max: 1 },
      ] as const) {
        const plan = Conv3dPlan.selectSync(stream, layer(options));
        expect(plan.algorithm('fw').name).toBe('engine 0 + baracuda epilogue kernel');
        plan.dispose();
      }
    });

    it('NDHWC maps channels innermost; leakyRelu passes its slope; preActivation is written too', () => {
      const plan = Conv3dPlan.selectSync(
        stream,
        layer({ bias: true, activation: 'leakyRelu', slope: 0.25 }, 'ndhwc'),
      );
      plan.runFw({ ...operands, bias: slice(0x5000n), preActivation: slice(0x300000n) });
      const l = launches[0]!;
      expect([16, 24, 40, 48].map((o) => u64(l, o))).toEqual([0n, 0x300000n, 8n, 1n]);
      expect(l.params.getInt32(56, true)).toBe(2);
      expect(l.params.getFloat64(64, true)).toBe(0.25);
      expect(plan.sku().epilogue).toBeUndefined();
      plan.dispose();
    });

    it('pinned: the legacy convolution, then our kernel; clamp passes its bounds', () => {
      const plan = Conv3dPlan.selectSync(stream, layer({ activation: 'clamp', min: 0, max: 6 }), {
        algorithm: 'pinned',
      });
      expect(plan.algorithm('fw')).toMatchObject({
        path: 'legacy',
        name: 'CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM + baracuda epilogue kernel',
      });
      plan.runFw({ ...operands, workspace: slice(0x900000n) });
      const l = launches[0]!;
      expect(l.params.getInt32(56, true)).toBe(8);
      expect([l.params.getFloat64(72, true), l.params.getFloat64(80, true)]).toEqual([0, 6]);
      expect(executes()).toBe(0);
      plan.dispose();
    });

    it('refuses a missing, surplus, short or misplaced bias or residual before anything runs', () => {
      const plan = Conv3dPlan.selectSync(stream, layer({ bias: true, activation: 'relu' }));
      const run = (extra: object) => () => plan.runFw({ ...operands, ...extra } as never);
      expect(run({})).toThrow(InvalidProblemError);
      expect(run({})).toThrow('Expected bias for epilogue bias+relu but received undefined');
      expect(run({ bias: slice(0x5000n), z: slice(0x6000n) })).toThrow(
        "Expected no z: the descriptor's epilogue (bias+relu) has none",
      );
      expect(run({ bias: slice(0x5000n, 16) })).toThrow(new BufferTooSmallError('bias', 32, 16));
      expect(run({ bias: { devicePtr: 0x5000n, byteLength: 64, device: { ordinal: 3 } } })).toThrow(
        new InvalidArgumentError('bias.device.ordinal', "device 0 (the plan's device)", 3),
      );
      expect(
        run({
          bias: { element: ElementKind.F32, shape: [7], strides: [1], data: slice(0x5000n) },
        }),
      ).toThrow('Expected bias of shape [8] but received shape [7]');
      expect(run({ bias: slice(0x5000n), preActivation: slice(0x3002n) })).toThrow(
        'Expected a multiple of 4 bytes (one f32 element) for preActivation device address',
      );
      expect(launches).toEqual([]);
      expect(executes()).toBe(0);
      plan.dispose();
      const residual = Conv3dPlan.selectSync(stream, layer({ residual: true }));
      expect(() => residual.runFw({ ...operands, z: slice(0x6000n, 100) })).toThrow(
        new BufferTooSmallError('z', Y * 4, 100),
      );
      expect(() =>
        residual.runFw({ ...operands, z: slice(0x6000n), bias: slice(0x5000n) }),
      ).toThrow("Expected no bias: the descriptor's epilogue (z) has none");
      residual.dispose();
    });

    it('an epilogue whose kernels do not load is a typed error, not a crash', () => {
      primeKernels(false);
      // A fused graph needs none of our kernels.
      const fused = Conv3dPlan.selectSync(stream, layer({ activation: 'relu' }));
      expect(fused.algorithm('fw').name).toBe('engine 0 fused');
      fused.dispose();
      process.env.FAKE_CUDNN_NO_FUSED = '1';
      const plan = Conv3dPlan.selectSync(stream, layer({ activation: 'relu' }));
      expect(() => plan.algorithm('fw')).toThrow(
        "baracuda's epilogue kernels did not load on fake device (PTX JIT failed); ",
      );
      expect(() => plan.runFw(operands)).toThrow('cannot run its epilogue unfused');
      expect(executes()).toBe(0);
      plan.dispose();
    });

    it('runBwEpilogue: the activation gradient from y, then the bias gradient of dyPre', () => {
      const plan = Conv3dPlan.selectSync(stream, layer({ bias: true, activation: 'relu' }));
      plan.runBwEpilogue({
        dy: slice(0x100000n),
        y: slice(0x200000n),
        dyPre: slice(0x300000n),
        dBias: slice(0x5000n),
        workspace: slice(0x900000n),
      });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_epilogue_act_grad_f32',
        'baracuda_epilogue_bias_grad_partial_f32',
        'baracuda_epilogue_bias_grad_finish_f32',
      ]);
      const [act, partial, finish] = launches as [Launch, Launch, Launch];
      expect([0, 8, 16, 24].map((o) => u64(act, o))).toEqual([
        0x100000n,
        0x200000n,
        0x300000n,
        BigInt(Y),
      ]);
      // dBias from dyPre: channels 8, inner 120, outer 2: a block per channel, one part of 240
      // elements; the partial sums in the plan's workspace; then the parts of each channel.
      const scratch = u64(partial, 8);
      expect(scratch).toBe(0x900000n);
      expect([0, 16, 24, 32, 40].map((o) => u64(partial, o))).toEqual([
        0x300000n,
        8n,
        120n,
        2n,
        1n,
      ]);
      expect(partial.grid).toEqual([8, 1, 1]);
      expect([0, 8, 16, 24].map((o) => u64(finish, o))).toEqual([scratch, 0x5000n, 8n, 1n]);
      expect(finish.grid).toEqual([1, 1, 1]);
      expect(plan.sku().epilogue).toBe('bias_relu');
      plan.dispose();
    });

    it('runBwEpilogue: identity reduces dy itself; NDHWC maps N·D·H·W outer', () => {
      const plan = Conv3dPlan.selectSync(stream, layer({ bias: true }, 'ndhwc'));
      plan.runBwEpilogue({ dy: slice(0x100000n), dBias: slice(0x5000n), workspace: ws });
      expect(launches.map((l) => l.name)).toEqual([
        'baracuda_epilogue_bias_grad_partial_f32',
        'baracuda_epilogue_bias_grad_finish_f32',
      ]);
      // Rows of 8 channels: one block of 32 channels, 240 rows in one part.
      expect([0, 16, 24, 32, 40].map((o) => u64(launches[0]!, o))).toEqual([
        0x100000n,
        8n,
        1n,
        240n,
        1n,
      ]);
      expect(launches[0]!.grid).toEqual([1, 1, 1]);
      plan.dispose();
    });

    it('runBwEpilogue refuses a workspace too small for the partial sums of dBias', () => {
      const plan = Conv3dPlan.selectSync(stream, layer({ bias: true }, 'ndhwc'));
      // 1 part × 8 channels × 4 bytes.
      expect(biasGradScratchBytes(ElementKind.F32, channelMap([2, 8, 4, 5, 6], 'ndhwc'))).toBe(32);
      expect(() =>
        plan.runBwEpilogue({
          dy: slice(0x100000n),
          dBias: slice(0x5000n),
          workspace: slice(0x900000n, 31),
        }),
      ).toThrow(WorkspaceTooSmallError);
      expect(launches).toEqual([]);
      plan.dispose();
    });

    it('runBwEpilogue refuses what the activation does not read, and what it lacks', () => {
      const gelu = Conv3dPlan.selectSync(stream, layer({ bias: true, activation: 'gelu' }));
      const dy = slice(0x100000n);
      expect(() =>
        gelu.runBwEpilogue({ dy, y: slice(0x2000n), dyPre: dy, dBias: slice(0x5000n) }),
      ).toThrow(
        "Expected preActivation, not y, for activation 'gelu': its backward reads the pre-activation",
      );
      expect(() => gelu.runBwEpilogue({ dy, preActivation: dy, dBias: slice(0x5000n) })).toThrow(
        "Expected dyPre (dy · act'(·) is written there) for activation 'gelu' but received undefined",
      );
      expect(() => gelu.runBwEpilogue({ dy, preActivation: dy, dyPre: dy })).toThrow(
        'Expected dBias (the bias gradient, [8]) for epilogue bias+gelu but received undefined',
      );
      expect(() => gelu.runBwEpilogue(null as never)).toThrow(
        'Expected an object {dy, y?, preActivation?, dyPre?, dBias?, stream?, workspace?} for runBwEpilogue arguments but received null',
      );
      gelu.dispose();
      const relu = Conv3dPlan.selectSync(stream, layer({ activation: 'relu' }));
      expect(() => relu.runBwEpilogue({ dy, y: dy, dyPre: dy, dBias: slice(0x5000n) })).toThrow(
        "Expected no dBias: the descriptor's epilogue (relu) has no bias",
      );
      relu.dispose();
      const plain = Conv3dPlan.selectSync(stream, layer({}));
      expect(() => plain.runBwEpilogue({ dy })).toThrow(
        'Expected a descriptor with an epilogue for runBwEpilogue but conv3d n=2',
      );
      expect(() => plain.runBwEpilogue({ dy })).toThrow(InvalidProblemError);
      plain.dispose();
      expect(launches).toEqual([]);
      expect(() => plain.runBwEpilogue({ dy })).toThrow('disposed');
    });
  },
);
