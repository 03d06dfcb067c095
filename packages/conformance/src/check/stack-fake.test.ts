/**
 * The check's GPU stack (stack.ts) against the fake libcuda and libcudnn (built by
 * scripts/testing/build-fake.mjs; skipped, saying so, where there is no C compiler): the plans it
 * asks for are accepted by Conv3dPlan.select as a user would call it, and autotune's progress lines
 * reach the callback the CLI gives. (Run 59 on the GPU: the callback went in the preference, the
 * preference's key check refused it, and every row of the check failed at select.)
 */
import { describe, expect, it } from 'vitest';
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
  },
);
