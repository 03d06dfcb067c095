// An NCCL without ncclSend/ncclRecv (the fake built without them): calling one is an
// UnsupportedError naming it and the library, before any argument is read; the rest still works.
import { UnsupportedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import * as n from './index.js';
import { useFakes } from './test-support.js';

const library = useFakes({ noP2p: true });

describe('an NCCL without point-to-point calls', () => {
  it('probe lists them as missing', () => {
    expect([...n.probe().missingSymbols].sort()).toEqual(['ncclRecv', 'ncclSend']);
  });

  it('calling one is an UnsupportedError naming it and the library, whatever the arguments', () => {
    for (const name of ['ncclSend', 'ncclRecv'] as const) {
      for (const args of [[], [null], ['x', 1n, Symbol('y')]]) {
        expect(() => (Reflect.get(n, name) as (...a: unknown[]) => unknown)(...args)).toThrow(
          new UnsupportedError(
            `${name} is not exported by ${library} (NCCL 2.27.3): this NCCL cannot run it (probe().missingSymbols lists every such function)`,
          ),
        );
      }
    }
    expect(n.ncclGetVersion()).toEqual({ status: 0, version: 22703 });
  });
});
