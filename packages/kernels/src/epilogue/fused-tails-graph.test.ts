/**
 * The tails' fused graphs as cuDNN receives them (recorded against the fake libcudnn.so.9): which
 * convolution node, which pointwise modes, and which tensor (by its unique id) each node reads and
 * writes — the transposed convolution's epilogue after the backward-data node (its output x_conv,
 * uid 1), and the input activation's *_BWD node after backward-data (DY the pass's virtual
 * result, X the saved tensor, uid 6, DX the pass's output) or, on the transposed plan, after the
 * forward node (DX = y_conv, uid 3).
 */
import { ElementKind } from '@baracuda/types';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import { fakeStream as stream, useFakeCudnn } from '../fake-cudnn.test-helpers.js';
import { Conv3dPlan } from '../plan.js';
import { C } from '../sys.js';
import { startTrace, stopTrace } from '../trace-recorder.test-helpers.js';
import { ConvTranspose3dDescriptor } from '../transpose-descriptor.js';
import { ConvTranspose3dPlan } from '../transpose-plan.js';

vi.mock('@baracuda/cudnn-sys', async (importOriginal) => {
  const { recordCudnn } = await import('../trace-recorder.test-helpers.js');
  return recordCudnn(await importOriginal());
});

const fake = useFakeCudnn();
const saved = process.env.FAKE_CUDNN_ENGINES;
process.env.FAKE_CUDNN_ENGINES = '0';
afterAll(() => {
  if (saved === undefined) delete process.env.FAKE_CUDNN_ENGINES;
  else process.env.FAKE_CUDNN_ENGINES = saved;
});

const problem = {
  batch: 1,
  cIn: 4,
  dIn: 3,
  hIn: 3,
  wIn: 3,
  cOut: 6,
  dFilt: 1,
  hFilt: 1,
  wFilt: 1,
  element: ElementKind.F16,
};

/** Per graph attribute set with one descriptor, the unique id of that descriptor (a tensor). */
function wiring(lines: string[]) {
  const uid = new Map<string, number>();
  for (const l of lines) {
    const m = new RegExp(
      `^BSetAttribute\\((#\\d+), ${C.CUDNN_ATTR_TENSOR_UNIQUE_ID}, \\d+, i64\\[(\\d+)\\]\\)`,
    ).exec(l);
    if (m) uid.set(m[1]!, Number(m[2]));
  }
  const set = (attr: number) =>
    lines
      .map((l) => new RegExp(`^BSetAttribute\\(#\\d+, ${attr}, \\d+, \\[(#\\d+)\\]\\)`).exec(l))
      .filter((m) => m !== null)
      .map((m) => uid.get(m![1]!));
  const modes = lines
    .filter((l) => l.includes(`, ${C.CUDNN_ATTR_POINTWISE_MODE}, ${C.CUDNN_TYPE_POINTWISE_MODE},`))
    .map((l) => Number(/\[(\d+)\]/.exec(l)?.[1]));
  return { set, modes };
}

describe.skipIf(fake === null)('the tails’ fused graphs (fake library)', () => {
  it('Conv3dPlan bwData + relu′: the dgrad node into a virtual tensor, then RELU_BWD(dy = it, x = saved) into dx', () => {
    const plan = Conv3dPlan.selectSync(
      stream,
      Conv3dDescriptor.create(problem)
        .withLayout('ndhwc')
        .withInputActivation({ activation: 'relu' }),
    );
    const lines = startTrace();
    expect(plan.algorithm('bwData').name).toBe('engine 0 fused');
    stopTrace();
    const { set, modes } = wiring(lines);
    expect(modes).toEqual([C.CUDNN_POINTWISE_RELU_BWD]);
    expect(set(C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX)).toEqual([100]);
    expect(set(C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY)).toEqual([3]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_DYDESC)).toEqual([100]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC)).toEqual([6]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_DXDESC)).toEqual([1]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_YDESC)).toEqual([]);
    plan.dispose();
  });

  it('ConvTranspose3dPlan bwData + silu′: the forward node, then SWISH_BWD into y_conv (the transposed dx)', () => {
    const plan = ConvTranspose3dPlan.selectSync(
      stream,
      ConvTranspose3dDescriptor.create(problem).withInputActivation({ activation: 'silu' }),
    );
    const lines = startTrace();
    expect(plan.algorithm('bwData').name).toBe('engine 0 fused');
    stopTrace();
    const { set, modes } = wiring(lines);
    expect(modes).toEqual([C.CUDNN_POINTWISE_SWISH_BWD]);
    expect(set(C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y)).toEqual([100]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC)).toEqual([6]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_DXDESC)).toEqual([3]);
    plan.dispose();
  });

  it('ConvTranspose3dPlan fw + bias + gelu: the dgrad node, ADD of a [1, cOut, 1, 1, 1] bias, GELU_FWD into x_conv', () => {
    const plan = ConvTranspose3dPlan.selectSync(
      stream,
      ConvTranspose3dDescriptor.create(problem).withEpilogue({ bias: true, activation: 'gelu' }),
    );
    const lines = startTrace();
    expect(plan.algorithm('fw').name).toBe('engine 0 fused');
    stopTrace();
    const { set, modes } = wiring(lines);
    expect(modes).toEqual([C.CUDNN_POINTWISE_ADD, C.CUDNN_POINTWISE_GELU_FWD]);
    expect(set(C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX)).toEqual([100]);
    expect(set(C.CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY)).toEqual([3]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC)).toEqual([100, 101]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_BDESC)).toEqual([4]);
    expect(set(C.CUDNN_ATTR_OPERATION_POINTWISE_YDESC)).toEqual([101, 1]);
    // The bias: the transposed output's 6 channels (the convolution's cIn), NCDHW strides.
    expect(lines.join('\n')).toMatch(
      /902, 3, i64\[1,6,1,1,1\]\)\nBSetAttribute\(#\d+, 903, 3, i64\[6,1,1,1,1\]\)/,
    );
    plan.dispose();
  });
});
