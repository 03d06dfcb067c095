import { describe, expect, it } from 'vitest';
import { LibraryNotFoundError, UnsupportedError } from './errors.js';
import { decodeLibraryVersion, NativeLibrary, type NativeLibraryFound } from './native-library.js';

interface FakeBinding {
  probe(): NativeLibraryFound;
  fooRun(x: number): number;
  fooGone(): number;
  fooAsync(): number;
}

const FOUND: NativeLibraryFound = {
  available: true,
  version: 22703,
  libraryPath: '/lib/libfoo.so.2',
  tried: [{ path: 'libfoo.so.2', error: '' }],
  missingSymbols: ['fooGone', 'fooSync'],
  reason: '',
};

function library(addon: () => FakeBinding) {
  return new NativeLibrary<FakeBinding>({
    name: 'Foo',
    library: 'libfoo.so.2 (Foo 2)',
    solutions: ['Install Foo'],
    loadAddon: addon,
    cName: (name) => (name === 'fooAsync' ? 'fooSync' : name),
  });
}

const binding = (found: NativeLibraryFound): FakeBinding => ({
  probe: () => found,
  fooRun: (x) => x * 2,
  fooGone: () => 1,
  fooAsync: () => 2,
});

describe('NativeLibrary', () => {
  it('decodes major * 10000 + minor * 100 + patch', () => {
    expect(decodeLibraryVersion(22703)).toEqual({ major: 2, minor: 27, patch: 3, raw: 22703 });
  });

  it('probes without throwing: a missing addon is reported with what it searched', () => {
    const missing = new LibraryNotFoundError(
      'addon',
      [{ path: '/x/foo.node', error: 'ENOENT' }],
      [],
    );
    const lib = library(() => {
      throw missing;
    });
    expect(lib.probe()).toEqual({
      available: false,
      version: null,
      libraryPath: null,
      tried: [{ path: '/x/foo.node', error: 'ENOENT' }],
      missingSymbols: [],
      reason: missing.message,
    });
    expect(() => lib.load()).toThrow(LibraryNotFoundError);
    expect(() => lib.raw('fooRun')(1)).toThrow(LibraryNotFoundError);
  });

  it('reports the library found, and load names the library and its solutions when it is not', () => {
    expect(library(() => binding(FOUND)).probe()).toMatchObject({
      available: true,
      version: { major: 2, minor: 27, patch: 3 },
      libraryPath: '/lib/libfoo.so.2',
      reason: null,
    });
    const absent = { ...FOUND, available: false, reason: 'no libfoo' };
    const e = (() => {
      try {
        library(() => binding(absent)).load();
      } catch (error) {
        return error as LibraryNotFoundError;
      }
      throw new Error('load did not throw');
    })();
    expect(e).toBeInstanceOf(LibraryNotFoundError);
    expect(e.message).toContain('libfoo.so.2 (Foo 2)');
    expect(e.message).toContain('Install Foo');
  });

  it('loads at the first raw call, tries again after a failure, and refuses a missing symbol by its C name', () => {
    let calls = 0;
    const lib = library(() => {
      calls++;
      if (calls === 1) throw new LibraryNotFoundError('addon', [], []);
      return binding(FOUND);
    });
    const run = lib.raw('fooRun');
    expect(run.name).toBe('fooRun');
    expect(calls).toBe(0);
    expect(() => run(2)).toThrow(LibraryNotFoundError);
    expect(run(2)).toBe(4);
    expect(() => lib.raw('fooGone')()).toThrow(
      new UnsupportedError(
        'fooGone is not exported by /lib/libfoo.so.2 (Foo 2.27.3): this Foo cannot run it (probe().missingSymbols lists every such function)',
      ),
    );
    expect(() => lib.raw('fooAsync')()).toThrow(/^fooSync is not exported by/);
  });
});
