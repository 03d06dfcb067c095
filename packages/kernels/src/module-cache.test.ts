import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type KernelImages, moduleSources, perDevice } from './module-cache.js';

const device = (ordinal: number, major = 9, minor = 0) => ({
  ordinal,
  name: `fake ${ordinal}`,
  computeCapability: { major, minor },
});
const module = { getFunction: () => ({ launch: () => {} }) };
const pack = (bytes: Uint8Array) => brotliCompressSync(bytes).toString('base64');
const CUBIN_90 = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 90]);
const CUBIN_86 = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 86]);
/** A unit with cubins for sm_90 and sm_86 only. */
const unit = (name: string): KernelImages => ({
  unit: name,
  ptx: 'PTX',
  sass: { sm_90: pack(CUBIN_90), sm_86: pack(CUBIN_86) },
});
const ptxOnly = (name: string): KernelImages => ({ unit: name, ptx: 'PTX', sass: {} });
/** What a loader was asked for: 'PTX', or the cubin's last byte (its arch in these fakes). */
const seen = (image: string | Uint8Array) =>
  typeof image === 'string' ? image : `cubin ${image[image.length - 1]}`;

describe('perDevice', () => {
  it('loads and builds once per device ordinal', () => {
    const cache = new Map<number, { n: number } | Error>();
    const loaded: string[] = [];
    const load = (image: string | Uint8Array) => {
      loaded.push(seen(image));
      return module;
    };
    let built = 0;
    const make = () => ({ n: ++built });
    const a = perDevice(cache, device(0), ptxOnly('once'), load, make);
    expect(perDevice(cache, device(0), ptxOnly('once'), load, make)).toBe(a);
    const b = perDevice(cache, device(1), ptxOnly('once'), load, make);
    expect([a, b]).toEqual([{ n: 1 }, { n: 2 }]);
    expect(loaded).toEqual(['PTX', 'PTX']);
  });

  it("loads the cubin of the device's exact architecture, unpacked, and says so", () => {
    const loaded: string[] = [];
    const load = (image: string | Uint8Array) => {
      loaded.push(seen(image));
      return module;
    };
    perDevice(new Map(), device(0, 9, 0), unit('exact-90'), load, () => ({}));
    perDevice(new Map(), device(0, 8, 6), unit('exact-86'), load, () => ({}));
    expect(loaded).toEqual(['cubin 90', 'cubin 86']);
    expect(moduleSources()).toMatchObject({ 'exact-90': 'sass sm_90', 'exact-86': 'sass sm_86' });
  });

  it('loads the PTX where no cubin is of the exact architecture (8.9, 10.0 beside 9.0 and 8.6)', () => {
    const loaded: string[] = [];
    const load = (image: string | Uint8Array) => {
      loaded.push(seen(image));
      return module;
    };
    perDevice(new Map(), device(0, 8, 9), unit('none-89'), load, () => ({}));
    perDevice(new Map(), device(0, 10, 0), unit('none-100'), load, () => ({}));
    expect(loaded).toEqual(['PTX', 'PTX']);
    expect(moduleSources()).toMatchObject({ 'none-89': 'ptx', 'none-100': 'ptx' });
  });

  it('falls back to the PTX when the cubin does not load, and keeps nothing of that failure', () => {
    const cache = new Map<number, { from: string } | Error>();
    const loaded: string[] = [];
    const load = (image: string | Uint8Array) => {
      loaded.push(seen(image));
      if (typeof image !== 'string') throw new Error('CUDA_ERROR_NO_BINARY_FOR_GPU');
      return module;
    };
    const made = perDevice(cache, device(0), unit('cubin-throws'), load, () => ({ from: 'ptx' }));
    expect(made).toEqual({ from: 'ptx' });
    expect(cache.get(0)).toBe(made);
    expect(perDevice(cache, device(0), unit('cubin-throws'), load, () => ({ from: 'x' }))).toBe(
      made,
    );
    expect(loaded).toEqual(['cubin 90', 'PTX']);
    expect(moduleSources()['cubin-throws']).toBe('ptx');
  });

  it('falls back to the PTX when the cubin loads but its kernels do not build, unloading it', () => {
    const disposed: string[] = [];
    const load = (image: string | Uint8Array) => ({
      getFunction: (name: string) => {
        if (typeof image !== 'string') throw new Error(`CUDA_ERROR_NOT_FOUND: ${name}`);
        return { launch: () => {} };
      },
      dispose: () => disposed.push(seen(image)),
    });
    const made = perDevice(new Map(), device(0), unit('cubin-no-kernel'), load, (m) => ({
      k: m.getFunction('k'),
    }));
    expect(made).not.toBeInstanceOf(Error);
    expect(disposed).toEqual(['cubin 90']);
    expect(moduleSources()['cubin-no-kernel']).toBe('ptx');
  });

  it("remembers the PTX's Error when the cubin and the PTX both fail, trying each once", () => {
    const cache = new Map<number, object | Error>();
    const tried: string[] = [];
    const failing = (image: string | Uint8Array) => {
      tried.push(seen(image));
      throw new Error(typeof image === 'string' ? 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION' : 'cubin');
    };
    const first = perDevice(cache, device(0), unit('both-fail'), failing, () => ({}));
    expect(first).toBeInstanceOf(Error);
    expect((first as Error).message).toBe('CUDA_ERROR_UNSUPPORTED_PTX_VERSION');
    expect(perDevice(cache, device(0), unit('both-fail'), failing, () => ({}))).toBe(first);
    expect(tried).toEqual(['cubin 90', 'PTX']);
    expect(moduleSources()['both-fail']).toBe('failed');
  });

  it('remembers a module that does not load, or a build that throws, as its Error', () => {
    const cache = new Map<number, object | Error>();
    let tries = 0;
    const failing = () => {
      tries++;
      throw new Error('CUDA_ERROR_UNSUPPORTED_PTX_VERSION');
    };
    const first = perDevice(cache, device(0), ptxOnly('fails'), failing, () => ({}));
    expect(first).toBeInstanceOf(Error);
    expect((first as Error).message).toBe('CUDA_ERROR_UNSUPPORTED_PTX_VERSION');
    expect(perDevice(cache, device(0), ptxOnly('fails'), failing, () => ({}))).toBe(first);
    expect(tries).toBe(1);
    const missing = perDevice(
      cache,
      device(1),
      ptxOnly('fails'),
      () => module,
      () => {
        throw 'no such kernel';
      },
    );
    expect(missing).toEqual(new Error('no such kernel'));
  });
});
