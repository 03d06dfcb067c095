import { ElementKind, InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { resolvePlanPreference } from './compat.js';
import {
  AUTO_WORKSPACE_FLOOR_BYTES,
  alignmentClass,
  autoWorkspaceLimit,
  detourWins,
  engineAllowed,
  engineName,
  engineRejection,
  fastestIndices,
  intendedMathPrecision,
  KNOB_NAMES,
  knobNeighbours,
  MAX_ROTATION_SETS,
  MathType,
  mathPrecisionOfEngine,
  mathPrecisionOfLegacy,
  median,
  nextSearchBases,
  numericalNoteName,
  pickLegacyAlgorithm,
  pinnedMathType,
  REDUCTION_KNOBS,
  ROTATE_BELOW_BYTES,
  randomScratchBytes,
  rotationSets,
  tuneFinalists,
  tuneGiveUpMs,
  tuneReps,
  tuneRotationSets,
  xorshift32,
} from './policy.js';

/** A settled preference; the workspace limit is 1 GiB (the `'auto'` floor) unless given. */
const pref = (
  p: { deterministic?: boolean; allowTf32?: boolean; maxWorkspaceBytes?: number } = {},
) => ({
  ...resolvePlanPreference(p),
  maxWorkspaceBytes: p.maxWorkspaceBytes ?? AUTO_WORKSPACE_FLOOR_BYTES,
});

describe('engine filtering (PyTorch filterEngineConfigs rules)', () => {
  it('keeps a plain engine for every element', () => {
    for (const e of [ElementKind.F32, ElementKind.F64, ElementKind.F16, ElementKind.Bf16]) {
      expect(engineAllowed([], pref(), e)).toBe(true);
    }
  });
  it('drops nondeterministic engines only when determinism is asked for', () => {
    expect(engineAllowed(['NONDETERMINISTIC'], pref(), ElementKind.F16)).toBe(true);
    expect(
      engineRejection(['NONDETERMINISTIC'], pref({ deterministic: true }), ElementKind.F16),
    ).toBe('nondeterministic (numerical note NONDETERMINISTIC) while determinism was asked for');
  });
  it('always drops engines that down-convert inputs', () => {
    for (const e of [ElementKind.F32, ElementKind.F16, ElementKind.Bf16, ElementKind.F64]) {
      expect(engineAllowed(['DOWN_CONVERT_INPUTS'], pref({ allowTf32: true }), e)).toBe(false);
    }
  });
  it('drops tensor-core engines for strict f32 only', () => {
    expect(engineRejection(['TENSOR_CORE'], pref(), ElementKind.F32)).toBe(
      'uses TF32 tensor cores on f32 data (numerical note TENSOR_CORE) while allowTf32 is false',
    );
    expect(engineAllowed(['TENSOR_CORE'], pref({ allowTf32: true }), ElementKind.F32)).toBe(true);
    expect(engineAllowed(['TENSOR_CORE'], pref(), ElementKind.F16)).toBe(true);
    expect(engineAllowed(['TENSOR_CORE'], pref(), ElementKind.F64)).toBe(true);
  });
  it('names notes by enum value', () => {
    expect(numericalNoteName(0)).toBe('TENSOR_CORE');
    expect(numericalNoteName(4)).toBe('NONDETERMINISTIC');
    expect(numericalNoteName(42)).toBe('NOTE_42');
  });
});

describe('math precision', () => {
  it('of engines', () => {
    expect(mathPrecisionOfEngine(['TENSOR_CORE'], ElementKind.F32)).toBe('tf32');
    expect(mathPrecisionOfEngine([], ElementKind.F32)).toBe('f32');
    expect(mathPrecisionOfEngine(['TENSOR_CORE'], ElementKind.Bf16)).toBe('bf16');
    expect(mathPrecisionOfEngine(['TENSOR_CORE'], ElementKind.F64)).toBe('f64');
  });
  it('intended', () => {
    expect(intendedMathPrecision(ElementKind.F32, false)).toBe('f32');
    expect(intendedMathPrecision(ElementKind.F32, true)).toBe('tf32');
    expect(intendedMathPrecision(ElementKind.F16, true)).toBe('f16');
  });
  it('of the pinned legacy path', () => {
    expect(pinnedMathType(ElementKind.F16, false)).toBe(MathType.TENSOR_OP);
    expect(pinnedMathType(ElementKind.Bf16, false)).toBe(MathType.TENSOR_OP);
    expect(pinnedMathType(ElementKind.F32, false)).toBe(MathType.FMA);
    expect(pinnedMathType(ElementKind.F32, true)).toBe(MathType.DEFAULT);
    expect(pinnedMathType(ElementKind.F64, false)).toBe(MathType.DEFAULT);
    expect(mathPrecisionOfLegacy(MathType.FMA, ElementKind.F32)).toBe('f32');
    expect(mathPrecisionOfLegacy(MathType.DEFAULT, ElementKind.F32)).toBe('tf32');
    expect(mathPrecisionOfLegacy(MathType.DEFAULT, ElementKind.F64)).toBe('f64');
  });
});

describe('legacy algorithm pick', () => {
  const perfs = [
    { algo: 7, status: 3000, memory: 0, determinism: 1, mathType: MathType.FMA },
    { algo: 1, status: 0, memory: 1 << 30, determinism: 1, mathType: MathType.FMA },
    { algo: 2, status: 0, memory: 1024n, determinism: 0, mathType: MathType.FMA },
    { algo: 3, status: 0, memory: 0, determinism: 1, mathType: MathType.DEFAULT },
    { algo: 4, status: 0, memory: 0, determinism: 1, mathType: MathType.FMA },
  ];
  it('skips failed, too large, nondeterministic (when asked) and TF32 (strict f32) results', () => {
    expect(pickLegacyAlgorithm(perfs, pref(), ElementKind.F32)?.algo).toBe(1);
    expect(
      pickLegacyAlgorithm(perfs, pref({ maxWorkspaceBytes: 4096 }), ElementKind.F32)?.algo,
    ).toBe(2);
    expect(
      pickLegacyAlgorithm(
        perfs,
        pref({ maxWorkspaceBytes: 4096, deterministic: true }),
        ElementKind.F32,
      )?.algo,
    ).toBe(4);
    expect(
      pickLegacyAlgorithm(
        perfs,
        pref({ maxWorkspaceBytes: 4096, deterministic: true, allowTf32: true }),
        ElementKind.F32,
      )?.algo,
    ).toBe(3);
    expect(pickLegacyAlgorithm(perfs.slice(0, 1), pref(), ElementKind.F32)).toBeNull();
  });
});

describe('helpers', () => {
  it('alignment class', () => {
    expect(alignmentClass([0x1000n, 0x2010n, 0n], 2)).toBe(16);
    expect(alignmentClass([0x1000n, 0x2002n], 2)).toBe(2);
    expect(alignmentClass([0x1004n], 4)).toBe(4);
  });
  it('random scratch bytes are finite, small values of the right size', () => {
    const f16 = new Uint16Array(randomScratchBytes(ElementKind.F16, 1000).buffer);
    expect(f16.length).toBe(1000);
    for (const bits of f16) {
      const exponent = (bits >> 10) & 0x1f;
      expect(exponent === 13 || exponent === 14).toBe(true);
    }
    const bf16 = new Uint16Array(randomScratchBytes(ElementKind.Bf16, 1000).buffer);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    for (const bits of bf16) {
      u32[0] = bits << 16;
      expect(Math.abs(f32[0]!)).toBeGreaterThanOrEqual(0.25);
      expect(Math.abs(f32[0]!)).toBeLessThan(1);
    }
    expect(randomScratchBytes(ElementKind.F64, 3).byteLength).toBe(24);
    expect(randomScratchBytes(ElementKind.F32, 3).byteLength).toBe(12);
  });
  it('random scratch values use every bit they are given: signs, both exponents, odd counts', () => {
    const f32 = new Float32Array(randomScratchBytes(ElementKind.F32, 10_001).buffer);
    expect(Math.min(...f32)).toBeGreaterThanOrEqual(-1);
    expect(Math.max(...f32)).toBeLessThan(1);
    expect(f32.filter((v) => v < 0).length).toBeGreaterThan(4000);
    expect(f32.filter((v) => v > 0).length).toBeGreaterThan(4000);
    // 16 bits a value: the last of an odd count is written too, and both halves of a word differ.
    const f16 = new Uint16Array(randomScratchBytes(ElementKind.F16, 10_001).buffer);
    expect(f16[10_000]).not.toBe(0);
    const exps = new Set([...f16].map((b) => (b >> 10) & 0x1f));
    expect([...exps].sort()).toEqual([13, 14]);
    expect(f16.filter((b) => b & 0x8000).length).toBeGreaterThan(4000);
    expect(new Set(f16).size).toBeGreaterThan(1500);
    // Seeded: the same words give the same bytes.
    const a = randomScratchBytes(ElementKind.Bf16, 7, xorshift32(42));
    const b = randomScratchBytes(ElementKind.Bf16, 7, xorshift32(42));
    expect(a).toEqual(b);
    expect(randomScratchBytes(ElementKind.Bf16, 7, xorshift32(43))).not.toEqual(a);
    expect(xorshift32(0)()).not.toBe(0);
  });
});

describe('tuneFinalists', () => {
  it('keeps the finite timings within the ratio of the fastest, fastest first, capped', () => {
    const inf = Number.POSITIVE_INFINITY;
    expect(tuneFinalists([2.0, 1.0, 1.3, 1.31, inf, 0.9], 1.3, 6)).toEqual([5, 1]);
    expect(tuneFinalists([1.0, 1.3, 1.2, 5, 1.1], 1.3, 6)).toEqual([0, 4, 2, 1]);
    expect(tuneFinalists([1.0, 1.3, 1.2, 5, 1.1], 1.3, 2)).toEqual([0, 4]);
    expect(tuneFinalists([inf, inf], 1.3, 6)).toEqual([]);
    expect(tuneFinalists([3], 1.3, 6)).toEqual([0]);
  });
});

describe('tuneGiveUpMs', () => {
  it('never gives up before a candidate has been timed', () => {
    expect(tuneGiveUpMs(Number.POSITIVE_INFINITY, 4, 10)).toBe(Number.POSITIVE_INFINITY);
  });

  it('takes the larger of the ratio and the absolute margin', () => {
    expect(tuneGiveUpMs(1, 4, 10)).toBe(11); // a 1 ms engine: a 5 ms first run is still timed
    expect(tuneGiveUpMs(20, 4, 10)).toBe(80);
    expect(tuneGiveUpMs(0.05, 4, 10)).toBeCloseTo(10.05, 12);
  });
});

describe('engineName', () => {
  it('names knob choices by their cuDNN names, in the order given', () => {
    expect(engineName(70, [])).toBe('engine 70');
    expect(
      engineName(0, [
        [2, 1],
        [4, 0],
      ]),
    ).toBe('engine 0 (TILE_SIZE=1 EDGE=0)');
    expect(engineName(3, [[99, 7]])).toBe('engine 3 (KNOB_99=7)');
  });

  it('has a name for every knob type through LOAD_SIZE (36)', () => {
    expect(KNOB_NAMES.length).toBe(37);
    expect(KNOB_NAMES[24]).toBe('KERNEL_CFG');
    expect(KNOB_NAMES[36]).toBe('LOAD_SIZE');
  });
});

describe("the 'auto' workspace limit", () => {
  const GiB = 2 ** 30;
  it('is 1 GiB for problems whose tensors are under 512 MiB', () => {
    expect(AUTO_WORKSPACE_FLOOR_BYTES).toBe(GiB);
    expect(autoWorkspaceLimit(0, undefined)).toBe(GiB);
    expect(autoWorkspaceLimit(GiB / 2, undefined)).toBe(GiB);
  });
  it('is twice the tensor bytes above that', () => {
    // 2×32×128³ TF32: x and y 512 MiB each; its tensor-core engines want 1,024.1 MiB.
    const tensors = 2 * 512 * 2 ** 20 + 32 * 32 * 27 * 4;
    expect(autoWorkspaceLimit(tensors, undefined)).toBe(2 * tensors);
    expect(autoWorkspaceLimit(tensors, undefined)).toBeGreaterThan(1024.1 * 2 ** 20);
  });
  it('is at most half the free device memory', () => {
    expect(autoWorkspaceLimit(4 * GiB, 100 * GiB)).toBe(8 * GiB);
    expect(autoWorkspaceLimit(4 * GiB, 10 * GiB)).toBe(5 * GiB);
    expect(autoWorkspaceLimit(0, GiB)).toBe(GiB / 2);
    expect(autoWorkspaceLimit(0, 3)).toBe(1);
    expect(autoWorkspaceLimit(0, 0)).toBe(0);
  });
});

describe('knobNeighbours', () => {
  it('changes one knob at a time, to each other value of its range, sorted by knob type', () => {
    const space = [
      { knob: 4, min: 0, max: 1, stride: 1 },
      { knob: 2, min: 0, max: 6, stride: 2 },
    ];
    expect(
      knobNeighbours(
        [
          [2, 2],
          [4, 0],
        ],
        space,
        12,
      ),
    ).toEqual([
      [
        [2, 2],
        [4, 1],
      ],
      [
        [2, 0],
        [4, 0],
      ],
      [
        [2, 4],
        [4, 0],
      ],
      [
        [2, 6],
        [4, 0],
      ],
    ]);
  });

  it('adds a knob the config did not choose, and leaves out skipped knobs and empty ranges', () => {
    const space = [
      { knob: 0, min: 1, max: 3, stride: 1 },
      { knob: 14, min: 2, max: 3, stride: 1 },
      { knob: 5, min: 3, max: 1, stride: 1 },
      { knob: 6, min: 0, max: 4, stride: 0 },
    ];
    expect(knobNeighbours([[2, 1]], space, 12, new Set([0]))).toEqual([
      [
        [2, 1],
        [14, 2],
      ],
      [
        [2, 1],
        [14, 3],
      ],
    ]);
  });

  it('spreads a long range over at most maxValues values, both ends kept', () => {
    const out = knobNeighbours([[2, 0]], [{ knob: 2, min: 0, max: 99, stride: 1 }], 4);
    expect(out).toEqual([[[2, 33]], [[2, 66]], [[2, 99]]]);
  });

  it('REDUCTION_KNOBS are the split-K and split reduction knobs', () => {
    expect([...REDUCTION_KNOBS].sort((a, b) => a - b)).toEqual([0, 12, 15, 16, 17, 20]);
  });
});

describe('fastestIndices', () => {
  it('the fastest finite timings first, ties in index order, zero included', () => {
    const inf = Number.POSITIVE_INFINITY;
    expect(fastestIndices([0.5, 0, inf, 0, 0.2], 3)).toEqual([1, 3, 4]);
    expect(fastestIndices([inf, Number.NaN], 2)).toEqual([]);
  });
});

describe('nextSearchBases', () => {
  it('climbs to a searched config that became the fastest, and stops otherwise', () => {
    const inf = Number.POSITIVE_INFINITY;
    // Configs 0-2 came before the pass, 3-5 from it: config 4 is now the fastest of all.
    expect(nextSearchBases([0.5, 0.6, inf, 0.7, 0.45, inf], 3)).toEqual([4]);
    // The pass found nothing faster than config 0.
    expect(nextSearchBases([0.5, 0.6, inf, 0.7, 0.55, inf], 3)).toEqual([]);
    // A tie keeps the earlier config, so a pass of equals ends the search.
    expect(nextSearchBases([0.5, 0.6, 0.5], 2)).toEqual([]);
    expect(nextSearchBases([inf, inf], 1)).toEqual([]);
  });
});

describe('operand rotation (the bench and autotune)', () => {
  it('rotates small working sets until they cover 128 MiB, capped', () => {
    expect(ROTATE_BELOW_BYTES).toBe(128 * 1024 * 1024);
    expect(rotationSets(ROTATE_BELOW_BYTES)).toBe(1);
    expect(rotationSets(ROTATE_BELOW_BYTES * 3)).toBe(1);
    expect(rotationSets(ROTATE_BELOW_BYTES - 1)).toBe(2);
    expect(rotationSets(32 * 1024 * 1024)).toBe(4);
    expect(rotationSets(33 * 1024 * 1024)).toBe(4);
    expect(rotationSets(1000)).toBe(MAX_ROTATION_SETS);
    expect(rotationSets(0)).toBe(1);
    expect(rotationSets(100, 1000)).toBe(10);
  });

  it('rejects sizes that are not finite non-negative numbers, naming the argument', () => {
    expect(() => rotationSets(-1)).toThrow(
      'Expected a finite number >= 0 for workingSetBytes but received -1',
    );
    expect(() => rotationSets(Number.NaN)).toThrow(InvalidArgumentError);
    expect(() => rotationSets('5' as unknown as number)).toThrow(InvalidArgumentError);
    expect(() => rotationSets(100, 0)).toThrow(
      'Expected a finite number >= 1 for below but received 0',
    );
    expect(() => tuneRotationSets(Number.POSITIVE_INFINITY)).toThrow(InvalidArgumentError);
    expect(() => tuneRotationSets(100, -5)).toThrow(
      'Expected a finite number >= 0 for freeBytes but received -5',
    );
  });

  it('gives autotune the same sets when memory allows, with the extra ones in half of free memory', () => {
    const MiB = 1024 * 1024;
    expect(tuneRotationSets(32 * MiB)).toBe(4);
    expect(tuneRotationSets(32 * MiB, 80 * 1024 * MiB)).toBe(4);
    // 100 MiB free: the 3 extra sets (96 MiB) do not fit in 50 MiB; one does.
    expect(tuneRotationSets(32 * MiB, 100 * MiB)).toBe(2);
    expect(tuneRotationSets(32 * MiB, 63 * MiB)).toBe(1);
    expect(tuneRotationSets(32 * MiB, 0)).toBe(1);
    expect(tuneRotationSets(1000, 1e12)).toBe(MAX_ROTATION_SETS);
    expect(tuneRotationSets(ROTATE_BELOW_BYTES, 1e12)).toBe(1);
    expect(tuneRotationSets(0, 1e12)).toBe(1);
  });
});

describe('autotune statistics', () => {
  it('median of odd and even lists, without mutating the input', () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(
      new InvalidArgumentError('values', 'a non-empty array of numbers', []),
    );
    expect(() => median('3' as unknown as number[])).toThrow(InvalidArgumentError);
  });

  it('times short finalists over more runs, within bounds', () => {
    // 2 ms of runs, 5 to 30 of them.
    expect(tuneReps(0.015, 5, 30, 2)).toBe(30);
    expect(tuneReps(0.2, 5, 30, 2)).toBe(10);
    expect(tuneReps(0.19, 5, 30, 2)).toBe(11);
    expect(tuneReps(1, 5, 30, 2)).toBe(5);
    expect(tuneReps(40, 5, 30, 2)).toBe(5);
    expect(tuneReps(Number.POSITIVE_INFINITY, 5, 30, 2)).toBe(5);
    expect(tuneReps(0, 5, 30, 2)).toBe(5);
    expect(tuneReps(Number.NaN, 5, 30, 2)).toBe(5);
  });
});

describe('detourWins', () => {
  it('takes the detour only when it is at least 2% faster', () => {
    expect(detourWins(0.97, 1)).toBe(true);
    expect(detourWins(0.99, 1)).toBe(false);
    expect(detourWins(1, 1)).toBe(false);
    expect(detourWins(0.5, Number.POSITIVE_INFINITY)).toBe(true);
    expect(detourWins(Number.POSITIVE_INFINITY, 1)).toBe(false);
    // The fake driver's times: 0 against -0.25.
    expect(detourWins(-0.25, 0)).toBe(true);
    expect(detourWins(0, 0)).toBe(false);
    expect(detourWins(0.95, 1, 0.1)).toBe(false);
  });
});
