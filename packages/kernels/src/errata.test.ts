import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { resolvePlanPreference } from './compat.js';
import { Conv3dDescriptor } from './descriptor.js';
import { CONV3D_ERRATA, errataFor, erratumRefusal, formatCudnnVersion } from './errata.js';

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

  it('limits f16/bf16 NCDHW on 9.8–9.14 to the engines verified on the reproducers', () => {
    const erratum = CONV3D_ERRATA.find((e) => e.id === 'cudnn-9.8-conv3d-half-ncdhw')!;
    expect(erratum.action).toBe('verified-engines');
    expect(erratum.verifiedEngines).toEqual({ fw: [28], bwData: [0, 1, 25], bwFilter: [1] });
    expect(erratum.verification).toContain('cuDNN 9.14.0');
    const message = erratumRefusal(erratum, desc(ElementKind.F16), 91400, 'bwData');
    expect(message).toContain(
      'none of the engines verified right for the bwData pass (0, 1, 25) takes this problem, and no other path is known to be right.',
    );
    expect(message.startsWith('Refusing conv3d n=1 c=16→16 in=8×8×8 k=3×3×3')).toBe(true);
    expect(message).toContain(' bwData on cuDNN 9.14.0');
  });
});
