import { describe, expect, it } from 'vitest';
import { perDevice } from './module-cache.js';

describe('perDevice', () => {
  const device = (ordinal: number) => ({
    ordinal,
    name: `fake ${ordinal}`,
    computeCapability: { major: 9, minor: 0 },
  });
  const module = { getFunction: () => ({ launch: () => {} }) };

  it('loads and builds once per device ordinal', () => {
    const cache = new Map<number, { n: number } | Error>();
    const loaded: string[] = [];
    const load = (ptx: string) => {
      loaded.push(ptx);
      return module;
    };
    let built = 0;
    const make = () => ({ n: ++built });
    const a = perDevice(cache, device(0), 'PTX', load, make);
    expect(perDevice(cache, device(0), 'PTX', load, make)).toBe(a);
    const b = perDevice(cache, device(1), 'PTX', load, make);
    expect([a, b]).toEqual([{ n: 1 }, { n: 2 }]);
    expect(loaded).toEqual(['PTX', 'PTX']);
  });

  it('remembers a module that does not load, or a build that throws, as its Error', () => {
    const cache = new Map<number, object | Error>();
    let tries = 0;
    const failing = () => {
      tries++;
      throw new Error('CUDA_ERROR_UNSUPPORTED_PTX_VERSION');
    };
    const first = perDevice(cache, device(0), 'PTX', failing, () => ({}));
    expect(first).toBeInstanceOf(Error);
    expect((first as Error).message).toBe('CUDA_ERROR_UNSUPPORTED_PTX_VERSION');
    expect(perDevice(cache, device(0), 'PTX', failing, () => ({}))).toBe(first);
    expect(tries).toBe(1);
    const missing = perDevice(
      cache,
      device(1),
      'PTX',
      () => module,
      () => {
        throw 'no such kernel';
      },
    );
    expect(missing).toEqual(new Error('no such kernel'));
  });
});
