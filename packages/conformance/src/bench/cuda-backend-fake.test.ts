/**
 * The bench's CUDA backend without a GPU, against the fake libcuda of @baracuda/driver and the
 * fake libcudnn.so.9 of @baracuda/cudnn-sys (built by scripts/testing/build-fake.mjs; skipped, saying so,
 * where there is no C compiler): how it makes its timing events.
 */
import type { Event } from '@baracuda/driver';
import { describe, expect, it } from 'vitest';
import {
  buildFakeCudnnLibrary,
  buildFakeLibcudaLibrary,
} from '../../../../scripts/testing/build-fake.mjs';

/** Point the driver and cudnn-sys at the fakes (built in one place); false without a C compiler. */
function useFakes(): boolean {
  try {
    process.env.BARACUDA_CUDA_DRIVER_LIBRARY = buildFakeLibcudaLibrary();
    process.env.BARACUDA_CUDNN_LIBRARY = buildFakeCudnnLibrary();
    return true;
  } catch {
    return false;
  }
}

const fakes = useFakes();

describe.skipIf(!fakes)(
  'the bench on fake libraries (skipped where no C compiler is found)',
  () => {
    it('times calls between events made as torch.cuda.Event makes them, without blocking sync', async () => {
      const { createCudaBackend } = await import('./cuda-backend.js');
      const made = createCudaBackend();
      if (!('backend' in made)) throw new Error(made.unavailable);
      // eventPool is the CUDA backend's own, not part of BenchBackend.
      const backend = made.backend as unknown as { eventPool(count: number): Event[] };
      const events = backend.eventPool(4);
      expect(events.length).toBeGreaterThanOrEqual(4);
      for (const event of events) expect([event.timing, event.blockingSync]).toEqual([true, false]);
    });
  },
);
