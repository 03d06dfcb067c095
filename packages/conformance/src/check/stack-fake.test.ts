/**
 * The check's GPU stack (stack.ts) against the fake libcuda and libcudnn (built by
 * scripts/testing/build-fake.mjs; skipped, saying so, where there is no C compiler): the plans it
 * asks for are accepted by Conv3dPlan.select as a user would call it, and autotune's progress lines
 * reach the callback the CLI gives. (Run 59 on the GPU: the callback went in the preference, the
 * preference's key check refused it, and every row of the check failed at select.)
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  buildFakeCudnnLibrary,
  buildFakeLibcudaLibrary,
} from '../../../../scripts/testing/build-fake.mjs';

function fakes(): boolean {
  try {
    process.env.BARACUDA_CUDA_DRIVER_LIBRARY = buildFakeLibcudaLibrary();
    process.env.BARACUDA_CUDNN_LIBRARY = buildFakeCudnnLibrary();
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!fakes())(
  'the check stack on fake libraries (skipped where no C compiler is found)',
  () => {
    it('selects plans in every mode and passes autotune progress to the callback', async () => {
      const { openGpu } = await import('./stack.js');
      const lines: string[] = [];
      const opened = await openGpu({ onProgress: (line) => lines.push(line) });
      if (!opened.available) throw new Error(`fake GPU unavailable: ${JSON.stringify(opened)}`);
      const stream = opened.api.createStream();
      const problem = {
        n: 1,
        cIn: 4,
        cOut: 4,
        in: [4, 4, 4],
        k: [3, 3, 3],
        pad: [1, 1, 1],
        stride: [1, 1, 1],
        dil: [1, 1, 1],
        groups: 1,
        layout: 'ncdhw',
      } as const;
      for (const algorithm of ['heuristic', 'pinned', 'autotune'] as const) {
        const plan = await opened.api.selectPlan(stream, { problem, dtype: 'f32', algorithm });
        plan.dispose();
      }
      expect(lines.length).toBeGreaterThan(0);
    });

    it('builds the U-Net stage on the kernels API: plans select, a step enqueues, dispose frees', async () => {
      const { openGpu } = await import('./stack.js');
      const opened = await openGpu();
      if (!opened.available) throw new Error(`fake GPU unavailable: ${JSON.stringify(opened)}`);
      const stream = opened.api.createStream();
      // Graph-API engine 0 on offer: the fused conv + bias + ReLU needs the graph API.
      const engines = process.env.FAKE_CUDNN_ENGINES;
      process.env.FAKE_CUDNN_ENGINES = '0';
      onTestFinished(() => {
        if (engines === undefined) delete process.env.FAKE_CUDNN_ENGINES;
        else process.env.FAKE_CUDNN_ENGINES = engines;
      });
      for (const [dtype, layout] of [
        ['f32', 'ncdhw'],
        ['tf32', 'ncdhw'],
        ['bf16', 'ndhwc'],
        ['f16', 'ndhwc'],
      ] as const) {
        const stage = await opened.api.selectStage!(stream, {
          shape: { n: 1, c: 4, cDown: 8, size: [4, 4, 4], layout },
          dtype,
        });
        stage.forward(stream);
        stage.backward(stream);
        const algorithms = stage.algorithms();
        expect(algorithms.map((a) => `${a.layer}:${a.pass}`)).toEqual([
          'conv1:fw',
          'conv1:bwData',
          'conv1:bwFilter',
          'conv2:fw',
          'conv2:bwData',
          'conv2:bwFilter',
          'down:fw',
          'down:bwData',
          'down:bwFilter',
          'up:fw',
          'up:bwData',
          'up:bwFilter',
        ]);
        for (const a of algorithms) expect(a.name.length).toBeGreaterThan(0);
        expect(stage.tensors.x.byteLength).toBe(
          4 * 64 * (dtype === 'f32' || dtype === 'tf32' ? 4 : 2),
        );
        stage.dispose();
        stage.dispose();
        expect(() => stage.forward(stream)).toThrow(
          'UnetStage has been disposed and cannot be used',
        );
      }
      await expect(
        opened.api.selectStage!(stream, {
          shape: { n: 1, c: 4, cDown: 8, size: [4, 4, 4], layout: 'ncdhw' },
          dtype: 'f64' as never,
        }),
      ).rejects.toThrow(
        "Expected 'f32', 'tf32', 'f16' or 'bf16' for dtype but received \"f64\" of type string",
      );
      stream.synchronizeSync();
      stream.dispose();
    });
  },
);
