// A cuBLASLt without cublasLtMatmulAlgoGetHeuristic (the fake built without it): calling it is an
// UnsupportedError naming it and the library, before any argument is read; the rest still works.
import { UnsupportedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as lt from './index.js';
import { useFakes } from './test-support.js';

const library = useFakes({ partial: true });

describe('a cuBLASLt without the heuristic', () => {
  it('probe lists it as missing', () => {
    expect(lt.probe().missingSymbols).toEqual(['cublasLtMatmulAlgoGetHeuristic']);
  });

  it('calling it is an UnsupportedError naming it and the library, whatever the arguments', () => {
    for (const args of [[], [null], ['x', 1n, Symbol('y')]]) {
      expect(() =>
        (lt.cublasLtMatmulAlgoGetHeuristic as (...a: unknown[]) => unknown)(...args),
      ).toThrow(
        new UnsupportedError(
          `cublasLtMatmulAlgoGetHeuristic is not exported by ${library} (cuBLASLt 13.1.0): this cuBLASLt cannot run it (probe().missingSymbols lists every such function)`,
        ),
      );
    }
    expect(lt.cublasLtGetVersion()).toBe(130100);
  });
});
