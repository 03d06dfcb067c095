import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { formatCase, loadSuite, toProblem } from './load.js';
import { SHARED_SUITE_SOURCE } from './shared-suite.js';

const SUITE_FILE = fileURLToPath(new URL('../../suites/conv3d-suite.json', import.meta.url));

const VALID = {
  name: 'ok',
  n: 2,
  c_in: 4,
  c_out: 6,
  in: [5, 6, 7],
  k: [3, 3, 3],
  pad: [1, 1, 1],
  stride: [1, 2, 1],
  dil: [1, 1, 2],
  groups: 2,
};

/** The error loadSuite raises when the 4th case is VALID with `patch` applied. */
function errorFor(patch: Record<string, unknown>): string {
  const bad: Record<string, unknown> = { ...VALID, name: 'bad', ...patch };
  for (const key of Object.keys(patch)) if (patch[key] === undefined) delete bad[key];
  const cases = [{ ...VALID, name: 'a' }, { ...VALID, name: 'b' }, { ...VALID, name: 'c' }, bad];
  try {
    loadSuite({ cases });
  } catch (error) {
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('loadSuite accepted a bad case');
}

describe('loadSuite', () => {
  it('reads the shared suite file by path, and the bundled copy matches it', () => {
    const fromFile = loadSuite(SUITE_FILE);
    expect(fromFile).toHaveLength(10);
    expect(fromFile[0]).toEqual({
      name: 'c3d-conv2',
      n: 8,
      cIn: 64,
      cOut: 128,
      in: [16, 56, 56],
      k: [3, 3, 3],
      pad: [1, 1, 1],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
      groups: 1,
    });
    expect(fromFile[4]!.groups).toBe(192);
    expect(JSON.parse(readFileSync(SUITE_FILE, 'utf8'))).toEqual(SHARED_SUITE_SOURCE);
    expect(loadSuite(SHARED_SUITE_SOURCE)).toEqual(fromFile);
  });

  it('accepts JSON text and fills in the defaults', () => {
    const cases = loadSuite(
      '{"cases": [{"name": "x", "n": 1, "c_in": 3, "c_out": 5, "in": [4, 4, 4], "k": [1, 1, 1]}]}',
    );
    expect(cases).toEqual([
      {
        name: 'x',
        n: 1,
        cIn: 3,
        cOut: 5,
        in: [4, 4, 4],
        k: [1, 1, 1],
        pad: [0, 0, 0],
        stride: [1, 1, 1],
        dil: [1, 1, 1],
        groups: 1,
      },
    ]);
    expect(formatCase(cases[0]!)).toBe('n=1 c=3→5 in=4×4×4 k=1×1×1');
    expect(toProblem(cases[0]!, 'ndhwc')).toEqual({
      n: 1,
      cIn: 3,
      cOut: 5,
      in: [4, 4, 4],
      k: [1, 1, 1],
      pad: [0, 0, 0],
      stride: [1, 1, 1],
      dil: [1, 1, 1],
      groups: 1,
      layout: 'ndhwc',
    });
  });

  it('names the case and the field of every bad value', () => {
    const at = 'cases[3]';
    expect(errorFor({ name: undefined })).toBe(
      `Expected a non-empty string for ${at}.name but received undefined`,
    );
    expect(errorFor({ name: ' ' })).toBe(
      `Expected a non-empty string for ${at}.name but received " " of type string`,
    );
    expect(errorFor({ n: 2.5 })).toBe(
      `Expected a positive integer for ${at}.n but received 2.5 of type number`,
    );
    expect(errorFor({ c_in: -1 })).toBe(
      `Expected a positive integer for ${at}.c_in but received -1 of type number`,
    );
    expect(errorFor({ c_out: '8' })).toBe(
      `Expected a positive integer for ${at}.c_out but received "8" of type string`,
    );
    expect(errorFor({ in: undefined })).toBe(
      `Expected an array of 3 positive integers for ${at}.in but received undefined`,
    );
    expect(errorFor({ in: [1, 2] })).toBe(
      `Expected an array of 3 positive integers for ${at}.in but received an array of length 2`,
    );
    expect(errorFor({ in: [5, 0, 7] })).toBe(
      `Expected a positive integer for ${at}.in[1] but received 0 of type number`,
    );
    expect(errorFor({ k: undefined })).toBe(
      `Expected an array of 3 positive integers for ${at}.k but received undefined`,
    );
    expect(errorFor({ k: '3' })).toBe(
      `Expected an array of 3 positive integers for ${at}.k but received "3" of type string`,
    );
    expect(errorFor({ pad: [1, 1, -1] })).toBe(
      `Expected a non-negative integer for ${at}.pad[2] but received -1 of type number`,
    );
    expect(errorFor({ pad: 1 })).toBe(
      `Expected an array of 3 non-negative integers for ${at}.pad but received 1 of type number`,
    );
    expect(errorFor({ stride: [1, 0, 1] })).toBe(
      `Expected a positive integer for ${at}.stride[1] but received 0 of type number`,
    );
    expect(errorFor({ dil: [null, 1, 1] })).toBe(
      `Expected a positive integer for ${at}.dil[0] but received null`,
    );
    expect(errorFor({ groups: 0 })).toBe(
      `Expected a positive integer for ${at}.groups but received 0 of type number`,
    );
    expect(errorFor({ groups: 3 })).toBe(
      `Expected a divisor of both c_in 4 and c_out 6 for ${at}.groups but received 3 of type number`,
    );
    expect(errorFor({ in: [2, 6, 7], k: [5, 3, 3], pad: [0, 1, 1] })).toBe(
      `Expected an extent of at least 5 (kernel footprint dil·(k−1)+1 = 5 minus 2·pad 0) for ${at}.in[0] but received 2 of type number`,
    );
    expect(errorFor({ dilation: [1, 1, 1] })).toBe(
      `Expected a known case field (name, n, c_in, c_out, in, k, pad, stride, dil, groups) for ${at}.dilation but received an array of length 3`,
    );
    expect(errorFor({ name: 'b' })).toBe(
      `Expected a name no earlier case uses for ${at}.name but received "b" of type string`,
    );
  });

  it('rejects a malformed suite', () => {
    expect(() => loadSuite({})).toThrow(
      'Expected a non-empty array of cases for cases but received undefined',
    );
    expect(() => loadSuite({ cases: [] })).toThrow(
      'Expected a non-empty array of cases for cases but received an array of length 0',
    );
    expect(() => loadSuite({ cases: [5] })).toThrow(
      'Expected a case object for cases[0] but received 5 of type number',
    );
    expect(() => loadSuite('{"cases": [')).toThrow(
      /^Expected valid JSON \(.+\) for suite but received/,
    );
    expect(() => loadSuite('/nonexistent/suite.json')).toThrow(
      'Expected a readable suite file or JSON text for suite but received "/nonexistent/suite.json" of type string',
    );
    expect(() => loadSuite('{"cases": 1}')).toThrow(
      'Expected a non-empty array of cases for cases but received 1 of type number',
    );
  });
});

// The package keeps its own copy of the project's shared suite; it must stay the same file.
const PROJECT_SUITE = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  '..',
  'shared',
  'bench',
  'conv3d-suite.json',
);
describe.skipIf(!existsSync(PROJECT_SUITE))(
  `suites/conv3d-suite.json against ${PROJECT_SUITE} (skipped: that file is not beside this checkout)`,
  () => {
    it('is a verbatim copy', () => {
      expect(readFileSync(SUITE_FILE, 'utf8')).toBe(readFileSync(PROJECT_SUITE, 'utf8'));
    });
  },
);

describe('suites/depthwise-full.json', () => {
  it('loads, holds only depthwise cases, and its X3D layer is the shared suite’s', () => {
    const file = fileURLToPath(new URL('../../suites/depthwise-full.json', import.meta.url));
    const cases = loadSuite(file);
    expect(cases.map((c) => c.name)).toEqual([
      'x3d-depthwise',
      'depthwise-c100-stride2',
      'depthwise-k5-c256',
      'depthwise-deep-dil2',
    ]);
    for (const c of cases) expect([c.groups, c.cOut]).toEqual([c.cIn, c.cIn]);
    // The last one's filter, staged as f32, is over the 48 KiB of shared memory `clvec` may
    // take, so its NDHWC rows run `gathercl`; the others' fit.
    const stagedBytes = (c: (typeof cases)[number]) => c.cIn * c.k[0]! * c.k[1]! * c.k[2]! * 4;
    expect(cases.map((c) => stagedBytes(c) > 48 * 1024)).toEqual([false, false, true, false]);
    const shared = loadSuite(SHARED_SUITE_SOURCE).find((c) => c.name === 'x3d-depthwise');
    expect(cases[0]).toEqual(shared);
  });
});

describe('suites/pointwise.json', () => {
  it('loads, holds only layers whose backward-data is a forward pass, the first the shared suite’s', () => {
    const file = fileURLToPath(new URL('../../suites/pointwise.json', import.meta.url));
    const cases = loadSuite(file);
    expect(cases.map((c) => c.name)).toEqual([
      'pointwise',
      'pointwise-expand',
      'pointwise-dilated',
    ]);
    for (const c of cases) {
      expect([...c.k, ...c.stride, c.groups]).toEqual([1, 1, 1, 1, 1, 1, 1]);
      expect(c.pad).toEqual([0, 0, 0]);
    }
    const shared = loadSuite(SHARED_SUITE_SOURCE).find((c) => c.name === 'pointwise');
    expect(cases[0]).toEqual(shared);
  });
});
