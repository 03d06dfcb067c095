import { describe, expect, it } from 'vitest';
import {
  ArchSku,
  archSkuFromComputeCapability,
  BackendKind,
  ConvKind,
  computeCapabilityOfArchSku,
  EpilogueKind,
  formatKernelSku,
  type KernelSku,
  LayoutSku,
  MathPrecision,
  OpCategory,
} from './sku.js';

describe('archSkuFromComputeCapability', () => {
  it.each([
    [7, 0, 'sm70'],
    [7, 5, 'sm75'],
    [8, 0, 'sm80'],
    [8, 6, 'sm86'],
    [8, 7, 'sm87'],
    [8, 9, 'sm89'],
    [9, 0, 'sm90'],
    [10, 0, 'sm100'],
    [10, 3, 'sm103'],
    [12, 0, 'sm120'],
    [7, 2, 'unknown'],
    [6, 1, 'unknown'],
    [12, 1, 'unknown'],
    [13, 0, 'unknown'],
  ])('cc %d.%d is %s', (major, minor, arch) => {
    expect(archSkuFromComputeCapability(major, minor)).toBe(arch);
  });

  it('never answers an "a" build target', () => {
    for (let major = 0; major < 16; major++) {
      for (let minor = 0; minor < 10; minor++) {
        expect(archSkuFromComputeCapability(major, minor)).not.toMatch(/a$/);
      }
    }
  });

  it('rejects non-integers', () => {
    expect(() => archSkuFromComputeCapability(8.5, 0)).toThrow(
      'Expected a non-negative integer for major but received 8.5 of type number',
    );
    expect(() => archSkuFromComputeCapability(8, -1)).toThrow(
      'Expected a non-negative integer for minor but received -1 of type number',
    );
    expect(() => archSkuFromComputeCapability('9' as never, 0)).toThrow(
      'Expected a non-negative integer for major but received "9" of type string',
    );
  });

  it('maps back to a capability', () => {
    expect(computeCapabilityOfArchSku(ArchSku.Sm90a)).toEqual({ major: 9, minor: 0 });
    expect(computeCapabilityOfArchSku(ArchSku.Sm103)).toEqual({ major: 10, minor: 3 });
    expect(computeCapabilityOfArchSku(ArchSku.Sm75)).toEqual({ major: 7, minor: 5 });
    expect(computeCapabilityOfArchSku(ArchSku.Unknown)).toBeUndefined();
    for (const arch of Object.values(ArchSku)) {
      const cc = computeCapabilityOfArchSku(arch);
      if (cc && !arch.endsWith('a')) {
        expect(archSkuFromComputeCapability(cc.major, cc.minor)).toBe(arch);
      }
    }
  });
});

describe('string constants', () => {
  it('have the documented values', () => {
    expect(OpCategory.Convolution).toBe('convolution');
    expect(ConvKind.Conv3d).toBe('conv3d');
    expect(ConvKind.Conv3dBackwardData).toBe('conv3d_backward_data');
    expect(ConvKind.Conv3dBackwardFilter).toBe('conv3d_backward_filter');
    expect(ArchSku.Sm90).toBe('sm90');
    expect(ArchSku.Sm90a).toBe('sm90a');
    expect(BackendKind.Cudnn).toBe('cudnn');
    expect(LayoutSku.Ncdhw).toBe('ncdhw');
    expect(LayoutSku.Ndhwc).toBe('ndhwc');
    expect(EpilogueKind.Identity).toBe('identity');
    expect(MathPrecision.Tf32).toBe('tf32');
    expect(MathPrecision.Tf32x3).toBe('tf32x3');
  });

  it('are unique within each vocabulary', () => {
    for (const vocab of [
      OpCategory,
      ConvKind,
      ArchSku,
      BackendKind,
      LayoutSku,
      EpilogueKind,
      MathPrecision,
    ]) {
      const values = Object.values(vocab);
      expect(new Set(values).size).toBe(values.length);
    }
  });
});

describe('formatKernelSku', () => {
  const sku: KernelSku = {
    category: OpCategory.Convolution,
    op: ConvKind.Conv3d,
    element: 'f16',
    auxElement: undefined,
    layout: LayoutSku.Ndhwc,
    epilogue: undefined,
    arch: ArchSku.Sm90,
    backend: BackendKind.Cudnn,
    precisionGuarantee: {
      mathPrecision: MathPrecision.F16,
      accumulator: 'f32',
      bitStableOnSameHardware: true,
      deterministic: true,
    },
  };

  it('prints one line, leaving out unset fields', () => {
    expect(formatKernelSku(sku)).toBe(
      'convolution/conv3d f16 ndhwc sm90 cudnn math=f16 acc=f32 deterministic bit-stable',
    );
  });

  it('prints every field when set', () => {
    expect(
      formatKernelSku({
        ...sku,
        category: OpCategory.Gemm,
        op: 'matmul',
        auxElement: 'f32',
        layout: LayoutSku.Rcr,
        epilogue: EpilogueKind.BiasRelu,
        arch: ArchSku.Sm90a,
        backend: BackendKind.Cutlass,
        precisionGuarantee: {
          mathPrecision: MathPrecision.Tf32,
          accumulator: 'f32',
          bitStableOnSameHardware: false,
          deterministic: false,
        },
      }),
    ).toBe(
      'gemm/matmul f16 aux=f32 rcr epilogue=bias_relu sm90a cutlass math=tf32 acc=f32 nondeterministic not-bit-stable',
    );
  });
});
