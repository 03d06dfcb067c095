/**
 * The exported pure helpers of this package given null or garbage throw InvalidArgumentError
 * naming what was expected and what was received, instead of "Cannot read properties of null" or
 * a NaN / Infinity / "NOTE_null" result.
 */
import { ElementKind, InvalidArgumentError, resolvePlanPreference } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { autotuneKey, defaultAutotuneCachePath } from './autotune-cache.js';
import { convOutputExtent, stridesFor } from './descriptor.js';
import {
  CONV3D_ERRATA,
  errataFor,
  erratumPinnedRefusal,
  erratumRefusal,
  formatCudnnVersion,
} from './errata.js';
import { smallProblem } from './fake-cudnn.test-helpers.js';
import {
  engineAllowed,
  engineRejection,
  intendedMathPrecision,
  mathPrecisionOfEngine,
  median,
  numericalNoteName,
  pickLegacyAlgorithm,
  pinnedMathType,
  rotationSets,
  tuneRotationSets,
} from './policy.js';

function message(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  return 'accepted';
}

const desc = smallProblem(ElementKind.F16);
const pref = resolvePlanPreference();
const erratum = CONV3D_ERRATA[0]!;
const keyParts = {
  problem: 'p',
  pass: 'fw',
  scalingKind: 'f32',
  deterministic: true,
  allowTf32: false,
  deviceName: 'd',
  computeCapability: { major: 9, minor: 0 },
  cudnnVersion: 91400,
};

describe('bad arguments to the pure helpers', () => {
  it('autotuneKey', () => {
    expect(message(() => autotuneKey(null as never))).toBe(
      'Expected an object {problem, pass, scalingKind, deterministic, allowTf32, deviceName, computeCapability, cudnnVersion} for parts but received null',
    );
    expect(message(() => autotuneKey({ ...keyParts, computeCapability: null } as never))).toBe(
      'Expected an object {major, minor} for parts.computeCapability but received null',
    );
    expect(
      message(() => autotuneKey({ ...keyParts, computeCapability: { major: 9 } } as never)),
    ).toBe(
      'Expected a non-negative integer for parts.computeCapability.minor but received undefined',
    );
    expect(message(() => autotuneKey({ ...keyParts, deterministic: 'yes' } as never))).toBe(
      'Expected a boolean for parts.deterministic but received "yes" of type string',
    );
    expect(message(() => autotuneKey({ ...keyParts, problem: Symbol('p') } as never))).toBe(
      'Expected a string for parts.problem but received Symbol(p) of type symbol',
    );
    expect(message(() => autotuneKey({ ...keyParts, cudnnVersion: Number.NaN }))).toBe(
      'Expected a non-negative integer for parts.cudnnVersion but received NaN of type number',
    );
  });

  it('defaultAutotuneCachePath', () => {
    expect(message(() => defaultAutotuneCachePath(null as never))).toBe(
      'Expected an environment object such as process.env for env but received null',
    );
    expect(message(() => defaultAutotuneCachePath({ BARACUDA_AUTOTUNE_CACHE: 5 } as never))).toBe(
      'Expected a string or undefined for env.BARACUDA_AUTOTUNE_CACHE but received 5 of type number',
    );
  });

  it('convOutputExtent: no NaN or Infinity out of a stride 0 or a null', () => {
    expect(message(() => convOutputExtent(8, 1, 1, 3, 0))).toBe(
      'Expected an integer between 1 and 2147483647 for stride but received 0 of type number',
    );
    expect(message(() => convOutputExtent(null as never, 1, 1, 3, 1))).toBe(
      'Expected an integer between 0 and 2147483647 for input but received null',
    );
    expect(message(() => convOutputExtent(8, -1, 1, 3, 1))).toBe(
      'Expected an integer between 0 and 2147483647 for pad but received -1 of type number',
    );
    expect(message(() => convOutputExtent(8, 0, 0, 3, 1))).toBe(
      'Expected an integer between 1 and 2147483647 for dilation but received 0 of type number',
    );
    expect(message(() => convOutputExtent(8, 0, 1, 1.5, 1))).toBe(
      'Expected an integer between 1 and 2147483647 for filter but received 1.5 of type number',
    );
    // cuDNN's descriptors take int32 extents.
    expect(message(() => convOutputExtent(2 ** 31, 0, 1, 1, 1))).toBe(
      'Expected an integer between 0 and 2147483647 for input but received 2147483648 of type number',
    );
    expect(convOutputExtent(8, 1, 1, 3, 2)).toBe(4);
    // An impossible window is still reported as a non-positive extent, not refused.
    expect(convOutputExtent(2, 0, 1, 5, 1)).toBe(-2);
  });

  it('stridesFor', () => {
    expect(message(() => stridesFor(null as never, 'ncdhw'))).toBe(
      'Expected an array of 5 integers for shape but received null',
    );
    expect(message(() => stridesFor([1, 2, 3], 'ncdhw'))).toBe(
      'Expected an array of 5 integers for shape but received an array of length 3',
    );
    expect(message(() => stridesFor([1, 2, 3, 4, 5], 'nhwc' as never))).toBe(
      `Expected 'ncdhw' or 'ndhwc' for layout but received "nhwc" of type string`,
    );
    expect(message(() => stridesFor([2 ** 31, 2, 3, 4, 5], 'ncdhw'))).toBe(
      'Expected an integer between 0 and 2147483647 for shape[0] but received 2147483648 of type number',
    );
    expect(stridesFor([1, 2, 3, 4, 5], 'ndhwc')).toEqual([120, 1, 40, 10, 2]);
  });

  it("a descriptor's validate(expectedElement)", () => {
    expect(message(() => desc.validate(Symbol('e') as never))).toMatch(
      /^Expected one of f16, .* for expectedElement but received Symbol\(e\) of type symbol$/,
    );
  });

  it('errataFor, erratumRefusal, erratumPinnedRefusal, formatCudnnVersion', () => {
    expect(message(() => errataFor(null as never, 91400, pref))).toBe(
      'Expected a Conv3dDescriptor for desc but received null',
    );
    expect(message(() => errataFor(desc, Symbol('v') as never, pref))).toBe(
      'Expected a non-negative integer for cudnnVersion but received Symbol(v) of type symbol',
    );
    expect(message(() => errataFor(desc, 91400, null as never))).toBe(
      'Expected a PlanPreference object for preference but received null',
    );
    expect(message(() => errataFor(desc, 91400, {} as never))).toBe(
      'Expected a boolean for preference.allowTf32 but received undefined',
    );
    expect(message(() => errataFor(desc, 91400, pref, [null] as never))).toBe(
      'Expected an Erratum object for table[0] but received null',
    );
    expect(errataFor(desc, 91400, pref).map((e) => e.id)).toEqual(['cudnn-9.8-conv3d-half-ncdhw']);
    expect(message(() => erratumRefusal(null as never, desc, 91400))).toBe(
      'Expected an Erratum object for erratum but received null',
    );
    expect(message(() => erratumRefusal({ ...erratum, links: null } as never, desc, 91400))).toBe(
      'Expected an array of links for erratum.links but received null',
    );
    expect(message(() => erratumPinnedRefusal(erratum, {} as never, 91400))).toBe(
      'Expected a Conv3dDescriptor for desc but received an object',
    );
    expect(message(() => erratumRefusal(erratum, desc, 91400, 7 as never))).toBe(
      'Expected a string for reason but received 7 of type number',
    );
    expect(message(() => formatCudnnVersion(undefined as never))).toBe(
      'Expected a non-negative integer for code but received undefined',
    );
    expect(message(() => formatCudnnVersion(Number.POSITIVE_INFINITY))).toBe(
      'Expected a non-negative integer for code but received Infinity of type number',
    );
    expect(formatCudnnVersion(91400)).toBe('9.14.0');
  });

  it('engineRejection, engineAllowed, mathPrecisionOfEngine', () => {
    expect(message(() => engineRejection(null as never, pref, ElementKind.F32))).toBe(
      'Expected an array of numerical-note names for notes but received null',
    );
    expect(message(() => engineAllowed([], null as never, ElementKind.F32))).toBe(
      'Expected a preference object {deterministic, allowTf32} for preference but received null',
    );
    expect(message(() => engineAllowed([], {} as never, ElementKind.F32))).toBe(
      'Expected a boolean for preference.deterministic but received undefined',
    );
    expect(message(() => engineRejection([], pref, 'i8' as never))).toBe(
      'Expected one of f16, bf16, f32, f64 for element but received "i8" of type string',
    );
    expect(message(() => engineRejection(['TENSOR_CORE', 'FAST'], pref, ElementKind.F32))).toBe(
      'Expected a numerical-note name (one of NUMERICAL_NOTE_NAMES, or NOTE_<n>) for notes[1] but received "FAST" of type string',
    );
    expect(message(() => engineAllowed(new Array(2), pref, ElementKind.F32))).toBe(
      'Expected a numerical-note name (one of NUMERICAL_NOTE_NAMES, or NOTE_<n>) for notes[0] but received undefined',
    );
    expect(engineAllowed(['NOTE_12', 'WINOGRAD'], pref, ElementKind.F32)).toBe(true);
    expect(message(() => mathPrecisionOfEngine({} as never, ElementKind.F32))).toBe(
      'Expected an array of numerical-note names for notes but received an object',
    );
    expect(engineRejection(['TENSOR_CORE'], pref, ElementKind.F32)).toBe(
      'uses TF32 tensor cores on f32 data (numerical note TENSOR_CORE) while allowTf32 is false',
    );
  });

  it('intendedMathPrecision, pinnedMathType, pickLegacyAlgorithm', () => {
    expect(message(() => intendedMathPrecision(null as never, true))).toBe(
      'Expected one of f16, bf16, f32, f64 for element but received null',
    );
    expect(message(() => pinnedMathType('i8' as never, true))).toBe(
      'Expected one of f16, bf16, f32, f64 for element but received "i8" of type string',
    );
    expect(message(() => pinnedMathType(ElementKind.F32, 'yes' as never))).toBe(
      'Expected a boolean for allowTf32 but received "yes" of type string',
    );
    const limits = { ...pref, maxWorkspaceBytes: 1024 };
    expect(message(() => pickLegacyAlgorithm(null as never, limits, ElementKind.F32))).toBe(
      'Expected an array of cuDNN algorithm perf results for perfs but received null',
    );
    expect(message(() => pickLegacyAlgorithm([null] as never, limits, ElementKind.F32))).toBe(
      'Expected a perf result {algo, status, memory, determinism, mathType} for perfs[0] but received null',
    );
    expect(
      message(() =>
        pickLegacyAlgorithm([], { ...limits, maxWorkspaceBytes: Number.NaN }, ElementKind.F32),
      ),
    ).toBe(
      'Expected a finite number >= 0 for preference.maxWorkspaceBytes but received NaN of type number',
    );
    const nanMemory = { algo: 1, status: 0, memory: Number.NaN, determinism: 1, mathType: 3 };
    expect(pickLegacyAlgorithm([nanMemory], limits, ElementKind.F32)).toBeNull();
  });

  it('rotationSets and tuneRotationSets: byte counts past 2^53 - 1', () => {
    expect(message(() => rotationSets(2 ** 53))).toBe(
      'Expected a byte count of at most 2^53 - 1 for workingSetBytes but received 9007199254740992 of type number',
    );
    expect(message(() => rotationSets(100, 2 ** 53))).toBe(
      'Expected a byte count of at most 2^53 - 1 for below but received 9007199254740992 of type number',
    );
    expect(message(() => tuneRotationSets(100, 2 ** 60))).toBe(
      'Expected a byte count of at most 2^53 - 1 for freeBytes but received 1152921504606847000 of type number',
    );
    expect(rotationSets(2 ** 53 - 1)).toBe(1);
  });

  it('median and numericalNoteName', () => {
    expect(message(() => median([1, Number.NaN]))).toBe(
      'Expected a number (not NaN) for values[1] but received NaN of type number',
    );
    expect(message(() => median([1, '2'] as never))).toBe(
      'Expected a number (not NaN) for values[1] but received "2" of type string',
    );
    expect(message(() => numericalNoteName(null as never))).toBe(
      'Expected a non-negative integer for value but received null',
    );
    expect(message(() => numericalNoteName(-1))).toBe(
      'Expected a non-negative integer for value but received -1 of type number',
    );
    expect(numericalNoteName(4)).toBe('NONDETERMINISTIC');
    expect(numericalNoteName(42)).toBe('NOTE_42');
  });
});
