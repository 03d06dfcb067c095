/**
 * Without cuBLASLt the patch route keeps cuDNN, never an error: autotune does not time the
 * cuBLASLt candidate, and a cache entry naming it is stale (a warning, then the heuristics).
 * Its own file: cuBLASLt is probed once a process.
 */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { useFakeCuda, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { cublasLtAvailable } from './sys-cublaslt.js';

process.env.BARACUDA_CUBLASLT_LIBRARY = '/nonexistent/libcublasLt.so.13';
const fakeCudnn = useFakeCudnn();
const fakeCuda = useFakeCuda();

describe.skipIf(fakeCudnn === null || fakeCuda === null)(
  'the patch route where cuBLASLt does not load (skipped where no C compiler is found)',
  () => {
    it('a cached cuBLASLt choice is stale: a warning, and the pass runs as the heuristics choose', async () => {
      const { selectFromCache } = await import('./tuning.test-helpers.js');
      const d = Conv3dDescriptor.create({
        batch: 1,
        cIn: 3,
        dIn: 4,
        hIn: 8,
        wIn: 8,
        cOut: 8,
        dFilt: 2,
        hFilt: 4,
        wFilt: 4,
        element: ElementKind.F16,
      })
        .withStride(2, 4, 4)
        .withLayout('ndhwc');
      expect(cublasLtAvailable()).toBe(false);
      const { warnings, name } = await selectFromCache(d, 'bwFilter', {
        engineIndex: -9,
        knobs: [],
      });
      expect(name).toBe('engine 28');
      expect(warnings).toEqual([
        [
          'BARACUDA_AUTOTUNE_STALE',
          `The autotune cache's cuBLASLt patch GEMM for ${d.describe()} bwFilter does not apply (or cuBLASLt does not load here); using engine 28`,
        ],
      ]);
    });
  },
);
