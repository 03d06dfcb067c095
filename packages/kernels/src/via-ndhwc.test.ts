/**
 * The 'via-ndhwc' path of erratum cudnn-9.8-conv3d-half-ncdhw, against the fake libcudnn.so.9 of
 * @baracuda/cudnn-sys (it reports cuDNN 9.14.0), so select's erratum handling runs without a GPU.
 */
import * as cudnnSys from '@baracuda/cudnn-sys';
import {
  BufferTooSmallError,
  DisposedError,
  ElementKind,
  UnsupportedError,
  WorkspaceTooSmallError,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { resolvePlanPreference } from './compat.js';
import { CONV3D_ERRATA, erratumPinnedRefusal } from './errata.js';
import { smallProblem, fakeStream as stream, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';

const fake = useFakeCudnn();

const desc = smallProblem;

describe.skipIf(fake === null)(
  'f16/bf16 NCDHW on cuDNN 9.14 (fake library; skipped where no C compiler is found)',
  () => {
    it('pinned is refused with the erratum message', () => {
      for (const element of [ElementKind.F16, ElementKind.Bf16]) {
        const d = desc(element);
        const erratum = CONV3D_ERRATA.find((e) => e.id === 'cudnn-9.8-conv3d-half-ncdhw')!;
        expect(() => Conv3dPlan.selectSync(stream, d, { algorithm: 'pinned' })).toThrow(
          new UnsupportedError(erratumPinnedRefusal(erratum, d, 91400)),
        );
      }
    });

    it('heuristic makes a plan that runs via NDHWC, reporting the erratum and the NCDHW sku', () => {
      const plan = Conv3dPlan.selectSync(stream, desc(ElementKind.Bf16));
      expect(plan.cudnnVersion).toBe(91400);
      expect(plan.errataApplied).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
      const sku = plan.sku();
      expect(sku.layout).toBe('ncdhw');
      expect(sku.element).toBe(ElementKind.Bf16);
      expect(plan.precisionGuarantee()).toEqual({
        mathPrecision: 'bf16',
        accumulator: ElementKind.F32,
        deterministic: resolvePlanPreference().deterministic,
        bitStableOnSameHardware: resolvePlanPreference().deterministic,
      });
      // Arguments are still checked against the caller's NCDHW problem before anything runs.
      const small = { devicePtr: 0x1000n, byteLength: 8 };
      expect(() => plan.runFw({ x: small, w: small, y: small })).toThrow(
        new BufferTooSmallError('x', 4 * 4 * 4 * 4 * 2, 8),
      );
      // The fake offers no graph-API engine, so the inner NDHWC problem takes the legacy fallback
      // (allowed: NDHWC is not affected); the report names the detour.
      const fw = plan.algorithm('fw');
      expect(fw.name).toBe('CUDNN_CONVOLUTION_FWD_ALGO 1 via NDHWC (cuDNN 9.8–9.14 erratum)');
      expect(fw.path).toBe('legacy');
      expect(plan.queryFwWorkspaceSize()).toBe(fw.workspaceBytes);
      // A short workspace is refused before any transform is enqueued.
      const before = cudnnSys.cudnnGetLastErrorString();
      const big = { devicePtr: 0x1000n, byteLength: 1 << 20 };
      expect(() =>
        plan.runFw({ x: big, w: big, y: big, workspace: { devicePtr: 0x2000n, byteLength: 0 } }),
      ).toThrow(new WorkspaceTooSmallError(fw.workspaceBytes, 0));
      expect(cudnnSys.cudnnGetLastErrorString()).toBe(before);
      plan.dispose();
      plan.dispose();
      expect(plan.disposed).toBe(true);
      expect(() => plan.algorithm('fw')).toThrow(DisposedError);
    });

    it('ignoreErrata runs the problem as given, and NDHWC is untouched', () => {
      const ignored = Conv3dPlan.selectSync(stream, desc(ElementKind.F16), undefined, {
        ignoreErrata: ['cudnn-9.8-conv3d-half-ncdhw'],
      });
      expect(ignored.errataApplied).toEqual([]);
      ignored.dispose();
      const ndhwc = Conv3dPlan.selectSync(stream, desc(ElementKind.F16).withLayout('ndhwc'), {
        algorithm: 'pinned',
      });
      expect(ndhwc.errataApplied).toEqual([]);
      ndhwc.dispose();
    });
  },
);
