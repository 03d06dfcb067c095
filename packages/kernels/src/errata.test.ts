import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { resolvePlanPreference } from './compat.js';
import { Conv3dDescriptor } from './descriptor.js';
import {
  CONV3D_ERRATA,
  errataFor,
  erratumPinnedRefusal,
  erratumRefusal,
  formatCudnnVersion,
} from './errata.js';

const desc = (element: ElementKind, k = 3) =>
  Conv3dDescriptor.create({
    batch: 1,
    cIn: 16,
    dIn: 8,
    hIn: 8,
    wIn: 8,
    cOut: 16,
    dFilt: k,
    hFilt: k,
    wFilt: k,
    element,
  });
const strict = resolvePlanPreference();
const tf32 = resolvePlanPreference({ allowTf32: true });
const ids = (list: { id: string }[]) => list.map((e) => e.id);

describe('errata table', () => {
  it('formats version codes', () => {
    expect(formatCudnnVersion(91400)).toBe('9.14.0');
    expect(formatCudnnVersion(91002)).toBe('9.10.2');
  });

  it('f16/bf16 NCDHW with a filter larger than 1×1×1 is refused on 9.8 up to 9.14', () => {
    for (const element of [ElementKind.F16, ElementKind.Bf16]) {
      expect(ids(errataFor(desc(element), 91400, strict))).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
      expect(ids(errataFor(desc(element), 90800, strict))).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
      expect(errataFor(desc(element), 90705, strict)).toEqual([]);
      expect(errataFor(desc(element), 91500, strict)).toEqual([]);
      expect(errataFor(desc(element), 91900, strict)).toEqual([]);
    }
  });

  it('does not apply to NDHWC, 1×1×1 filters, f32 or f64', () => {
    expect(errataFor(desc(ElementKind.F16).withLayout('ndhwc'), 91400, strict)).toEqual([]);
    expect(errataFor(desc(ElementKind.Bf16, 1), 91400, strict)).toEqual([]);
    expect(errataFor(desc(ElementKind.F32), 91400, strict)).toEqual([]);
    expect(errataFor(desc(ElementKind.F64), 91400, tf32)).toEqual([]);
    // one non-unit extent is enough
    const k131 = Conv3dDescriptor.create({
      ...desc(ElementKind.F16),
      hFilt: 3,
      dFilt: 1,
      wFilt: 1,
    });
    expect(ids(errataFor(k131, 91400, strict))).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
  });

  it('f32 with TF32 on 9.10.2 up to 9.15 runs strict f32; strict f32 is untouched', () => {
    expect(ids(errataFor(desc(ElementKind.F32), 91400, tf32))).toEqual(['cudnn-9.10-conv3d-tf32']);
    expect(ids(errataFor(desc(ElementKind.F32).withLayout('ndhwc'), 91500, tf32))).toEqual([
      'cudnn-9.10-conv3d-tf32',
    ]);
    expect(errataFor(desc(ElementKind.F32), 91001, tf32)).toEqual([]);
    expect(errataFor(desc(ElementKind.F32), 91600, tf32)).toEqual([]);
    expect(errataFor(desc(ElementKind.F32), 91400, strict)).toEqual([]);
    expect(CONV3D_ERRATA.find((e) => e.id === 'cudnn-9.10-conv3d-tf32')!.action).toBe('strict-f32');
  });

  it('the refusal names the version, the defect, the links and the fix', () => {
    const erratum = CONV3D_ERRATA[0]!;
    const message = erratumRefusal(erratum, desc(ElementKind.Bf16), 91400);
    expect(message).toContain('on cuDNN 9.14.0');
    expect(message).toContain('https://github.com/pytorch/pytorch/issues/163539');
    expect(message).toContain('https://github.com/pytorch/pytorch/pull/163581');
    expect(message).toContain('use cuDNN >= 9.16 by pointing BARACUDA_CUDNN_LIBRARY');
    expect(message).toContain("or use layout 'ndhwc'");
    expect(message).toContain("ignoreErrata: ['cudnn-9.8-conv3d-half-ncdhw']");
    expect(message.startsWith('Refusing conv3d n=1 c=16→16 in=8×8×8 k=3×3×3')).toBe(true);
  });

  it('runs f16/bf16 NCDHW on 9.8–9.14 via NDHWC, and says how that was verified', () => {
    const erratum = CONV3D_ERRATA.find((e) => e.id === 'cudnn-9.8-conv3d-half-ncdhw')!;
    expect(erratum.action).toBe('via-ndhwc');
    expect(erratum.verification).toContain('cuDNN 9.14.0');
    expect(erratum.verification).toContain('1×16×124×1282×722');
    for (const element of [ElementKind.F16, ElementKind.Bf16]) {
      const applied = errataFor(desc(element), 91400, strict);
      expect(applied.map((e) => e.action)).toEqual(['via-ndhwc']);
    }
  });

  it('the pinned refusal says why and what to use instead', () => {
    const erratum = CONV3D_ERRATA[0]!;
    expect(erratumPinnedRefusal(erratum, desc(ElementKind.F16), 91400)).toBe(
      'Refusing conv3d n=1 c=16→16 in=8×8×8 k=3×3×3 pad=0×0×0 stride=1×1×1 dil=1×1×1 groups=1 f16 ncdhw on cuDNN 9.14.0: ' +
        'cuDNN 9.8–9.14 computes wrong f16/bf16 3-D convolutions in NCDHW layout with a filter larger than 1×1×1 ' +
        '(silent corruption reported on large shapes; PyTorch stops using cuDNN for these); ' +
        "the pinned algorithms (the seed's choice) were not verified on the defect's reproducers, and the plan runs such problems only through NDHWC with algorithm 'heuristic' (the default) or 'autotune'. " +
        '(affected: 9.8.0 up to, not including, 9.15.0; see https://github.com/pytorch/pytorch/issues/163539 , https://github.com/pytorch/pytorch/pull/163581). ' +
        "Fix: use cuDNN >= 9.16 by pointing BARACUDA_CUDNN_LIBRARY at its libcudnn.so.9 (for example the nvidia-cudnn-cu12 wheel's nvidia/cudnn/lib/libcudnn.so.9), " +
        "or use layout 'ndhwc'. To run it anyway, pass ignoreErrata: ['cudnn-9.8-conv3d-half-ncdhw'] to Conv3dPlan.select.",
    );
  });
});
