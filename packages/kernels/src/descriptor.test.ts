import {
  ElementKind,
  InvalidArgumentError,
  InvalidProblemError,
  UnsupportedError,
} from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor, convOutputExtent, INT32_MAX, stridesFor } from './descriptor.js';

const base = {
  batch: 2,
  cIn: 4,
  dIn: 5,
  hIn: 6,
  wIn: 7,
  cOut: 8,
  dFilt: 3,
  hFilt: 3,
  wFilt: 3,
  element: ElementKind.F32 as ElementKind,
};
const make = (over: Partial<typeof base> = {}) => Conv3dDescriptor.create({ ...base, ...over });

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

/** Mulberry32: a small seeded PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Count the valid window starts along one axis by trying every position. */
function bruteForceExtent(input: number, pad: number, dil: number, k: number, stride: number) {
  let count = 0;
  const padded = input + 2 * pad;
  for (let start = 0; start + dil * (k - 1) < padded; start += stride) count++;
  return count;
}

describe('Conv3dDescriptor defaults and setters', () => {
  it('uses PyTorch nn.Conv3d defaults', () => {
    const d = make();
    expect([d.padD, d.padH, d.padW]).toEqual([0, 0, 0]);
    expect([d.strideD, d.strideH, d.strideW]).toEqual([1, 1, 1]);
    expect([d.dilationD, d.dilationH, d.dilationW]).toEqual([1, 1, 1]);
    expect(d.groups).toBe(1);
    expect(d.layout).toBe('ncdhw');
  });

  it('setters return new descriptors and leave the original alone', () => {
    const d = make();
    const e = d
      .withPadding(1, 2, 3)
      .withStride(2, 2, 1)
      .withDilation(1, 2, 1)
      .withGroups(2)
      .withLayout('ndhwc');
    expect([e.padD, e.padH, e.padW]).toEqual([1, 2, 3]);
    expect([e.strideD, e.strideH, e.strideW]).toEqual([2, 2, 1]);
    expect([e.dilationD, e.dilationH, e.dilationW]).toEqual([1, 2, 1]);
    expect(e.groups).toBe(2);
    expect(e.layout).toBe('ndhwc');
    expect(d.padD).toBe(0);
    expect(d.layout).toBe('ncdhw');
    expect(Object.isFrozen(d)).toBe(true);
  });

  it('rejects an unknown layout', () => {
    const e = errorOf(() => make().withLayout('nchw' as 'ncdhw'));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(
      `Expected 'ncdhw' or 'ndhwc' for layout but received "nchw" of type string`,
    );
  });

  it('describes itself on one line', () => {
    const d = Conv3dDescriptor.create({
      batch: 8,
      cIn: 64,
      dIn: 16,
      hIn: 56,
      wIn: 56,
      cOut: 128,
      dFilt: 3,
      hFilt: 3,
      wFilt: 3,
      element: ElementKind.F16,
    })
      .withPadding(1, 1, 1)
      .withLayout('ndhwc');
    expect(d.describe()).toBe(
      'conv3d n=8 c=64→128 in=16×56×56 k=3×3×3 pad=1×1×1 stride=1×1×1 dil=1×1×1 groups=1 f16 ndhwc',
    );
  });
});

describe('Conv3dDescriptor.validate: the seed conditions, each with its message', () => {
  it('element must match the expected one', () => {
    const e = errorOf(() => make().validate(ElementKind.F16));
    expect(e).toBeInstanceOf(UnsupportedError);
    expect(e.message).toBe(
      'Expected element f16 but the descriptor has element "f32" of type string',
    );
  });

  it('dtype must be f32, f64, f16 or bf16', () => {
    const e = errorOf(() => make({ element: ElementKind.I8 }).validate());
    expect(e).toBeInstanceOf(UnsupportedError);
    expect(e.message).toBe(
      'Expected one of f32, f64, f16, bf16 for element (cuDNN 3-D convolution) but received "i8" of type string',
    );
  });

  it.each(['batch', 'cIn', 'dIn', 'hIn', 'wIn', 'cOut', 'dFilt', 'hFilt', 'wFilt'] as const)(
    'extent %s must be > 0',
    (field) => {
      for (const value of [0, -1]) {
        const e = errorOf(() => make({ [field]: value }).validate());
        expect(e).toBeInstanceOf(InvalidProblemError);
        expect(e.message).toBe(
          `Expected a positive integer for ${field} but received ${value} of type number`,
        );
        expect((e as InvalidProblemError).field).toBe(field);
      }
    },
  );

  it.each([
    ['strideD', (d: Conv3dDescriptor) => d.withStride(0, 1, 1)],
    ['strideH', (d: Conv3dDescriptor) => d.withStride(1, 0, 1)],
    ['strideW', (d: Conv3dDescriptor) => d.withStride(1, 1, 0)],
    ['dilationD', (d: Conv3dDescriptor) => d.withDilation(0, 1, 1)],
    ['dilationH', (d: Conv3dDescriptor) => d.withDilation(1, -2, 1)],
    ['dilationW', (d: Conv3dDescriptor) => d.withDilation(1, 1, 0)],
  ] as const)('%s must be > 0', (field, f) => {
    const e = errorOf(() => f(make()).validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toMatch(
      new RegExp(`^Expected a positive integer for ${field} but received -?\\d of type number$`),
    );
  });

  it('stride 0 message is exact', () => {
    expect(errorOf(() => make().withStride(0, 1, 1).validate()).message).toBe(
      'Expected a positive integer for strideD but received 0 of type number',
    );
  });

  it('padding must be >= 0', () => {
    const e = errorOf(() => make().withPadding(-1, 0, 0).validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe(
      'Expected a non-negative integer for padD but received -1 of type number',
    );
    expect(errorOf(() => make().withPadding(0, 0, -3).validate()).message).toBe(
      'Expected a non-negative integer for padW but received -3 of type number',
    );
  });

  it('groups must be > 0', () => {
    const e = errorOf(() => make().withGroups(0).validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe('Expected a positive integer for groups but received 0 of type number');
  });

  it('groups must divide cIn and cOut', () => {
    const d = make({ cIn: 12, cOut: 16 }).withGroups(8);
    const e = errorOf(() => d.validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe(
      'Expected groups (8) to divide cIn (12) and cOut (16), but it does not divide cIn',
    );
    expect(errorOf(() => make({ cIn: 16, cOut: 12 }).withGroups(8).validate()).message).toBe(
      'Expected groups (8) to divide cIn (16) and cOut (12), but it does not divide cOut',
    );
    expect(errorOf(() => make({ cIn: 12, cOut: 12 }).withGroups(8).validate()).message).toBe(
      'Expected groups (8) to divide cIn (12) and cOut (12), but it does not divide cIn or cOut',
    );
  });

  it('output dims must be > 0', () => {
    const d = make({ dIn: 2, dFilt: 3 });
    const e = errorOf(() => d.validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe(
      'Expected a positive output extent, but the output depth is 0: dIn=2 padD=0 dilationD=1 dFilt=3 strideD=1 gives (2 + 2*0 - 1*(3-1) - 1)/1 + 1 = 0',
    );
    expect(errorOf(() => make({ wIn: 4 }).withDilation(1, 1, 3).validate()).message).toBe(
      'Expected a positive output extent, but the output width is -2: wIn=4 padW=0 dilationW=3 wFilt=3 strideW=1 gives (4 + 2*0 - 3*(3-1) - 1)/1 + 1 = -2',
    );
  });

  it('a valid descriptor returns itself', () => {
    const d = make();
    expect(d.validate()).toBe(d);
    expect(d.validate(ElementKind.F32)).toBe(d);
  });
});

describe('Conv3dDescriptor.validate: integers only', () => {
  const cases: [string, unknown, string][] = [
    ['3.5', 3.5, '3.5 of type number'],
    ['NaN', Number.NaN, 'NaN of type number'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity of type number'],
    ['a string', '4', '"4" of type string'],
    ['a bigint', 4n, '4n of type bigint'],
    ['undefined', undefined, 'undefined'],
  ];
  it.each(cases)('rejects %s for an extent', (_label, value, received) => {
    const e = errorOf(() => make({ cIn: value as number }).validate());
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(`Expected a positive integer for cIn but received ${received}`);
  });
  it.each(cases)('rejects %s for a padding', (_label, value, received) => {
    const e = errorOf(() =>
      make()
        .withPadding(0, value as number, 0)
        .validate(),
    );
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(`Expected a non-negative integer for padH but received ${received}`);
  });
  it('rejects a non-integer group count and stride', () => {
    expect(errorOf(() => make().withGroups(1.5).validate()).message).toBe(
      'Expected a positive integer for groups but received 1.5 of type number',
    );
    expect(
      errorOf(() =>
        make()
          .withStride(1, 1, 2n as unknown as number)
          .validate(),
      ).message,
    ).toBe('Expected a positive integer for strideW but received 2n of type bigint');
  });
  it('rejects an unsafe integer', () => {
    const e = errorOf(() => make({ wIn: 2 ** 53 }).validate());
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(
      'Expected a positive integer for wIn but received 9007199254740992 of type number',
    );
  });
  it('create rejects a non-object', () => {
    const e = errorOf(() => Conv3dDescriptor.create(null as never));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toBe(
      'Expected an object {batch, cIn, dIn, hIn, wIn, cOut, dFilt, hFilt, wFilt, element} for problem but received null',
    );
  });
});

describe('int32 limits of cuDNN descriptors', () => {
  it('names the tensor and its size when x overflows', () => {
    // 2^32 elements in x: 1 × 256 × 256 × 256 × 256.
    const d = make({
      batch: 1,
      cIn: 256,
      dIn: 256,
      hIn: 256,
      wIn: 256,
      cOut: 1,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
    });
    const e = errorOf(() => d.validate());
    expect(e).toBeInstanceOf(InvalidProblemError);
    expect(e.message).toBe(
      "Tensor x has 4294967296 elements, more than cuDNN's int32 limit of 2147483647; split the batch or use smaller extents (shape [1, 256, 256, 256, 256])",
    );
    expect((e as InvalidProblemError).field).toBe('x');
  });
  it('catches y overflowing while x fits (padding grows the output)', () => {
    const d = make({
      batch: 1,
      cIn: 1,
      dIn: 1,
      hIn: 1,
      wIn: 1,
      cOut: 1 << 20,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
    }).withPadding(0, 30, 30);
    const e = errorOf(() => d.validate());
    expect(e.message).toBe(
      "Tensor y has 3901751296 elements, more than cuDNN's int32 limit of 2147483647; split the batch or use smaller extents (shape [1, 1048576, 1, 61, 61])",
    );
  });
  it('catches the filter overflowing', () => {
    const d = make({
      batch: 1,
      cIn: 1 << 16,
      cOut: 1 << 16,
      dIn: 1,
      hIn: 1,
      wIn: 1,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
    });
    expect(errorOf(() => d.validate()).message).toBe(
      "Tensor w has 4294967296 elements, more than cuDNN's int32 limit of 2147483647; split the batch or use smaller extents (shape [65536, 65536, 1, 1, 1])",
    );
  });
  it('accepts exactly INT32_MAX elements', () => {
    // 2147483647 is prime, so only a 1×…×N shape reaches it.
    const d = make({
      batch: 1,
      cIn: 1,
      dIn: 1,
      hIn: 1,
      wIn: INT32_MAX,
      cOut: 1,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
    });
    expect(d.xElements).toBe(INT32_MAX);
  });
  it('rejects a padding past int32', () => {
    const d = make().withPadding(0, 0, 2 ** 31);
    expect(errorOf(() => d.validate()).message).toBe(
      "Expected padW to fit cuDNN's int32 limit of 2147483647 but received 2147483648",
    );
  });
  it('element counts stay exact below 2^53 (safe integer math)', () => {
    const d = make({
      batch: 3,
      cIn: 5,
      dIn: 7,
      hIn: 11,
      wIn: 13,
      cOut: 2,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
    });
    expect(d.xElements).toBe(3 * 5 * 7 * 11 * 13);
  });
});

describe('output dims', () => {
  it('agree with a brute-force count over thousands of random descriptors', () => {
    const random = prng(0xc0ffee);
    const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    let checked = 0;
    let rejected = 0;
    for (let i = 0; i < 5000; i++) {
      const d = make({
        batch: int(1, 3),
        cIn: 4,
        cOut: 4,
        dIn: int(1, 20),
        hIn: int(1, 20),
        wIn: int(1, 20),
        dFilt: int(1, 5),
        hFilt: int(1, 5),
        wFilt: int(1, 5),
      })
        .withPadding(int(0, 3), int(0, 3), int(0, 3))
        .withStride(int(1, 4), int(1, 4), int(1, 4))
        .withDilation(int(1, 3), int(1, 3), int(1, 3));
      const expected = [
        bruteForceExtent(d.dIn, d.padD, d.dilationD, d.dFilt, d.strideD),
        bruteForceExtent(d.hIn, d.padH, d.dilationH, d.hFilt, d.strideH),
        bruteForceExtent(d.wIn, d.padW, d.dilationW, d.wFilt, d.strideW),
      ];
      if (expected.some((e) => e === 0)) {
        expect(() => d.validate()).toThrow(InvalidProblemError);
        rejected++;
      } else {
        expect(d.outputDims()).toEqual(expected);
        expect(d.yShape).toEqual([d.batch, 4, ...expected]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(100);
  });

  it('convOutputExtent matches the formula on a known case', () => {
    // PyTorch: Conv3d(k=3, pad=1, stride=2) on 16 → 8.
    expect(convOutputExtent(16, 1, 1, 3, 2)).toBe(8);
    expect(convOutputExtent(2, 0, 1, 3, 1)).toBe(0);
  });
});

describe('shapes and strides per layout', () => {
  const d = make({
    batch: 2,
    cIn: 6,
    dIn: 5,
    hIn: 4,
    wIn: 3,
    cOut: 9,
    dFilt: 3,
    hFilt: 2,
    wFilt: 1,
  })
    .withPadding(1, 0, 0)
    .withGroups(3);
  it('logical shapes', () => {
    expect(d.xShape).toEqual([2, 6, 5, 4, 3]);
    expect(d.wShape).toEqual([9, 2, 3, 2, 1]);
    expect(d.yShape).toEqual([2, 9, 5, 3, 3]);
    expect([d.xElements, d.wElements, d.yElements]).toEqual([720, 108, 810]);
  });
  it('ncdhw strides are contiguous', () => {
    expect(d.xStrides).toEqual([360, 60, 12, 3, 1]);
    expect(d.wStrides).toEqual([12, 6, 2, 1, 1]);
    expect(d.yStrides).toEqual([405, 45, 9, 3, 1]);
  });
  it('ndhwc strides are channels-last-3d in logical order', () => {
    const e = d.withLayout('ndhwc');
    // [D*H*W*C, 1, H*W*C, W*C, C]
    expect(e.xStrides).toEqual([5 * 4 * 3 * 6, 1, 4 * 3 * 6, 3 * 6, 6]);
    // KDHWC filter: [kd*kh*kw*c, 1, kh*kw*c, kw*c, c]
    expect(e.wStrides).toEqual([3 * 2 * 1 * 2, 1, 2 * 1 * 2, 1 * 2, 2]);
    expect(e.yStrides).toEqual([5 * 3 * 3 * 9, 1, 3 * 3 * 9, 3 * 9, 9]);
  });
  it('stridesFor addresses every element exactly once (both layouts)', () => {
    const shape = [2, 3, 2, 2, 3];
    for (const layout of ['ncdhw', 'ndhwc'] as const) {
      const s = stridesFor(shape, layout);
      const seen = new Set<number>();
      for (let n = 0; n < 2; n++)
        for (let c = 0; c < 3; c++)
          for (let z = 0; z < 2; z++)
            for (let y = 0; y < 2; y++)
              for (let x = 0; x < 3; x++)
                seen.add(n * s[0]! + c * s[1]! + z * s[2]! + y * s[3]! + x * s[4]!);
      expect(seen.size).toBe(72);
      expect(Math.max(...seen)).toBe(71);
    }
  });
});
