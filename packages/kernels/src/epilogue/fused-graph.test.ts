/**
 * The fused forward graph as cuDNN receives it (recorded against the fake libcudnn.so.9): the
 * convolution into a virtual tensor, then one pointwise node per epilogue step with the right
 * mode, inputs and output, and the variant pack binding x, w, y, bias and z.
 */
import { ElementKind } from '@baracuda/types';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import { fakeStream as stream, useFakeCudnn } from '../fake-cudnn.test-helpers.js';
import { Conv3dPlan } from '../plan.js';
import { C } from '../sys.js';
import { startTrace, stopTrace } from '../trace-recorder.test-helpers.js';
import type { EpilogueOptions } from './epilogue.js';

/** When set, finalizing a pointwise descriptor fails (a cuDNN without the mode, say). */
const refuse = vi.hoisted(() => ({ pointwise: false }));

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('../trace-recorder.test-helpers.js');
  const real = recordCudnn(await importOriginal()) as Record<string, (...a: unknown[]) => unknown>;
  const pointwise = new WeakSet<object>();
  return {
    ...real,
    cudnnBackendCreateDescriptor: (type: unknown) => {
      const r = real.cudnnBackendCreateDescriptor!(type) as { descriptor?: object };
      if (type === 0 && r.descriptor) pointwise.add(r.descriptor);
      return r;
    },
    cudnnBackendFinalize: (d: object) =>
      refuse.pointwise && pointwise.has(d) ? 3000 : real.cudnnBackendFinalize!(d),
  };
});

const fake = useFakeCudnn();
const saved = process.env.FAKE_CUDNN_ENGINES;
process.env.FAKE_CUDNN_ENGINES = '0';
afterAll(() => {
  if (saved === undefined) delete process.env.FAKE_CUDNN_ENGINES;
  else process.env.FAKE_CUDNN_ENGINES = saved;
});

function layer(options: EpilogueOptions, element: ElementKind = ElementKind.F16) {
  return Conv3dDescriptor.create({
    batch: 1,
    cIn: 4,
    dIn: 3,
    hIn: 3,
    wIn: 3,
    cOut: 6,
    dFilt: 1,
    hFilt: 1,
    wFilt: 1,
    element,
  })
    .withLayout('ndhwc')
    .withEpilogue(options);
}

/** The pointwise modes set (in order), and the operations the graph was given. */
function recorded(lines: string[]) {
  const modes = lines
    .filter(
      (l) =>
        l.startsWith(`BSetAttribute(`) &&
        l.includes(`, ${C.CUDNN_ATTR_POINTWISE_MODE}, ${C.CUDNN_TYPE_POINTWISE_MODE},`),
    )
    .map((l) => Number(/\[(\d+)\]/.exec(l)?.[1]));
  const graphOps = lines.filter(
    (l) => l.startsWith('BSetAttribute(') && l.includes(`, ${C.CUDNN_ATTR_OPERATIONGRAPH_OPS}, `),
  );
  const virtual = lines.filter((l) => l.includes(`, ${C.CUDNN_ATTR_TENSOR_IS_VIRTUAL}, `)).length;
  return { modes, graphOps, virtual };
}

describe.skipIf(fake === null)('the fused forward graph (fake library)', () => {
  it('bias + z + gelu: conv, ADD, ADD, GELU_FWD, three virtual tensors', () => {
    const plan = Conv3dPlan.selectSync(
      stream,
      layer({ bias: true, residual: true, activation: 'gelu' }),
    );
    const lines = startTrace();
    expect(plan.algorithm('fw').name).toBe('engine 0 fused');
    stopTrace();
    const { modes, graphOps, virtual } = recorded(lines);
    expect(modes).toEqual([
      C.CUDNN_POINTWISE_ADD,
      C.CUDNN_POINTWISE_ADD,
      C.CUDNN_POINTWISE_GELU_FWD,
    ]);
    expect(virtual).toBe(3);
    expect(graphOps).toHaveLength(1);
    expect(graphOps[0]).toMatch(/, 801, 15, \[#\d+,#\d+,#\d+,#\d+\]\)/);
    // The bias tensor: [1, 6, 1, 1, 1], channel-last strides.
    const text = lines.join('\n');
    expect(text).toContain('902, 3, i64[1,6,1,1,1])\nBSetAttribute(#4, 903, 3, i64[6,1,6,6,6])');
    // The variant pack binds uids 1-5 (x, w, y, bias, z) once a run comes (none here).
    expect(text).not.toContain('i64[1,2,3,4,5]');
    plan.dispose();
  });

  it('a cuDNN that refuses a pointwise node takes the unfused route, leaking nothing', () => {
    refuse.pointwise = true;
    try {
      const plan = Conv3dPlan.selectSync(stream, layer({ bias: true, activation: 'relu' }));
      const lines = startTrace();
      // The unfused route's own error (no CUDA driver here for our kernel): the fused graph was
      // given up, not reported as a failure of the plan.
      expect(() => plan.algorithm('fw')).toThrow(
        "baracuda's epilogue kernels did not load on fake device",
      );
      // Its descriptors were all destroyed, and no heuristics were asked of a broken graph.
      expect(lines.some((l) => l.includes(`, ${C.CUDNN_ATTR_POINTWISE_MODE}, `))).toBe(true);
      expect(lines.some((l) => l.includes(`, ${C.CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH}, `))).toBe(
        false,
      );
      plan.dispose();
      expect(stopTrace()).toEqual([]);
    } finally {
      refuse.pointwise = false;
    }
  });

  it('bias + relu: one ADD and RELU_FWD; identity with a bias: one ADD into y', () => {
    for (const [options, want, virtuals] of [
      [{ bias: true, activation: 'relu' }, [C.CUDNN_POINTWISE_ADD, C.CUDNN_POINTWISE_RELU_FWD], 2],
      [{ bias: true }, [C.CUDNN_POINTWISE_ADD], 1],
      [{ activation: 'silu' }, [C.CUDNN_POINTWISE_SWISH_FWD], 1],
    ] as const) {
      const plan = Conv3dPlan.selectSync(stream, layer(options));
      const lines = startTrace();
      plan.algorithm('fw');
      stopTrace();
      const { modes, virtual } = recorded(lines);
      expect(modes).toEqual(want);
      expect(virtual).toBe(virtuals);
      plan.dispose();
    }
  });
});
